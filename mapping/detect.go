package mapping

import "strconv"

// Direction says which way a label is mapped.
type Direction uint8

const (
	// DirectionToURI maps a Content-Type to a URI (ToURI).
	DirectionToURI Direction = iota + 1
	// DirectionToContentType maps a URI to a Content-Type (ToContentType).
	DirectionToContentType
)

// String returns "to-uri" or "to-ct", the names the cturi command uses,
// or "Direction(n)" for another value, as Kind.String does.
func (d Direction) String() string {
	switch d {
	case DirectionToURI:
		return "to-uri"
	case DirectionToContentType:
		return "to-ct"
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

// Detect tells which syntax a label is in (SPEC R0.17): after leading white
// space, a label that starts with a URI scheme and ':' (ALPHA followed by
// ALPHA, DIGIT, '+', '-' or '.') is a URI and maps to a Content-Type;
// anything else is taken for a Content-Type and maps to a URI. The two
// cannot be confused, since ':' is not allowed before the '/' of a media
// type. Detect does not validate the label.
func Detect(label string) Direction {
	lo, hi := trimWSP(label)
	if lo < hi && setAlpha.Contains(label[lo]) {
		for i := lo + 1; i < hi; i++ {
			if c := label[i]; c == ':' {
				return DirectionToContentType
			} else if !setScheme.Contains(c) {
				break
			}
		}
	}
	return DirectionToURI
}

// Map maps a label of either syntax to the other one, as Detect decides,
// and returns the direction it took. The options apply as they do to ToURI
// and ToContentType.
func Map(label string, opts ...Option) (string, Direction, error) {
	d := Detect(label)
	f := optionsOf(opts)
	var out string
	var err error
	if d == DirectionToURI {
		out, err = toURI(label, f, 0)
	} else {
		out, err = toContentType(label, f, 0)
	}
	return out, d, err
}

// Canonical returns the canonical Content-Type of a label of either syntax:
// a URI is mapped with ToContentType; a Content-Type is mapped to a URI and
// back, which writes it in canonical form (lower-case type and subtype,
// except after the "uri." of a subtype, quoted values, comments dropped)
// and collapses wrapped forms, such as a uri. subtype that wraps a
// ContentType: URI (SPEC N2, K6). Canonical is idempotent:
// Canonical(Canonical(x)) == Canonical(x) whenever the first call
// succeeds (SPEC N4). StrictURI has no effect: the result is a
// Content-Type, and an error about the URI in between shows it with the
// default '"' delimiters, whatever the options.
func Canonical(label string, opts ...Option) (string, error) {
	f := optionsOf(opts) &^ StrictURI
	if Detect(label) == DirectionToContentType {
		return toContentType(label, f, 0)
	}
	u, err := toURI(label, f, 0)
	if err != nil {
		return "", err
	}
	return toContentType(u, f, 0)
}
