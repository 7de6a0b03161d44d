package middleware

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
)

// responseWriter rewrites the response label once, just before the header
// goes out. Its exported methods are the ones every view has; the optional
// interfaces are added per underlying writer by the views in wrap.go,
// which call the unexported methods below.
type responseWriter struct {
	w    http.ResponseWriter
	rw   *rewriter
	r    *http.Request // for OnError
	done bool          // the label was rewritten or can no longer matter
}

// writerPool recycles responseWriters, so that a request with nothing to
// rewrite costs no allocation, as net/http's HTTP/1 server recycles the
// buffered writer behind each response. A writer goes back to the pool
// only after the handler has returned normally, when net/http forbids
// using it (http.Handler: "A ResponseWriter may not be used after the
// Handler.ServeHTTP method has returned"); Options.FreshWriters turns
// recycling off for handlers that may not keep that rule.
var writerPool = sync.Pool{New: func() any { return new(responseWriter) }}

func getResponseWriter(w http.ResponseWriter, r *http.Request, rw *rewriter) *responseWriter {
	if rw.freshWriters {
		return &responseWriter{w: w, rw: rw, r: r}
	}
	x := writerPool.Get().(*responseWriter)
	*x = responseWriter{w: w, rw: rw, r: r}
	return x
}

// finish rewrites the label if the handler returned without sending the
// header (HEAD, a header-only answer), so net/http sends the mapped one,
// and recycles x unless writers are fresh: a fresh one stays as it is, so
// that a late call through it still reaches its own request's writer.
func (x *responseWriter) finish() {
	if !x.done {
		x.rewrite()
	}
	if x.rw.freshWriters {
		return
	}
	*x = responseWriter{}
	writerPool.Put(x)
}

// rewrite maps the label of the response header (rewriteHeader: an
// absent field stays absent so net/http may sniff, a nil slice that
// forbids sniffing stays nil, the handler's slice is replaced, never
// written into). A label that cannot be mapped goes out unchanged.
func (x *responseWriter) rewrite() {
	x.done = true
	_ = x.rw.rewriteHeader(x.r, x.w.Header(), SideResponse, x.rw.response)
}

// Header returns the underlying writer's header.
func (x *responseWriter) Header() http.Header { return x.w.Header() }

// WriteHeader rewrites the label before a final status (2xx-5xx, and 101,
// after which no other header follows); 1xx informational responses such
// as 103 Early Hints go out as they are and do not count.
func (x *responseWriter) WriteHeader(code int) {
	if !x.done && (code < 100 || code > 199 || code == http.StatusSwitchingProtocols) {
		x.rewrite()
	}
	x.w.WriteHeader(code)
}

// Write rewrites the label if the header has not gone out yet.
func (x *responseWriter) Write(p []byte) (int, error) {
	if !x.done {
		x.rewrite()
	}
	return x.w.Write(p)
}

// WriteString is Write for a string, without copying it when the
// underlying writer is an io.StringWriter. Every view has it: it only
// saves io.WriteString a conversion and cannot change behaviour.
func (x *responseWriter) WriteString(s string) (int, error) {
	if !x.done {
		x.rewrite()
	}
	if sw, ok := x.w.(io.StringWriter); ok {
		return sw.WriteString(s)
	}
	return x.w.Write([]byte(s))
}

// FlushError is what http.ResponseController.Flush calls: it rewrites the
// label, then flushes the underlying writer through its own
// ResponseController, returning http.ErrNotSupported if it cannot flush.
// Every view has it, so that a flush through a ResponseController always
// passes here, even when the underlying writer can flush only by way of
// its own Unwrap chain. A flush that is not supported sends nothing, so
// the label is rewritten again when the header does go out: a handler
// that probes for flushing and then sets its label still has it mapped.
func (x *responseWriter) FlushError() error {
	first := !x.done
	if first {
		x.rewrite()
	}
	err := http.NewResponseController(x.w).Flush()
	if first && errors.Is(err, http.ErrNotSupported) {
		x.done = false
	}
	return err
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (x *responseWriter) Unwrap() http.ResponseWriter { return x.w }

func (x *responseWriter) flush() {
	if !x.done {
		x.rewrite()
	}
	x.w.(http.Flusher).Flush()
}

// hijack hands the connection over; net/http sends no header after it, so
// there is nothing left to rewrite.
func (x *responseWriter) hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := x.w.(http.Hijacker).Hijack()
	if err == nil {
		x.done = true
	}
	return c, rw, err
}

func (x *responseWriter) readFrom(src io.Reader) (int64, error) {
	if !x.done {
		x.rewrite()
	}
	return x.w.(io.ReaderFrom).ReadFrom(src)
}

// push starts an HTTP/2 server push; the promised request's header is not
// this response's, so nothing is rewritten.
func (x *responseWriter) push(target string, opts *http.PushOptions) error {
	return x.w.(http.Pusher).Push(target, opts)
}
