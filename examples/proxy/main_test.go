package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunWithDemoBackend(t *testing.T) {
	base, stop := servertest.Start(t, func(ctx context.Context, stdout io.Writer) error {
		return run(ctx, "127.0.0.1:0", nil, stdout, io.Discard)
	})

	res, err := http.Get(base + "/signature")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, "application/uri.http%3A%2F%2Fwww.w3.org%2F2000%2F09%2Fxmldsig; URI-fragment=\"\"", res.Header.Get("Content-Type"))

	stop()
}

func TestProxyTranslates(t *testing.T) {
	// The event stream's response writer holds back the second event
	// until the client has read the first (see below).
	firstRead := make(chan struct{})
	events := &holdSecondWrite{release: firstRead}
	demo := newBackend()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/events" {
			events.ResponseWriter = w
			w = events
		}
		demo.ServeHTTP(w, r)
	}))
	defer backend.Close()
	proxy := proxyTo(t, backend)
	defer proxy.Close()
	c := proxy.Client()

	// Directly, the backend refuses a Content-Type.
	res, err := c.Post(backend.URL+"/documents", "text/plain", strings.NewReader("hello"))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)

	// Through the proxy it receives the URI label and answers with one.
	res, err = c.Post(proxy.URL+"/documents", "text/plain; charset=utf-8", strings.NewReader("hello"))
	require.NoError(t, err)
	var stored struct {
		ID    int    `json:"id"`
		Label string `json:"backend_saw_label"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&stored))
	res.Body.Close()
	assert.Equal(t, http.StatusCreated, res.StatusCode)
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
	assert.Equal(t, `ContentType:text/plain?charset="utf-8"`, stored.Label)

	res, err = c.Get(proxy.URL + res.Header.Get("Location"))
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, "hello", string(body))
	assert.Equal(t, `text/plain; charset="utf-8"`, res.Header.Get("Content-Type"))

	// A client's label is not mapped with the controlled mapping
	// (NoControlled): it reaches the backend unmapped, which refuses it,
	// where without that option the backend would store it under
	// http://xml.example/foo?MIME-type="application/xml".
	res, err = c.Post(proxy.URL+"/documents", `application/xml; URI-body="http://xml.example/foo"`, strings.NewReader("<x/>"))
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	assert.Contains(t, string(body), `not "application/xml; URI-body=\"http://xml.example/foo\""`)

	res, err = c.Get(proxy.URL + "/person")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, "application/uri.https%3A%2F%2Fschema.org%2FPerson", res.Header.Get("Content-Type"))

	res, err = c.Get(proxy.URL + "/documents/99")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Equal(t, `text/plain; charset="utf-8"`, res.Header.Get("Content-Type"))

	// The event stream arrives event by event: the client has the first
	// event while the backend still holds back the second, which it sends
	// only once the client has read the first. A proxy that held the
	// stream back would have the backend give up waiting.
	res, err = c.Get(proxy.URL + "/events")
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	close(firstRead)
	require.NoError(t, err)
	assert.Equal(t, "data: event 1 of 5\n", line)
	assert.False(t, events.gaveUp.Load(), "the first event was held back until the backend sent the next")
}

// holdSecondWrite is a response writer whose second Write (the demo
// backend's second event) waits until release is closed, or 10 s at most:
// gaveUp then says it stopped waiting.
type holdSecondWrite struct {
	http.ResponseWriter
	release <-chan struct{}
	writes  int
	gaveUp  atomic.Bool
}

func (h *holdSecondWrite) Write(p []byte) (int, error) {
	if h.writes++; h.writes == 2 {
		select {
		case <-h.release:
		case <-time.After(10 * time.Second):
			h.gaveUp.Store(true)
		}
	}
	return h.ResponseWriter.Write(p)
}

// Unwrap gives http.ResponseController the backend's writer, to flush.
func (h *holdSecondWrite) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// The demo backend answers 400 to a body it cannot read, 413 only to one
// over its limit, and stores one of exactly maxDocument octets.
func TestBackendBodyErrors(t *testing.T) {
	tests := []struct {
		name string
		body io.Reader
		code int
	}{
		{"read error", iotest.ErrReader(errors.New("invalid byte in chunk length")), http.StatusBadRequest},
		{"at the limit", bytes.NewReader(make([]byte, maxDocument)), http.StatusCreated},
		{"one octet over the limit", bytes.NewReader(make([]byte, maxDocument+1)), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/documents", tt.body)
			req.Header.Set("Content-Type", labelPerson)
			w := httptest.NewRecorder()
			newBackend().ServeHTTP(w, req)
			assert.Equal(t, tt.code, w.Code)
		})
	}
}

// A backend that answers as soon as the request body is in does not get
// its response cut short by the proxy (golang/go#40747; middleware.GuardProxyBody).
// servertest.HoldLateBodyRead makes the race happen on every run.
func TestProxyAnswerBeforeBodyEnds(t *testing.T) {
	first, rest := strings.Repeat("a", 1<<10), strings.Repeat("b", 64<<10)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, first)
		_ = http.NewResponseController(w).Flush()
		time.Sleep(300 * time.Millisecond) // the held-back read happens now
		_, _ = io.WriteString(w, rest)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	proxy := httptest.NewServer(servertest.HoldLateBodyRead(newProxy(target, io.Discard), 100*time.Millisecond))
	defer proxy.Close()

	res, err := proxy.Client().Post(proxy.URL, "text/plain", strings.NewReader(strings.Repeat("x", 4096)))
	require.NoError(t, err)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	require.NoError(t, err, "the response was cut short")
	assert.Equal(t, first+rest, string(got))
}

// Ctrl-C stops the server at once, even while a browser holds a
// connection it opened ahead of time and has sent nothing on.
func TestStopsWithUnusedConnection(t *testing.T) {
	servertest.StopsWithUnusedConnection(t, runExample)
}

// An idle keep-alive connection to the proxy is closed after idleTimeout.
func TestIdleConnectionCloses(t *testing.T) {
	base := servertest.StartWith(t, &idleTimeout, 300*time.Millisecond, runExample)

	servertest.ClosesIdleConnection(t, base, "/person", 5*time.Second)
}

// The demo backend keeps 100 documents (507 for the next one) and answers
// 404 for an id it does not have, 0 included.
func TestBackendDocuments(t *testing.T) {
	b := newBackend()
	do := func(method, path string, body io.Reader) int {
		req := httptest.NewRequest(method, path, body)
		req.Header.Set("Content-Type", labelPerson)
		w := httptest.NewRecorder()
		b.ServeHTTP(w, req)
		return w.Code
	}
	for i := 1; i <= maxDocuments; i++ {
		require.Equal(t, http.StatusCreated, do(http.MethodPost, "/documents", strings.NewReader("x")), "document %d", i)
	}
	assert.Equal(t, http.StatusInsufficientStorage, do(http.MethodPost, "/documents", strings.NewReader("x")))

	tests := []struct {
		path string
		code int
	}{
		{"/documents/1", http.StatusOK},
		{"/documents/100", http.StatusOK},
		{"/documents/101", http.StatusNotFound},
		{"/documents/0", http.StatusNotFound},
		{"/documents/-1", http.StatusNotFound},
		{"/documents/x", http.StatusNotFound},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.code, do(http.MethodGet, tt.path, nil), tt.path)
	}
}

// A client that sends part of a request's header and then nothing has its
// connection closed after headerTimeout.
func TestHalfSentHeaderCloses(t *testing.T) {
	base := servertest.StartWith(t, &headerTimeout, 300*time.Millisecond, runExample)
	servertest.ClosesHalfSentHeader(t, base, 5*time.Second)
}

// A client that holds its connections to the proxy open holds at most
// maxConnections of them; the next client waits until one closes. The
// proxy's own connections to the embedded backend do not count.
func TestConnectionLimit(t *testing.T) {
	base := servertest.StartWith(t, &maxConnections, 1, runExample)
	servertest.ServesAtMost(t, base, "GET /person HTTP/1.1\r\nHost: x\r\n\r\n", 1)
}

// A request's header may be 64 KiB long (68 KiB with net/http's slack),
// not net/http's 1 MiB: each client trickling one in holds a buffer that
// size.
func TestHeaderLimit(t *testing.T) {
	base, _ := servertest.Start(t, runExample)
	servertest.LimitsHeader(t, base, "/person", maxHeaderBytes)
}

// runExample runs the example on a free port of 127.0.0.1, for servertest.
func runExample(ctx context.Context, stdout io.Writer) error {
	return run(ctx, "127.0.0.1:0", nil, stdout, io.Discard)
}

// A stored document's label and body are a client's: through the proxy it
// goes out sandboxed (no script runs with the proxy's origin) and not to
// be sniffed, whatever its type.
func TestStoredDocumentsAreSandboxed(t *testing.T) {
	backend := httptest.NewServer(newBackend())
	defer backend.Close()
	proxy := proxyTo(t, backend)
	defer proxy.Close()
	c := proxy.Client()

	tests := []struct{ label, body, served string }{
		{"text/html", "<script>alert(document.cookie)</script>", "text/html"},
		{"image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`, "image/svg+xml"},
		{"text/plain", "<script>alert(1)</script>", "text/plain"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			res, err := c.Post(proxy.URL+"/documents", tt.label, strings.NewReader(tt.body))
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, http.StatusCreated, res.StatusCode)

			res, err = c.Get(proxy.URL + res.Header.Get("Location"))
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, tt.body, string(body))
			assert.Equal(t, tt.served, res.Header.Get("Content-Type"))
			assert.Equal(t, "sandbox", res.Header.Get("Content-Security-Policy"))
			assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
		})
	}
}

