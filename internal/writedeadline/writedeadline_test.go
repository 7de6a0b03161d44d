package writedeadline

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Write to a peer that reads nothing fails once its buffers are full
// and the timeout has passed; one to a peer that reads goes through
// however long the writes take in all.
func TestConnWriteDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	peer := <-accepted
	defer peer.Close()
	c := &Conn{Conn: nc, Timeout: 100 * time.Millisecond}
	defer c.Close()

	// The peer reads: each Write gets a deadline of its own, so that the
	// writes together may take longer than one timeout.
	go func() {
		buf := make([]byte, 64<<10)
		for range 5 {
			_, _ = peer.Read(buf)
			time.Sleep(40 * time.Millisecond)
		}
	}()
	start := time.Now()
	for range 5 {
		_, err := c.Write([]byte("x"))
		require.NoError(t, err)
		time.Sleep(40 * time.Millisecond)
	}
	assert.Greater(t, time.Since(start), 100*time.Millisecond)

	// The peer stops reading: a Write fails once the buffers are full.
	big := make([]byte, 1<<20)
	for {
		if _, err = c.Write(big); err != nil {
			break
		}
	}
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.NoError(t, c.CloseWrite(), "a *net.TCPConn's CloseWrite passes through")
}
