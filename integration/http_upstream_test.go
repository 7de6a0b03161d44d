package integration

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"testing"
	"time"

	"github.com/cturi/cturi/middleware"
	"github.com/gorilla/handlers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file replay, against the middleware on loopback,
// what users of other ResponseWriter wrappers and of ReverseProxy
// reported going wrong; each cites the report.

// golang/go#26088 (fixed by golang/go#53164): a ReverseProxy forwards the
// backend's 1xx responses by writing them to its ResponseWriter, then
// clears the header for the final answer (golang/go#81319 is about what
// it leaves in them). Wrapped in the middleware, the 103 must still reach
// the client with its Link field, and the final answer carry the
// backend's label mapped, without the 103's fields.
func TestUpstreamProxyForwardsEarlyHints(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("Content-Type", uriLabel)
		_, _ = io.WriteString(w, "hello")
	}))
	defer backend.Close()
	front := httptest.NewServer(middleware.Rewrite(middleware.Options{})(plainProxy(backend)))
	defer front.Close()

	var hints []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		hints = append(hints, fmt.Sprint(code, " ", h.Get("Link"), " ", h.Get("Content-Type")))
		return nil
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodGet, front.URL, nil)
	require.NoError(t, err)
	res, err := front.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, []string{"103 </style.css>; rel=preload; as=style "}, hints)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, []string{ctLabel}, res.Header["Content-Type"])
	assert.Empty(t, res.Header["Link"], "the 103's fields are not the answer's")
	assert.Equal(t, "hello", string(body))
}

// golang/go#26937: ReverseProxy switches protocols (WebSocket and the
// like) by hijacking its ResponseWriter through a ResponseController; a
// wrapper that hides Hijack breaks it with "can't switch protocols using
// non-Hijacker ResponseWriter" (umputun/reproxy#79,
// slok/go-http-metrics#28). Behind gorilla's LoggingHandler and the
// middleware, the upgraded connection must carry bytes both ways. (The
// proxy writes the 101's fields itself after hijacking, so a label in
// them is not mapped; a 101 has no body for one to describe.)
func TestUpstreamUpgradeThroughWrappedProxy(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if !assert.NoError(t, err) {
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		_ = brw.Flush()
		line, err := brw.ReadString('\n')
		if assert.NoError(t, err) {
			_, _ = brw.WriteString("echo: " + line)
			_ = brw.Flush()
		}
	}))
	defer backend.Close()
	front := httptest.NewServer(handlers.LoggingHandler(io.Discard,
		middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(plainProxy(backend))))
	defer front.Close()

	conn, err := net.Dial("tcp", front.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusSwitchingProtocols, res.StatusCode)
	assert.Equal(t, "echo", res.Header.Get("Upgrade"))
	_, err = io.WriteString(conn, "ping\n")
	require.NoError(t, err)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "echo: ping\n", line)
}

