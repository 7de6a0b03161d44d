//go:build !plan9 && !js

package main

import (
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE has a write to a standard output or error whose reader has
// gone fail with EPIPE instead of ending the program.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
