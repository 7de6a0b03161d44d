package integration

import (
	"bufio"
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uriBackend speaks URI labels only: it refuses a request labelled with a
// Content-Type and labels its answers with URIs.
func uriBackend(t *testing.T, gate chan struct{}) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/proto-probe", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if mapping.Detect(ct) != mapping.DirectionToContentType {
			http.Error(w, "URI labels only, got "+ct, http.StatusUnsupportedMediaType)
			return
		}
		// Read all, then answer: an HTTP/1.1 handler cannot interleave
		// reading the request with writing the response.
		body, err := io.ReadAll(r.Body)
		if !assert.NoError(t, err) {
			return
		}
		w.Header().Set("X-Backend-Saw", ct)
		w.Header().Set("Content-Type", uriLabel)
		_, _ = w.Write(body)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.URL.Query().Get("label"))
		var chunks []string
		length := 0
		for i := range 4 {
			chunks = append(chunks, "data: chunk "+strconv.Itoa(i)+"\n\n")
			length += len(chunks[i])
		}
		if r.URL.Query().Has("length") {
			// Framed by length, so that a proxy streams it only if it
			// recognises the type or flushes every write.
			w.Header().Set("Content-Length", strconv.Itoa(length))
		}
		rc := http.NewResponseController(w)
		for _, chunk := range chunks {
			_, _ = io.WriteString(w, chunk)
			if !assert.NoError(t, rc.Flush()) {
				return
			}
			select {
			case <-gate:
			case <-time.After(10 * time.Second):
				t.Error("the chunk never reached the client through the proxy")
				return
			case <-r.Context().Done():
				return
			}
		}
	})
	return mux
}

// labelProxy is a reverse proxy that gives the backend URI labels and the
// clients Content-Types, built with the two proxy helpers.
func labelProxy(backend *httptest.Server, flush time.Duration) http.Handler {
	target, _ := url.Parse(backend.URL)
	opts := middleware.Options{Request: middleware.ToURI, Response: middleware.ToContentType}
	return &httputil.ReverseProxy{
		Rewrite: middleware.ProxyRewrite(opts, func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			middleware.GuardProxyBody(pr.Out)
		}),
		ModifyResponse: middleware.ProxyModifyResponse(opts, nil),
		Transport:      backend.Client().Transport,
		FlushInterval:  flush,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
}

// plainProxy forwards to backend without touching labels.
func plainProxy(backend *httptest.Server) *httputil.ReverseProxy {
	target, _ := url.Parse(backend.URL)
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			middleware.GuardProxyBody(pr.Out)
		},
		Transport: backend.Client().Transport,
		ErrorLog:  log.New(io.Discard, "", 0),
	}
}

// wrappedProxy is the same proxy as labelProxy, as a plain proxy behind
// Rewrite.
func wrappedProxy(backend *httptest.Server, flush time.Duration) http.Handler {
	p := plainProxy(backend)
	p.FlushInterval = flush
	return middleware.Rewrite(middleware.Options{Request: middleware.ToURI, Response: middleware.ToContentType})(p)
}

