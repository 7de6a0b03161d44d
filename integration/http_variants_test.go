package integration

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/proxy/translate"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file, http_expect_test.go and http_h2c_test.go take
// the middleware and the translating proxy through HTTP's less travelled
// paths on loopback: Expect: 100-continue, unencrypted HTTP/2 (h2c,
// http.Server.Protocols), HTTP/1.0 clients, pipelined requests, OPTIONS *
// and CONNECT, chunked request bodies with trailers, and labels where
// HTTP puts none (trailers, two fields). The helpers they share are here.

// badLabel is a URI label that does not map (a '%' not followed by two hex
// digits): the middleware answers it 415 under Reject.
const badLabel = "ContentType:bad%ZZ"

// rawConn is a client connection that writes what the test says and
// reads responses one at a time, 1xx included.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	return &rawConn{Conn: c, br: bufio.NewReader(c)}
}

func (c *rawConn) send(t *testing.T, s string) {
	t.Helper()
	_, err := io.WriteString(c, s)
	require.NoError(t, err)
}

// response reads the next response, interim or final, with its body.
func (c *rawConn) response(t *testing.T, method string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.ReadResponse(c.br, &http.Request{Method: method})
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, body
}

// closed asserts that the server closed the connection with nothing more
// to say.
func (c *rawConn) closed(t *testing.T) {
	t.Helper()
	rest, err := io.ReadAll(c.br)
	require.NoError(t, err)
	assert.Empty(t, string(rest))
}

// countingBody is a request body that counts the octets the transport
// took from it.
type countingBody struct {
	r    io.Reader
	sent atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.sent.Add(int64(n))
	return n, err
}

// expectResult is what a client that sent Expect: 100-continue saw.
type expectResult struct {
	status    int
	continues int   // 100 Continue responses
	sent      int64 // request body octets sent
	header    http.Header
	body      string
}

// postExpecting sends body to u with Expect: 100-continue through c,
// whose transport waits for the server's verdict before sending it.
func postExpecting(t *testing.T, c *http.Client, u, label string, body []byte) expectResult {
	t.Helper()
	var r expectResult
	var mu sync.Mutex
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
		mu.Lock()
		defer mu.Unlock()
		if code == http.StatusContinue {
			r.continues++
		}
		return nil
	}}
	b := &countingBody{r: bytes.NewReader(body)}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodPost, u, io.NopCloser(b))
	require.NoError(t, err)
	req.ContentLength = int64(len(body))
	req.Header.Set("Expect", "100-continue")
	req.Header.Set("Content-Type", label)
	res, err := c.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	r.status, r.sent, r.header, r.body = res.StatusCode, b.sent.Load(), res.Header, string(got)
	return r
}

// expectingClient is srv's client with a transport that waits up to 10
// seconds for 100 Continue before it sends a body.
func expectingClient(t *testing.T, srv *httptest.Server) *http.Client {
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 10 * time.Second
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// echoHandler answers with the SHA-256 of the body it read, the label
// and form it saw, under a URI label for the middleware to map.
func echoHandler(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sum, _, err := hashReader(r.Body)
		if !assert.NoError(t, err) {
			return
		}
		w.Header().Set("X-Seen", r.Header.Get("Content-Type"))
		w.Header().Set("X-Form", r.PostForm.Encode())
		w.Header().Set("Content-Type", uriLabel)
		_, _ = io.WriteString(w, sum)
	}
}

