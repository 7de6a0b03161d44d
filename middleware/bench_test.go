package middleware

import (
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
	v := []string{label}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = v
		w.Write(body)
	})
}

func benchServe(b *testing.B, h http.Handler, reqLabel string) {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(""))
	r.Header.Set("Content-Type", reqLabel)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

const (
	benchURI = "http://example.com/tag42" // draft §3.1
	benchCT  = "application/json"
)

func BenchmarkMiddleware(b *testing.B) {
	toURI := Options{Request: ToURI, Response: ToURI}
	cases := []struct {
		name     string
		h        http.Handler
		reqLabel string
	}{
		// Baselines.
		{"bare", labelHandler(benchCT), benchCT},
		{"gorilla-ContentTypeHandler", handlers.ContentTypeHandler(labelHandler(benchCT), benchCT), benchCT},
		// Nothing to rewrite: both labels are already Content-Types.
		{"nothing-to-rewrite", Rewrite(Options{})(labelHandler(benchCT)), benchCT},
		// The response label is a URI, mapped to its Content-Type.
		{"rewrite-response", Rewrite(Options{})(labelHandler(benchURI)), benchCT},
		// The response label is a Content-Type, mapped to its URI.
		{"rewrite-response-to-uri", Rewrite(toURI)(labelHandler(benchCT)), "ContentType:" + benchCT},
		// The request label is a URI: a copy of the request and its header.
		{"rewrite-request", Rewrite(Options{})(labelHandler(benchCT)), benchURI},
		// Both.
		{"rewrite-both", Rewrite(Options{})(labelHandler(benchURI)), benchURI},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchServe(b, c.h, c.reqLabel) })
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
	b.Run("Detect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = mapping.Detect(benchCT)
		}
	})
}
