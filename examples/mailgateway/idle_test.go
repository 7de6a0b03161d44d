package main

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each read gets its own deadline, and once one has timed out every later
// read fails with it at once, even with data waiting: the session is over,
// and go-smtp's discarding of the rest of a message must not extend it.
func TestIdleConn(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	c := &idleConn{Conn: server, timeout: 100 * time.Millisecond}
	defer c.Close()

	go func() { _, _ = client.Write([]byte("a")) }()
	time.Sleep(150 * time.Millisecond) // longer than the timeout, but not a read
	buf := make([]byte, 1)
	n, err := c.Read(buf)
	require.NoError(t, err, "the deadline starts with the read")
	assert.Equal(t, 1, n)

	_, err = c.Read(buf)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())

	go func() { _, _ = client.Write([]byte("b")) }()
	start := time.Now()
	n, err2 := c.Read(buf)
	assert.Zero(t, n)
	assert.Equal(t, err, err2, "the same error, at once")
	assert.Less(t, time.Since(start), 50*time.Millisecond)
}
