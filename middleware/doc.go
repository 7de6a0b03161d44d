// Package middleware rewrites Content-Type labels in flight for net/http
// handlers and reverse proxies, so that each side of an exchange sees the
// label syntax it understands: a backend that labels payloads with URIs
// (XML-DSig and XML-Enc algorithm URIs, RDF and JSON-LD types, XML
// namespaces) can talk to clients that speak Content-Types, and the other
// way round. The mapping itself is package mapping
// (draft-eastlake-cturi, "Mapping Between MIME Types, Content-Types, and
// URIs", as the project's SPEC.md interprets it); this package decides
// when it runs and where its result goes.
//
// # Where the label lives
//
// The label is the Content-Type field itself (RFC 9110 §8.3). HTTP does
// not forbid a URI there, and a backend that speaks URI labels puts one
// there; the middleware maps it per direction, as Options says:
//
//	mw := middleware.Rewrite(middleware.Options{
//		Request:  middleware.ToContentType, // handlers see Content-Types
//		Response: middleware.ToURI,         // clients see URI labels
//	})
//	http.ListenAndServe("127.0.0.1:8080", mw(mux))
//
// # Requests
//
// The request's label is rewritten before the handler runs, so that
// ParseForm and ParseMultipartForm see a real Content-Type. The caller's
// *http.Request is never modified: when the label changes, the handler
// gets a shallow copy (Request.WithContext) with a clone of the Header
// made as Header.Clone makes it, and RequestLabels (or LabelsFromContext,
// given only the context) reports the original and mapped label from the
// request context. For a label mapped to multipart/form-data or
// application/x-www-form-urlencoded, whose bodies net/http parses into the
// Request, the handler's copy is one of its own (one allocation more), so
// that a context or header the handler keeps after it returns does not
// keep the parsed form alive. A form that a handler ahead parsed under the original
// label (gorilla's HTTPMethodOverrideHandler reads one on every POST) is
// parsed again, into the copy, under the mapped one, unless net/http
// already read the body. A label that cannot be mapped is answered with
// 415 Unsupported Media Type and a plain-text body naming the SPEC error
// kind, or passed through unchanged (Options.Unmappable). With
// Options.DecodeForms, a body labelled application/www-form-urlencoded
// (draft-hoehrmann-urlencoded, decoded by package mapping/urlencoded) is
// decoded into r.PostForm, as net/http does for the legacy
// application/x-www-form-urlencoded type.
//
// # Responses
//
// The response's label is rewritten exactly once, just before the header
// goes out: on the first WriteHeader with a final status, Write,
// WriteString, ReadFrom (io.Copy), Flush (also through
// http.ResponseController), or when the handler returns without writing
// or panics (a recovery handler outside then answers with the label
// mapped).
// 1xx responses such as 103 Early Hints (RFC 8297) pass through untouched
// and do not count. The writer given to the handler has exactly the
// optional interfaces of the writer it wraps among http.Flusher,
// http.Hijacker, io.ReaderFrom and http.Pusher, plus Unwrap for
// http.ResponseController; it also always has WriteString and FlushError
// (which returns http.ErrNotSupported when the wrapped writer cannot
// flush), which change no behaviour. A nil Content-Type slice, which tells
// net/http not to sniff, is never replaced; a slice the middleware did not
// create is never written into (it installs a new one). A response that
// goes out with a URI label, one the middleware mapped, one ToURI left
// as it was, or one it could not map, gets X-Content-Type-Options:
// nosniff, unless the handler set that field (under its canonical key):
// browsers cannot parse a URI label as a MIME type and would otherwise
// sniff the body, and might run an upload served as text/plain as HTML.
// So does one that goes out with a Content-Type the middleware mapped it
// to that browsers cannot parse either (WHATWG MIME Sniffing: its type or
// subtype holds '?', '{' or '}', which the mapping allows and HTTP's
// token does not, as in text/plain?flag from ContentType:text/plain%3Fflag),
// and one that Canonical made so from a Content-Type browsers parse (a
// uri. subtype wrapping a ContentType: URI collapses, SPEC K6).
// The same holds for ProxyModifyResponse; Leave adds nothing. The writer is
// recycled once the handler returns, as net/http forbids using it after
// that: until another request takes the writer, a late call fails with
// ErrAfterReturn (a header it sets goes nowhere), and after that it
// reaches that request's response (an optional interface that request's
// writer lacks answers as through http.ResponseController: Hijack and
// Push fail with http.ErrNotSupported).
// Options.FreshWriters gives each request its own, for handlers that may
// not keep that rule. A Hijack that http.ResponseController finds further
// down the Unwrap chain, below a writer without one, bypasses the
// middleware, which then still rewrites the header of the hijacked
// response when the handler returns (an unmappable label still reaches
// Options.OnError); nothing of it reaches the wire.
//
// A multipart label is rewritten only if net/http then reads its body
// with the same boundary (for ToURI, which makes a URI label net/http
// cannot read as a multipart, the Content-Type that label maps back to
// is what must keep it): the mapping is not faithful to every parameter
// (SPEC N2; a quoted boundary with a backslash Go keeps, a multipart/uri.
// subtype, a boundary beside URI-body), and a form that no longer parses
// is worse than a label left as it is. Such a label is an error of kind
// structure-change (ErrStructureChange), under the Unmappable policy.
//
// On both sides the label is the field under the canonical key
// "Content-Type", where http.Header's methods and net/http's server put
// it; a field a handler stores under another spelling ("content-type") is
// not seen, as Header.Get and net/http's own sniffing do not see it.
//
// # Security (draft §6)
//
// Every value the middleware puts in a header passes header field value
// validation (no CR, LF, NUL or other control character but HTAB): the
// mapping guarantees it and the middleware checks it again. The mapping
// also refuses to decode a C1 control or a Unicode line or paragraph
// separator into a label (mapping.KindCTL). For untrusted
// input, mapping.NoControlled in Options.Mapping refuses the controlled
// mapping (URI-body, MIME-type), Options.Schemes restricts the URI schemes
// that the labels the middleware maps may name (a label its Mode leaves
// alone is not checked), and Options.MaxLabelLen bounds the work per
// label.
//
// # Cost
//
// A request or response whose label needs no rewriting costs no
// allocation. For labels that do, each middleware (each call of Rewrite,
// ProxyRewrite or ProxyModifyResponse) keeps, per mode, a cache of up to
// 128 mappings: a label mapped before costs a hash and a string
// comparison instead of a mapping call and its allocation. A label is
// kept when it is mapped again while the cache still remembers its first
// mapping (the second time, unless other labels' first mappings took its
// place in between), so that one seen only once (a multipart boundary)
// evicts nothing, and only if it and its mapping are
// at most 256 bytes long and the mapping passed every check
// (Options.Schemes, the multipart boundary, header-value validation).
// The cache takes no lock and has a fixed size, at most about 70 KiB
// per mode in use: a stream of distinct labels, an attacker's
// included, only replaces its entries.
// A rewritten response label then costs one allocation (its new header
// slice); a rewritten request label three (the header map and its group,
// and one allocation holding the copy of the request, its context and,
// when there are at most eight, the header's values).
//
// # Reverse proxies
//
// ProxyRewrite and ProxyModifyResponse plug the same rewriting into
// httputil.ReverseProxy's Rewrite and ModifyResponse hooks. The whole
// middleware can also wrap the proxy handler. GuardProxyBody, called in
// the Rewrite hook, keeps any ReverseProxy from cutting a response short
// when a backend answers quickly (golang/go#40747).
package middleware
