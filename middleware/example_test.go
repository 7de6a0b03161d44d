package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing/fstest"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
)

// A handler that labels its answers with a URI, served to clients that
// speak Content-Types; requests labelled with URIs reach it as
// Content-Types.
func ExampleRewrite() {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("handler sees:", r.Header.Get("Content-Type"))
		w.Header().Set("Content-Type", "http://www.w3.org/2001/04/xmlenc#Element")
		io.WriteString(w, "<EncryptedData/>")
	})
	mw := middleware.Rewrite(middleware.Options{}) // both ways: to Content-Type

	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	r.Header.Set("Content-Type", "ContentType:application/json")
	w := httptest.NewRecorder()
	mw(h).ServeHTTP(w, r)
	fmt.Println("client gets:", w.Header().Get("Content-Type"))
	// Output:
	// handler sees: application/json
	// client gets: application/uri.http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmlenc; URI-fragment="Element"
}

// Static files served to clients that read URI labels: the type the file
// server takes from a name or sniffs is mapped on its way out, and a 304
// keeps having none.
func ExampleRewrite_fileServer() {
	files := fstest.MapFS{
		"notes.txt": {Data: []byte("hello\n"), ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		"page":      {Data: []byte("<!DOCTYPE html><p>sniffed")},
	}
	h := middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(http.FileServerFS(files))
	for _, req := range []struct{ path, ifModifiedSince string }{
		{"/notes.txt", ""},
		{"/page", ""},
		{"/notes.txt", "Fri, 02 Jan 2026 03:04:05 GMT"},
	} {
		r := httptest.NewRequest(http.MethodGet, req.path, nil)
		if req.ifModifiedSince != "" {
			r.Header.Set("If-Modified-Since", req.ifModifiedSince)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header()["Content-Type"])
	}
	// Output:
	// 200 [ContentType:text/plain?charset="utf-8"]
	// 200 [ContentType:text/html?charset="utf-8"]
	// 304 []
}

// Untrusted clients: no controlled mapping, only https URIs, and a 415
// that names the SPEC error kind.
func ExampleRewrite_untrusted() {
	mw := middleware.Rewrite(middleware.Options{
		Mapping: []mapping.Option{mapping.NoControlled},
		Schemes: []string{"https"},
	})
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, label := range []string{
		"ContentType:text/plain%0D%0AX-Injected:%201",
		"http://example.com/type",
		`mailto:a@example.com?MIME-type="text%2Fplain"`,
	} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Set("Content-Type", label)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		first, _, _ := strings.Cut(w.Body.String(), "\n")
		fmt.Println(w.Code, first)
	}
	// Output:
	// 415 415 Unsupported Media Type: the request's Content-Type label cannot be mapped (ctl)
	// 415 415 Unsupported Media Type: the request's Content-Type label cannot be mapped (scheme-not-allowed)
	// 415 415 Unsupported Media Type: the request's Content-Type label cannot be mapped (reserved-param)
}

func ExampleRequestLabels() {
	h := middleware.Rewrite(middleware.Options{Request: middleware.ToURI})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			l, changed := middleware.RequestLabels(r)
			fmt.Println(changed)
			fmt.Println(l.Original)
			fmt.Println(l.Mapped)
		}))
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", "text/plain; charset=us-ascii")
	h.ServeHTTP(httptest.NewRecorder(), r)
	// Output:
	// true
	// text/plain; charset=us-ascii
	// ContentType:text/plain?charset="us-ascii"
}

// Code below the handler that holds only the request's context reads the
// labels from it.
func ExampleLabelsFromContext() {
	audit := func(ctx context.Context) {
		if l, ok := middleware.LabelsFromContext(ctx); ok {
			fmt.Printf("client sent %q, handler saw %q\n", l.Original, l.Mapped)
		}
	}
	h := middleware.Rewrite(middleware.Options{})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { audit(r.Context()) }))
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", "http://example.com/tag42")
	h.ServeHTTP(httptest.NewRecorder(), r)
	// Output: client sent "http://example.com/tag42", handler saw "application/uri.http%3A%2F%2Fexample.com%2Ftag42"
}

