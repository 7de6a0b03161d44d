package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLine(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "931c68f019826d4d0f7ac2b1e33c7e3b8a2e8d11"
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go install of a release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, true, "cturi v1.2.3 go1.26.8"},
		{"a checkout, stamped by the go command", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261127045056-931c68f01982+dirty"}, Settings: vcs(rev, "true")}, true,
			"cturi v0.0.0-20261127045056-931c68f01982+dirty go1.26.8"},
		{"a checkout, version left to the VCS settings", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, true,
			"cturi (devel) 931c68f01982 go1.26.8"},
		{"uncommitted changes", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, true,
			"cturi (devel) 931c68f01982+dirty go1.26.8"},
		{"no VCS (-buildvcs=false)", &debug.BuildInfo{GoVersion: "go1.27.3", Main: debug.Module{Version: "(devel)"}}, true, "cturi (devel) go1.27.3"},
		{"a test binary", &debug.BuildInfo{GoVersion: "go1.26.8"}, true, "cturi (devel) go1.26.8"},
		{"a short revision", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc", "false")}, true, "cturi (devel) abc go1.26.8"},
		{"no build information", nil, false, "cturi (unknown) " + runtime.Version()},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, versionLine(tt.bi, tt.ok), tt.name)
	}
}

// TestVersionFlag: -version prints the one line and exits 0, whatever else
// the command line holds, as -h does; the mail command has no such flag.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"-version"}, {"-version", "x/y"}, {"-to", "ct", "-version"}} {
		out, errs, code := runCLI(t, "", args...)
		assert.Equal(t, exitOK, code, "%q", args)
		assert.Equal(t, versionLine(debug.ReadBuildInfo())+"\n", out, "%q", args)
		assert.Empty(t, errs)
	}
	out, _, code := runCLI(t, "", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "-version\n")
	_, _, code = runCLI(t, "", "mail", "-version")
	assert.Equal(t, exitUsage, code)
}

// TestVersionStamped builds cturi in this checkout as a user would, with
// the version control information the go command stamps, and finds the
// checkout's commit in the binary and in what -version prints: in the
// version (a tag on the commit or a pseudo-version naming it), or after
// "(devel)" when the module is not at its repository's root.
func TestVersionStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs in a git checkout: git rev-parse HEAD: %v", err)
		}
		t.Skipf("not a git checkout: %v", err)
	}
	commit := strings.TrimSpace(string(head))
	bin := filepath.Join(t.TempDir(), "cturi")
	// -buildvcs=true wins over a GOFLAGS=-buildvcs=false in the
	// environment or the go env file.
	msg, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", msg)

	// What the go command recorded, as go version -m shows it.
	info, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	var modVersion, revision string
	for line := range strings.Lines(string(info)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/cturi/cturi":
			modVersion = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			revision = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	require.Equal(t, commit, revision, "the commit recorded in the binary:\n%s", info)

	out, err := exec.Command(bin, "-version").Output()
	require.NoError(t, err)
	line := strings.TrimSuffix(string(out), "\n")
	want := "cturi " + modVersion
	if modVersion == "(devel)" {
		want += " " + commit[:12]
	}
	assert.True(t, strings.HasPrefix(line, want), "%q does not start with %q", line, want)
	assert.True(t, strings.HasSuffix(line, " "+runtime.Version()), line)
	if modVersion != "(devel)" && !strings.Contains(modVersion, commit[:12]) {
		tags, err := exec.Command("git", "tag", "--points-at", "HEAD").Output()
		require.NoError(t, err)
		assert.Contains(t, strings.Fields(string(tags)), strings.TrimSuffix(modVersion, "+dirty"), "neither a pseudo-version naming the commit nor its tag")
	}
}

// TestHelpAndVersionOutputFails: -h and -version report an error writing
// standard output, as the mapped values do.
func TestHelpAndVersionOutputFails(t *testing.T) {
	for _, tt := range []struct {
		args []string
		cmd  string
	}{{[]string{"-h"}, "cturi"}, {[]string{"-version"}, "cturi"}, {[]string{"mail", "-h"}, "cturi mail"}} {
		var errs bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &failingWriter{}, &errs)
		assert.Equal(t, exitFailed, code, "%q", tt.args)
		assert.Equal(t, tt.cmd+": writing standard output: no space left on device\n", errs.String(), "%q", tt.args)
	}
}
