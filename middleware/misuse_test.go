package middleware

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// minimalWriter has none of the optional interfaces: it cannot flush.
type minimalWriter struct {
	h    http.Header
	sent []string // the Content-Type when the header went out
	body bytes.Buffer
}

func (w *minimalWriter) Header() http.Header { return w.h }
func (w *minimalWriter) WriteHeader(int) {
	if w.sent == nil {
		w.sent = append([]string{}, w.h.Values("Content-Type")...)
	}
}
func (w *minimalWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// A flush the writer cannot do sends nothing, so it does not use up the
// rewrite: a handler that probes for flushing and then labels its
// response still has the label mapped.
func TestUnsupportedFlushKeepsTheRewrite(t *testing.T) {
	w := &minimalWriter{h: http.Header{}}
	var flushErr error
	Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flushErr = http.NewResponseController(w).Flush()
		w.Header().Set("Content-Type", uriLabel)
		_, _ = w.Write([]byte("x"))
	})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.ErrorIs(t, flushErr, http.ErrNotSupported)
	assert.Equal(t, []string{ctLabel}, w.sent)
}

// A probe that finds the writer cannot flush maps the label, and the field
// it leaves is not mapped again when the header goes out: an unmappable
// label is reported once, not once per attempt.
func TestUnsupportedFlushReportsOnce(t *testing.T) {
	for _, tt := range []struct {
		name, label, sent string
		reports           int
	}{
		{"unmappable", "ContentType:text", "ContentType:text", 1},
		{"mapped", uriLabel, ctLabel, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &minimalWriter{h: http.Header{}}
			reports := 0
			opts := Options{Unmappable: PassThrough, OnError: func(*http.Request, error) { reports++ }}
			Rewrite(opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.label)
				assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
				_, _ = w.Write([]byte("x"))
			})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			assert.Equal(t, []string{tt.sent}, w.sent)
			assert.Equal(t, tt.reports, reports)
		})
	}
}

// A supported flush sends the header: the label is rewritten once, before
// it, and a label set afterwards is not (it never goes out).
func TestSupportedFlushUsesUpTheRewrite(t *testing.T) {
	rec := newRecordingWriter()
	serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", uriLabel)
		require.NoError(t, http.NewResponseController(w).Flush())
		w.Header().Set("Content-Type", "http://example.com/other")
		_, _ = w.Write([]byte("x"))
	})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, []string{ctLabel}, rec.sent())
}

// The temporary files of a multipart form parsed into the middleware's
// copy of the request are removed even when the handler panics, as
// net/http removes those of its own request.
func TestMultipartFilesRemovedAfterPanic(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir) // where ParseMultipartForm puts its files
	body, label := multipartForm(t, 4096)
	for _, o := range []Options{{}, {Response: Leave}} {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", label)
		h := Rewrite(o)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			require.NoError(t, r.ParseMultipartForm(0)) // maxMemory 0: the file goes to disk
			files, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.NotEmpty(t, files, "the form's file is on disk while the handler runs")
			panic(http.ErrAbortHandler)
		}))
		assert.PanicsWithValue(t, http.ErrAbortHandler, func() { h.ServeHTTP(httptest.NewRecorder(), r) })
		files, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, files, "response mode %v: the temporary file is removed", o.Response)
	}
}

// With FreshWriters, a handler that keeps writing through its
// ResponseWriter after returning (which net/http forbids) reaches only its
// own request's writer, never a later request's.
func TestFreshWritersIsolateALeakedWriter(t *testing.T) {
	var leaked http.ResponseWriter
	h := Rewrite(Options{FreshWriters: true})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			leaked = w
			return
		}
		leaked.Header().Set("X-From-A", "late")
		_, _ = leaked.Write([]byte("A;"))
		_, _ = w.Write([]byte("B"))
	}))
	recA := httptest.NewRecorder()
	h.ServeHTTP(recA, httptest.NewRequest(http.MethodGet, "/a", nil))
	recB := httptest.NewRecorder()
	h.ServeHTTP(recB, httptest.NewRequest(http.MethodGet, "/b", nil))
	assert.Equal(t, "B", recB.Body.String())
	assert.Empty(t, recB.Header().Get("X-From-A"))
	assert.Equal(t, "A;", recA.Body.String(), "the late write went to its own request's writer")
}

