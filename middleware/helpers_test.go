package middleware

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"time"
)

// event is one call a handler made on a recordingWriter, with the
// Content-Type field as it stood when the call reached it.
type event struct {
	call string // "1xx", "WriteHeader", "Write", "Flush", ...
	code int
	ct   []string
}

// recordingWriter is a minimal http.ResponseWriter that records every
// call, so tests can see what the header held when it would have gone
// out. It implements http.Flusher; full fakes add the other interfaces.
type recordingWriter struct {
	h      http.Header
	events []event
	body   bytes.Buffer
	status int
}

func newRecordingWriter() *recordingWriter { return &recordingWriter{h: http.Header{}} }

func (w *recordingWriter) record(call string, code int) {
	var ct []string
	if v, ok := w.h["Content-Type"]; ok {
		ct = append([]string{}, v...)
		if v == nil {
			ct = nil
		}
	}
	w.events = append(w.events, event{call: call, code: code, ct: ct})
}

func (w *recordingWriter) Header() http.Header { return w.h }

func (w *recordingWriter) WriteHeader(code int) {
	if code >= 100 && code <= 199 && code != 101 {
		w.record("1xx", code)
		return
	}
	if w.status == 0 {
		w.status = code
		w.record("WriteHeader", code)
	}
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.record("Write", 0)
	return w.body.Write(p)
}

func (w *recordingWriter) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.record("Flush", 0)
}

// sent returns the Content-Type the header carried when the final status
// went out.
func (w *recordingWriter) sent() []string {
	for _, e := range w.events {
		if e.call == "WriteHeader" {
			return e.ct
		}
	}
	return nil
}

func serve(h http.Handler, w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }

var timeZero time.Time

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
