package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"sync"
	"testing"

	"github.com/cturi/cturi/examples/proxy/translate"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// h2cServer serves h over HTTP/1.1 and unencrypted HTTP/2 with prior
// knowledge (http.Server.Protocols).
func h2cServer(t *testing.T, h http.Handler) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Config.ErrorLog = log.New(testWriter{t}, "", 0)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// h2cTransport speaks unencrypted HTTP/2 only.
func h2cTransport(t *testing.T) *http.Transport {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// h2cCases is what TestH2C asks of a server of URI labels behind the
// middleware, or behind the translating proxy: both turn them into
// Content-Types.
func h2cCases(t *testing.T, base string, c *http.Client, gate chan struct{}) {
	get := func(t *testing.T, path string) *http.Response {
		res, err := c.Get(base + path)
		require.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		require.Equal(t, 2, res.ProtoMajor, "h2c")
		return res
	}
	t.Run("request label and body", func(t *testing.T) {
		payload := randomBytes(t, 1<<20+7)
		req, err := http.NewRequest(http.MethodPost, base+"/echo", bytes.NewReader(payload))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/octet-stream")
		res, err := c.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, 2, res.ProtoMajor)
		assert.Equal(t, "ContentType:application/octet-stream", res.Header.Get("X-Backend-Saw"))
		assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
		assertSameBytes(t, payload, res.Body)
	})
	t.Run("103 then 200", func(t *testing.T) {
		var hints []string
		var mu sync.Mutex
		trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			mu.Lock()
			defer mu.Unlock()
			hints = append(hints, fmt.Sprint(code, " ", h.Get("Link")))
			return nil
		}}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, base+"/early-hints", nil)
		require.NoError(t, err)
		res, err := c.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, "final", string(body))
		assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, []string{"103 </style.css>; rel=preload; as=style"}, hints)
	})
	t.Run("trailers", func(t *testing.T) {
		res := get(t, "/trailers")
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
		assert.Equal(t, sha(body), res.Trailer.Get("X-Checksum"))
		assert.Equal(t, "announced late", res.Trailer.Get("X-Late"))
	})
	t.Run("stream flushed per chunk", func(t *testing.T) {
		res := get(t, "/stream?length&label="+url.QueryEscape("ContentType:text/event-stream"))
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		readChunks(t, res.Body, gate)
	})
}

// h2cBackend is uriBackend with the early hints and trailers handlers.
func h2cBackend(t *testing.T, gate chan struct{}) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", uriBackend(t, gate))
	mux.HandleFunc("/early-hints", serveEarlyHints)
	mux.HandleFunc("/trailers", serveTrailers)
	return mux
}

// Unencrypted HTTP/2 (Go 1.24's Protocols): labels both ways, 1xx,
// trailers and a flushed stream, through the middleware wrapping a server
// of URI labels, and through the translating proxy, h2c on both of its
// sides.
func TestH2C(t *testing.T) {
	c := &http.Client{Transport: h2cTransport(t)}
	t.Run("middleware", func(t *testing.T) {
		gate := make(chan struct{})
		// The backend checks that it is given a URI label; the middleware
		// gives it one (ToURI), and maps its answers back.
		srv := h2cServer(t, middleware.Rewrite(middleware.Options{Request: middleware.ToURI})(h2cBackend(t, gate)))
		h2cCases(t, srv.URL, c, gate)
	})
	t.Run("translating proxy", func(t *testing.T) {
		gate := make(chan struct{})
		var protos sync.Map
		mux := h2cBackend(t, gate)
		backend := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			protos.Store(r.Proto, true)
			mux.ServeHTTP(w, r)
		}))
		target, err := url.Parse(backend.URL)
		require.NoError(t, err)
		p := translate.Proxy(target)
		p.Transport, p.ErrorLog = h2cTransport(t), log.New(io.Discard, "", 0)
		proxy := h2cServer(t, p)
		h2cCases(t, proxy.URL, c, gate)
		_, h1 := protos.Load("HTTP/1.1")
		assert.False(t, h1, "the backend heard HTTP/1.1")
	})
}