// HTTP/1.0 has no chunked coding, no 1xx and no keep-alive unless asked
// for: the middleware's answers, 415s included, are framed by length,
// and keep the connection only when the client asks; a flushed stream
// of unknown length is framed by the close; Expect is ignored (RFC 9110
// §10.1.1).
func TestHTTP10Client(t *testing.T) {
	h := middleware.Rewrite(middleware.Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			w.Header().Set("Content-Type", "ContentType:text/event-stream")
			rc := http.NewResponseController(w)
			for i := range 3 {
				_, _ = io.WriteString(w, "data: "+itoa(int64(i))+"\n\n")
				if !assert.NoError(t, rc.Flush()) {
					return
				}
			}
			return
		}
		echoHandler(t)(w, r)
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	t.Run("keep-alive, a 415 between", func(t *testing.T) {
		c := dialRaw(t, srv.Listener.Addr().String())
		c.send(t, "POST /1 HTTP/1.0\r\nConnection: keep-alive\r\nContent-Type: ContentType:text/plain\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello"+
			"POST /2 HTTP/1.0\r\nConnection: keep-alive\r\nContent-Type: "+badLabel+"\r\nContent-Length: 5\r\n\r\nhello"+
			"GET /3 HTTP/1.0\r\n\r\n")
		for _, want := range []struct {
			status    int
			keepAlive bool
		}{{http.StatusOK, true}, {http.StatusUnsupportedMediaType, true}, {http.StatusOK, false}} {
			res, body := c.response(t, http.MethodPost)
			assert.Equal(t, "HTTP/1.0", res.Proto, "no 1xx: the 100-continue expectation is ignored")
			assert.Equal(t, want.status, res.StatusCode)
			assert.Equal(t, int64(len(body)), res.ContentLength, "framed by length")
			assert.Equal(t, want.keepAlive, res.Header.Get("Connection") == "keep-alive")
			if want.status == http.StatusOK {
				assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			}
		}
		c.closed(t)
	})

	t.Run("stream framed by the close", func(t *testing.T) {
		raw := rawExchange(t, srv.Listener.Addr().String(), "GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		head, body, ok := strings.Cut(string(raw), "\r\n\r\n")
		require.True(t, ok, "%q", raw)
		assert.True(t, strings.HasPrefix(head, "HTTP/1.0 200 OK\r\n"), head)
		assert.Contains(t, head, "\r\nContent-Type: text/event-stream")
		assert.NotContains(t, head, "Transfer-Encoding")
		assert.NotContains(t, head, "Content-Length")
		assert.NotContains(t, head, "keep-alive")
		assert.Equal(t, "data: 0\n\ndata: 1\n\ndata: 2\n\n", body)
	})

	t.Run("through the translating proxy", func(t *testing.T) {
		gate := make(chan struct{})
		backend := httptest.NewServer(uriBackend(t, gate))
		t.Cleanup(backend.Close)
		target, err := url.Parse(backend.URL)
		require.NoError(t, err)
		proxy := httptest.NewServer(exampleProxy(target))
		t.Cleanup(proxy.Close)
		c := dialRaw(t, proxy.Listener.Addr().String())
		c.send(t, "GET /stream?label="+url.QueryEscape("ContentType:text/event-stream")+" HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		res, err := http.ReadResponse(c.br, nil)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, "HTTP/1.0", res.Proto)
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		assert.Equal(t, int64(-1), res.ContentLength)
		assert.True(t, res.Close, "framed by the close")
		readChunks(t, res.Body, gate)
	})
}

// Pipelined HTTP/1.1 requests on one connection, with rejected ones in
// between, their bodies (by length and chunked) unread by any handler:
// each gets its own answer, in order, and the connection goes on.
func TestPipelinedRequests(t *testing.T) {
	srv := httptest.NewServer(middleware.Rewrite(middleware.Options{})(echoHandler(t)))
	t.Cleanup(srv.Close)
	c := dialRaw(t, srv.Listener.Addr().String())
	c.send(t, "POST /1 HTTP/1.1\r\nHost: x\r\nContent-Type: ContentType:text/plain\r\nContent-Length: 5\r\n\r\nhello"+
		"POST /2 HTTP/1.1\r\nHost: x\r\nContent-Type: "+badLabel+"\r\nContent-Length: 5\r\n\r\nhello"+
		"POST /3 HTTP/1.1\r\nHost: x\r\nContent-Type: "+badLabel+"\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"+
		"POST /4 HTTP/1.1\r\nHost: x\r\nContent-Type: ContentType:text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nbye\r\n0\r\n\r\n"+
		"POST /5 HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Type: text/html\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	for i, want := range []struct {
		status int
		body   string
	}{
		{http.StatusOK, sha([]byte("hello"))},
		{http.StatusUnsupportedMediaType, "(invalid-uri)"},
		{http.StatusUnsupportedMediaType, "(invalid-uri)"},
		{http.StatusOK, sha([]byte("bye"))},
		{http.StatusUnsupportedMediaType, "(multiple-labels)"},
	} {
		res, body := c.response(t, http.MethodPost)
		assert.Equal(t, want.status, res.StatusCode, "request %d", i+1)
		assert.Contains(t, string(body), want.body, "request %d", i+1)
		assert.Equal(t, i == 4, res.Close, "request %d", i+1)
	}
	c.closed(t)
}

// OPTIONS * reaches no handler unless the server says so
// (DisableGeneralOptionsHandler); when it does, the middleware maps its
// label as any other and keeps the request target. CONNECT tunnels
// through the middleware: hijacked on HTTP/1.1, a full-duplex stream on
// HTTP/2 (h2c), whose answer's label is mapped as any other.
func TestOptionsAsteriskAndConnect(t *testing.T) {
	handler := func(t *testing.T) http.Handler {
		return middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Target", r.RequestURI)
			w.Header().Set("X-Seen", r.Header.Get("Content-Type"))
			if r.Method != http.MethodConnect {
				w.Header().Set("Content-Type", "text/plain")
				return
			}
			if r.ProtoMajor == 1 {
				conn, brw, err := http.NewResponseController(w).Hijack()
				if !assert.NoError(t, err) {
					return
				}
				defer conn.Close()
				_, _ = brw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n")
				_ = brw.Flush()
				line, _ := brw.ReadString('\n')
				_, _ = brw.WriteString("echo: " + line)
				_ = brw.Flush()
				return
			}
			w.Header().Set("Content-Type", "application/octet-stream")
			w.WriteHeader(http.StatusOK)
			rc := http.NewResponseController(w)
			if !assert.NoError(t, rc.Flush()) {
				return
			}
			line, _ := bufio.NewReader(r.Body).ReadString('\n')
			_, _ = io.WriteString(w, "echo: "+line)
			_ = rc.Flush()
		}))
	}

	t.Run("OPTIONS * answered by net/http", func(t *testing.T) {
		srv := httptest.NewServer(handler(t))
		t.Cleanup(srv.Close)
		raw := rawExchange(t, srv.Listener.Addr().String(), "OPTIONS * HTTP/1.1\r\nHost: x\r\nContent-Type: "+badLabel+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		h, _ := checkWire(t, raw)
		assert.True(t, strings.HasPrefix(string(raw), "HTTP/1.1 200 OK\r\n"), "%q", raw)
		assert.Empty(t, h.Get("X-Target"), "no handler ran")
	})

	s := httptest.NewUnstartedServer(handler(t))
	s.Config.DisableGeneralOptionsHandler = true
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	t.Cleanup(s.Close)
	addr := s.Listener.Addr().String()
	h2c := &http.Client{Transport: h2cTransport(t)}

	t.Run("OPTIONS * through the middleware", func(t *testing.T) {
		raw := rawExchange(t, addr, "OPTIONS * HTTP/1.1\r\nHost: x\r\nContent-Type: ContentType:text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		h, _ := checkWire(t, raw)
		assert.Equal(t, "*", h.Get("X-Target"))
		assert.Equal(t, "text/plain", h.Get("X-Seen"))
		assert.Equal(t, "ContentType:text/plain", h.Get("Content-Type"))
		assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))

		raw = rawExchange(t, addr, "OPTIONS * HTTP/1.1\r\nHost: x\r\nContent-Type: "+badLabel+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		assert.True(t, strings.HasPrefix(string(raw), "HTTP/1.1 415 "), "%q", raw)

		req, err := http.NewRequest(http.MethodOptions, "http://"+addr, nil)
		require.NoError(t, err)
		req.URL.Opaque = "*"
		req.Header.Set("Content-Type", "ContentType:text/plain")
		res, err := h2c.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, 2, res.ProtoMajor)
		assert.Equal(t, "*", res.Header.Get("X-Target"))
		assert.Equal(t, "text/plain", res.Header.Get("X-Seen"))
		assert.Equal(t, "ContentType:text/plain", res.Header.Get("Content-Type"))
	})

	t.Run("CONNECT over HTTP/1.1", func(t *testing.T) {
		c := dialRaw(t, addr)
		c.send(t, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
		res, err := http.ReadResponse(c.br, &http.Request{Method: http.MethodConnect})
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, res.StatusCode)
		c.send(t, "ping\n")
		line, err := c.br.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "echo: ping\n", line)
	})

	t.Run("CONNECT over h2c", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Scheme: "http", Host: addr}, Host: "example.com:443", Header: http.Header{}, Body: pr}
		res, err := h2c.Do(req.WithContext(t.Context()))
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "example.com:443", res.Header.Get("X-Target"))
		assert.Equal(t, "ContentType:application/octet-stream", res.Header.Get("Content-Type"))
		_, err = io.WriteString(pw, "ping\n")
		require.NoError(t, err)
		line, err := bufio.NewReader(res.Body).ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "echo: ping\n", line)
	})
}

