package main

import (
	"context"
	"io"
	"testing"

	"github.com/cturi/cturi/internal/servertest"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine that one of them
// started (a server, a connection, a stream) is still running after the
// last test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// An -addr in use: run returns the listener's error, prints nothing and
// leaves nothing running.
func TestAddressInUse(t *testing.T) {
	servertest.RefusesAddressInUse(t, func(ctx context.Context, addr string, stdout io.Writer) error {
		return run(ctx, addr, stdout, io.Discard)
	})
}
