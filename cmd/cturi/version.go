package main

import (
	"runtime"
	"runtime/debug"
)

// versionLine returns what cturi -version prints, from the build
// information the go command records in the binary: the module's version
// (a release for go install github.com/cturi/cturi/cmd/cturi@vX.Y.Z,
// "(devel)" for a build in a checkout, which then names the commit, with
// "+dirty" for uncommitted changes), and the Go release that built it.
func versionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "cturi (unknown) " + runtime.Version()
	}
	v := bi.Main.Version
	if v == "" { // a test binary, or a build outside module mode
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" && v == "(devel)" {
		// A release's version names its commit already.
		v += " " + rev[:min(len(rev), 12)] + dirty
	}
	return "cturi " + v + " " + bi.GoVersion
}
