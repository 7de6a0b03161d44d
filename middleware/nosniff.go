package middleware

import (
	"net/http"

	"github.com/cturi/cturi/mapping"
)

// A response that goes out with a URI label carries
// X-Content-Type-Options: nosniff (rewriteHeader): a browser cannot parse
// the label as a MIME type, so without the field it would take the body
// as of no type and sniff it, and an upload served as text/plain could
// run as HTML (WHATWG MIME Sniffing). So does one with a Content-Type the
// middleware mapped a URI label to that a browser cannot parse: the mapping's type and
// subtype may hold '?' (SPEC R0.4, for the draft's x-FOO?bar), '{' and
// '}' (RFC 2045 tokens), none of which HTTP's token allows.

// nosniffKey is the canonical key of the X-Content-Type-Options field.
const nosniffKey = "X-Content-Type-Options"

// forbidSniffing sets X-Content-Type-Options: nosniff in h unless h has
// that field already (with any value, or none), and returns the slice it
// set, or nil.
func forbidSniffing(h http.Header) []string {
	if _, set := h[nosniffKey]; set {
		return nil
	}
	v := []string{"nosniff"}
	h[nosniffKey] = v
	return v
}

// anyURILabel reports whether any of the Content-Type values v is a URI
// label.
func anyURILabel(v []string) bool {
	for _, l := range v {
		if mapping.Detect(l) == mapping.DirectionToContentType {
			return true
		}
	}
	return false
}

// httpToken is RFC 9110's tchar (§5.6.2), the "HTTP token code points" of
// WHATWG MIME Sniffing: RFC 2045's token characters without '{' and '}'.
var httpToken = func() (t [256]bool) {
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789" +
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		t[c] = true
	}
	return t
}()

// browserParses reports whether a browser parses ct as a MIME type
// (WHATWG MIME Sniffing §4.4, "parse a MIME type"): with outer HTTP white
// space (SP, HTAB, CR, LF) removed, the text before the first '/' and that
// after it up to the first ';', less trailing white space, are each one or
// more HTTP token characters. Parameters never make the parse fail. No URI
// label parses: its scheme's ':' comes before any '/'. It runs on every
// response label mapped to a Content-Type, hence one pass and no call.
func browserParses(ct string) bool {
	i := 0
	for i < len(ct) && isHTTPSpace(ct[i]) {
		i++
	}
	start := i
	for i < len(ct) && httpToken[ct[i]] {
		i++
	}
	if i == start || i == len(ct) || ct[i] != '/' {
		return false
	}
	i++
	start = i
	for i < len(ct) && httpToken[ct[i]] {
		i++
	}
	if i == start {
		return false
	}
	for i < len(ct) && isHTTPSpace(ct[i]) {
		i++
	}
	return i == len(ct) || ct[i] == ';'
}

// isHTTPSpace reports whether c is HTTP white space as WHATWG MIME
// Sniffing has it.
func isHTTPSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
