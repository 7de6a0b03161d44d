package middleware

import (
	"net/http"
	"net/http/httputil"
)

// ProxyRewrite returns a function for httputil.ReverseProxy.Rewrite that
// maps the Content-Type label of the outgoing request (pr.Out) as
// opts.Request says, then calls next, if not nil, which sees the mapped
// label. pr.In is never modified; pr.Out's header is the proxy's own
// clone, and the label's slice in it is replaced, not written into.
//
// A Rewrite hook cannot fail a request, so a label that cannot be mapped
// goes to the backend unchanged whatever opts.Unmappable says (OnError
// is told). To answer such requests with 415 instead, wrap the proxy in
// Rewrite, which maps request and response labels too and then needs
// neither helper.
//
// Of opts, DecodeForms and FreshWriters do not apply (the proxy passes
// the body on, and writes the response itself). It panics if opts holds
// an invalid Mode, Policy or scheme name, as Rewrite does.
func ProxyRewrite(opts Options, next func(*httputil.ProxyRequest)) func(*httputil.ProxyRequest) {
	rw := newRewriter(opts)
	return func(pr *httputil.ProxyRequest) {
		rw.rewriteHeader(pr.Out, pr.Out.Header, SideRequest, rw.request)
		if next != nil {
			next(pr)
		}
	}
}

// ProxyModifyResponse returns a function for
// httputil.ReverseProxy.ModifyResponse that maps the Content-Type label
// of the backend's response as opts.Response says, then calls next, if
// not nil, which sees the mapped label. With opts.Unmappable Reject, a
// label that cannot be mapped makes it return the *Error, and the proxy's
// ErrorHandler answers (502 Bad Gateway by default); with PassThrough the
// label goes to the client unchanged. A response that goes on with a URI
// label, or with a Content-Type this mapped it to that browsers cannot
// parse, gets X-Content-Type-Options: nosniff, unless it has that field
// (see the package documentation).
//
// Streaming: the proxy flushes every write of a text/event-stream
// response, and of one without a Content-Length, and otherwise only every
// FlushInterval. It reads the Content-Type after ModifyResponse, so a
// server-sent event stream whose label this maps to a URI
// ("ContentType:text/event-stream") is no longer recognised by type; it
// still streams when the backend sends it without a Content-Length (as
// event streams are), but set FlushInterval to -1 on a proxy that maps
// streaming responses to URI labels, to flush each write whatever the
// framing.
//
// Of opts, DecodeForms and FreshWriters do not apply. It panics if opts
// holds an invalid Mode, Policy or scheme name, as Rewrite does.
func ProxyModifyResponse(opts Options, next func(*http.Response) error) func(*http.Response) error {
	rw := newRewriter(opts)
	return func(res *http.Response) error {
		if _, err := rw.rewriteHeader(res.Request, res.Header, SideResponse, rw.response); err != nil && rw.policy == Reject {
			return err
		}
		if next != nil {
			return next(res)
		}
		return nil
	}
}

// rewriteHeader maps the label in h, a header the caller owns, replacing
// its slice. A label that cannot be mapped is left as it is and its error
// returned (OnError is told).
//
// A response that goes out with a URI label, whether this mapped it, left
// it as it was (ToURI) or could not map it, gets
// X-Content-Type-Options: nosniff beside it, unless h has that field
// already (under its canonical key): browsers cannot parse a URI label as
// a MIME type, and would otherwise sniff the body and might run it as
// HTML (WHATWG MIME Sniffing, "sniffing in a browsing context"). So does
// one that goes out with a Content-Type this mapped a URI label to that
// browsers cannot parse either (browserParses). The
// field's slice is returned when this added it, so that a response writer
// whose header did not go out after all can take it back (response.go).
func (rw *rewriter) rewriteHeader(r *http.Request, h http.Header, side Side, m Mode) (nosniff []string, err error) {
	if m == Leave {
		return nil, nil
	}
	v := h["Content-Type"]
	var out string
	var unparsable bool
	switch {
	case len(v) == 0:
		return nil, nil
	case len(v) > 1:
		err = ErrMultipleLabels
	default:
		out, unparsable, err = rw.mapLabel(v[0], m)
	}
	if err != nil {
		if side == SideResponse && anyURILabel(v) {
			nosniff = forbidSniffing(h)
		}
		return nosniff, rw.report(r, side, v[0], err)
	}
	// Mapped without error, a label is a URI label exactly under ToURI.
	if side != SideResponse || m != ToURI {
		if out == v[0] {
			return nil, nil
		}
		h["Content-Type"] = []string{out}
		if side == SideResponse && unparsable {
			return forbidSniffing(h), nil
		}
		return nil, nil
	}
	if out == v[0] {
		return forbidSniffing(h), nil
	}
	if _, set := h[nosniffKey]; set {
		h["Content-Type"] = []string{out}
		return nil, nil
	}
	// One allocation for both fields' slices, each capped at its one
	// value, so that an append to either copies.
	both := &[2]string{out, "nosniff"}
	h["Content-Type"], h[nosniffKey] = both[0:1:1], both[1:2:2]
	return both[1:2:2], nil
}
