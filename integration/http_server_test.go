package integration

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serverCases is a mux of handlers that each answer with a URI label, put
// behind the middleware (default options: URI labels become
// Content-Types both ways).
func serverCases(t *testing.T, sse *sseGate) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/proto-probe", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/early-hints", serveEarlyHints)
	mux.HandleFunc("/silent", serveSilent)
	mux.HandleFunc("/copy", func(w http.ResponseWriter, r *http.Request) {
		// HTTP/1.1 handlers read the request before answering.
		body, err := io.ReadAll(r.Body)
		if !assert.NoError(t, err) {
			return
		}
		w.Header().Set("Content-Type", uriLabel)
		// onlyReader hides bytes.Reader's WriterTo, so io.Copy uses the
		// writer's ReadFrom where it has one (HTTP/1.1).
		_, _ = io.Copy(w, onlyReader{bytes.NewReader(body)})
	})
	mux.HandleFunc("/echo-hash", func(w http.ResponseWriter, r *http.Request) {
		sum, n, err := hashReader(r.Body)
		if !assert.NoError(t, err) {
			return
		}
		w.Header().Set("Content-Type", uriLabel)
		w.Header().Set("X-Seen-Content-Type", r.Header.Get("Content-Type"))
		w.Header().Set("X-Seen-Length", strconv.FormatInt(n, 10))
		_, _ = io.WriteString(w, sum)
	})
	mux.HandleFunc("/sse", serveGatedEvents(t, func(*http.Request) <-chan struct{} { return sse.read }))
	mux.HandleFunc("/trailers", serveTrailers)
	mux.HandleFunc("/interfaces", func(w http.ResponseWriter, r *http.Request) {
		u := w.(interface{ Unwrap() http.ResponseWriter }).Unwrap()
		w.Header().Set("X-View", interfaceNames(w))
		w.Header().Set("X-Underlying", interfaceNames(u))
	})
	mux.HandleFunc("/hijack", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", uriLabel)
		conn, brw, err := http.NewResponseController(w).Hijack()
		if r.ProtoMajor == 2 {
			// An HTTP/2 stream cannot be hijacked, and the view says so.
			assert.ErrorIs(t, err, http.ErrNotSupported)
			w.WriteHeader(http.StatusNotImplemented)
			return
		}
		if !assert.NoError(t, err) {
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: " + uriLabel + "\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		_ = brw.Flush()
	})
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		if !assert.NoError(t, r.ParseForm()) {
			return
		}
		w.Header().Set("X-Name", r.PostFormValue("name"))
		w.Header().Set("X-Tags", strings.Join(r.Form["tag"], ","))
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write(body)
	})
	return middleware.Rewrite(middleware.Options{DecodeForms: true})(mux)
}

// sseGate lets the SSE handler wait for the client.
type sseGate struct{ read chan struct{} }

