package integration

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/proxy/translate"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RFC 9110 §10.1.1: a server that can tell its final status from the
// header section answers at once, without 100 Continue, and the client
// never sends the body; otherwise 100 Continue, then the body. The
// middleware's 415 comes before anyone reads the body; a form it decodes
// is read (so net/http sends 100 first), unless its Content-Length is
// over the limit, which is a 413 known from the header section.
func TestExpectContinue(t *testing.T) {
	form := []byte("name=Z%C3%BCrich;tag=a")
	big := bytes.Repeat([]byte("a=b&"), 1<<10) // 4 KiB, over MaxFormBytes
	cases := []struct {
		name     string
		label    string
		body     []byte
		status   int
		proceeds bool // 100 Continue, then the body
		seen     string
		form     string
	}{
		{"unmappable label: 415 at once", badLabel, []byte("hello"), http.StatusUnsupportedMediaType, false, "", ""},
		{"mapped label", "ContentType:text/plain", []byte("hello"), http.StatusOK, true, "text/plain", ""},
		{"form decoded by the middleware", "ContentType:application/www-form-urlencoded", form, http.StatusOK, true, "application/www-form-urlencoded", "name=Z%C3%BCrich&tag=a"},
		{"form declared over the limit: 413 at once", "application/www-form-urlencoded", big, http.StatusRequestEntityTooLarge, false, "", ""},
	}
	h := middleware.Rewrite(middleware.Options{DecodeForms: true, MaxFormBytes: 1024})(echoHandler(t))

	t.Run("raw HTTP/1.1", func(t *testing.T) {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				c := dialRaw(t, srv.Listener.Addr().String())
				c.send(t, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: "+tc.label+"\r\nExpect: 100-continue\r\n"+
					"Content-Length: "+itoa(int64(len(tc.body)))+"\r\n\r\n")
				res, body := c.response(t, http.MethodPost)
				if !tc.proceeds {
					// The answer came without the body: the server cannot
					// tell what follows on the connection, so it will close
					// it (once the client does: net/http waits for what is
					// left of the body to discard it).
					assert.Equal(t, tc.status, res.StatusCode, "%s", body)
					assert.True(t, res.Close, "Connection: close")
					return
				}
				require.Equal(t, http.StatusContinue, res.StatusCode)
				c.send(t, string(tc.body))
				res, body = c.response(t, http.MethodPost)
				assert.Equal(t, tc.status, res.StatusCode)
				assert.Equal(t, sha(tc.body), string(body))
				assert.Equal(t, tc.seen, res.Header.Get("X-Seen"))
				assert.Equal(t, tc.form, res.Header.Get("X-Form"))
				assert.Equal(t, ctLabel, res.Header.Get("Content-Type"))
			})
		}
	})

	// Go's transport, over HTTP/1.1 and HTTP/2, sends the body only
	// after 100 Continue.
	eachProto(t, h, func(t *testing.T, srv *httptest.Server, _ *http.Client) {
		c := expectingClient(t, srv)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := postExpecting(t, c, srv.URL+"/x", tc.label, tc.body)
				assert.Equal(t, tc.status, r.status, r.body)
				if !tc.proceeds {
					assert.Zero(t, r.continues)
					assert.Zero(t, r.sent, "body octets sent")
					return
				}
				assert.Equal(t, 1, r.continues)
				assert.Equal(t, int64(len(tc.body)), r.sent)
				assert.Equal(t, sha(tc.body), r.body)
				assert.Equal(t, tc.seen, r.header.Get("X-Seen"))
				assert.Equal(t, tc.form, r.header.Get("X-Form"))
			})
		}
	})

	t.Run("form over the limit under PassThrough", func(t *testing.T) {
		var got middleware.Labels
		srv := httptest.NewServer(middleware.Rewrite(middleware.Options{DecodeForms: true, MaxFormBytes: 1024, Unmappable: middleware.PassThrough})(
			http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ = middleware.RequestLabels(r)
				echoHandler(t)(w, r)
			})))
		t.Cleanup(srv.Close)
		r := postExpecting(t, expectingClient(t, srv), srv.URL, "application/www-form-urlencoded", big)
		assert.Equal(t, http.StatusOK, r.status)
		assert.Equal(t, sha(big), r.body, "the handler reads the whole body")
		assert.Empty(t, r.header.Get("X-Form"))
		require.Error(t, got.Err)
		assert.ErrorIs(t, got.Err, middleware.ErrFormTooLarge)
	})
}

// Through the proxy chain, on HTTP/1.1: the translating proxy (its
// transport waits for the backend's 100 Continue) sends nothing of a
// body the backend refuses, so the client does not either; a body the
// backend takes arrives whole, after one 100 Continue. Rewrite around a
// proxy answers an unmappable label itself, before the backend hears of
// it.
func TestExpectContinueThroughProxy(t *testing.T) {
	backend := httptest.NewServer(uriBackend(t, nil))
	t.Cleanup(backend.Close)
	target, err := url.Parse(backend.URL)
	require.NoError(t, err)
	p := translate.Proxy(target)
	// The default transport's, but long enough never to run out on a
	// busy machine: the backend's answer is what the test waits for.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 10 * time.Second
	t.Cleanup(tr.CloseIdleConnections)
	p.Transport, p.ErrorLog = tr, log.New(io.Discard, "", 0)
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)
	wrapped := httptest.NewServer(wrappedProxy(backend, 0))
	t.Cleanup(wrapped.Close)

	payload := randomBytes(t, 256<<10+3)
	for _, tc := range []struct {
		name      string
		srv       *httptest.Server
		label     string
		status    int
		backendCT string
	}{
		{"label the backend refuses", proxy, "bad", http.StatusUnsupportedMediaType, ""},
		{"label translated", proxy, "application/octet-stream", http.StatusOK, "ContentType:application/octet-stream"},
		{"unmappable label, Rewrite around the proxy", wrapped, "bad", http.StatusUnsupportedMediaType, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := postExpecting(t, expectingClient(t, tc.srv), tc.srv.URL+"/echo", tc.label, payload)
			assert.Equal(t, tc.status, r.status)
			if tc.status != http.StatusOK {
				assert.Zero(t, r.continues)
				assert.Zero(t, r.sent, "body octets sent")
				return
			}
			assert.Equal(t, 1, r.continues)
			assert.Equal(t, tc.backendCT, r.header.Get("X-Backend-Saw"))
			assert.Equal(t, ctLabel, r.header.Get("Content-Type"))
			assert.Equal(t, sha(payload), sha([]byte(r.body)))
		})
	}
}
