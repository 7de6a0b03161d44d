package main

import (
	"runtime"
	"runtime/debug"
)

// versionLine returns what cturi -version prints, from the build
// information the go command records in the binary: the main module's
// version and the Go release that built it. The version is a release for
// go install github.com/cturi/cturi/cmd/cturi@vX.Y.Z; for go build or go
// install in a git checkout, the tag on its commit or else a
// pseudo-version naming the commit ("+dirty" with uncommitted changes);
// "(devel)" for go run, a build with -buildvcs=false, or a module in a
// subdirectory of its repository, followed then by the commit when the
// build recorded one.
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
