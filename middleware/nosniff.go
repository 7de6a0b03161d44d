package middleware

import (
	"net/http"

	"github.com/cturi/cturi/mapping"
)

// A response that goes out with a URI label carries
// X-Content-Type-Options: nosniff (rewriteHeader): a browser cannot parse
// the label as a MIME type, so without the field it would take the body
// as of no type and sniff it, and an upload served as text/plain could
// run as HTML (WHATWG MIME Sniffing).

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
