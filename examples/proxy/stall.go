package main

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/cturi/cturi/internal/minrate"
	"github.com/cturi/cturi/internal/writedeadline"
)

// The proxy can have no ReadTimeout or WriteTimeout: an event stream runs
// for as long as its client reads it, an upload for as long as its client
// sends. What it bounds instead is how long it waits on a client that has
// stalled, as nginx's send_timeout and client_body_timeout do: each write
// to a client must end within sendTimeout (a client that reads nothing
// fills the buffers between them, and the write then waits), and each
// read of a request body within bodyTimeout. A stream may pause for as
// long as its backend likes: only a wait on the client counts. Without
// these, clients that stop reading or sending held their connections,
// and the backend's, for good: -max-connections of them shut everyone
// else out. A request body must also keep up bodyMinRate octets a second
// past its first bodyTimeout of waiting, as Apache's mod_reqtimeout
// MinRate has it: the reads of one body may wait bodyTimeout in all, and a
// second more for every bodyMinRate octets read, so that a client that
// sends an octet just within each bodyTimeout does not hold its
// connection as long as it likes. The tests shorten them.
var (
	sendTimeout       = time.Minute
	bodyTimeout       = time.Minute
	bodyMinRate int64 = 500
)

// sendListener hands out connections each Write of which must end within
// timeout of its start.
type sendListener struct {
	net.Listener
	timeout time.Duration
}

func (l sendListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	// An upgraded connection (101 Switching Protocols), which the proxy
	// hijacks to copy both ways, keeps it.
	return &writedeadline.Conn{Conn: c, Timeout: l.timeout}, nil
}

// bodyDeadlines hands next each request with a body whose every read
// must end within timeout (through the ResponseController's read
// deadline). The proxy answers a client that stalls mid-body with 408
// (proxyError).
func bodyDeadlines(next http.Handler, timeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		b := &deadlineBody{body: r.Body, rc: http.NewResponseController(w), timeout: timeout, minRate: bodyMinRate}
		// In the context too: the proxy's ErrorHandler gets the outgoing
		// request, whose body is another.
		r2 := r.WithContext(context.WithValue(r.Context(), deadlineBodyKey{}, b))
		r2.Body = b
		defer b.handlerReturned() // also when ReverseProxy aborts (panics)
		next.ServeHTTP(w, r2)
	})
}

type deadlineBodyKey struct{}

// deadlineBody is a request body each Read of which sets the connection's
// read deadline.
type deadlineBody struct {
	body    io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
	minRate int64 // octets a second past timeout; 0: none

	mu       sync.Mutex
	returned bool          // the handler returned: no deadline is set after that,
	ended    bool          // nor once a Read has returned io.EOF
	reading  bool          // a Read is under way,
	start    time.Time     // since then,
	deadline time.Time     // and may take until then
	timedOut bool          // a Read failed at its deadline
	waited   time.Duration // by the Reads before
	got      int64         // octets they read
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	b.begin()
	n, err := b.body.Read(p)
	b.end(n, err)
	return n, err
}

// Close closes the body. net/http reads what is left of a body closed
// before its end (up to 256 KiB), to discard it, and the transport closes
// the request's body when it cannot reach the backend (Go 1.27 does so in
// the handler's goroutine, before the 502): that read gets bodyTimeout
// too, or a client that sent a header and no body would hold the handler.
func (b *deadlineBody) Close() error {
	b.mu.Lock()
	if !b.returned {
		b.limitDiscard()
	}
	b.mu.Unlock()
	return b.body.Close()
}

// limitDiscard gives net/http's read of what is left of the body, to
// discard it, bodyTimeout from now, unless the body has ended or a read
// of it has already met its deadline (which stays). b.mu is held.
func (b *deadlineBody) limitDiscard() {
	if !b.ended && !b.timedOut {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	}
}

// begin sets the deadline of a Read. Once the handler has returned, the
// transport may still read the body (golang/go#40747) while the
// connection is already reading the next request under net/http's own
// deadline, which no deadline of the body's may replace. Nor may one
// replace net/http's background read once the body has ended (see end):
// the transport reads it once more, to check that nothing follows, and
// net/http may have closed it by then (golang/go#40747), so that the Read
// fails with http.ErrBodyReadAfterClose rather than io.EOF.
func (b *deadlineBody) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	wait := minrate.Wait(b.timeout, b.waited, b.got, b.minRate)
	b.reading, b.start = true, time.Now()
	b.deadline = b.start.Add(wait)
	if !b.returned && !b.ended {
		// ErrNotSupported (a connection without deadlines) leaves the
		// read without one.
		_ = b.rc.SetReadDeadline(b.deadline)
	}
}

// end ends a Read that returned n and err.
func (b *deadlineBody) end(n int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reading = false
	b.waited += time.Since(b.start)
	b.got += int64(n)
	switch {
	case err == io.EOF && !b.returned:
		// The body is whole: net/http now reads the connection itself, in
		// the background, to notice a client that goes away, and a
		// deadline there would end the response under way. (net/http
		// clears the deadline set by begin as it starts that read; this
		// is in case it did not.)
		b.ended = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: net/http reads what is left of the body to
		// discard it, which must not wait for ever on this client.
		b.timedOut = true
	}
}

// stalled reports whether a Read met its deadline: it failed, or, still
// under way, is past it. net/http cancels the request as soon as the
// read of the connection fails, and the proxy may learn of that before
// the Read returns.
func (b *deadlineBody) stalled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.timedOut || b.reading && !time.Now().Before(b.deadline)
}

// handlerReturned is called as the handler returns, before net/http
// finishes the request. Unless the body has ended, net/http then reads
// what is left of it (up to 256 KiB), to discard it: before it sends the
// answer, when the connection is to stay open, or after it, as for a
// client that sent Expect: 100-continue and got a final status instead of
// 100 Continue, which sends no body and may keep the connection. No Read
// of the body has set a deadline for that (the backend refused at once,
// or was down), and the proxy has no ReadTimeout: that read gets
// bodyTimeout too. net/http sets its own deadline for the next request.
func (b *deadlineBody) handlerReturned() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.returned = true
	b.limitDiscard()
}

// proxyError is the proxy's ErrorHandler. A request whose client stalled
// mid-body gets 408 Request Timeout: the transport reports only that the
// request was canceled (net/http cancels it when a read of the client's
// connection fails), which ReverseProxy would log and answer as a
// failure of the backend, 502. Anything else gets ReverseProxy's default.
func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if b, ok := r.Context().Value(deadlineBodyKey{}).(*deadlineBody); ok && b.stalled() {
		http.Error(w, "the request body stopped arriving", http.StatusRequestTimeout)
		return
	}
	log.Printf("http: proxy error: %v", err)
	w.WriteHeader(http.StatusBadGateway)
}
