package main

import (
	"fmt"
	"math"
	"net"
	"sync"
	"time"

	"github.com/cturi/cturi/internal/minrate"
)

// idleListener hands out connections on which each Read and each Write
// must end within timeout of its start: a limit on how long a client may
// stay silent or leave a reply untaken, not on a session or a message.
// go-smtp's ReadTimeout would not do: it sets the deadline once per
// command line, so the DATA that follows must all arrive within it, and
// a large message from a slow but steady client would fail every time.
// With minRate set, a client must also keep up a rate within each
// request (see idleConn.Read), so that one that trickles a command or a
// message, an octet just within each timeout, does not hold its session
// for as long as it likes.
//
// It also keeps the connections that have no session yet (greeted
// says when one has), for drain: relay.Backend.Drain ends sessions only.
// A connection may send, and be answered, before it greets (a NOOP, or
// half an EHLO line), so having read from it says nothing.
type idleListener struct {
	net.Listener
	timeout time.Duration
	minRate int64 // octets a second; 0: none (see idleConn.Read)
	// maxRequest bounds the octets of one request; 0: none (see
	// idleConn.Read).
	maxRequest int64

	mu       sync.Mutex
	waiting  map[*idleConn]struct{} // accepted, with no session yet
	draining bool
}

func newIdleListener(l net.Listener, timeout time.Duration) *idleListener {
	return &idleListener{Listener: l, timeout: timeout, waiting: make(map[*idleConn]struct{})}
}

func (l *idleListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &idleConn{Conn: nc, timeout: l.timeout, minRate: l.minRate, maxRequest: l.maxRequest, l: l}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.draining {
		_ = c.SetReadDeadline(time.Now())
	} else {
		l.waiting[c] = struct{}{}
	}
	return c, nil
}

// drain ends each connection that has no session, and each one accepted
// later, at its next read (go-smtp answers 421 then; see
// relay.Backend.Drain, which ends the sessions).
func (l *idleListener) drain() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.draining = true
	for c := range l.waiting {
		_ = c.SetReadDeadline(time.Now())
		delete(l.waiting, c)
	}
}

// greeted forgets c, which has a session now (or is closed), and is left
// to relay.Backend.Drain. It takes any net.Conn: one this listener did
// not hand out is ignored.
func (l *idleListener) greeted(c net.Conn) {
	ic, ok := c.(*idleConn)
	if !ok || ic.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.waiting, ic)
}

type idleConn struct {
	net.Conn
	timeout time.Duration
	minRate int64         // octets a second a request must keep up; 0: none
	l       *idleListener // nil for a conn no listener handed out
	expired error         // the read that timed out, or met maxRequest; every later read fails with it

	maxRequest int64 // the most octets of one request; 0: none

	mu       sync.Mutex // for the read deadlines, which another goroutine may set
	limit    time.Time  // from SetReadDeadline: no read goes past it
	deadline time.Time  // the read deadline last set on Conn

	// The request under way: what the client sends from the first read
	// after a write (the server's reply to the last one) to the next
	// write. inRequest: a read has begun it; waited: the time its reads
	// have waited; got: the octets they have read.
	inRequest bool
	waited    time.Duration
	got       int64
}

// Read fails at once after a read has timed out: go-smtp, when a message
// fails, reads the rest of it to discard it, and a fresh deadline there
// would hold a client that went silent in DATA for twice -timeout.
//
// With minRate set, the reads of one request (a command line, or the
// whole of a message, from the end of a reply to the next reply) may wait
// on the client for timeout in all, and a second more for every minRate
// octets they have read: a client that sends at minRate or faster never
// meets that bound, and one that trickles meets it soon after timeout.
// Only the time spent waiting in Read counts, so a next hop that takes a
// message slowly does not count against its client.
//
// With maxRequest set, a request is read up to that many octets, and the
// read after them fails, as every later one (errRequestTooLarge). go-smtp
// reads the rest of a message it or the Backend refused, over the size
// limit or not, to its end to discard it (and the whole of a BDAT chunk
// over the limit, up to 4 GiB): without a bound, a client that went on
// sending past its 552 kept its session, and the gateway reading, for as
// long as it liked.
func (c *idleConn) Read(p []byte) (int, error) {
	if c.expired != nil {
		return 0, c.expired
	}
	start := time.Now()
	c.mu.Lock()
	if !c.inRequest {
		c.inRequest, c.waited, c.got = true, 0, 0
	}
	if c.maxRequest > 0 {
		left := c.maxRequest - c.got
		if left <= 0 {
			c.mu.Unlock()
			c.expired = errRequestTooLarge{c.maxRequest}
			return 0, c.expired
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	wait := minrate.Wait(c.timeout, c.waited, c.got, c.minRate)
	c.deadline = earliest(start.Add(wait), c.limit)
	err := c.Conn.SetReadDeadline(c.deadline)
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.waited += time.Since(start)
	c.got += int64(n)
	c.mu.Unlock()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		c.expired = err
	}
	return n, err
}

// errRequestTooLarge is the error of a read past a request's maxRequest
// octets. go-smtp answers it with "421 4.4.0", closes the connection, and
// logs it.
type errRequestTooLarge struct{ max int64 }

func (e errRequestTooLarge) Error() string {
	return fmt.Sprintf("mailgateway: the client sent more than %d octets without waiting for a reply", e.max)
}

// requestLimit is the maxRequest of a gateway that takes messages of up
// to maxMessage octets: twice that and 64 KiB, which a message within the
// limit, dot-stuffed (at most 4 octets sent for 3), and a command line
// never reach, and a client that sends a little more than the limit,
// having no SIZE to go by, does not either, so that it still gets its 552
// and keeps its session.
func requestLimit(maxMessage int64) int64 {
	if maxMessage > (math.MaxInt64-64<<10)/2 {
		return math.MaxInt64
	}
	return 2*maxMessage + 64<<10
}

// SetReadDeadline sets a deadline that no later read goes past, as on any
// net.Conn, and ends a read under way if t is before that read's own: the
// per-read idle deadline never extends it.
func (c *idleConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = t
	return c.Conn.SetReadDeadline(earliest(t, c.deadline))
}

// earliest returns the earlier of two deadlines, the zero time being
// none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// SetDeadline is SetReadDeadline and the embedded conn's
// SetWriteDeadline (which each Write replaces with its own).
func (c *idleConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

// Write ends the client's request: its next read begins another.
func (c *idleConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.inRequest = false
	c.mu.Unlock()
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// Close closes the connection and forgets it.
func (c *idleConn) Close() error {
	if c.l != nil {
		c.l.greeted(c)
	}
	return c.Conn.Close()
}
