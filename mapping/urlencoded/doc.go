// Package urlencoded implements the application/www-form-urlencoded format
// of draft-hoehrmann-urlencoded-00 ("The application/www-form-urlencoded
// format"): an ordered data set of (name, value) pairs, UTF-8 only, with
// ';' as separator and undefined values, suitable as an IRI query (RFC 3987)
// and as a standalone format; and the legacy application/x-www-form-urlencoded
// format it replaces, as browsers send it.
//
// The cturi draft maps Content-Type parameters to a URI query "in much the
// same way that HTML form fields are", but the mapping itself (package
// mapping) must not use form semantics: it keeps '+' and ';' as data and
// never decodes values, or closure is lost. This package is for
// applications that carry name-value data in query strings and bodies.
//
// Encode is the canonical encoder of the draft's §3, with one correction:
// it also escapes '+', which the draft forgets (so that ("a+b", "1") does
// not come back as ("a b", "1")). Decode is the §4 decoder; it reports
// invalid UTF-8 (§5's non-conforming strings) as an error with the byte
// offset rather than altering data. Filter is the §6 fragment-identifier
// filter.
//
// EscapeCharset covers case C of Mike Brown's percent-encoding recipe
// (uri@w3.org, 2004): text already encoded in a known charset is either
// percent-encoded octet by octet (Opaque) or decoded to Unicode and
// percent-encoded as UTF-8 (Decoded). Charset names are the WHATWG Encoding
// labels (golang.org/x/text/encoding/htmlindex).
package urlencoded