// A reverse proxy in front of a backend that speaks URI labels.
func ExampleProxyRewrite() {
	backend, _ := url.Parse("http://127.0.0.1:9000")
	opts := middleware.Options{Request: middleware.ToURI, Response: middleware.ToContentType}
	proxy := &httputil.ReverseProxy{
		Rewrite: middleware.ProxyRewrite(opts, func(pr *httputil.ProxyRequest) {
			pr.SetURL(backend)
			pr.SetXForwarded()
			middleware.GuardProxyBody(pr.Out) // golang/go#40747
		}),
		ModifyResponse: middleware.ProxyModifyResponse(opts, nil),
		FlushInterval:  -1, // stream whatever the (mapped) label says
	}
	_ = proxy

	// What the Rewrite hook does to one request:
	in := httptest.NewRequest(http.MethodPost, "/", nil)
	in.Header.Set("Content-Type", "image/JPEG")
	out := in.Clone(in.Context())
	proxy.Rewrite(&httputil.ProxyRequest{In: in, Out: out})
	fmt.Println(out.Header.Get("Content-Type"), out.URL.Host)
	// Output:
	// ContentType:image/jpeg 127.0.0.1:9000
}

// The guard is transparent to the transport's reads of a body of known
// length; only a read that fails after the declared length, because the
// server has closed the inbound body, becomes the end of the body.
func ExampleGuardProxyBody() {
	backend, _ := url.Parse("http://127.0.0.1:9000")
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backend)
			middleware.GuardProxyBody(pr.Out)
		},
	}

	// What the transport reads of a guarded body:
	in := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("hello"))
	out := in.Clone(in.Context())
	proxy.Rewrite(&httputil.ProxyRequest{In: in, Out: out})
	b, err := io.ReadAll(out.Body)
	fmt.Printf("%q %v %d\n", b, err, out.ContentLength)
	// Output: "hello" <nil> 5
}

func ExampleProxyModifyResponse() {
	modify := middleware.ProxyModifyResponse(middleware.Options{}, nil)
	res := &http.Response{Header: http.Header{"Content-Type": {"ContentType:text/event-stream"}}}
	fmt.Println(modify(res), res.Header.Get("Content-Type"))

	res = &http.Response{Header: http.Header{"Content-Type": {"ContentType:text/plain%0Ax"}}}
	err := modify(res)
	var e *middleware.Error
	fmt.Println(errors.As(err, &e), e.Kind(), errors.Is(err, mapping.ErrCTL))
	// Output:
	// <nil> text/event-stream
	// true ctl true
}

func ExampleMode_String() {
	for _, m := range []middleware.Mode{middleware.ToContentType, middleware.ToURI, middleware.Canonical, middleware.Leave} {
		fmt.Print(m, " ")
	}
	fmt.Println()
	// Output:
	// to-ct to-uri canonical leave
}

func ExampleError_Kind() {
	e := &middleware.Error{Side: middleware.SideRequest, Err: middleware.ErrSchemeNotAllowed}
	fmt.Println(e.Kind())
	fmt.Println(e)
	// Output:
	// scheme-not-allowed
	// middleware: the request's Content-Type label cannot be mapped (scheme-not-allowed): URI scheme not allowed
}

// Forms in the application/www-form-urlencoded format of
// draft-hoehrmann-urlencoded (';' separators, UTF-8), here sent with a
// URI label, reach the handler as r.PostForm.
func ExampleRewrite_forms() {
	h := middleware.Rewrite(middleware.Options{DecodeForms: true})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Println(r.Header.Get("Content-Type"))
			fmt.Println(r.FormValue("name"), r.FormValue("city"), r.Form["tag"])
		}))
	r := httptest.NewRequest(http.MethodPost, "/?tag=url", strings.NewReader("name=Ada+L;city=Z%C3%BCrich;tag=body"))
	r.Header.Set("Content-Type", "ContentType:application/www-form-urlencoded")
	h.ServeHTTP(httptest.NewRecorder(), r)
	// Output:
	// application/www-form-urlencoded
	// Ada L Zürich [body url]
}