// A chunked request body with trailers: through the middleware, the
// handler's copy of the request sees the trailers the client announced;
// through the translating proxy, and Rewrite around a proxy, the body
// arrives byte for byte under the translated label. (ReverseProxy sends
// the backend no request trailer values, golang/go's req.Clone before
// the body is read; not the proxy's to change here.)
func TestChunkedRequestWithTrailers(t *testing.T) {
	payload := randomBytes(t, 300<<10+1)
	var chunked strings.Builder
	for off := 0; off < len(payload); off += 64 << 10 {
		piece := payload[off:min(off+64<<10, len(payload))]
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", len(piece), piece)
	}
	chunked.WriteString("0\r\nX-Sum: " + sha(payload) + "\r\n\r\n")
	request := func(label string) string {
		return "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: " + label + "\r\nTrailer: X-Sum\r\n" +
			"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked.String()
	}

	t.Run("middleware", func(t *testing.T) {
		srv := httptest.NewServer(middleware.Rewrite(middleware.Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sum, _, err := hashReader(r.Body)
			if !assert.NoError(t, err) {
				return
			}
			w.Header().Set("X-Seen", r.Header.Get("Content-Type"))
			w.Header().Set("X-Trailer", r.Trailer.Get("X-Sum"))
			_, _ = io.WriteString(w, sum)
		})))
		t.Cleanup(srv.Close)
		h, body := checkWire(t, rawExchange(t, srv.Listener.Addr().String(), request("ContentType:application/octet-stream")))
		assert.Equal(t, "application/octet-stream", h.Get("X-Seen"))
		assert.Equal(t, sha(payload), h.Get("X-Trailer"))
		assert.Contains(t, string(body), sha(payload))
	})

	backend := httptest.NewServer(uriBackend(t, nil))
	t.Cleanup(backend.Close)
	target, err := url.Parse(backend.URL)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{
		{"translating proxy", exampleProxy(target)},
		{"Rewrite around a proxy", wrappedProxy(backend, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			t.Cleanup(srv.Close)
			conn := dialRaw(t, srv.Listener.Addr().String())
			conn.send(t, request("application/octet-stream"))
			res, body := conn.response(t, http.MethodPost)
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, "ContentType:application/octet-stream", res.Header.Get("X-Backend-Saw"))
			assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			assert.Equal(t, sha(payload), sha(body))
		})
	}
}

