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
	return accesslog.Handler(logw, p)
}
