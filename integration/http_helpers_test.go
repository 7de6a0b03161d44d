package integration

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Labels used across the HTTP tests: a URI label (draft §3.1) and the
// Content-Type it maps to.
const (
	uriLabel = "http://example.com/tag42"
	ctLabel  = "application/uri.http%3A%2F%2Fexample.com%2Ftag42"
)

// proto is one way of serving a handler over loopback.
type proto struct {
	name  string
	major int
	start func(http.Handler) *httptest.Server
}

// protos serves over HTTP/1.1 (plain TCP) and HTTP/2 (TLS with ALPN, the
// server's own client).
var protos = []proto{
	{"HTTP/1.1", 1, httptest.NewServer},
	{"HTTP/2", 2, func(h http.Handler) *httptest.Server {
		s := httptest.NewUnstartedServer(h)
		s.EnableHTTP2 = true
		s.StartTLS()
		return s
	}},
}

// eachProto runs f against a server for h on each protocol, checking that
// the client really speaks it.
func eachProto(t *testing.T, h http.Handler, f func(t *testing.T, srv *httptest.Server, c *http.Client)) {
	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			srv := p.start(h)
			t.Cleanup(srv.Close)
			c := srv.Client()
			res, err := c.Get(srv.URL + "/proto-probe")
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			require.Equal(t, p.major, res.ProtoMajor, "client speaks %s", p.name)
			f(t, srv, c)
		})
	}
}

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// hashReader hashes everything read from r.
func hashReader(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// onlyReader hides any WriterTo of the reader it holds, so io.Copy into a
// ResponseWriter goes through its ReadFrom when it has one.
type onlyReader struct{ io.Reader }

// assertSameBytes reads r to the end and checks it gave want, byte for
// byte, by length and SHA-256.
func assertSameBytes(t *testing.T, want []byte, r io.Reader) {
	t.Helper()
	sum, n, err := hashReader(r)
	require.NoError(t, err)
	assert.Equal(t, int64(len(want)), n)
	assert.Equal(t, sha(want), sum)
}

// The handlers both servers of URI labels (serverCases, nodeServer) have:
// each answers with uriLabel, for the middleware to map.

// serveEarlyHints sends 103 Early Hints, with a Link and the label, then
// 200 with a Link of its own.
func serveEarlyHints(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Link", "</style.css>; rel=preload; as=style")
	w.Header().Set("Content-Type", uriLabel)
	w.WriteHeader(http.StatusEarlyHints)
	w.Header().Set("Link", "</app.js>; rel=preload; as=script")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "final")
}

// serveSilent labels a response it never writes, with the Content-Length
// a GET would send: HEAD's answer.
func serveSilent(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", uriLabel)
	w.Header().Set("Content-Length", "1234")
}

// serveTrailers sends a body with two trailers, one announced before the
// body (X-Checksum, its SHA-256) and one after it (X-Late).
func serveTrailers(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", uriLabel)
	w.Header().Set("Trailer", "X-Checksum")
	body := []byte("body with a trailer")
	_, _ = w.Write(body)
	w.Header().Set("X-Checksum", sha(body))
	w.Header().Set(http.TrailerPrefix+"X-Late", "announced late")
}

// serveGatedEvents returns a handler that sends three server-sent events
// under a URI label, flushing each through http.ResponseController, and
// waits after each until read(r) delivers, which the test makes it do once
// the client has the event: only a real flush gets it there, so a writer
// that buffers stalls the stream and fails t.
func serveGatedEvents(t *testing.T, read func(r *http.Request) <-chan struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "ContentType:text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		rc := http.NewResponseController(w)
		for i := range 3 {
			_, _ = io.WriteString(w, "data: event "+itoa(int64(i))+"\n\n")
			if !assert.NoError(t, rc.Flush()) {
				return
			}
			select {
			case <-read(r):
			case <-time.After(10 * time.Second):
				t.Errorf("the client never had event %d", i)
				return
			case <-r.Context().Done():
				return
			}
		}
	}
}

// tellRead tells a handler that waits on gate (serveGatedEvents,
// uriBackend) that the client has read event i. If the handler has
// stopped waiting, the event came only when it returned, not when it
// flushed: t fails, where a plain send would block for good.
func tellRead(t *testing.T, gate chan<- struct{}, i int) {
	t.Helper()
	select {
	case gate <- struct{}{}:
	case <-time.After(10 * time.Second):
		t.Fatalf("the handler stopped waiting before event %d was read", i)
	}
}