// TestUpstreamWrapperScenarios serves, over HTTP/1.1 and HTTP/2, handlers
// that do what users of other wrappers reported breaking, each once bare
// and once behind the middleware (mapping responses to URI labels): the
// two answers must have the same status, fields and body, but for the
// label, which behind the middleware is the URI label the bare one maps
// to, with nosniff beside it.
func TestUpstreamWrapperScenarios(t *testing.T) {
	quiet := log.New(io.Discard, "", 0)
	for _, tt := range []struct {
		name   string
		method string
		// handler is served bare and inside the middleware; wrap, if set,
		// goes around either.
		handler http.HandlerFunc
		wrap    func(http.Handler) http.Handler
		status  int
		label   string // the bare answer's
		body    string
		anyBody bool // the body differs by protocol: compared with the bare one only
	}{{
		// komuw/ong#48, DataDog/datadog-agent#55745: WriteHeader after
		// Write is superfluous; a wrapper that loses track of the implicit
		// 200 sends a second header. The status stays 200, the label is
		// mapped once, and the body is whole.
		name: "WriteHeader after Write",
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "a")
			w.WriteHeader(http.StatusInternalServerError)
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "b")
		},
		status: http.StatusOK, label: "text/html", body: "ab",
	}, {
		// elazarl/goproxy#11, letsencrypt/boulder#1320: the Content-Length a
		// handler sets for HEAD, the length GET would have, must not be
		// lost or zeroed by a wrapper.
		name:   "HEAD with the GET's Content-Length",
		method: http.MethodHead,
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", "5")
		},
		status: http.StatusOK, label: "text/plain",
	}, {
		// golang/go#34439 and #69777: TimeoutHandler buffers the handler's
		// header and body and hands them on only when the handler
		// returns. Inside the middleware, its buffered label goes out
		// mapped.
		name: "inside http.TimeoutHandler",
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, "<p>")
		},
		wrap:   func(h http.Handler) http.Handler { return http.TimeoutHandler(h, time.Minute, "timeout") },
		status: http.StatusAccepted, label: "text/html", body: "<p>",
	}, {
		// golang/go#16830: a recovering handler outside cannot answer 500
		// once the header has gone out; the answer must go out as it
		// started (status, mapped label, the body written), with no
		// second header.
		name: "panic after the header went out, RecoveryHandler outside",
		handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<p>part")
			w.(http.Flusher).Flush()
			panic("boom")
		},
		wrap: func(h http.Handler) http.Handler {
			return handlers.RecoveryHandler(handlers.RecoveryLogger(quiet))(h)
		},
		status: http.StatusOK, label: "text/html", body: "<p>part",
	}, {
		// go-chi/chi#818, urfave/negroni#273, golang/go#54136: a wrapper
		// without Unwrap makes http.ResponseController fail with
		// ErrNotSupported. Behind the middleware each call must answer as
		// it does on the bare writer.
		name: "http.ResponseController",
		handler: func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			results := []error{
				rc.EnableFullDuplex(),
				rc.SetReadDeadline(time.Now().Add(time.Minute)),
				rc.SetWriteDeadline(time.Now().Add(time.Minute)),
			}
			w.Header().Set("Content-Type", "text/plain")
			results = append(results, rc.Flush())
			for _, err := range results {
				switch {
				case err == nil:
					_, _ = io.WriteString(w, "ok;")
				case errors.Is(err, http.ErrNotSupported):
					_, _ = io.WriteString(w, "not supported;")
				default:
					_, _ = io.WriteString(w, "failed;")
				}
			}
		},
		status: http.StatusOK, label: "text/plain", anyBody: true,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			wrap := tt.wrap
			if wrap == nil {
				wrap = func(h http.Handler) http.Handler { return h }
			}
			mux := http.NewServeMux()
			mux.HandleFunc("/proto-probe", func(http.ResponseWriter, *http.Request) {})
			mux.Handle("/bare", wrap(tt.handler))
			mux.Handle("/mapped", wrap(middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(tt.handler)))
			eachProto(t, mux, func(t *testing.T, srv *httptest.Server, c *http.Client) {
				srv.Config.ErrorLog = quiet // net/http's "superfluous WriteHeader" and panic lines
				method := tt.method
				if method == "" {
					method = http.MethodGet
				}
				get := func(path string) (*http.Response, string) {
					req, err := http.NewRequest(method, srv.URL+path, nil)
					require.NoError(t, err)
					res, err := c.Do(req)
					require.NoError(t, err)
					defer res.Body.Close()
					body, _ := io.ReadAll(res.Body) // cut short after the panic
					return res, string(body)
				}
				bare, bareBody := get("/bare")
				mapped, mappedBody := get("/mapped")
				assert.Equal(t, tt.status, bare.StatusCode, "bare")
				assert.Equal(t, tt.status, mapped.StatusCode)
				if !tt.anyBody {
					assert.Equal(t, tt.body, bareBody, "bare")
				}
				assert.Equal(t, bareBody, mappedBody)
				assert.Equal(t, []string{tt.label}, bare.Header["Content-Type"], "bare")
				assert.Equal(t, []string{"ContentType:" + tt.label}, mapped.Header["Content-Type"])
				assert.Equal(t, []string{"nosniff"}, mapped.Header["X-Content-Type-Options"])
				for _, h := range []http.Header{bare.Header, mapped.Header} {
					h.Del("Date")
					h.Del("Content-Type")
				}
				mapped.Header.Del("X-Content-Type-Options")
				assert.Equal(t, bare.Header, mapped.Header, "the other fields")
				assert.Equal(t, bare.ContentLength, mapped.ContentLength)
			})
		})
	}
}
