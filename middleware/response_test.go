package middleware

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	uriLabel = "http://example.com/tag42"
	ctLabel  = "application/uri.http%3A%2F%2Fexample.com%2Ftag42"
)

// Each way a header can go out triggers the rewrite, before it goes out.
func TestResponseRewriteTriggers(t *testing.T) {
	tests := []struct {
		name   string
		handle func(w http.ResponseWriter)
	}{
		{"WriteHeader", func(w http.ResponseWriter) { w.WriteHeader(http.StatusCreated) }},
		{"WriteHeader 204", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }},
		{"WriteHeader 101", func(w http.ResponseWriter) { w.WriteHeader(http.StatusSwitchingProtocols) }},
		{"Write", func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }},
		{"empty Write", func(w http.ResponseWriter) { _, _ = w.Write(nil) }},
		{"io.WriteString", func(w http.ResponseWriter) { _, _ = io.WriteString(w, "x") }},
		{"io.Copy", func(w http.ResponseWriter) { _, _ = io.Copy(w, io.LimitReader(strings.NewReader("xyz"), 2)) }},
		{"Flush", func(w http.ResponseWriter) { w.(http.Flusher).Flush() }},
		{"ResponseController.Flush", func(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush() }},
		{"return without writing", func(http.ResponseWriter) {}},
		{"103 then 200", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusOK)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecordingWriter()
			h := Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", uriLabel)
				tt.handle(w)
			}))
			serve(h, rec, httptest.NewRequest(http.MethodGet, "/", nil))
			if rec.status == 0 { // the handler returned without writing
				rec.WriteHeader(http.StatusOK) // as net/http would, after the middleware returned
			}
			assert.Equal(t, []string{ctLabel}, rec.sent())
		})
	}
}

// 1xx responses go out with the header as the handler left it, and do not
// use up the rewrite.
func TestEarlyHintsPassThrough(t *testing.T) {
	rec := newRecordingWriter()
	serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.Header().Set("Content-Type", uriLabel)
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusEarlyHints)
		_, _ = w.Write([]byte("ok"))
	})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Len(t, rec.events, 4)
	assert.Equal(t, event{"1xx", 103, []string{uriLabel}}, rec.events[0])
	assert.Equal(t, event{"1xx", 103, []string{uriLabel}}, rec.events[1])
	assert.Equal(t, event{"WriteHeader", 200, []string{ctLabel}}, rec.events[2])
}

// A label set after a 1xx response, 100 Continue as well as 103 Early
// Hints, is mapped when the final header goes out.
func TestLabelSetAfterInformational(t *testing.T) {
	for _, code := range []int{http.StatusContinue, http.StatusEarlyHints} {
		rec := newRecordingWriter()
		serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			w.Header().Set("Content-Type", uriLabel)
			_, _ = w.Write([]byte("x"))
		})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
		assert.Equal(t, []string{ctLabel}, rec.sent(), "%d", code)
	}
}

// The rewrite happens once: a label set after the header went out is not
// mapped (it would not reach the wire anyway), and mapping does not run
// again.
func TestResponseRewriteOnce(t *testing.T) {
	rec := newRecordingWriter()
	var calls int
	serve(Rewrite(Options{OnError: func(*http.Request, error) { calls++ }})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "ContentType:a%0Ab/c")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("a"))
		w.(http.Flusher).Flush()
		_ = http.NewResponseController(w).Flush()
		w.Header().Set("Content-Type", uriLabel)
		_, _ = io.WriteString(w, "b")
	})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, 1, calls, "one rewrite, one error report")
	assert.Equal(t, []string{uriLabel}, rec.h["Content-Type"], "not rewritten after the header went out")
	assert.Equal(t, []string{"ContentType:a%0Ab/c"}, rec.sent(), "an unmappable label goes out unchanged")
	assert.Equal(t, "ab", rec.body.String())
}