// Without FreshWriters, a writer kept past its handler's return and used
// before another request takes it from the pool fails with ErrAfterReturn
// through every view, and panics nowhere.
func TestRecycledWriterFailsAfterReturn(t *testing.T) {
	var leaked http.ResponseWriter
	fw := &fullWriter{recordingWriter: newRecordingWriter()}
	Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = w
	})).ServeHTTP(fw, httptest.NewRequest(http.MethodGet, "/", nil))
	calls := len(fw.calls)

	require.NotPanics(t, func() {
		leaked.Header().Set("Content-Type", uriLabel)
		leaked.WriteHeader(http.StatusTeapot)
		_, err := leaked.Write([]byte("late"))
		assert.ErrorIs(t, err, ErrAfterReturn)
		_, err = io.WriteString(leaked, "late")
		assert.ErrorIs(t, err, ErrAfterReturn)
		assert.ErrorIs(t, http.NewResponseController(leaked).Flush(), ErrAfterReturn)
		leaked.(http.Flusher).Flush()
		_, err = leaked.(io.ReaderFrom).ReadFrom(strings.NewReader("late"))
		assert.ErrorIs(t, err, ErrAfterReturn)
		_, _, err = leaked.(http.Hijacker).Hijack()
		assert.ErrorIs(t, err, ErrAfterReturn)
		assert.ErrorIs(t, leaked.(http.Pusher).Push("/x", nil), ErrAfterReturn)
		rc := http.NewResponseController(leaked)
		assert.ErrorIs(t, rc.SetReadDeadline(time.Now()), ErrAfterReturn)
		assert.ErrorIs(t, rc.SetWriteDeadline(time.Now()), ErrAfterReturn)
		assert.ErrorIs(t, rc.EnableFullDuplex(), ErrAfterReturn)
		assert.Empty(t, leaked.Header(), "a late header goes nowhere")
	})
	assert.Len(t, fw.calls, calls, "nothing reached the request's writer")
	assert.Empty(t, fw.body.String())
	assert.Empty(t, fw.h.Get("Content-Type"))
}

// FreshWriters costs one allocation per request; recycling, none. (Under
// -race sync.Pool drops some writers on purpose; AllocsPerRun's integer
// average still tells 0 from 1.)
func TestFreshWritersAllocations(t *testing.T) {
	for _, tt := range []struct {
		fresh bool
		want  float64
	}{{false, 0}, {true, 1}} {
		w := &discardWriter{h: http.Header{}}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		h := Rewrite(Options{FreshWriters: tt.fresh})(labelHandler(benchCT))
		h.ServeHTTP(w, r) // warm the pool
		assert.Equal(t, tt.want, testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }), "FreshWriters %v", tt.fresh)
	}
}

