package middleware

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/mapping/urlencoded"
)

// Errors the middleware raises itself; mapping errors are *mapping.Error
// values. Each but ErrAfterReturn is wrapped in an *Error; ErrAfterReturn
// is returned as it is, by a response writer used too late.
var (
	// ErrMultipleLabels: more than one Content-Type field, so which label
	// the message has is ambiguous.
	ErrMultipleLabels = errors.New("middleware: more than one Content-Type field")
	// ErrLabelTooLong: a label longer than Options.MaxLabelLen.
	ErrLabelTooLong = errors.New("middleware: label longer than the limit")
	// ErrSchemeNotAllowed: a label naming a URI scheme that
	// Options.Schemes does not list. The error the middleware reports
	// wraps it with the scheme: `middleware: URI scheme not allowed: "ftp"`.
	ErrSchemeNotAllowed = errors.New("middleware: URI scheme not allowed")
	// ErrStructureChange: a multipart label whose mapping (for ToURI,
	// the Content-Type that mapping maps back to) would have net/http
	// read its body with another boundary, or not as a multipart at all
	// (the mapping is not faithful to every parameter, SPEC N2), so that
	// the body would no longer parse.
	ErrStructureChange = errors.New("middleware: the mapped label would change how the multipart body is split (its boundary, or whether it is a multipart at all)")
	// ErrInvalidHeaderValue: a mapped label that would not be a valid
	// header field value. The mapping guarantees this cannot happen; the
	// middleware checks it anyway, before anything reaches a header.
	ErrInvalidHeaderValue = errors.New("middleware: mapped label is not a valid header value")

	// ErrAfterReturn is what a response writer returns when it is used after
	// its handler returned, which net/http forbids ("A ResponseWriter may not
	// be used after the Handler.ServeHTTP method has returned"), while the
	// middleware holds it for reuse. See Options.FreshWriters.
	ErrAfterReturn = errors.New("middleware: ResponseWriter used after its handler returned")
)

// Side says which message of an exchange a label belongs to.
type Side uint8

const (
	// SideRequest is the request's Content-Type.
	SideRequest Side = iota + 1
	// SideResponse is the response's Content-Type.
	SideResponse
)

// String returns "request" or "response" (or "Side(n)" for another
// value).
func (s Side) String() string {
	switch s {
	case SideRequest:
		return "request"
	case SideResponse:
		return "response"
	}
	return "Side(" + strconv.Itoa(int(s)) + ")"
}

// Error is the error the middleware reports for a label it cannot map. It
// unwraps to Err, so errors.Is(err, mapping.ErrCTL) and
// errors.Is(err, ErrSchemeNotAllowed) work.
type Error struct {
	// Side is the message the label came from.
	Side Side
	// Label is the Content-Type field value as it was (for
	// ErrMultipleLabels, the first one).
	Label string
	// Err is a *mapping.Error, a *urlencoded.Error, one of this
	// package's sentinels, or an error that is one for errors.Is and
	// unwraps to its cause: ErrFormTooLarge and the read error of a
	// limit set upstream (an *http.MaxBytesError, or an error wrapping
	// one); ErrFormUnreadable and the read error of a form body that
	// cannot be read.
	Err error
}

// Error returns "middleware: the <side>'s Content-Type label cannot be
// mapped" (for a form body, "middleware: the request body cannot be
// decoded as application/www-form-urlencoded", or "... cannot be read")
// followed by the kind and, when Err is set, the cause (without the
// "middleware: " this package's own causes start with: the prefix is
// given once). It does not repeat Label, which can be long and comes from the peer;
// the cause may show the part of it that does not map, or its decoded
// form, quoted as by %q (a mapping error of kind bad-mime-type quotes the
// decoded Content-Type, its first 64 bytes when it is longer).
func (e *Error) Error() string {
	kind := e.Kind()
	s := "middleware: " + e.what(kind) + " (" + kind + ")"
	if e.Err == nil { // an Error built by hand, without a cause
		return s
	}
	// The package's own causes (ErrLabelTooLong, ...) say "middleware: "
	// too: once is enough.
	return s + ": " + strings.TrimPrefix(e.Err.Error(), "middleware: ")
}

// what says what could not be done, for an error of the given kind.
func (e *Error) what(kind string) string {
	switch {
	case kind == "form-unreadable":
		return "the " + e.Side.String() + " body cannot be read"
	case isFormKind(kind):
		return "the " + e.Side.String() + " body cannot be decoded as " + formMediaType
	}
	return "the " + e.Side.String() + "'s Content-Type label cannot be mapped"
}

// isFormKind reports whether kind is about a form body rather than a label.
func isFormKind(kind string) bool { return strings.HasPrefix(kind, "form-") }

// status is the HTTP status a rejected request gets for an error of the
// given kind.
func status(kind string) int {
	switch {
	case kind == "form-too-large":
		return http.StatusRequestEntityTooLarge
	case isFormKind(kind):
		return http.StatusBadRequest
	}
	return http.StatusUnsupportedMediaType
}

// Unwrap returns Err, and nil for a nil *Error, so that errors.Is and
// errors.As (and so mapping.KindOf) walk past a caller's typed nil
// instead of panicking, as they do past mapping's and urlencoded's.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Kind names the cause: the SPEC error kind of a mapping error ("ctl",
// "bad-mime-type", ...); "multiple-labels", "too-long",
// "scheme-not-allowed", "structure-change" or "invalid-header-value" for
// this package's own; "form-too-large", "form-unreadable", or "form-" and
// the urlencoded kind ("form-bad-utf8", "form-too-many-pairs") for a form
// body (DecodeForms). Every form kind, and only those, starts with
// "form-". Kind is for people and logs (the 415 body shows it); to test
// for a cause in code, use errors.Is with this package's sentinels
// (ErrLabelTooLong, ErrFormTooLarge, ...), mapping's (mapping.ErrCTL,
// ...) or urlencoded's, or mapping.KindOf.
func (e *Error) Kind() string {
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(e.Err, ErrMultipleLabels):
		return "multiple-labels"
	case errors.Is(e.Err, ErrLabelTooLong):
		return "too-long"
	case errors.Is(e.Err, ErrSchemeNotAllowed):
		return "scheme-not-allowed"
	case errors.Is(e.Err, ErrStructureChange):
		return "structure-change"
	case errors.Is(e.Err, ErrInvalidHeaderValue):
		return "invalid-header-value"
	case errors.Is(e.Err, ErrFormTooLarge) || errors.As(e.Err, &tooBig):
		// The second for an Error built by hand around the limit's own
		// error: this package's Err was the bare *http.MaxBytesError
		// until it came to be wrapped with ErrFormTooLarge.
		return "form-too-large"
	case errors.Is(e.Err, ErrFormUnreadable):
		return "form-unreadable"
	}
	// A typed nil *urlencoded.Error is "unknown", as mapping.KindOf
	// makes a typed nil *mapping.Error.
	if ue, ok := errors.AsType[*urlencoded.Error](e.Err); ok && ue != nil {
		return "form-" + ue.Kind.String() // form-bad-utf8, form-too-many-pairs
	}
	if k := mapping.KindOf(e.Err); k != 0 {
		return k.String()
	}
	return "unknown"
}
