//go:build plan9 || js

package main

// ignoreSIGPIPE does nothing: syscall has no SIGPIPE here.
func ignoreSIGPIPE() {}
