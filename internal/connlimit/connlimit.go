// Package connlimit bounds how many connections a server holds open at
// once, for the example servers: a client that opens connections and
// keeps them (idle, or trickling its requests within the timeouts) would
// otherwise hold a goroutine and its buffers for each, without limit.
//
// Past the bound the listener accepts nothing until one of its
// connections closes; new clients wait in the kernel's accept queue, as
// they would for a busy server, and connect once there is room.
package connlimit

import (
	"errors"
	"net"
	"sync"
)

// Listener returns a listener that accepts from l while fewer than n of
// the connections it accepted are open; a connection is closed when its
// Close is first called. n must be at least 1. Closing the listener
// closes l and ends an Accept waiting for room with net.ErrClosed.
func Listener(l net.Listener, n int) net.Listener {
	if n < 1 {
		panic("connlimit: a limit below 1 would never accept")
	}
	return &listener{Listener: l, room: make(chan struct{}, n), closed: make(chan struct{})}
}

type listener struct {
	net.Listener
	room      chan struct{} // holds a token for each open connection
	closed    chan struct{}
	closeOnce sync.Once
}

// Accept waits for room, then for a connection.
func (l *listener) Accept() (net.Conn, error) {
	select {
	case l.room <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.room
		return nil, err
	}
	return &conn{Conn: c, room: l.room}, nil
}

// Close closes the listener; the connections it accepted stay open.
func (l *listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// conn gives its token back when it is first closed: servers may close a
// connection more than once.
type conn struct {
	net.Conn
	room     chan struct{}
	released sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.released.Do(func() { <-c.room })
	return err
}

// CloseWrite shuts down the writing side of a TCP connection, as
// *net.TCPConn does. net/http looks for it to send its last answer
// before it closes a connection (closing at once could lose the answer
// to a reset), so it must not be hidden by the wrapper.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