func TestResponseModes(t *testing.T) {
	tests := []struct {
		mode     Mode
		in, want []string
	}{
		{ToContentType, []string{uriLabel}, []string{ctLabel}},
		{ToContentType, []string{"text/html"}, []string{"text/html"}},
		{ToURI, []string{"image/JPEG"}, []string{"ContentType:image/jpeg"}},
		{ToURI, []string{uriLabel}, []string{uriLabel}},
		{Canonical, []string{"TEXT/html;charset=utf-8"}, []string{`text/html; charset="utf-8"`}},
		{Canonical, []string{uriLabel}, []string{ctLabel}},
		{Leave, []string{uriLabel}, []string{uriLabel}},
		{ToContentType, []string{uriLabel, uriLabel}, []string{uriLabel, uriLabel}}, // two fields: ambiguous, unchanged
		{ToContentType, nil, nil},
		{ToContentType, []string{}, []string{}}, // an empty field: no label, nothing to map
		{ToURI, []string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			rec := newRecordingWriter()
			serve(Rewrite(Options{Response: tt.mode})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.in != nil {
					w.Header()["Content-Type"] = tt.in
				}
				_, _ = w.Write([]byte("x"))
			})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
			assert.Equal(t, tt.want, rec.sent())
		})
	}
}

// A nil slice tells net/http not to sniff; it must stay nil. The
// handler's own slice (which it may share) must not be written into.
func TestResponseHeaderSlices(t *testing.T) {
	rec := newRecordingWriter()
	serve(Rewrite(Options{Response: Canonical})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		_, _ = w.Write([]byte("<html>"))
	})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
	v, ok := rec.h["Content-Type"]
	assert.True(t, ok)
	assert.Nil(t, v)

	shared := []string{uriLabel}
	rec = newRecordingWriter()
	serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = shared
		w.WriteHeader(http.StatusOK)
	})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, []string{uriLabel}, shared, "the handler's slice is untouched")
	assert.Equal(t, []string{ctLabel}, rec.sent())

	// net/http sniffs when there is no field at all; the middleware adds none.
	w := httptest.NewRecorder()
	serve(Rewrite(Options{Response: ToURI})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html>"))
	})), w, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"))
}

// A response label that cannot be mapped goes out unchanged and is
// reported with the request the handler saw.
func TestResponseErrorReported(t *testing.T) {
	var got []error
	var reqs []*http.Request
	rec := newRecordingWriter()
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", uriLabel)
	var handlerReq *http.Request
	serve(Rewrite(Options{Response: ToURI, OnError: func(r *http.Request, err error) {
		got = append(got, err)
		reqs = append(reqs, r)
	}})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlerReq = r
		w.Header().Set("Content-Type", "text/")
	})), rec, r)
	rec.WriteHeader(http.StatusOK)
	assert.Equal(t, []string{"text/"}, rec.sent())
	require.Len(t, got, 1)
	var e *Error
	require.ErrorAs(t, got[0], &e)
	assert.Equal(t, SideResponse, e.Side)
	assert.Equal(t, "syntax", e.Kind())
	assert.Same(t, handlerReq, reqs[0])
}

// A handler that panics before the header goes out has its label mapped
// on the way out, for whatever recovers outside the middleware and
// answers with that header; the panic propagates. A header already sent
// is not touched again.
func TestHandlerPanic(t *testing.T) {
	tests := []struct {
		name  string
		write bool // the handler writes before it panics
		want  string
	}{
		{"before the header", false, ctLabel},
		{"after the header", true, ctLabel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecordingWriter()
			h := Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", uriLabel)
				if tt.write {
					_, _ = w.Write([]byte("x"))
					w.Header().Set("Content-Type", uriLabel) // too late to matter
				}
				panic(http.ErrAbortHandler)
			}))
			assert.PanicsWithValue(t, http.ErrAbortHandler, func() { serve(h, rec, httptest.NewRequest(http.MethodGet, "/", nil)) })
			if tt.write {
				assert.Equal(t, []string{ctLabel}, rec.sent(), "the header sent")
				assert.Equal(t, []string{uriLabel}, rec.h["Content-Type"], "the header map after it was sent")
				return
			}
			assert.Equal(t, []string{ctLabel}, rec.h["Content-Type"])
		})
	}
}

// Leave on the response side hands the handler the caller's writer itself.
func TestResponseLeaveDoesNotWrap(t *testing.T) {
	rec := newRecordingWriter()
	var got http.ResponseWriter
	serve(Rewrite(Options{Response: Leave})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = w
	})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Same(t, rec, got)
}