// Without FreshWriters, a writer kept past its handler's return reaches
// whichever request took it from the pool next (see Options.FreshWriters).
// That request's writer may lack an optional interface the kept view
// has (an HTTP/1 view, with Hijack and ReadFrom, over an HTTP/2 writer);
// the call must then fail or fall back as http.ResponseController would,
// not panic in the goroutine that made it, which would end the program.
func TestLeakedViewOverARecycledWriterWithoutItsInterfaces(t *testing.T) {
	tests := []struct {
		name string
		call func(t *testing.T, leaked http.ResponseWriter)
		want string // what the later request's response got
	}{
		{"Flush", func(t *testing.T, leaked http.ResponseWriter) { leaked.(http.Flusher).Flush() }, ""},
		{"Hijack", func(t *testing.T, leaked http.ResponseWriter) {
			_, _, err := leaked.(http.Hijacker).Hijack()
			assert.ErrorIs(t, err, http.ErrNotSupported)
		}, ""},
		{"ReadFrom", func(t *testing.T, leaked http.ResponseWriter) {
			n, err := leaked.(io.ReaderFrom).ReadFrom(strings.NewReader("late"))
			assert.NoError(t, err)
			assert.Equal(t, int64(4), n)
		}, "late"},
		{"Push", func(t *testing.T, leaked http.ResponseWriter) {
			assert.ErrorIs(t, leaked.(http.Pusher).Push("/x", nil), http.ErrNotSupported)
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Rewrite(Options{})
			reused := false
			// sync.Pool may hand out a new writer (more often under
			// -race), so try until the kept one is taken again.
			for try := 0; try < 1000 && !reused; try++ {
				var leaked http.ResponseWriter
				h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked = w })).
					ServeHTTP(masked(&fullWriter{recordingWriter: newRecordingWriter()}, hasFlusher|hasHijacker|hasReaderFrom|hasPusher), httptest.NewRequest(http.MethodGet, "/", nil))
				rec := newRecordingWriter()
				plain := struct{ http.ResponseWriter }{rec} // no optional interface
				h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if leaked.(interface{ Unwrap() http.ResponseWriter }).Unwrap() != plain {
						return // another writer: nothing to test this time
					}
					reused = true
					w.Header().Set("Content-Type", uriLabel)
					assert.NotPanics(t, func() { tt.call(t, leaked) })
				})).ServeHTTP(plain, httptest.NewRequest(http.MethodGet, "/", nil))
				if reused {
					assert.Equal(t, tt.want, rec.body.String())
					if tt.want != "" {
						assert.Equal(t, []string{ctLabel}, rec.sent(), "the late write sent the mapped label")
					}
				}
			}
			require.True(t, reused, "the pool never handed the kept writer out again")
		})
	}
}

// After a flush that could not be done, the label is mapped again when
// the header does go out unless the field is as the probe left it: a
// handler that writes a new label into the field's slice in place has it
// mapped (and an unmappable one reported) too.
func TestUnsupportedFlushThenLabelEditedInPlace(t *testing.T) {
	const other = "http://example.com/other"
	tests := []struct {
		name, edit, sent string
		reports          int
	}{
		{"not edited", "", ctLabel, 0},
		{"another URI label", other, mustMap(t, mapping.ToContentType, other), 0},
		{"an unmappable label", "ContentType:text", "ContentType:text", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &minimalWriter{h: http.Header{}}
			reports := 0
			opts := Options{Unmappable: PassThrough, OnError: func(*http.Request, error) { reports++ }}
			Rewrite(opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", uriLabel)
				assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
				if tt.edit != "" {
					w.Header()["Content-Type"][0] = tt.edit
				}
				_, _ = w.Write([]byte("x"))
			})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			assert.Equal(t, []string{tt.sent}, w.sent)
			assert.Equal(t, tt.reports, reports)
		})
	}
}

// A hijacked connection gets no header from net/http, so the middleware
// leaves the header alone after a Hijack through the writer it gave the
// handler (directly or via http.ResponseController): it is not rewritten
// and an unmappable label is not reported when the handler returns.
func TestHijackEndsTheRewrite(t *testing.T) {
	const bad = "ContentType:a%0Ab/c"
	hijackers := map[string]func(http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error){
		"Hijacker": func(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) { return w.(http.Hijacker).Hijack() },
		"ResponseController": func(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
			return http.NewResponseController(w).Hijack()
		},
	}
	for name, hijack := range hijackers {
		for _, label := range []string{uriLabel, bad} {
			t.Run(name+" "+label, func(t *testing.T) {
				var reports int
				var h http.Header
				done := make(chan struct{})
				mw := Rewrite(Options{OnError: func(*http.Request, error) { reports++ }})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", label)
					h = w.Header()
					conn, brw, err := hijack(w)
					if !assert.NoError(t, err) {
						return
					}
					defer conn.Close()
					_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
					_ = brw.Flush()
				}))
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer close(done)
					mw.ServeHTTP(w, r)
				}))
				defer srv.Close()
				res, err := srv.Client().Get(srv.URL)
				require.NoError(t, err)
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				<-done
				assert.Equal(t, "ok", string(body))
				assert.Equal(t, []string{label}, h["Content-Type"], "not rewritten after the hijack")
				assert.Zero(t, reports, "nothing reported after the hijack")
			})
		}
	}
}

