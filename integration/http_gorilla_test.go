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
