package main

import (
	"io"
	"net/http"
	"net/url"

	"github.com/cturi/cturi/examples/proxy/translate"
	"github.com/cturi/cturi/internal/accesslog"
)

// newProxy returns the translating reverse proxy for target (see package
// translate), logging each request to logw.
func newProxy(target *url.URL, logw io.Writer) http.Handler {
	p := translate.Proxy(target)
	p.ErrorHandler = proxyError
	return accesslog.Handler(logw, noInterimForHTTP10(p))
}

// noInterimForHTTP10 keeps the backend's interim (1xx) responses, such as
// 103 Early Hints, which ReverseProxy passes on, from an HTTP/1.0 client:
// RFC 9110 §15.2 forbids sending one, since HTTP/1.0 has none, and
// net/http sends it all the same, as "HTTP/1.0 103 Early Hints". A client
// or front proxy that speaks HTTP/1.0 (nginx, by default, to its
// upstreams) takes it for the final response, and the real one for its
// body: nginx 1.22 then served the 200's status line and header as
// content. Squid and h2o keep them from HTTP/1.0 clients too.
func noInterimForHTTP10(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.ProtoAtLeast(1, 1) {
			w = http10Writer{w}
		}
		next.ServeHTTP(w, r)
	})
}

// http10Writer drops the 1xx responses written to it but 101, which
// ReverseProxy does not send through WriteHeader (it hijacks the
// connection). Unwrap lets http.ResponseController, through which
// ReverseProxy flushes, reach the writer's other methods.
type http10Writer struct{ http.ResponseWriter }

func (w http10Writer) WriteHeader(code int) {
	if code >= 100 && code <= 199 && code != http.StatusSwitchingProtocols {
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w http10Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