// FreshWriters gives each request a writer of its own, never one another
// middleware recycled: a writer leaked by a handler behind a recycling
// middleware keeps failing with ErrAfterReturn and never reaches the
// response of a request served with FreshWriters.
func TestFreshWritersTakeNoRecycledWriter(t *testing.T) {
	recycling := Rewrite(Options{})
	fresh := Rewrite(Options{FreshWriters: true})
	for range 200 {
		var leaked http.ResponseWriter
		recycling(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked = w })).
			ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/a", nil))
		rec := httptest.NewRecorder()
		var lateErr error
		fresh(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, lateErr = leaked.Write([]byte("late;"))
			_, _ = w.Write([]byte("B"))
		})).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/b", nil))
		require.ErrorIs(t, lateErr, ErrAfterReturn)
		require.Equal(t, "B", rec.Body.String())
	}
}

// A view with Flush kept past its handler's return, over a later
// request's writer that can flush only through its Unwrap chain, flushes
// as http.ResponseController would: through the chain, with the label
// mapped first.
func TestLeakedFlushReachesAWriterThatFlushesThroughUnwrap(t *testing.T) {
	h := Rewrite(Options{})
	reused := false
	for try := 0; try < 1000 && !reused; try++ {
		var leaked http.ResponseWriter
		h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked = w })).
			ServeHTTP(newRecordingWriter(), httptest.NewRequest(http.MethodGet, "/", nil))
		fw := &fullWriter{recordingWriter: newRecordingWriter()}
		under := unwrapOnly{fw}
		h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if leaked.(interface{ Unwrap() http.ResponseWriter }).Unwrap() != under {
				return // another writer: nothing to test this time
			}
			reused = true
			w.Header().Set("Content-Type", uriLabel)
			leaked.(http.Flusher).Flush()
			require.NotEmpty(t, fw.events, "the flush reached the writer through Unwrap")
			assert.Equal(t, "Flush", fw.events[len(fw.events)-1].call)
			assert.Equal(t, []string{ctLabel}, fw.sent())
		})).ServeHTTP(under, httptest.NewRequest(http.MethodGet, "/", nil))
	}
	require.True(t, reused, "the pool never handed the kept writer out again")
}

// TestZeroError: an Error built by hand without a cause (the zero value)
// formats and reports its kind instead of panicking.
func TestZeroError(t *testing.T) {
	var e Error
	assert.NotPanics(t, func() {
		assert.Equal(t, "middleware: the request's Content-Type label cannot be mapped (unknown)", (&Error{Side: SideRequest}).Error())
		assert.Equal(t, "unknown", e.Kind())
		_ = e.Error()
	})
}

// A multipart form that a handler ahead of the middleware parsed into the
// caller's request belongs to the caller: when the label changes, the
// handler's copy shares that form, and the middleware removes the files
// of a form only when the copy parsed its own.
func TestCallersMultipartFormKept(t *testing.T) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "f.txt")
	require.NoError(t, err)
	_, _ = fw.Write(bytes.Repeat([]byte("x"), 4096))
	require.NoError(t, mw.Close())
	r := httptest.NewRequest(http.MethodPost, "/", &body)
	// boundary=x as Go and browsers write it: Canonical quotes it.
	r.Header.Set("Content-Type", mw.FormDataContentType())
	inner := Rewrite(Options{Request: Canonical, Response: Leave})(http.HandlerFunc(func(_ http.ResponseWriter, r2 *http.Request) {
		assert.NotSame(t, r, r2, "the label changed, so the handler has a copy")
		assert.Same(t, r.MultipartForm, r2.MultipartForm)
	}))
	http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseMultipartForm(0)) // maxMemory 0: the file goes to disk
		defer func() { _ = r.MultipartForm.RemoveAll() }()
		inner.ServeHTTP(w, r)
		f, err := r.MultipartForm.File["file"][0].Open()
		if assert.NoError(t, err, "the caller's form file is still there") {
			_ = f.Close()
		}
	}).ServeHTTP(httptest.NewRecorder(), r)
}