// The backend learns the client from the proxy, not from the client:
// X-Forwarded-* and Forwarded fields a client sends are replaced, and the
// hop-by-hop fields its Connection field names go no further. A backend
// that cannot be reached, or answers with a label that cannot be mapped,
// is a 502.
func TestProxyForwarding(t *testing.T) {
	headers := make(chan http.Header, 3)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		if r.URL.Path == "/unmappable" {
			w.Header().Set("Content-Type", "ContentType:text/plain%0D%0AX-Evil:%201")
		}
	}))
	proxy := proxyTo(t, backend)
	defer proxy.Close()

	req, _ := http.NewRequest(http.MethodGet, proxy.URL+"/", nil)
	for k, v := range map[string]string{
		"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Host": "evil.example",
		"X-Forwarded-Proto": "https", "Forwarded": "for=203.0.113.7",
		"Connection": "X-Hop", "X-Hop": "1",
	} {
		req.Header.Set(k, v)
	}
	res, err := proxy.Client().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	saw := <-headers
	tests := []struct{ field, want string }{
		{"X-Forwarded-For", "127.0.0.1"},
		{"X-Forwarded-Host", strings.TrimPrefix(proxy.URL, "http://")},
		{"X-Forwarded-Proto", "http"},
		{"Forwarded", ""},
		{"X-Hop", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, saw.Get(tt.field), tt.field)
		assert.Len(t, saw.Values(tt.field), min(1, len(tt.want)), tt.field)
	}

	res, err = proxy.Client().Get(proxy.URL + "/unmappable")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadGateway, res.StatusCode, "backend label that cannot be mapped")
	assert.Empty(t, res.Header.Get("X-Evil"))

	backend.Close()
	res, err = proxy.Client().Get(proxy.URL + "/")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadGateway, res.StatusCode, "backend down")
}

