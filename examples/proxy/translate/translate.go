// Package translate is the proxy example's translation, importable so
// that the integration tests put the example's own proxy between their
// clients and backends: a reverse proxy, built with middleware's proxy
// hooks, between clients that speak Content-Types and a backend that
// speaks URI labels.
package translate

import (
	"net/http/httputil"
	"net/url"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
)

// Proxy returns the translating reverse proxy for target: Content-Types
// from clients, mapped without the controlled mapping, become URI labels
// for the backend, whose URI labels become Content-Types, and every
// write is flushed.
func Proxy(target *url.URL) *httputil.ReverseProxy {
	opts := middleware.Options{
		Request:  middleware.ToURI,         // the backend gets URI labels
		Response: middleware.ToContentType, // clients get Content-Types
	}
	// Clients are not trusted: a label of theirs is not mapped with the
	// controlled mapping (URI-body, MIME-type), whose change of meaning
	// draft §6 warns of. A Rewrite hook cannot fail the request, so such
	// a label reaches the backend as it came, a Content-Type, which the
	// demo backend refuses (415). Responses are mapped with the
	// controlled mapping: the backend's own labels are trusted, and a
	// stored document's label, which a client chose (a URI label, such as
	// http://x.example/?MIME-type="text/html", is stored as it came, as
	// Request: ToURI leaves URIs alone), can say nothing a client could
	// not store directly (text/html); the demo backend serves those
	// documents sandboxed.
	clientOpts := opts
	clientOpts.Mapping = []mapping.Option{mapping.NoControlled}
	return &httputil.ReverseProxy{
		Rewrite: middleware.ProxyRewrite(clientOpts, func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.SetXForwarded()
			// Without this, a backend that answers quickly can have its
			// response cut short (golang/go#40747).
			middleware.GuardProxyBody(pr.Out)
		}),
		ModifyResponse: middleware.ProxyModifyResponse(opts, nil),
		// Flush every write: a stream the backend labels with a URI is
		// recognised as one only after the mapping (see
		// ProxyModifyResponse), and a proxy that maps the other way
		// would not recognise it at all.
		FlushInterval: -1,
	}
}