// A flush the writer cannot do after the header went out changes
// nothing: the rewrite has happened, so a label set after it is neither
// mapped nor reported.
func TestUnsupportedFlushAfterTheHeader(t *testing.T) {
	w := &minimalWriter{h: http.Header{}}
	reports := 0
	Rewrite(Options{OnError: func(*http.Request, error) { reports++ }})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("a")) // the header goes out
		assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
		w.Header().Set("Content-Type", "ContentType:text/plain%0D%0AX:1") // too late, and unmappable
		_, _ = w.Write([]byte("b"))
	})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Zero(t, reports)
	assert.Empty(t, w.sent)
	assert.Equal(t, "ab", w.body.String())
}

// After a probing flush, the field the probe mapped is not mapped again,
// but a field the handler sets anew is, even to the same value (a new
// slice), or the same slice put back after a later probe found none: an
// unmappable label is reported for each.
func TestProbedFieldSetAgain(t *testing.T) {
	const bad = "ContentType:text/plain%0D%0AX:1"
	for name, handle := range map[string]func(w http.ResponseWriter){
		"set again": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", bad)
			_ = http.NewResponseController(w).Flush()
			w.Header().Set("Content-Type", bad)
		},
		"put back after a probe without a label": func(w http.ResponseWriter) {
			s := []string{bad}
			w.Header()["Content-Type"] = s
			_ = http.NewResponseController(w).Flush()
			delete(w.Header(), "Content-Type")
			_ = http.NewResponseController(w).Flush()
			w.Header()["Content-Type"] = s
		},
	} {
		t.Run(name, func(t *testing.T) {
			w := &minimalWriter{h: http.Header{}}
			reports := 0
			opts := Options{Unmappable: PassThrough, OnError: func(*http.Request, error) { reports++ }}
			Rewrite(opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				handle(w)
				_, _ = w.Write([]byte("a"))
			})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			assert.Equal(t, 2, reports)
			assert.Equal(t, []string{bad}, w.sent)
		})
	}
}

// Rewrite given a nil handler panics when it wraps it, as http.Handle
// does, instead of building a handler that panics on each request it
// does not reject (one with a label it cannot map still got its 415).
func TestRewriteNilHandler(t *testing.T) {
	for _, opts := range []Options{{}, {Response: Leave}, {Request: Leave, Response: Leave}} {
		mw := Rewrite(opts)
		assert.PanicsWithValue(t, "middleware: Rewrite: nil handler", func() { mw(nil) }, "%+v", opts)
	}
}

// A typed nil *Error, which a caller's code can put in an error, is walked
// past as mapping's and urlencoded's are: errors.Is, errors.As and
// mapping.KindOf find nothing in it instead of panicking.
func TestTypedNilError(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
	}{
		{"bare", (*Error)(nil)},
		{"wrapped", fmt.Errorf("handler: %w", (*Error)(nil))},
		{"joined", errors.Join(errors.New("other"), (*Error)(nil))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.NotPanics(t, func() {
				assert.NotErrorIs(t, tt.err, ErrLabelTooLong)
				assert.NotErrorIs(t, tt.err, mapping.ErrCTL)
				_, ok := errors.AsType[*mapping.Error](tt.err)
				assert.False(t, ok)
				assert.Equal(t, mapping.Kind(0), mapping.KindOf(tt.err))
			})
		})
	}
	assert.NoError(t, (*Error)(nil).Unwrap())
}