// The embedded demo backend listens on the loopback interface too.
func TestDemoBackendOnLoopback(t *testing.T) {
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = run(ctx, "127.0.0.1:0", nil, &out, io.Discard) // it prints before it serves
	assert.Contains(t, out.String(), "Proxying to http://127.0.0.1:")
}

// A -backend URL's password is not printed.
func TestBackendPasswordNotPrinted(t *testing.T) {
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	target, err := url.Parse("http://user:s3cret@127.0.0.1:1/")
	require.NoError(t, err)
	_ = run(ctx, "127.0.0.1:0", target, &out, io.Discard)
	assert.Contains(t, out.String(), "Proxying to http://user:xxxxx@127.0.0.1:1/.")
	assert.NotContains(t, out.String(), "s3cret")
}

// Responses come from the backend, which the proxy trusts: a stored URI
// label with a MIME-type item comes back through the controlled mapping
// (requests, from clients, may not use it).
func TestResponsesUseControlledMapping(t *testing.T) {
	base, _ := servertest.Start(t, runExample)
	res, err := http.Post(base+"/documents", `http://x.example/?MIME-type="text/html"`, strings.NewReader("<p>x</p>"))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)
	res, err = http.Get(base + res.Header.Get("Location"))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, `text/html; URI-body="http%3A%2F%2Fx.example%2F"`, res.Header.Get("Content-Type"))
}

