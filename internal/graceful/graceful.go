// Package graceful stops the example HTTP servers as http.Server.Shutdown
// does (no new connections, idle ones closed, requests under way allowed
// to finish), without waiting for connections on which no request has
// begun.
//
// Browsers open such connections ahead of requests they may never make
// (golang/go#22682), and Go's own client leaves one in its pool when a
// connection it dialed loses the race to one that became idle
// (golang/go#21204). Shutdown treats a connection in http.StateNew as
// idle only once it is 5 seconds old (golang/go#59037), so a server
// stopped with Ctrl-C while a browser had it open took 5 seconds to stop
// and, with a 5-second grace period, failed with "context deadline
// exceeded".
package graceful

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// sweepInterval is how often Shutdown looks again for new connections: one
// accepted just as Shutdown began is reported (StateNew) a moment later.
const sweepInterval = 20 * time.Millisecond

// Server tracks which connections of an http.Server have not begun a
// request.
type Server struct {
	srv   *http.Server
	mu    sync.Mutex
	fresh map[net.Conn]struct{} // in http.StateNew
}

// Track starts tracking srv's connections, keeping any ConnState hook srv
// has (it is still called, after the tracking). Call it before srv serves.
func Track(srv *http.Server) *Server {
	s := &Server{srv: srv, fresh: make(map[net.Conn]struct{})}
	next := srv.ConnState
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		s.mu.Lock()
		if state == http.StateNew {
			s.fresh[c] = struct{}{}
		} else {
			delete(s.fresh, c)
		}
		s.mu.Unlock()
		if next != nil {
			next(c, state)
		}
	}
	return s
}

// Shutdown calls the server's Shutdown with ctx and, until it returns,
// closes every connection on which no request has begun. A connection
// whose request header is still arriving is one of them: its request has
// not reached a handler, and the client sees the connection close, as it
// would after Shutdown's 5 seconds. Requests under way finish, or are cut
// off when ctx is done, as with Shutdown, whose error Shutdown returns.
func (s *Server) Shutdown(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.srv.Shutdown(ctx) }()
	tick := time.NewTicker(sweepInterval)
	defer tick.Stop()
	for {
		s.closeFresh()
		select {
		case err := <-done:
			return err
		case <-tick.C:
		}
	}
}

// closeFresh closes the connections in StateNew. Their ConnState(Closed)
// comes from the server's goroutine for each, which removes them.
func (s *Server) closeFresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.fresh {
		c.Close()
		delete(s.fresh, c)
	}
}
