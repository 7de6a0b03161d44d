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
// parsed here, so other labels cost a prefix comparison; a label as
// browsers send it (a boundary and nothing else) is read without
// allocating.
func keepsMultipart(in, out string, m Mode) bool {
	if !hasMultipartType(in) {
		return true
	}
	boundary, ok := goBoundary(in)
	if !ok {
		return true // net/http reads no parts from it
	}
	ct := out
	if m == ToURI {
		// The reverse mapping takes no options: whoever reads the URI
		// label is not bound by this middleware's.
		var err error
		if ct, err = mapping.ToContentType(out); err != nil {
			return false // unreachable by SPEC N4; refused rather than guessed
		}
	}
	b, ok := goBoundary(ct)
	return ok && b == boundary && hasMultipartType(ct)
}

// goBoundary returns the boundary parameter of the Content-Type ct as
// mime.ParseMediaType reads it, and whether it reads one.
func goBoundary(ct string) (string, bool) {
	if b, ok := simpleBoundary(ct); ok {
		return b, true
	}
	_, params, err := mime.ParseMediaType(ct)
	b, ok := params["boundary"]
	return b, err == nil && ok
}

// simpleBoundary reads the Content-Types made of a media type and a
// boundary alone, the way browsers and mapping.Canonical write them
// (multipart/form-data; boundary=----x, or boundary="----x"), without
// allocating: type/subtype, then ";", then boundary= and a token, or a
// quoted string with no backslash, with white space only around the ";"
// and at either end. For those, mime.ParseMediaType reads the same
// boundary; for any other, ok is false.
func simpleBoundary(ct string) (boundary string, ok bool) {
	s := strings.Trim(ct, " \t")
	typ, params, found := strings.Cut(s, ";")
	slash := strings.IndexByte(typ, '/')
	typ = strings.TrimRight(typ, " \t")
	if !found || slash <= 0 || !isToken(typ[:slash]) || !isToken(typ[slash+1:]) {
		return "", false
	}
	params = strings.TrimLeft(params, " \t")
	const name = "boundary="
	if len(params) <= len(name) || !strings.EqualFold(params[:len(name)], name) {
		return "", false
	}
	v := params[len(name):]
	if v[0] != '"' {
		return v, isToken(v)
	}
	if len(v) < 2 || v[len(v)-1] != '"' {
		return "", false
	}
	v = v[1 : len(v)-1]
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return "", false
		}
	}
	return v, true
}

// isToken reports whether s is a non-empty token as mime.ParseMediaType
// reads one: printable ASCII but for white space and the tspecials.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// hasMultipartType reports whether label, after leading white space,
// starts with the type multipart.
func hasMultipartType(label string) bool {
	const prefix = "multipart/"
	label = strings.TrimLeft(label, " \t")
	return len(label) >= len(prefix) && strings.EqualFold(label[:len(prefix)], prefix)
}
