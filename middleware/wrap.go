package middleware

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// The views of a responseWriter: one type per combination of the optional
// interfaces http.Flusher (F), http.Hijacker (H), io.ReaderFrom (R) and
// http.Pusher (P), so that the handler can discover exactly what the
// underlying writer can do, as net/http, ReverseProxy and middleware
// discover it by type assertion. Each view is a struct holding one
// pointer, which an interface value stores without allocating.
type (
	rw0    struct{ *responseWriter }
	rwF    struct{ *responseWriter }
	rwH    struct{ *responseWriter }
	rwR    struct{ *responseWriter }
	rwP    struct{ *responseWriter }
	rwFH   struct{ *responseWriter }
	rwFR   struct{ *responseWriter }
	rwFP   struct{ *responseWriter }
	rwHR   struct{ *responseWriter }
	rwHP   struct{ *responseWriter }
	rwRP   struct{ *responseWriter }
	rwFHR  struct{ *responseWriter }
	rwFHP  struct{ *responseWriter }
	rwFRP  struct{ *responseWriter }
	rwHRP  struct{ *responseWriter }
	rwFHRP struct{ *responseWriter }
)

const (
	hasFlusher = 1 << iota
	hasHijacker
	hasReaderFrom
	hasPusher
)

// view returns x as the handler's ResponseWriter, with the optional
// interfaces of the writer it wraps.
func (x *responseWriter) view() http.ResponseWriter {
	var has uint8
	if _, ok := x.w.(http.Flusher); ok {
		has |= hasFlusher
	}
	if _, ok := x.w.(http.Hijacker); ok {
		has |= hasHijacker
	}
	if _, ok := x.w.(io.ReaderFrom); ok {
		has |= hasReaderFrom
	}
	if _, ok := x.w.(http.Pusher); ok {
		has |= hasPusher
	}
	switch has {
	case hasFlusher:
		return rwF{x}
	case hasHijacker:
		return rwH{x}
	case hasReaderFrom:
		return rwR{x}
	case hasPusher:
		return rwP{x}
	case hasFlusher | hasHijacker:
		return rwFH{x}
	case hasFlusher | hasReaderFrom:
		return rwFR{x}
	case hasFlusher | hasPusher:
		return rwFP{x}
	case hasHijacker | hasReaderFrom:
		return rwHR{x}
	case hasHijacker | hasPusher:
		return rwHP{x}
	case hasReaderFrom | hasPusher:
		return rwRP{x}
	case hasFlusher | hasHijacker | hasReaderFrom:
		return rwFHR{x}
	case hasFlusher | hasHijacker | hasPusher:
		return rwFHP{x}
	case hasFlusher | hasReaderFrom | hasPusher:
		return rwFRP{x}
	case hasHijacker | hasReaderFrom | hasPusher:
		return rwHRP{x}
	case hasFlusher | hasHijacker | hasReaderFrom | hasPusher:
		return rwFHRP{x}
	}
	return rw0{x}
}

func (w rwF) Flush()    { w.flush() }
func (w rwFH) Flush()   { w.flush() }
func (w rwFR) Flush()   { w.flush() }
func (w rwFP) Flush()   { w.flush() }
func (w rwFHR) Flush()  { w.flush() }
func (w rwFHP) Flush()  { w.flush() }
func (w rwFRP) Flush()  { w.flush() }
func (w rwFHRP) Flush() { w.flush() }

func (w rwH) Hijack() (net.Conn, *bufio.ReadWriter, error)    { return w.hijack() }
func (w rwFH) Hijack() (net.Conn, *bufio.ReadWriter, error)   { return w.hijack() }
func (w rwHR) Hijack() (net.Conn, *bufio.ReadWriter, error)   { return w.hijack() }
func (w rwHP) Hijack() (net.Conn, *bufio.ReadWriter, error)   { return w.hijack() }
func (w rwFHR) Hijack() (net.Conn, *bufio.ReadWriter, error)  { return w.hijack() }
func (w rwFHP) Hijack() (net.Conn, *bufio.ReadWriter, error)  { return w.hijack() }
func (w rwHRP) Hijack() (net.Conn, *bufio.ReadWriter, error)  { return w.hijack() }
func (w rwFHRP) Hijack() (net.Conn, *bufio.ReadWriter, error) { return w.hijack() }

func (w rwR) ReadFrom(src io.Reader) (int64, error)    { return w.readFrom(src) }
func (w rwFR) ReadFrom(src io.Reader) (int64, error)   { return w.readFrom(src) }
func (w rwHR) ReadFrom(src io.Reader) (int64, error)   { return w.readFrom(src) }
func (w rwRP) ReadFrom(src io.Reader) (int64, error)   { return w.readFrom(src) }
func (w rwFHR) ReadFrom(src io.Reader) (int64, error)  { return w.readFrom(src) }
func (w rwFRP) ReadFrom(src io.Reader) (int64, error)  { return w.readFrom(src) }
func (w rwHRP) ReadFrom(src io.Reader) (int64, error)  { return w.readFrom(src) }
func (w rwFHRP) ReadFrom(src io.Reader) (int64, error) { return w.readFrom(src) }

func (w rwP) Push(target string, opts *http.PushOptions) error    { return w.push(target, opts) }
func (w rwFP) Push(target string, opts *http.PushOptions) error   { return w.push(target, opts) }
func (w rwHP) Push(target string, opts *http.PushOptions) error   { return w.push(target, opts) }
func (w rwRP) Push(target string, opts *http.PushOptions) error   { return w.push(target, opts) }
func (w rwFHP) Push(target string, opts *http.PushOptions) error  { return w.push(target, opts) }
func (w rwFRP) Push(target string, opts *http.PushOptions) error  { return w.push(target, opts) }
func (w rwHRP) Push(target string, opts *http.PushOptions) error  { return w.push(target, opts) }
func (w rwFHRP) Push(target string, opts *http.PushOptions) error { return w.push(target, opts) }