func TestProxyChain(t *testing.T) {
	builds := []struct {
		name  string
		build func(*httptest.Server, time.Duration) http.Handler
	}{
		{"helpers", labelProxy},
		{"Rewrite around the proxy", wrappedProxy},
	}
	for _, bp := range protos {
		gate := make(chan struct{})
		backend := bp.start(uriBackend(t, gate))
		t.Cleanup(backend.Close)
		for _, b := range builds {
			t.Run("backend "+bp.name+"/"+b.name, func(t *testing.T) {
				eachProto(t, b.build(backend, 0), func(t *testing.T, proxy *httptest.Server, c *http.Client) {
					t.Run("bodies byte-identical, labels translated", func(t *testing.T) {
						payload := randomBytes(t, 4<<20+5)
						req, err := http.NewRequest(http.MethodPost, proxy.URL+"/echo", bytes.NewReader(payload))
						require.NoError(t, err)
						req.Header.Set("Content-Type", "application/octet-stream")
						res, err := c.Do(req)
						require.NoError(t, err)
						defer res.Body.Close()
						require.Equal(t, http.StatusOK, res.StatusCode)
						assert.Equal(t, "ContentType:application/octet-stream", res.Header.Get("X-Backend-Saw"))
						assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
						assertSameBytes(t, payload, res.Body)
					})

					t.Run("streamed request body of unknown length", func(t *testing.T) {
						payload := randomBytes(t, 2<<20+11)
						pr, pw := io.Pipe()
						go func() {
							for off := 0; off < len(payload); off += 32 << 10 {
								end := min(off+32<<10, len(payload))
								if _, err := pw.Write(payload[off:end]); err != nil {
									return
								}
							}
							_ = pw.Close()
						}()
						req, err := http.NewRequest(http.MethodPost, proxy.URL+"/echo", pr)
						require.NoError(t, err)
						req.Header.Set("Content-Type", "text/plain; charset=utf-8")
						res, err := c.Do(req)
						require.NoError(t, err)
						defer res.Body.Close()
						assert.Equal(t, `ContentType:text/plain?charset="utf-8"`, res.Header.Get("X-Backend-Saw"))
						sum, _, err := hashReader(res.Body)
						require.NoError(t, err)
						assert.Equal(t, sha(payload), sum)
					})

					t.Run("streamed response, flushed per chunk", func(t *testing.T) {
						res, err := c.Get(proxy.URL + "/stream?label=" + url.QueryEscape("ContentType:text/event-stream"))
						require.NoError(t, err)
						defer res.Body.Close()
						// The client sees text/event-stream. The proxy
						// streams it because its length is unknown (it
						// flushes such responses at once); with the
						// helpers it also recognises the mapped label,
						// while behind Rewrite it sees the URI label. A
						// stream framed by length is
						// TestProxyStreamsURILabelledEvents's.
						assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
						readChunks(t, res.Body, gate)
					})
				})
			})
		}
	}
}

// A proxy that maps an event stream to a URI label no longer recognises
// it by type; FlushInterval -1, as ProxyModifyResponse documents, keeps
// it streaming whatever the framing. The backend declares a
// Content-Length, since a proxy streams a response without one anyway.
func TestProxyStreamsURILabelledEvents(t *testing.T) {
	gate := make(chan struct{})
	backend := httptest.NewServer(uriBackend(t, gate))
	t.Cleanup(backend.Close)
	target, _ := url.Parse(backend.URL)
	opts := middleware.Options{Response: middleware.ToURI}
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:        func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		ModifyResponse: middleware.ProxyModifyResponse(opts, nil),
		FlushInterval:  -1,
	})
	t.Cleanup(proxy.Close)
	res, err := proxy.Client().Get(proxy.URL + "/stream?length&label=text/event-stream")
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, "ContentType:text/event-stream", res.Header.Get("Content-Type"))
	assert.Equal(t, int64(60), res.ContentLength)
	readChunks(t, res.Body, gate)
}

// The proxy reads the label after ModifyResponse, so an event stream the
// backend labels with a URI, mapped to text/event-stream, is flushed per
// event with the default FlushInterval, even framed by length.
func TestProxyRecognisesMappedEventStream(t *testing.T) {
	gate := make(chan struct{})
	backend := httptest.NewServer(uriBackend(t, gate))
	t.Cleanup(backend.Close)
	proxy := httptest.NewServer(labelProxy(backend, 0))
	t.Cleanup(proxy.Close)
	res, err := proxy.Client().Get(proxy.URL + "/stream?length&label=" + url.QueryEscape("ContentType:text/event-stream"))
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	assert.Equal(t, int64(60), res.ContentLength)
	readChunks(t, res.Body, gate)
}

func readChunks(t *testing.T, body io.Reader, gate chan struct{}) {
	t.Helper()
	br := bufio.NewReader(body)
	for i := range 4 {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "data: chunk "+strconv.Itoa(i)+"\n", line)
		_, err = br.ReadString('\n')
		require.NoError(t, err)
		tellRead(t, gate, i)
	}
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Empty(t, rest)
}
