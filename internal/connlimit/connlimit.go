// Package connlimit bounds how many connections a server holds open at
// once, for the example servers: a client that opens connections and
// keeps them (idle, or trickling its requests within the timeouts) would
// otherwise hold a goroutine and its buffers for each, without limit.
//
// Past the bound, a listener either accepts nothing until one of its
// connections closes (new clients wait in the kernel's accept queue, as
// they would for a busy server, and connect once there is room), or
// accepts each new connection only to refuse it at once, as an SMTP
// server answers 421 when it is full.
//
// A connection is handed to the server wrapped, with CloseWrite passed
// through but not io.ReaderFrom: net/http then copies a file into a
// response through user space rather than with sendfile, which the
// examples, serving no files, never do.
package connlimit

import (
	"errors"
	"net"
	"sync"
)

// Listener returns a listener that accepts from l while fewer than n of
// the connections it accepted are open; a connection is closed when its
// Close is first called. n must be at least 1.
//
// With refuse nil, Accept waits for room. Otherwise Accept takes a
// connection that arrives while n are open, hands it to refuse, which
// must close it (after a short answer, say), and waits for the next one.
// refuse runs in the goroutine that called Accept, so it must not block.
//
// Closing the listener closes l and ends an Accept waiting for room with
// net.ErrClosed.
func Listener(l net.Listener, n int, refuse func(net.Conn)) net.Listener {
	if n < 1 {
		panic("connlimit: a limit below 1 would never accept")
	}
	return &listener{Listener: l, room: make(chan struct{}, n), closed: make(chan struct{}), refuse: refuse}
}

type listener struct {
	net.Listener
	room      chan struct{} // holds a token for each open connection
	closed    chan struct{}
	closeOnce sync.Once
	refuse    func(net.Conn)
}

// Accept waits for room, then for a connection; or, with refuse set, for
// a connection, refusing those that come when there is no room.
func (l *listener) Accept() (net.Conn, error) {
	if l.refuse == nil {
		select {
		case l.room <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
		return l.accept()
	}
	for {
		if l.takeRoom() {
			return l.accept()
		}
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.takeRoom() { // made while Accept waited
			return &conn{Conn: c, room: l.room}, nil
		}
		l.refuse(c)
	}
}

// accept accepts a connection into the room the caller took.
func (l *listener) accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.room
		return nil, err
	}
	return &conn{Conn: c, room: l.room}, nil
}

// takeRoom takes room for a connection if there is any.
func (l *listener) takeRoom() bool {
	select {
	case l.room <- struct{}{}:
		return true
	default:
		return false
	}
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
