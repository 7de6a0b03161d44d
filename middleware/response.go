package middleware

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
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
	// probed is the Content-Type field a flush that could not be done,
	// a ReadFrom that copied nothing, or a status net/http refused, left
	// behind, and probedLabel its first value (see unsent).
	probed      []string
	probedLabel string
	// nosniff is the X-Content-Type-Options field the last rewrite added
	// beside a URI label, if it did: a rewrite after a header that did
	// not go out takes it back first, as the label may have changed.
	nosniff []string
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
	// Until a request takes x from the pool, a call through a writer kept
	// past its handler's return gets ErrAfterReturn instead of a nil
	// dereference; after that, FreshWriters is what isolates requests.
	*x = responseWriter{w: afterReturn{}, done: true}
	writerPool.Put(x)
}

// unwound rewrites the label when the handler panicked before the header
// went out: a recovering handler outside the middleware (gorilla's
// RecoveryHandler) then answers with the handler's header, whose label
// must go out mapped as on any other way out. x is not recycled, since
// something may still be unwinding with it.
func (x *responseWriter) unwound() {
	if !x.done {
		x.rewrite()
	}
}

// rewrite maps the label of the response header (rewriteHeader: an
// absent field stays absent so net/http may sniff, a nil slice that
// forbids sniffing stays nil, the handler's slice is replaced, never
// written into). A label that cannot be mapped goes out unchanged.
func (x *responseWriter) rewrite() {
	x.done = true
	h := x.w.Header()
	if x.probed != nil {
		if v := h["Content-Type"]; len(v) == len(x.probed) && &v[0] == &x.probed[0] && v[0] == x.probedLabel {
			return // the field is as the probe's rewrite left it
		}
	}
	if x.nosniff != nil {
		if v := h[nosniffKey]; len(v) == 1 && &v[0] == &x.nosniff[0] && v[0] == "nosniff" {
			delete(h, nosniffKey)
		}
	}
	x.nosniff, _ = x.rw.rewriteHeader(x.r, h, SideResponse, x.rw.response)
}

// Header returns the underlying writer's header.
func (x *responseWriter) Header() http.Header { return x.w.Header() }

// WriteHeader rewrites the label before a final status (200-999, and 101,
// after which no other header follows); 1xx informational responses such
// as 103 Early Hints go out as they are and do not count.
func (x *responseWriter) WriteHeader(code int) {
	if !x.done && (code < 100 || code > 199 || code == http.StatusSwitchingProtocols) {
		x.rewrite()
		if code < 100 || code > 999 {
			x.writeInvalidHeader(code)
			return
		}
	}
	x.w.WriteHeader(code)
}

// writeInvalidHeader passes on a status outside 100-999, after the
// rewrite, as any final status. net/http panics on it and sends nothing,
// so if the underlying writer panics the header is still to go out: a
// handler that recovers and then sets its label has it mapped, as after
// a flush that could not be done (unsent).
func (x *responseWriter) writeInvalidHeader(code int) {
	sent := false
	defer func() {
		if !sent {
			x.unsent()
		}
	}()
	x.w.WriteHeader(code)
	sent = true
}

// unsent records that the header did not go out after all, though the
// label was rewritten: the next call that sends it rewrites the label
// again, unless the field is as this rewrite left it (see rewrite).
func (x *responseWriter) unsent() {
	x.done = false
	x.probed, x.probedLabel = nil, ""
	if v := x.w.Header()["Content-Type"]; len(v) > 0 {
		x.probed, x.probedLabel = v, v[0]
	}
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
// A field the handler has not touched since the probe is not mapped
// again, so an unmappable label is reported once.
func (x *responseWriter) FlushError() error {
	first := !x.done
	if first {
		x.rewrite()
	}
	err := http.NewResponseController(x.w).Flush()
	if first && errors.Is(err, http.ErrNotSupported) {
		x.unsent()
	}
	return err
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (x *responseWriter) Unwrap() http.ResponseWriter { return x.w }

// The methods below serve the views' optional interfaces. The writer a
// view was made for has the interface, but a view kept past its
// handler's return (which net/http forbids) may be called once x serves
// another request, whose writer may not have it (an HTTP/1 view, with
// Hijack, over an HTTP/2 writer): the call then does what
// http.ResponseController would, instead of panicking.

func (x *responseWriter) flush() {
	f, ok := x.w.(http.Flusher)
	if !ok {
		_ = x.FlushError()
		return
	}
	if !x.done {
		x.rewrite()
	}
	f.Flush()
}

// hijack hands the connection over; net/http sends no header after it, so
// there is nothing left to rewrite.
func (x *responseWriter) hijack() (net.Conn, *bufio.ReadWriter, error) {
	// ResponseController tries x.w's own Hijack first.
	c, rw, err := http.NewResponseController(x.w).Hijack()
	if err == nil {
		x.done = true
	}
	return c, rw, err
}

// readFrom rewrites the label before the underlying ReadFrom. net/http's
// ReadFrom sends no header until src yields data
// (golang.org/issue/5660), so a ReadFrom that copied nothing leaves the
// header unsent, as a flush that could not be done does: a handler that
// then answers otherwise (a label set after an empty or failing source)
// has its label mapped, as over HTTP/2, whose writer has no ReadFrom and
// so copies through Write.
func (x *responseWriter) readFrom(src io.Reader) (int64, error) {
	rf, ok := x.w.(io.ReaderFrom)
	if !ok {
		return io.Copy(x, src) // x has no ReadFrom: Write rewrites
	}
	first := !x.done
	if first {
		x.rewrite()
	}
	n, err := rf.ReadFrom(src)
	if first && n == 0 {
		x.unsent()
	}
	return n, err
}

// push starts an HTTP/2 server push; the promised request's header is not
// this response's, so nothing is rewritten.
func (x *responseWriter) push(target string, opts *http.PushOptions) error {
	p, ok := x.w.(http.Pusher)
	if !ok {
		return http.ErrNotSupported
	}
	return p.Push(target, opts)
}

// afterReturn is the writer behind a recycled responseWriter: every view
// of it stays callable, whatever it is asked to send or set fails with
// ErrAfterReturn, and Header returns a new, empty header each time, which
// goes nowhere.
type afterReturn struct{}

func (afterReturn) Header() http.Header                  { return http.Header{} }
func (afterReturn) WriteHeader(int)                      {}
func (afterReturn) Write([]byte) (int, error)            { return 0, ErrAfterReturn }
func (afterReturn) FlushError() error                    { return ErrAfterReturn }
func (afterReturn) Flush()                               {}
func (afterReturn) ReadFrom(io.Reader) (int64, error)    { return 0, ErrAfterReturn }
func (afterReturn) Push(string, *http.PushOptions) error { return ErrAfterReturn }
func (afterReturn) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, ErrAfterReturn
}

// The methods http.ResponseController looks for besides FlushError.
func (afterReturn) SetReadDeadline(time.Time) error  { return ErrAfterReturn }
func (afterReturn) SetWriteDeadline(time.Time) error { return ErrAfterReturn }
func (afterReturn) EnableFullDuplex() error          { return ErrAfterReturn }
