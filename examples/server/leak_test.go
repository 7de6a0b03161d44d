package main

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine that one of them
// started (a server, a connection, a stream) is still running after the
// last test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// An -addr in use: run returns the listener's error, prints nothing (no
// URL that serves nothing) and leaves nothing running.
func TestAddressInUse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	var out strings.Builder
	err = run(context.Background(), busy.Addr().String(), &out, io.Discard)
	opErr, ok := errors.AsType[*net.OpError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "listen", opErr.Op)
	assert.Empty(t, out.String())
}
