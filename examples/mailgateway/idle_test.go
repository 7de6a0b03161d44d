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
	// Over TCP, a write returns once its data waits at the other end: no
	// goroutine has to be scheduled for a read to find it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := l.Accept()
	require.NoError(t, err)
	c := &idleConn{Conn: server, timeout: 100 * time.Millisecond}
	defer c.Close()

	_, err = client.Write([]byte("a"))
	require.NoError(t, err)
	time.Sleep(150 * time.Millisecond) // longer than the timeout, but not a read
	buf := make([]byte, 1)
	n, err := c.Read(buf)
	require.NoError(t, err, "the deadline starts with the read")
	assert.Equal(t, 1, n)

	_, err = c.Read(buf)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())

	// With "b" waiting, a read given a fresh deadline would return it. A
	// read that waited out a timeout first, with the timeout now a minute,
	// would take far longer than any stall of a loaded machine.
	c.timeout = time.Minute
	_, werr := client.Write([]byte("b"))
	require.NoError(t, werr)
	start := time.Now()
	n, err2 := c.Read(buf)
	assert.Zero(t, n, "the waiting octet was read: the expired read was not final")
	assert.Equal(t, err, err2, "the same error")
	assert.Less(t, time.Since(start), 10*time.Second, "at once, not after a timeout")
}
