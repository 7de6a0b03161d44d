package main

import (
	"runtime"
	"runtime/debug"
)

// versionLine returns what cturi -version prints, from the build
// information the go command records in the binary: the main module's
// version and the Go release that built it. The version is a release for
// go install github.com/cturi/cturi/cmd/cturi@vX.Y.Z, and for a build in
// a git checkout a pseudo-version naming its commit ("+dirty" with
// uncommitted changes). A build that is "(devel)" (a test binary, a
// go command that left the version to the VCS settings) gets the commit
// from those settings, when it has them (not with -buildvcs=false).
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
		v += " " + rev[:min(len(rev), 12)] + dirty
	}
	return "cturi " + v + " " + bi.GoVersion
}
