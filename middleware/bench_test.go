package middleware

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/gorilla/handlers"
)

// The benchmarks isolate the middleware's cost: the writer is a minimal
// http.ResponseWriter that discards (no httptest.ResponseRecorder, whose
// own allocations would dwarf the difference), the request is built once
// (the middleware never modifies it), and the handler installs a
// preallocated Content-Type slice, so the bare handler allocates nothing
// and every allocation reported beyond it is the middleware's.

type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

var body = []byte("ok")

// labelHandler answers with label as its Content-Type.
func labelHandler(label string) http.Handler {
	return labelsHandler([]string{label})
}

// labelsHandler answers with each of labels in turn as its Content-Type.
func labelsHandler(labels []string) http.Handler {
	slices := make([][]string, len(labels))
	for i, l := range labels {
		slices[i] = []string{l}
	}
	next := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = slices[next]
		if next++; next == len(slices) {
			next = 0
		}
		w.Write(body)
	})
}

// benchServe serves one request, labelled with each of reqLabels in
// turn, with the other header fields in fields. The benchmark owns the
// request, and the middleware never writes into it, so relabelling it in
// place between calls is safe. net/http gives each response a header of
// its own; here the field the middleware may add to one
// (X-Content-Type-Options, beside a URI label) is deleted after each
// call instead, in every row, the bare one included, so that each call
// pays for adding it again.
func benchServe(b *testing.B, h http.Handler, reqLabels []string, fields http.Header) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(""))
	r.Header = fields.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	label := []string{""}
	r.Header["Content-Type"] = label
	w := &discardWriter{h: http.Header{}}
	next := 0
	b.ReportAllocs()
	for b.Loop() {
		label[0] = reqLabels[next]
		if next++; next == len(reqLabels) {
			next = 0
		}
		h.ServeHTTP(w, r)
		delete(w.h, nosniffKey)
	}
}

const (
	benchURI = "http://example.com/tag42" // draft §3.1
	benchCT  = "application/json"
)

// distinctURIs returns labels like benchURI, 32 times as many as a
// cache holds, so that served in turn every one misses the cache: a
// label is stored on its second miss only if none of the 4095 misses in
// between fell on the same slot, which happens with probability
// (1-1/cacheSlots)^4095, about 1e-14. (With fewer labels, the odd hit
// would make the testing package round the allocations per call down.)
func distinctURIs() []string {
	labels := make([]string, 32*cacheSlots)
	for i := range labels {
		labels[i] = fmt.Sprintf("http://example.com/tag%04d", i)
	}
	return labels
}

// distinctMultiparts returns multipart labels as a browser sends them,
// each with a boundary of its own, as many as distinctURIs.
func distinctMultiparts() []string {
	labels := make([]string, 32*cacheSlots)
	for i := range labels {
		labels[i] = fmt.Sprintf("multipart/form-data; boundary=----WebKitFormBoundary%016d", i)
	}
	return labels
}

// clientFields are the header fields besides Content-Type that a server
// receives with a POST from Go's http.Client.
var clientFields = http.Header{
	"User-Agent":      {"Go-http-client/1.1"},
	"Content-Length":  {"2"},
	"Accept-Encoding": {"gzip"},
}

type middlewareCase struct {
	name      string
	h         http.Handler
	reqLabels []string
	fields    http.Header // besides Content-Type
}

// middlewareCases returns the cases of BenchmarkMiddleware, each with a
// handler of its own.
func middlewareCases() []middlewareCase {
	toURI := Options{Request: ToURI, Response: ToURI}
	one := func(l string) []string { return []string{l} }
	distinct := distinctURIs()
	return []middlewareCase{
		// Baselines.
		{"bare", labelHandler(benchCT), one(benchCT), nil},
		{"gorilla-ContentTypeHandler", handlers.ContentTypeHandler(labelHandler(benchCT), benchCT), one(benchCT), nil},
		// What the request-side requirements cost in net/http's own
		// idiom, with no mapping: a copy of the request whose context
		// carries a value and whose header is a clone with a new label.
		{"idiom-request-copy", idiomRequestCopy(labelHandler(benchCT)), one(benchURI), nil},
		// Nothing to rewrite: both labels are already Content-Types.
		{"nothing-to-rewrite", Rewrite(Options{})(labelHandler(benchCT)), one(benchCT), nil},
		// The response label is a URI, mapped to its Content-Type; the
		// same label every time, so it comes from the cache.
		{"rewrite-response", Rewrite(Options{})(labelHandler(benchURI)), one(benchCT), nil},
		// The response label is a Content-Type, mapped to its URI.
		{"rewrite-response-to-uri", Rewrite(toURI)(labelHandler(benchCT)), one("ContentType:" + benchCT), nil},
		// The request label is a URI: a copy of the request and its header.
		{"rewrite-request", Rewrite(Options{})(labelHandler(benchCT)), one(benchURI), nil},
		// The same with the other fields Go's http.Client sends with a
		// POST: the header copied is larger.
		{"rewrite-request-client-fields", Rewrite(Options{})(labelHandler(benchCT)), one(benchURI), clientFields},
		// Both.
		{"rewrite-both", Rewrite(Options{})(labelHandler(benchURI)), one(benchURI), nil},
		// Labels that miss the cache: each is mapped afresh.
		{"rewrite-response-distinct", Rewrite(Options{})(labelsHandler(distinct)), one(benchCT), nil},
		{"rewrite-request-distinct", Rewrite(Options{})(labelHandler(benchCT)), distinct, nil},
		// A browser's multipart forms, written canonically: every label
		// misses the cache, and is checked to keep its boundary.
		{"canonical-request-multipart", Rewrite(Options{Request: Canonical})(labelHandler(benchCT)), distinctMultiparts(), nil},
	}
}

type idiomKey struct{}

// idiomRequestCopy is the baseline for the request rows: it relabels every
// request with benchCT the way a handler chain usually does it, through
// context.WithValue, Request.WithContext and Header.Clone.
func idiomRequestCopy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.WithContext(context.WithValue(r.Context(), idiomKey{}, r.Header.Get("Content-Type")))
		r2.Header = r.Header.Clone()
		r2.Header.Set("Content-Type", benchCT)
		next.ServeHTTP(w, r2)
	})
}

func BenchmarkMiddleware(b *testing.B) {
	for i, c := range middlewareCases() {
		b.Run(c.name, func(b *testing.B) {
			// A fresh handler for every run: with -count, a cache that an
			// earlier run left warm would let the "distinct" rows hit it
			// (each run starts again at the first label).
			c := middlewareCases()[i]
			benchServe(b, c.h, c.reqLabels, c.fields)
		})
	}
}

// BenchmarkMappingShare measures the mapping calls the rewriting
// benchmarks make, in the same run, to tell mapping's share of their cost
// from the middleware's.
func BenchmarkMappingShare(b *testing.B) {
	b.Run("ToContentType", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = mapping.ToContentType(benchURI)
		}
	})
	b.Run("ToURI", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = mapping.ToURI(benchCT)
		}
	})
	b.Run("Canonical-multipart", func(b *testing.B) {
		label := distinctMultiparts()[0]
		b.ReportAllocs()
		for b.Loop() {
			_, _ = mapping.Canonical(label)
		}
	})
	b.Run("Detect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = mapping.Detect(benchCT)
		}
	})
}
