package main

import (
	"net"
	"time"
)

// idleListener hands out connections on which each Read and each Write
// must end within timeout of its start: a limit on how long a client may
// stay silent or leave a reply untaken, not on a session or a message.
// go-smtp's ReadTimeout would not do: it sets the deadline once per
// command line, so the DATA that follows must all arrive within it, and
// a large message from a slow but steady client would fail every time.
type idleListener struct {
	net.Listener
	timeout time.Duration
}

func (l idleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &idleConn{Conn: c, timeout: l.timeout}, nil
}

type idleConn struct {
	net.Conn
	timeout time.Duration
	expired error // the read that timed out; every later read fails with it
}

// Read fails at once after a read has timed out: go-smtp, when a message
// fails, reads the rest of it to discard it, and a fresh deadline there
// would hold a client that went silent in DATA for twice -timeout.
func (c *idleConn) Read(p []byte) (int, error) {
	if c.expired != nil {
		return 0, c.expired
	}
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		c.expired = err
	}
	return n, err
}

func (c *idleConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
