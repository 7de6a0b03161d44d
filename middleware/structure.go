package middleware

import (
	"mime"
	"strings"

	"github.com/cturi/cturi/mapping"
)

// keepsMultipart reports whether out, the label mode m made of in, leaves
// a multipart body readable as it was written: if net/http reads in as a
// multipart with a boundary (mime.ParseMediaType, as ParseMultipartForm
// and multipart readers do), it must read out, or for ToURI the
// Content-Type out maps back to, as a multipart with the same boundary.
//
// The mapping does not promise this (SPEC N2): a uri. subtype becomes
// application/uri.… (multipart/uri.a%3Ab; boundary=x), the parameters of
// a Content-Type with URI-body are percent-encoded once more
// (boundary="x y" comes back as boundary="x%2520y"), and Go keeps a
// backslash in a quoted value that the mapping drops (boundary="a\b" is
// a\b to Go, ab to RFC 5322). Only a label that starts with multipart/ is
// parsed here, so other labels cost a prefix comparison.
func keepsMultipart(in, out string, m Mode) bool {
	if !hasMultipartType(in) {
		return true
	}
	_, params, err := mime.ParseMediaType(in)
	boundary, ok := params["boundary"]
	if err != nil || !ok {
		return true // net/http reads no parts from it
	}
	ct := out
	if m == ToURI {
		// The reverse mapping takes no options: whoever reads the URI
		// label is not bound by this middleware's.
		if ct, err = mapping.ToContentType(out); err != nil {
			return false
		}
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	b, ok := params["boundary"]
	return err == nil && ok && b == boundary && strings.HasPrefix(mediaType, "multipart/")
}

// hasMultipartType reports whether label, after leading white space,
// starts with the type multipart.
func hasMultipartType(label string) bool {
	const prefix = "multipart/"
	label = strings.TrimLeft(label, " \t")
	return len(label) >= len(prefix) && strings.EqualFold(label[:len(prefix)], prefix)
}