func interfaceNames(w http.ResponseWriter) string {
	var names []string
	if _, ok := w.(http.Flusher); ok {
		names = append(names, "Flusher")
	}
	if _, ok := w.(http.Hijacker); ok {
		names = append(names, "Hijacker")
	}
	if _, ok := w.(io.ReaderFrom); ok {
		names = append(names, "ReaderFrom")
	}
	if _, ok := w.(http.Pusher); ok {
		names = append(names, "Pusher")
	}
	return strings.Join(names, ",")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestServerOverHTTP1AndHTTP2(t *testing.T) {
	gate := &sseGate{read: make(chan struct{})}
	eachProto(t, serverCases(t, gate), func(t *testing.T, srv *httptest.Server, c *http.Client) {
		get := func(t *testing.T, method, path string, body io.Reader) *http.Response {
			req, err := http.NewRequest(method, srv.URL+path, body)
			require.NoError(t, err)
			res, err := c.Do(req)
			require.NoError(t, err)
			t.Cleanup(func() { res.Body.Close() })
			return res
		}

		t.Run("103 then 200", func(t *testing.T) {
			var mu sync.Mutex
			var hints []textproto.MIMEHeader
			trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
				mu.Lock()
				defer mu.Unlock()
				if code == http.StatusEarlyHints {
					hints = append(hints, h)
				}
				return nil
			}}
			req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, srv.URL+"/early-hints", nil)
			require.NoError(t, err)
			res, err := c.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, "final", string(body))
			assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, hints, 1)
			assert.Equal(t, "</style.css>; rel=preload; as=style", hints[0].Get("Link"))
			assert.Equal(t, uriLabel, hints[0].Get("Content-Type"), "the 103 went out untouched")
		})

		t.Run("HEAD", func(t *testing.T) {
			res := get(t, http.MethodHead, "/silent", nil)
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			assert.Equal(t, int64(1234), res.ContentLength)
		})

		t.Run("handler that never writes", func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/silent", nil)
			require.NoError(t, err)
			res, err := c.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
		})

		t.Run("io.Copy body byte-identical", func(t *testing.T) {
			payload := randomBytes(t, 3<<20+17)
			res := get(t, http.MethodPost, "/copy", bytes.NewReader(payload))
			assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			assertSameBytes(t, payload, res.Body)
		})

		t.Run("request body byte-identical, request label mapped", func(t *testing.T) {
			payload := randomBytes(t, 1<<20+3)
			req, err := http.NewRequest(http.MethodPut, srv.URL+"/echo-hash", bytes.NewReader(payload))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "ContentType:application/octet-stream")
			res, err := c.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			got, _ := io.ReadAll(res.Body)
			assert.Equal(t, sha(payload), string(got))
			assert.Equal(t, itoa(int64(len(payload))), res.Header.Get("X-Seen-Length"))
			assert.Equal(t, "application/octet-stream", res.Header.Get("X-Seen-Content-Type"))
		})

		t.Run("server-sent events flushed through ResponseController", func(t *testing.T) {
			res := get(t, http.MethodGet, "/sse", nil)
			assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
			br := bufio.NewReader(res.Body)
			for i := range 3 {
				line, err := br.ReadString('\n')
				require.NoError(t, err)
				assert.Equal(t, "data: event "+itoa(int64(i))+"\n", line)
				blank, err := br.ReadString('\n')
				require.NoError(t, err)
				assert.Equal(t, "\n", blank)
				tellRead(t, gate.read, i)
			}
		})

		t.Run("application/www-form-urlencoded form", func(t *testing.T) {
			form := "name=Z%C3%BCrich+Ost;tag=a&tag=b"
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/form?tag=url", strings.NewReader(form))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "ContentType:application/www-form-urlencoded")
			res, err := c.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			assert.Equal(t, "Zürich Ost", res.Header.Get("X-Name"))
			assert.Equal(t, "a,b,url", res.Header.Get("X-Tags"))
			assert.Equal(t, form, string(body), "the body stays readable")

			req, err = http.NewRequest(http.MethodPost, srv.URL+"/form", strings.NewReader("name=%FF"))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/www-form-urlencoded")
			res, err = c.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			assert.Equal(t, http.StatusBadRequest, res.StatusCode)
		})

		t.Run("trailers", func(t *testing.T) {
			res := get(t, http.MethodGet, "/trailers", nil)
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			assert.Equal(t, sha(body), res.Trailer.Get("X-Checksum"))
			assert.Equal(t, "announced late", res.Trailer.Get("X-Late"))
		})

		t.Run("exactly the underlying interfaces", func(t *testing.T) {
			res := get(t, http.MethodGet, "/interfaces", nil)
			assert.Equal(t, res.Header.Get("X-Underlying"), res.Header.Get("X-View"))
			if res.ProtoMajor == 1 {
				assert.Equal(t, "Flusher,Hijacker,ReaderFrom", res.Header.Get("X-View"))
			} else {
				assert.Equal(t, "Flusher,Pusher", res.Header.Get("X-View"))
			}
		})

		t.Run("hijacked connection", func(t *testing.T) {
			res := get(t, http.MethodGet, "/hijack", nil)
			if res.ProtoMajor == 2 {
				assert.Equal(t, http.StatusNotImplemented, res.StatusCode)
				assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
				return
			}
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Equal(t, "hijacked", string(body))
			assert.Equal(t, uriLabel, res.Header.Get("Content-Type"), "after a hijack the handler owns the bytes")
		})
	})
}
