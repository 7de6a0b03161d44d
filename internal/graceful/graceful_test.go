package graceful

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve starts srv on a loopback listener, tracked, and returns its
// address and the tracker; the test fails if Serve returns anything but
// http.ErrServerClosed.
func serve(t *testing.T, srv *http.Server) (string, *Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := Track(srv)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		assert.ErrorIs(t, <-served, http.ErrServerClosed)
	})
	return ln.Addr().String(), s
}

// A connection on which nothing was sent, as a browser opens ahead of
// time: Shutdown closes it and returns at once, where http.Server's own
// waits until the connection is 5 seconds old.
func TestShutdownClosesUnusedConnection(t *testing.T) {
	for _, tt := range []struct {
		name     string
		sent     string // before Shutdown
		graceful bool   // this package's Shutdown, or http.Server's
	}{
		{"nothing sent", "", true},
		{"half a header", "GET / HTTP/1.1\r\nHost: x\r\n", true},
		// The baseline, what this package changes: http.Server's
		// Shutdown waits past its deadline, as it did in the examples
		// (a 5-second deadline, the same as the age it waits for).
		{"nothing sent, http.Server's Shutdown", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := &http.Server{Handler: http.NotFoundHandler()}
			addr, s := serve(t, srv)
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			_, err = io.WriteString(c, tt.sent)
			require.NoError(t, err)
			// The server has the connection once it is tracked as new.
			require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.fresh) == 1 }, 5*time.Second, time.Millisecond)

			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if !tt.graceful {
				assert.ErrorIs(t, srv.Shutdown(ctx), context.DeadlineExceeded)
				return
			}
			require.NoError(t, s.Shutdown(ctx), "within the second")
			// The client sees the connection closed, with no answer.
			require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
			n, err := c.Read(make([]byte, 1))
			assert.Zero(t, n)
			require.Error(t, err)
			if ne, ok := errors.AsType[net.Error](err); ok {
				assert.False(t, ne.Timeout(), "the connection stayed open: %v", err)
			}
		})
	}
}

// A request under way when Shutdown begins finishes, and its answer
// arrives whole; an idle keep-alive connection beside it is closed.
func TestShutdownWaitsForRequestUnderWay(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-release
		}
		_, _ = io.WriteString(w, "done")
	})}
	addr, s := serve(t, srv)

	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	idleR := bufio.NewReader(idle)
	_, err = io.WriteString(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	res, err := http.ReadResponse(idleR, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()

	busy, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer busy.Close()
	_, err = io.WriteString(busy, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	<-started

	stopped := make(chan error, 1)
	go func() { stopped <- s.Shutdown(context.Background()) }()
	// The idle connection closes; Shutdown waits for the slow request.
	_, err = idleR.ReadByte()
	assert.ErrorIs(t, err, io.EOF)
	select {
	case err := <-stopped:
		t.Fatalf("Shutdown returned (%v) before the request under way finished", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	res, err = http.ReadResponse(bufio.NewReader(busy), nil)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, "done", string(body))
	require.NoError(t, <-stopped)
}

// A request that does not finish in time is cut off when ctx is done,
// and Shutdown returns ctx's error, as http.Server's does.
func TestShutdownDeadline(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})}
	addr, s := serve(t, srv)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, s.Shutdown(ctx), context.DeadlineExceeded)
}

// A ConnState hook the server had is still called, for every state.
func TestTrackKeepsConnStateHook(t *testing.T) {
	var states [http.StateClosed + 1]atomic.Int32
	srv := &http.Server{
		Handler:   http.NotFoundHandler(),
		ConnState: func(_ net.Conn, st http.ConnState) { states[st].Add(1) },
	}
	addr, s := serve(t, srv)
	res, err := (&http.Client{Transport: &http.Transport{}}).Get("http://" + addr + "/")
	require.NoError(t, err)
	res.Body.Close()
	require.NoError(t, s.Shutdown(context.Background()))
	require.Eventually(t, func() bool { return states[http.StateClosed].Load() == 1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, int32(1), states[http.StateNew].Load())
	assert.Equal(t, int32(1), states[http.StateActive].Load())
	assert.Equal(t, int32(1), states[http.StateIdle].Load())
}
