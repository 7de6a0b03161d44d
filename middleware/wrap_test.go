package middleware

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullWriter has every optional interface; masked hides some of them.
type fullWriter struct {
	*recordingWriter
	calls []string
}

var errHijacked = errors.New("test hijack")

func (w *fullWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.calls = append(w.calls, "Hijack")
	return nil, nil, errHijacked
}

func (w *fullWriter) ReadFrom(src io.Reader) (int64, error) {
	w.calls = append(w.calls, "ReadFrom")
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.record("ReadFrom", 0)
	return w.body.ReadFrom(src)
}

func (w *fullWriter) Push(target string, _ *http.PushOptions) error {
	w.calls = append(w.calls, "Push "+target)
	return nil
}

// masked returns a writer with the ResponseWriter methods of w and the
// optional interfaces selected by has.
func masked(w *fullWriter, has uint8) http.ResponseWriter {
	type (
		rw = http.ResponseWriter
		f  = http.Flusher
		h  = http.Hijacker
		r  = io.ReaderFrom
		p  = http.Pusher
	)
	switch has {
	case 0:
		return struct{ rw }{w}
	case hasFlusher:
		return struct {
			rw
			f
		}{w, w}
	case hasHijacker:
		return struct {
			rw
			h
		}{w, w}
	case hasReaderFrom:
		return struct {
			rw
			r
		}{w, w}
	case hasPusher:
		return struct {
			rw
			p
		}{w, w}
	case hasFlusher | hasHijacker:
		return struct {
			rw
			f
			h
		}{w, w, w}
	case hasFlusher | hasReaderFrom:
		return struct {
			rw
			f
			r
		}{w, w, w}
	case hasFlusher | hasPusher:
		return struct {
			rw
			f
			p
		}{w, w, w}
	case hasHijacker | hasReaderFrom:
		return struct {
			rw
			h
			r
		}{w, w, w}
	case hasHijacker | hasPusher:
		return struct {
			rw
			h
			p
		}{w, w, w}
	case hasReaderFrom | hasPusher:
		return struct {
			rw
			r
			p
		}{w, w, w}
	case hasFlusher | hasHijacker | hasReaderFrom:
		return struct {
			rw
			f
			h
			r
		}{w, w, w, w}
	case hasFlusher | hasHijacker | hasPusher:
		return struct {
			rw
			f
			h
			p
		}{w, w, w, w}
	case hasFlusher | hasReaderFrom | hasPusher:
		return struct {
			rw
			f
			r
			p
		}{w, w, w, w}
	case hasHijacker | hasReaderFrom | hasPusher:
		return struct {
			rw
			h
			r
			p
		}{w, w, w, w}
	}
	return w
}

func interfacesOf(w http.ResponseWriter) uint8 {
	var has uint8
	if _, ok := w.(http.Flusher); ok {
		has |= hasFlusher
	}
	if _, ok := w.(http.Hijacker); ok {
		has |= hasHijacker
	}
	if _, ok := w.(io.ReaderFrom); ok {
		has |= hasReaderFrom
	}
	if _, ok := w.(http.Pusher); ok {
		has |= hasPusher
	}
	return has
}

// For each of the 16 combinations, the handler's writer has exactly the
// optional interfaces of the underlying one, each of them reaches it, and
// the ones that send the header rewrite the label first.
func TestViewsExposeExactlyTheUnderlyingInterfaces(t *testing.T) {
	for has := range uint8(16) {
		fw := &fullWriter{recordingWriter: newRecordingWriter()}
		under := masked(fw, has)
		require.Equal(t, has, interfacesOf(under), "fake %04b", has)
		serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			assert.Equal(t, has, interfacesOf(w), "view of %04b", has)
			u, ok := w.(interface{ Unwrap() http.ResponseWriter })
			require.True(t, ok)
			assert.Equal(t, under, u.Unwrap())
			_, ok = w.(io.StringWriter)
			assert.True(t, ok, "WriteString on every view")

			w.Header().Set("Content-Type", uriLabel)
			if p, ok := w.(http.Pusher); ok {
				require.NoError(t, p.Push("/style.css", nil))
				assert.Empty(t, fw.events, "a push sends no response header")
			}
			if h, ok := w.(http.Hijacker); ok {
				_, _, err := h.Hijack()
				assert.ErrorIs(t, err, errHijacked)
			}
			switch {
			case has&hasReaderFrom != 0:
				n, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader("body"))
				require.NoError(t, err)
				assert.Equal(t, int64(4), n)
			case has&hasFlusher != 0:
				w.(http.Flusher).Flush()
			default:
				_, _ = w.Write([]byte("body"))
			}
		})), under, httptest.NewRequest(http.MethodGet, "/", nil))
		assert.Equal(t, []string{ctLabel}, fw.sent(), "combination %04b", has)
		var want []string
		if has&hasPusher != 0 {
			want = append(want, "Push /style.css")
		}
		if has&hasHijacker != 0 {
			want = append(want, "Hijack")
		}
		if has&hasReaderFrom != 0 {
			want = append(want, "ReadFrom")
		}
		assert.Equal(t, want, fw.calls, "combination %04b", has)
	}
}

// http.ResponseController reaches the underlying writer's features
// through Unwrap, and its Flush always passes through the rewrite, even
// when the writer below flushes only via its own Unwrap chain.
func TestResponseControllerThroughTheView(t *testing.T) {
	fw := &fullWriter{recordingWriter: newRecordingWriter()}
	under := unwrapOnly{fw} // no optional interface of its own
	serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, uint8(0), interfacesOf(w))
		w.Header().Set("Content-Type", uriLabel)
		rc := http.NewResponseController(w)
		require.NoError(t, rc.Flush())
		_, _, err := rc.Hijack()
		assert.ErrorIs(t, err, errHijacked)
		assert.ErrorIs(t, rc.SetWriteDeadline(timeZero), http.ErrNotSupported)
	})), under, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, []string{ctLabel}, fw.sent())
	assert.Equal(t, "Flush", fw.events[len(fw.events)-1].call)

	// Nothing to flush with at all.
	plain := struct{ http.ResponseWriter }{newRecordingWriter()}
	serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
	})), plain, httptest.NewRequest(http.MethodGet, "/", nil))
}

type unwrapOnly struct{ w *fullWriter }

func (u unwrapOnly) Header() http.Header         { return u.w.Header() }
func (u unwrapOnly) Write(p []byte) (int, error) { return u.w.Write(p) }
func (u unwrapOnly) WriteHeader(code int)        { u.w.WriteHeader(code) }
func (u unwrapOnly) Unwrap() http.ResponseWriter { return u.w }
func (u unwrapOnly) String() string              { return "unwrapOnly" }

// Every view that can flush rewrites the label before the flush sends the
// header, whichever other interfaces it has (TestViewsExposeExactly...
// sends the header with ReadFrom when the view has it).
func TestEveryViewFlushRewrites(t *testing.T) {
	for has := range uint8(16) {
		if has&hasFlusher == 0 {
			continue
		}
		t.Run(fmt.Sprintf("%04b", has), func(t *testing.T) {
			fw := &fullWriter{recordingWriter: newRecordingWriter()}
			serve(Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", uriLabel)
				w.(http.Flusher).Flush()
			})), masked(fw, has), httptest.NewRequest(http.MethodGet, "/", nil))
			assert.Equal(t, []string{ctLabel}, fw.sent())
			require.NotEmpty(t, fw.events)
			assert.Equal(t, "Flush", fw.events[len(fw.events)-1].call)
		})
	}
}
