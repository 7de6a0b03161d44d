package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One middleware serves many requests at once: its label cache, its
// recycled response writers and the OnError hook are shared by all of
// them. These tests share each across a few goroutines, with more
// distinct labels than the cache holds, and check that every request and
// response gets its own label; run them with -race.

// concurrentLabel is the i-th label of the concurrent tests: a URI label
// the request arrives with, the Content-Type the handler must see, a
// Content-Type the handler answers with and the URI label the client must
// get. Every 16th request label is not a URI the mapping accepts.
type concurrentLabel struct {
	reqURI, reqCT   string
	respCT, respURI string
	bad             bool
}

func concurrentLabels(t *testing.T, n int) []concurrentLabel {
	t.Helper()
	labels := make([]concurrentLabel, n)
	for i := range labels {
		l := &labels[i]
		if i%16 == 15 {
			l.reqURI, l.bad = "urn:example:bad%zz"+strconv.Itoa(i), true
			l.reqCT = l.reqURI // passed through unchanged
		} else {
			l.reqURI = "urn:example:req" + strconv.Itoa(i)
			l.reqCT = mustMap(t, mapping.ToContentType, l.reqURI)
		}
		l.respCT = fmt.Sprintf(`text/x-resp%d; charset="utf-8"`, i)
		l.respURI = mustMap(t, mapping.ToURI, l.respCT)
	}
	return labels
}

// concurrentHandler answers each request with the response label of its
// X-Index and a body naming the label it saw and its RequestLabels.
func concurrentHandler(labels []concurrentLabel) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.Header.Get("X-Index"))
		w.Header().Set("Content-Type", labels[i].respCT)
		l, _ := RequestLabels(r)
		_, _ = fmt.Fprintf(w, "%d %s %s %v", i, r.Header.Get("Content-Type"), l.Original, l.Err != nil)
	})
}

// serveConcurrently sends rounds requests from each of goroutines
// through h, each with a label of its own (the labels cycle, so that
// most are seen again while others evict them), and checks every answer.
func serveConcurrently(t *testing.T, h http.Handler, labels []concurrentLabel, goroutines, rounds int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range goroutines {
		wg.Go(func() {
			for k := range rounds {
				i := (k*goroutines + g) % len(labels)
				l := labels[i]
				r := httptest.NewRequest(http.MethodPost, "/", nil)
				r.Header.Set("Content-Type", l.reqURI)
				r.Header.Set("X-Index", strconv.Itoa(i))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				want := fmt.Sprintf("%d %s %s %v", i, l.reqCT, l.reqURI, l.bad)
				if !assert.Equal(t, want, w.Body.String(), "request %d", i) ||
					!assert.Equal(t, []string{l.respURI}, w.Header().Values("Content-Type"), "response %d", i) {
					failed.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, failed.Load())
}

// One handler serves requests from several goroutines at once, with more
// distinct labels than the cache holds: each request's handler sees its
// own mapped label, each response goes out with its own, and OnError is
// called once per unmappable label, from whichever goroutine met it.
func TestConcurrentRewrite(t *testing.T) {
	labels := concurrentLabels(t, 3*cacheSlots)
	var errorCalls atomic.Int64
	h := Rewrite(Options{
		Request:    ToContentType,
		Response:   ToURI,
		Unmappable: PassThrough,
		OnError:    func(*http.Request, error) { errorCalls.Add(1) },
	})(concurrentHandler(labels))
	const goroutines, rounds = 4, 300
	serveConcurrently(t, h, labels, goroutines, rounds)
	bad := 0
	for k := range goroutines * rounds {
		if labels[k%len(labels)].bad {
			bad++
		}
	}
	assert.Equal(t, int64(bad), errorCalls.Load())
}

// Rewrite copies Options: the caller may change it, and the slices it
// holds, after building the middleware, while requests are served.
func TestConcurrentOptionsChangedAfterRewrite(t *testing.T) {
	labels := concurrentLabels(t, cacheSlots)
	opts := Options{
		Response:   ToURI,
		Unmappable: PassThrough,
		Mapping:    []mapping.Option{mapping.NoControlled},
		Schemes:    []string{"urn", "ContentType"},
	}
	h := Rewrite(opts)(concurrentHandler(labels))
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			opts.Mapping[0] = mapping.NoControlled
			opts.Schemes[0] = "urn"
		}
	})
	serveConcurrently(t, h, labels, 3, 200)
	close(stop)
	writer.Wait()
}

// The proxy hooks are called by the ReverseProxy from the goroutine of
// each request; one hook serves them all at once.
func TestConcurrentProxyHooks(t *testing.T) {
	labels := concurrentLabels(t, 3*cacheSlots)
	opts := Options{Request: ToContentType, Response: ToURI}
	rewrite := ProxyRewrite(opts, nil)
	modify := ProxyModifyResponse(opts, nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 300 {
				l := labels[(k*4+g)%len(labels)]
				in := httptest.NewRequest(http.MethodPost, "/", nil)
				in.Header.Set("Content-Type", l.reqURI)
				pr := &httputil.ProxyRequest{In: in, Out: in.Clone(in.Context())}
				rewrite(pr)
				assert.Equal(t, l.reqCT, pr.Out.Header.Get("Content-Type"))
				assert.Equal(t, l.reqURI, in.Header.Get("Content-Type"))

				res := &http.Response{Header: http.Header{"Content-Type": {l.respCT}}, Request: pr.Out}
				err := modify(res)
				assert.NoError(t, err)
				assert.Equal(t, []string{l.respURI}, res.Header.Values("Content-Type"))
			}
		})
	}
	wg.Wait()
}
