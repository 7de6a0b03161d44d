package integration

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/middleware"
	"github.com/gorilla/handlers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The order the README recommends, outermost first: ProxyHeaders,
// LoggingHandler, the middleware, CompressHandler, ContentTypeHandler,
// the handler.
func recommendedChain(log io.Writer, h http.Handler) http.Handler {
	return handlers.ProxyHeaders(
		handlers.LoggingHandler(log,
			middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(
				handlers.CompressHandler(
					handlers.ContentTypeHandler(h, "application/json")))))
}

func TestGorillaComposition(t *testing.T) {
	var log servertest.SyncBuffer
	page := strings.Repeat("<p>cturi</p>", 200)
	srv := httptest.NewServer(recommendedChain(&log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Header.Get("Content-Type"))
		// No Content-Type: CompressHandler sniffs one (text/html), and the
		// middleware, outside it, maps the sniffed label too.
		_, _ = io.WriteString(w, page)
	})))
	defer srv.Close()

	post := func(label string, gz bool) (*http.Response, []byte) {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", label)
		req.Header.Set("X-Forwarded-For", "203.0.113.7")
		if gz {
			// Set by hand, the transport leaves the body compressed.
			req.Header.Set("Accept-Encoding", "gzip")
		}
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, body
	}

	// A URI label for JSON passes gorilla's ContentTypeHandler, which
	// sees the mapped Content-Type.
	res, body := post("ContentType:application/json", true)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "application/json", res.Header.Get("X-Seen"))
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	assert.Equal(t, `ContentType:text/html?charset="utf-8"`, res.Header.Get("Content-Type"), "the sniffed label was mapped")
	zr, err := gzip.NewReader(bytes.NewReader(body))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, page, string(plain))

	// A label the middleware cannot map is answered 415 by it, logged by
	// LoggingHandler with the client address ProxyHeaders set.
	res, body = post("ContentType:application/json%0D%0A", false)
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	assert.Contains(t, string(body), "(ctl)")
	assert.Equal(t, `ContentType:text/plain?charset="utf-8"`, res.Header.Get("Content-Type"))

	// Another media type is gorilla's 415, also logged.
	res, _ = post("ContentType:text/csv", false)
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)

	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 3)
	for i, status := range []string{" 200 ", " 415 ", " 415 "} {
		assert.True(t, strings.HasPrefix(lines[i], "203.0.113.7 "), lines[i])
		assert.Contains(t, lines[i], status)
	}
}

// The other way round, ContentTypeHandler outside the middleware sees
// the URI label and refuses a request the handler could serve.
func TestGorillaContentTypeHandlerOutsideRefuses(t *testing.T) {
	h := handlers.ContentTypeHandler(middleware.Rewrite(middleware.Options{})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})), "application/json")
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	r.Header.Set("Content-Type", "ContentType:application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnsupportedMediaType, w.Code)
}

// CompressHandler sniffs a Content-Type, which the middleware outside it
// then maps, only for an answer it compresses and only on Write: for a
// client that does not accept gzip, net/http sniffs after the middleware
// and the type goes out unmapped, and an io.Copy (ReadFrom) body it
// compresses gets no Content-Type at all. docs/middleware.md says so.
func TestGorillaCompressSniffsOnlyWhenCompressing(t *testing.T) {
	page := strings.Repeat("<p>cturi</p>", 200)
	tests := []struct {
		name, acceptEncoding string
		copyBody             bool
		want                 []string
	}{
		{"gzip, Write", "gzip", false, []string{`ContentType:text/html?charset="utf-8"`}},
		{"identity, Write", "identity", false, []string{"text/html; charset=utf-8"}},
		{"gzip, io.Copy", "gzip", true, nil},
		{"identity, io.Copy", "identity", true, []string{"text/html; charset=utf-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(recommendedChain(io.Discard, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.copyBody {
					_, _ = io.Copy(w, onlyReader{strings.NewReader(page)})
					return
				}
				_, _ = io.WriteString(w, page)
			})))
			defer srv.Close()
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			require.NoError(t, err)
			req.Header.Set("Accept-Encoding", tt.acceptEncoding) // set by hand: no transparent gzip
			res, err := srv.Client().Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, tt.want, res.Header.Values("Content-Type"))
		})
	}
}

// gorilla's RecoveryHandler outside the middleware (where the README puts
// recovery) answers a panic with the header the handler had set: its
// label goes out mapped, as on every other way out of the handler, over
// HTTP/1.1 and HTTP/2.
func TestGorillaRecoveryOutsideMapsLabel(t *testing.T) {
	h := handlers.RecoveryHandler(handlers.RecoveryLogger(discardLogger{}))(
		middleware.Rewrite(middleware.Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "http://example.com/tag42")
			panic("handler failed")
		})))
	for _, h2 := range []bool{false, true} {
		srv := httptest.NewUnstartedServer(h)
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		res, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		srv.Close()
		assert.Equal(t, h2, res.ProtoMajor == 2)
		assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
		assert.Equal(t, "application/uri.http%3A%2F%2Fexample.com%2Ftag42", res.Header.Get("Content-Type"), "HTTP/2 %v", h2)
	}
}

type discardLogger struct{}

func (discardLogger) Println(...any) {}