// A request whose Header, Body or URL is nil (built by hand in a test, or
// by another middleware) is served as one with an empty header, no body
// or no URL: the label is mapped or refused as usual, a form is decoded
// only from a body there is, and nothing panics.
func TestRequestWithNilParts(t *testing.T) {
	const form = "application/www-form-urlencoded"
	for _, tt := range []struct {
		name   string
		label  string
		strip  func(*http.Request)
		opts   Options
		code   int
		seen   string // the Content-Type the handler saw
		labels bool   // RequestLabels' ok
		form   string // r.PostForm as the handler saw it, when decoded
	}{
		{"nil header", "", func(r *http.Request) { r.Header = nil }, Options{}, 200, "", false, ""},
		{"nil header, ToURI both ways", "", func(r *http.Request) { r.Header = nil }, Options{Request: ToURI, Response: ToURI}, 200, "", false, ""},
		{"nil header, forms", "", func(r *http.Request) { r.Header = nil }, Options{DecodeForms: true}, 200, "", false, ""},
		{"nil body, mapped", "ContentType:text/plain", func(r *http.Request) { r.Body = nil }, Options{}, 200, "text/plain", true, ""},
		{"nil body, form label", form, func(r *http.Request) { r.Body = nil }, Options{DecodeForms: true}, 200, form, false, ""},
		{"nil body, mapped form label", "ContentType:" + form, func(r *http.Request) { r.Body = nil }, Options{DecodeForms: true}, 200, form, true, ""},
		{"nil URL, mapped", "ContentType:text/plain", func(r *http.Request) { r.URL = nil }, Options{}, 200, "text/plain", true, ""},
		{"nil URL, rejected", "ContentType:text", func(r *http.Request) { r.URL = nil }, Options{}, 415, "", false, ""},
		{"nil URL, form decoded", form, func(r *http.Request) { r.URL = nil }, Options{DecodeForms: true}, 200, form, false, "map[a:[1] b:[2]]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("a=1;b=2"))
			if tt.label != "" {
				r.Header.Set("Content-Type", tt.label)
			}
			tt.strip(r)
			w := httptest.NewRecorder()
			ran := false
			require.NotPanics(t, func() {
				Rewrite(tt.opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					ran = true
					assert.Equal(t, tt.seen, r.Header.Get("Content-Type"))
					_, ok := RequestLabels(r)
					assert.Equal(t, tt.labels, ok)
					if tt.form != "" {
						assert.Equal(t, tt.form, fmt.Sprint(r.PostForm))
					}
				})).ServeHTTP(w, r)
			})
			assert.Equal(t, tt.code, w.Code)
			assert.Equal(t, tt.code == 200, ran)
		})
	}
}

// The proxy hooks take what httputil.ReverseProxy and a RoundTripper may
// hand them: an outgoing request or a response without a header, and a
// response without its Request, which a RoundTripper need not set. OnError
// then gets a nil *http.Request, as its documentation says.
func TestProxyHooksWithNilParts(t *testing.T) {
	out := &http.Request{}
	require.NotPanics(t, func() { ProxyRewrite(Options{Request: ToURI}, nil)(&httputil.ProxyRequest{Out: out}) })
	assert.Nil(t, out.Header)

	res := &http.Response{}
	require.NotPanics(t, func() { assert.NoError(t, ProxyModifyResponse(Options{Response: ToURI}, nil)(res)) })
	assert.Nil(t, res.Header)

	res = &http.Response{Header: http.Header{"Content-Type": {"text/plain"}}}
	require.NoError(t, ProxyModifyResponse(Options{Response: ToURI}, nil)(res))
	assert.Equal(t, "ContentType:text/plain", res.Header.Get("Content-Type"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))

	for _, policy := range []Policy{Reject, PassThrough} {
		calls := 0
		var got *http.Request = out
		opts := Options{Unmappable: policy, OnError: func(r *http.Request, err error) { calls, got = calls+1, r }}
		res = &http.Response{Header: http.Header{"Content-Type": {"ContentType:text"}}}
		err := ProxyModifyResponse(opts, nil)(res)
		if policy == Reject {
			assert.ErrorIs(t, err, mapping.ErrBadMIMEType)
		} else {
			assert.NoError(t, err)
		}
		assert.Equal(t, 1, calls)
		assert.Nil(t, got, "OnError gets the response's Request, nil here")
		assert.Equal(t, "ContentType:text", res.Header.Get("Content-Type"))
	}
}