// A response of known length is passed on as the backend writes it, not
// held back until it ends (FlushInterval -1; Go's proxy flushes event
// streams and chunked answers anyway).
func TestProxyFlushesFixedLength(t *testing.T) {
	gotFirst := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "ContentType:text/plain")
		w.Header().Set("Content-Length", "10")
		_, _ = io.WriteString(w, "hello")
		_ = http.NewResponseController(w).Flush()
		select {
		case <-gotFirst:
		case <-time.After(15 * time.Second):
		}
		_, _ = io.WriteString(w, "world")
	}))
	defer backend.Close()
	proxy := proxyTo(t, backend)
	defer proxy.Close()
	first := make(chan string, 1)
	go func() {
		defer close(gotFirst)
		res, err := http.Get(proxy.URL)
		if err != nil {
			first <- err.Error()
			return
		}
		defer res.Body.Close()
		b := make([]byte, 5)
		_, err = io.ReadFull(res.Body, b)
		if err != nil {
			first <- err.Error()
			return
		}
		first <- string(b)
	}()
	select {
	case got := <-first:
		assert.Equal(t, "hello", got)
	case <-time.After(10 * time.Second):
		t.Fatal("the first part of the body is held back by the proxy")
	}
}

// The backend's own error answers are not to be sniffed either.
func TestBackendErrorNosniff(t *testing.T) {
	w := httptest.NewRecorder()
	newBackend().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/documents/9", nil))
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
}

// TestLogEscapesUserName: the request log Go-quotes a user name that
// does not print (internal/accesslog), so a client cannot forge a log
// line or send terminal escape sequences with it.
func TestLogEscapesUserName(t *testing.T) {
	backend := httptest.NewServer(newBackend())
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	var log servertest.SyncBuffer
	proxy := httptest.NewServer(newProxy(target, &log))
	defer proxy.Close()
	servertest.LogsUserNameQuoted(t, proxy.URL, &log, "/signature")
}

// A backend's 103 Early Hints reaches an HTTP/1.1 client, and not an
// HTTP/1.0 one (RFC 9110 §15.2), which gets the final response first:
// net/http sends it "HTTP/1.0 103 Early Hints" otherwise, and nginx in
// front of the proxy (HTTP/1.0 to its upstreams by default) served the
// 200's status line and header as the body (seen with nginx 1.22).
func TestEarlyHintsNotForHTTP10(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set("Content-Type", "ContentType:text/plain")
		_, _ = io.WriteString(w, "hello")
	}))
	defer backend.Close()
	proxy := proxyTo(t, backend)
	defer proxy.Close()

	for _, proto := range []string{"HTTP/1.0", "HTTP/1.1"} {
		t.Run(proto, func(t *testing.T) {
			c, err := net.Dial("tcp", proxy.Listener.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
			_, err = fmt.Fprintf(c, "GET / %s\r\nHost: x\r\nConnection: close\r\n\r\n", proto)
			require.NoError(t, err)
			raw, err := io.ReadAll(c)
			require.NoError(t, err)
			status, _, _ := strings.Cut(string(raw), "\r\n")
			if proto == "HTTP/1.0" {
				assert.Equal(t, "HTTP/1.0 200 OK", status)
				assert.NotContains(t, string(raw), " 103 ")
			} else {
				assert.Equal(t, "HTTP/1.1 103 Early Hints", status)
				assert.Contains(t, string(raw), "\r\n\r\nHTTP/1.1 200 OK\r\n")
			}
			assert.Contains(t, string(raw), "Content-Type: text/plain\r\n")
			assert.True(t, strings.HasSuffix(string(raw), "\r\n\r\nhello"), "%q", raw)
		})
	}
}

// proxyTo returns the proxy, started in front of backend, for the test
// to close.
func proxyTo(t *testing.T, backend *httptest.Server) *httptest.Server {
	t.Helper()
	target, err := url.Parse(backend.URL)
	require.NoError(t, err)
	return httptest.NewServer(newProxy(target, io.Discard))
}