// net/http panics on a status outside 100-999 before sending anything;
// the panic still reaches the handler, and one that recovers and then
// sets its label has that label mapped when the header does go out. A
// label it leaves as it was is not mapped (or reported) twice.
func TestInvalidStatusPanicsAndKeepsTheRewrite(t *testing.T) {
	const bad = "ContentType:a%0Ab/c"
	tests := []struct {
		name   string
		code   int
		before string // label set before the invalid WriteHeader
		after  string // label set after recovering; "" keeps it
		want   string
		errs   int
	}{
		{"99, label set after", 99, "", uriLabel, ctLabel, 0},
		{"1000, label set after", 1000, "", uriLabel, ctLabel, 0},
		{"-1, label changed after", -1, "text/plain", uriLabel, ctLabel, 0},
		{"0, label untouched", 0, uriLabel, "", ctLabel, 0},
		{"42, unmappable label untouched, reported once", 42, bad, "", bad, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs int
			w := httptest.NewRecorder() // panics on an invalid status, as net/http does
			serve(Rewrite(Options{OnError: func(*http.Request, error) { errs++ }})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.before != "" {
					w.Header().Set("Content-Type", tt.before)
				}
				assert.PanicsWithValue(t, "invalid WriteHeader code "+strconv.Itoa(tt.code), func() { w.WriteHeader(tt.code) })
				if tt.after != "" {
					w.Header().Set("Content-Type", tt.after)
				}
				_, _ = w.Write([]byte("x"))
			})), w, httptest.NewRequest(http.MethodGet, "/", nil))
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, []string{tt.want}, w.Header()["Content-Type"])
			assert.Equal(t, tt.errs, errs)
		})
	}
}

// failingReader fails at once, as a file whose first read fails.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("source failed") }

// net/http's HTTP/1 ReadFrom sends no header until the source yields data
// (golang.org/issue/5660), so io.Copy from an empty or failing source
// leaves the handler free to answer otherwise, as HTTP/2, whose writer
// has no ReadFrom, does: a label it then sets is mapped when the header
// does go out, and one it leaves is mapped (or reported) once.
func TestReadFromThatSendsNothingKeepsTheRewrite(t *testing.T) {
	const bad = "ContentType:a%0Ab/c"
	tests := []struct {
		name          string
		src           io.Reader
		before, after string // labels set before io.Copy and after it; "" keeps it
		want          string
		reports       int
	}{
		{"empty source, label set after", struct{ io.Reader }{strings.NewReader("")}, "text/plain", uriLabel, ctLabel, 0},
		{"failing source, label set after", failingReader{}, "text/plain", uriLabel, ctLabel, 0},
		{"empty source, label untouched", struct{ io.Reader }{strings.NewReader("")}, uriLabel, "", ctLabel, 0},
		{"empty source, unmappable label untouched, reported once", struct{ io.Reader }{strings.NewReader("")}, bad, "", bad, 1},
	}
	for _, proto := range []string{"HTTP/1.1", "HTTP/2.0"} {
		for _, tt := range tests {
			t.Run(proto+" "+tt.name, func(t *testing.T) {
				var reports atomic.Int32
				srv := httptest.NewUnstartedServer(Rewrite(Options{OnError: func(*http.Request, error) { reports.Add(1) }})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", tt.before)
					n, _ := io.Copy(w, tt.src)
					assert.Zero(t, n)
					if tt.after != "" {
						w.Header().Set("Content-Type", tt.after)
					}
					w.WriteHeader(http.StatusAccepted)
					_, _ = w.Write([]byte("fallback"))
				})))
				srv.EnableHTTP2 = proto == "HTTP/2.0"
				srv.StartTLS()
				defer srv.Close()
				res, err := srv.Client().Get(srv.URL)
				require.NoError(t, err)
				defer res.Body.Close()
				body, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				require.Equal(t, proto, res.Proto)
				assert.Equal(t, http.StatusAccepted, res.StatusCode, "nothing was sent by io.Copy")
				assert.Equal(t, "fallback", string(body))
				assert.Equal(t, []string{tt.want}, res.Header["Content-Type"])
				assert.Equal(t, int32(tt.reports), reports.Load())
			})
		}
	}
}
