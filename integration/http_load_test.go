package integration

import (
	"bytes"
	"context"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadLabels are the request labels the load test sends, each with the
// label the handler must see (default options: URI labels become
// Content-Types).
var loadLabels = []string{
	uriLabel,
	"ContentType:application/octet-stream",
	`ContentType:text/plain?charset="utf-8"`,
	"application/json",
	"urn:example:type:42",
}

// TestConcurrentLoad sends a bounded number of requests (1,500 per
// protocol, 16 at a time) with random bodies through a client -> proxy ->
// backend chain whose proxy is wrapped in the middleware, and counts
// every corrupted body or label. Run it with -race: the middleware's
// pooled writers are shared across goroutines only through the pool.
//
// The load is not timed: under -race on a slow, loaded machine it takes
// many times what it takes on an idle one. Only a hang is bounded, by the
// test binary's -timeout (see loadContext).
func TestConcurrentLoad(t *testing.T) {
	const (
		perProto = 1500
		workers  = 16
		maxBody  = 16 << 10
	)
	want := make(map[string]string, len(loadLabels))
	for _, l := range loadLabels {
		out := l
		if mapping.Detect(l) == mapping.DirectionToContentType {
			var err error
			out, err = mapping.ToContentType(l)
			require.NoError(t, err)
		}
		want[l] = out
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("X-Seen", r.Header.Get("Content-Type"))
		w.Header().Set("X-Sum", sha(body))
		// Answer with the request's original label: a URI label for
		// most, which the middleware maps on the way out.
		w.Header().Set("Content-Type", r.Header.Get("X-Label"))
		_, _ = w.Write(body)
	}))
	t.Cleanup(backend.Close)

	for _, p := range protos {
		t.Run(p.name, func(t *testing.T) {
			rp := plainProxy(backend)
			rp.ErrorLog = log.New(testWriter{t}, "proxy: ", 0) // say why, if a request fails
			proxy := p.start(middleware.Rewrite(middleware.Options{})(rp))
			t.Cleanup(proxy.Close)
			c := proxy.Client()
			ctx, cancel := loadContext(t)
			defer cancel()

			var next, corrupted, failed atomic.Int64
			var firstErr, firstCorrupt sync.Once
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					rnd := rand.New(rand.NewPCG(uint64(w), 42))
					buf := make([]byte, maxBody)
					for {
						i := next.Add(1)
						if i > perProto || ctx.Err() != nil {
							return
						}
						body := buf[:rnd.IntN(maxBody)]
						for j := range body {
							body[j] = byte(rnd.Uint32())
						}
						label := loadLabels[int(i)%len(loadLabels)]
						req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxy.URL, bytes.NewReader(body))
						req.Header.Set("Content-Type", label)
						req.Header.Set("X-Label", label)
						res, err := c.Do(req)
						if err != nil {
							failed.Add(1)
							firstErr.Do(func() { t.Errorf("request %d: %v", i, err) })
							continue
						}
						got, err := io.ReadAll(res.Body)
						res.Body.Close()
						if err != nil || res.StatusCode != http.StatusOK ||
							!bytes.Equal(got, body) || res.Header.Get("X-Sum") != sha(body) ||
							res.Header.Get("X-Seen") != want[label] || res.Header.Get("Content-Type") != want[label] {
							corrupted.Add(1)
							firstCorrupt.Do(func() {
								t.Errorf("request %d (label %q): read error %v, status %d, body equal %v (%d of %d bytes), X-Sum ok %v, X-Seen %q, Content-Type %q, want %q",
									i, label, err, res.StatusCode, bytes.Equal(got, body), len(got), len(body),
									res.Header.Get("X-Sum") == sha(body), res.Header.Get("X-Seen"), res.Header.Get("Content-Type"), want[label])
							})
						}
					}
				})
			}
			wg.Wait()
			require.NoError(t, ctx.Err(), "the load did not finish before the test binary's -timeout")
			assert.Zero(t, failed.Load(), "failed requests")
			assert.Zero(t, corrupted.Load(), "corrupted bodies or labels")
			assert.GreaterOrEqual(t, next.Load(), int64(perProto))
		})
	}
}

// loadContext returns the context of the load's requests. It ends a
// little before the test binary's deadline (go test -timeout, 10 minutes
// by default: a minute before, or a quarter of the time left if that is
// less), so that a hung load fails with the requests' errors rather than
// the binary's panic; without a deadline (-timeout 0) it does not end.
// A fixed bound of its own (it was 60 s) failed the test on a machine slow
// enough, with every body intact: one request "corrupted" (its read cut by
// the deadline), the rest "context deadline exceeded".
func loadContext(t *testing.T) (context.Context, context.CancelFunc) {
	deadline, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	margin := min(time.Minute, time.Until(deadline)/4)
	return context.WithDeadline(context.Background(), deadline.Add(-margin))
}

// testWriter sends log output to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}
