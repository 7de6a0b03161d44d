package integration

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxyAnswerBeforeBodyEnds makes the race of golang/go#40747 happen
// every time: the proxy's transport reads the request body once more after
// its declared length, and that read is held back until the backend has
// answered and the proxy has sent the response header, which closes the
// inbound body. Unguarded, the transport then fails the request write,
// closes the backend connection and the client gets the first part of
// the response and an unexpected EOF; middleware.GuardProxyBody, which
// the test proxies and examples/proxy install, turns that read's failure
// into the end of the body.
func TestProxyAnswerBeforeBodyEnds(t *testing.T) {
	first := bytes.Repeat([]byte("a"), 1<<10)
	rest := bytes.Repeat([]byte("b"), 64<<10)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(first)
		_ = http.NewResponseController(w).Flush()
		// Long enough for the held-back read below to happen while the
		// proxy is still copying this response.
		time.Sleep(300 * time.Millisecond)
		_, _ = w.Write(rest)
	}))
	t.Cleanup(backend.Close)

	for _, p := range []struct {
		name  string
		proxy http.Handler
	}{
		{"plain", plainProxy(backend)},
		{"label helpers", labelProxy(backend, 0)},
	} {
		t.Run(p.name, func(t *testing.T) {
			front := httptest.NewServer(servertest.HoldLateBodyRead(p.proxy, 100*time.Millisecond))
			t.Cleanup(front.Close)
			res, err := front.Client().Post(front.URL+"/echo", "text/plain", bytes.NewReader(make([]byte, 4096)))
			require.NoError(t, err)
			defer res.Body.Close()
			got, err := io.ReadAll(res.Body)
			require.NoError(t, err, "the response was cut short")
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, len(first)+len(rest), len(got))
		})
	}
}