// Labels where HTTP puts none, through the translating proxy: a backend's
// Content-Type trailer (RFC 9110 §6.5.1 forbids one; net/http's server
// sends it) never reaches the client, whose header carries the translated
// label alone; two Content-Type fields, in a request or an HTTP/2
// response, are ambiguous: 415 from the middleware, 502 from the proxy.
func TestLabelsOutOfPlace(t *testing.T) {
	backend := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/two":
			w.Header()["Content-Type"] = []string{uriLabel, "http://example.com/other"}
		default:
			w.Header().Set("Content-Type", uriLabel)
			w.Header().Set("Trailer", "Content-Type")
			_, _ = io.WriteString(w, "body")
			w.Header().Set(http.TrailerPrefix+"Content-Type", "http://example.com/trailer")
		}
	}))
	target, err := url.Parse(backend.URL)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		tr   http.RoundTripper
		c    *http.Client
	}{
		{"HTTP/1.1", nil, &http.Client{}},
		{"h2c", h2cTransport(t), &http.Client{Transport: h2cTransport(t)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := translate.Proxy(target)
			p.Transport, p.ErrorLog = tc.tr, log.New(io.Discard, "", 0)
			proxy := h2cServer(t, p)
			t.Cleanup(tc.c.CloseIdleConnections)

			res, err := tc.c.Get(proxy.URL + "/trailer")
			require.NoError(t, err)
			defer res.Body.Close()
			_, err = io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, []string{ctLabel}, res.Header["Content-Type"])
			assert.Empty(t, res.Trailer["Content-Type"])

			res, err = tc.c.Get(proxy.URL + "/two")
			require.NoError(t, err)
			res.Body.Close()
			assert.Equal(t, http.StatusBadGateway, res.StatusCode)
		})
	}

	srv := h2cServer(t, middleware.Rewrite(middleware.Options{})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	c := &http.Client{Transport: h2cTransport(t)}
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("x"))
	require.NoError(t, err)
	req.Header["Content-Type"] = []string{"text/plain", uriLabel}
	res, err := c.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 2, res.ProtoMajor)
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	assert.Contains(t, string(body), "(multiple-labels)")
}
