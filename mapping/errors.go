package mapping

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/cturi/cturi/internal/printable"
)

// Kind is the kind of a mapping error, one of the twelve of SPEC.md R0.16.
// Its String method returns the SPEC name ("syntax", "ctl", ...), which is
// what the cturi command prints after "ERROR:".
type Kind uint8

// The error kinds, in the order SPEC.md R0.16 lists them.
const (
	// KindSyntax: a Content-Type that does not match the grammar of C2.
	KindSyntax Kind = iota + 1
	// KindCTL: a control character (other than HTAB where allowed) in the
	// input or produced by decoding, which would land in a header; also a
	// C1 control, U+2028 or U+2029 in a Content-Type a mapping produces or
	// maps to a URI (see the package documentation, Beyond SPEC).
	KindCTL
	// KindBadUTF8: octets >= 0x80 that are not valid UTF-8 where UTF-8 text
	// is required.
	KindBadUTF8
	// KindRelativeURI: a URI (or a decoded URI body) without a scheme.
	KindRelativeURI
	// KindInvalidURI: an octet or %-sequence that RFC 3986 does not allow
	// where it stands, a malformed authority, a misquoted query value, or
	// invalid UTF-8 in an IRI.
	KindInvalidURI
	// KindReserved: the reserved form ContentType://.
	KindReserved
	// KindReservedParam: a special name (URI-body, URI-fragment, MIME-type)
	// where it has no meaning, or a controlled mapping refused by
	// NoControlled.
	KindReservedParam
	// KindDuplicateSpecial: a special parameter given twice.
	KindDuplicateSpecial
	// KindBadMIMEType: a decoded type/subtype that is not type "/" subtype.
	KindBadMIMEType
	// KindBadParamName: a decoded parameter name that is not a MIME token.
	KindBadParamName
	// KindBadURIBody: a uri. subtype or URI-body holding a fragment, or a
	// query the mapping cannot carry there.
	KindBadURIBody
	// KindNested: a controlled mapping that names the other syntax's
	// wrapping form, or wrapping nested deeper than MaxCollapseDepth.
	KindNested
)

var kindNames = [...]string{
	KindSyntax:           "syntax",
	KindCTL:              "ctl",
	KindBadUTF8:          "bad-utf8",
	KindRelativeURI:      "relative-uri",
	KindInvalidURI:       "invalid-uri",
	KindReserved:         "reserved",
	KindReservedParam:    "reserved-param",
	KindDuplicateSpecial: "duplicate-special",
	KindBadMIMEType:      "bad-mime-type",
	KindBadParamName:     "bad-param-name",
	KindBadURIBody:       "bad-uri-body",
	KindNested:           "nested",
}

// String returns the SPEC name of the kind, e.g. "bad-mime-type".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Sentinels, one per kind, so that errors.Is(err, mapping.ErrCTL) works on
// every error this package returns.
var (
	ErrSyntax           = errors.New("mapping: syntax")
	ErrCTL              = errors.New("mapping: ctl")
	ErrBadUTF8          = errors.New("mapping: bad-utf8")
	ErrRelativeURI      = errors.New("mapping: relative-uri")
	ErrInvalidURI       = errors.New("mapping: invalid-uri")
	ErrReserved         = errors.New("mapping: reserved")
	ErrReservedParam    = errors.New("mapping: reserved-param")
	ErrDuplicateSpecial = errors.New("mapping: duplicate-special")
	ErrBadMIMEType      = errors.New("mapping: bad-mime-type")
	ErrBadParamName     = errors.New("mapping: bad-param-name")
	ErrBadURIBody       = errors.New("mapping: bad-uri-body")
	ErrNested           = errors.New("mapping: nested")
)

var sentinels = [...]error{
	KindSyntax:           ErrSyntax,
	KindCTL:              ErrCTL,
	KindBadUTF8:          ErrBadUTF8,
	KindRelativeURI:      ErrRelativeURI,
	KindInvalidURI:       ErrInvalidURI,
	KindReserved:         ErrReserved,
	KindReservedParam:    ErrReservedParam,
	KindDuplicateSpecial: ErrDuplicateSpecial,
	KindBadMIMEType:      ErrBadMIMEType,
	KindBadParamName:     ErrBadParamName,
	KindBadURIBody:       ErrBadURIBody,
	KindNested:           ErrNested,
}

// Error is the error every function of this package returns. It unwraps to
// the sentinel of its kind, so both errors.Is(err, ErrCTL) and
// errors.AsType[*Error](err) (or errors.As) work.
type Error struct {
	// Kind is the SPEC error kind.
	Kind Kind
	// Input is the label Offset refers to: the caller's input, or, for an
	// error raised while collapsing a wrapped label (SPEC K6, R3), the
	// wrapped label that was being mapped.
	Input string
	// Offset is the byte offset in Input of the octet, %HH triplet,
	// quoted-pair or element the error is about.
	Offset int

	msg string
}

func newError(k Kind, input string, off int, format string, args ...any) *Error {
	return &Error{Kind: k, Input: input, Offset: off, msg: fmt.Sprintf(format, args...)}
}

// Error returns a message a person can act on, prefixed "mapping: ". It
// quotes at most 64 bytes of any text it shows, and for an error raised
// while collapsing a wrapped label it ends by naming that label, which
// Offset refers to. For an Error made outside this package, which has no
// message, it is the kind and offset: "mapping: ctl at offset 3".
func (e *Error) Error() string {
	if e.msg == "" {
		return "mapping: " + e.Kind.String() + " at offset " + strconv.Itoa(e.Offset)
	}
	return "mapping: " + e.msg
}

// Unwrap returns the sentinel of e.Kind (ErrSyntax, ErrCTL, ...), and nil
// for a nil *Error, so that errors.Is and errors.As walk past a caller's
// typed nil instead of panicking.
func (e *Error) Unwrap() error {
	if e != nil && int(e.Kind) < len(sentinels) {
		return sentinels[e.Kind]
	}
	return nil
}

// KindOf returns the kind of err if it is or wraps a mapping error (an
// *Error or one of the sentinels), and 0 otherwise, a nil *Error included.
func KindOf(err error) Kind {
	if e, ok := errors.AsType[*Error](err); ok {
		// A typed nil in an interface is a caller's bug, but a function
		// that classifies any error must not panic on one.
		if e == nil {
			return 0
		}
		return e.Kind
	}
	for k, s := range sentinels {
		if s != nil && errors.Is(err, s) {
			return Kind(k)
		}
	}
	return 0
}

// showOctet names c in a message: quoted if it is printable ASCII, else by
// its value, since %q would show an octet of 0x80 or more as the Latin-1
// character it is not (0xC3 as 'Ã'), and a control character as an escape.
func showOctet(c byte) string {
	if c >= 0x20 && c < 0x7F {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02X", c)
}

// noteWrapped returns err, an error of mapping label, a wrapped label a
// collapse (SPEC K6, R3) maps on the way, with its message saying that its
// offset is in that label, not in the caller's: the message is shown next
// to the caller's label (a log line, a 415 body, the cturi command). An
// error of a deeper collapse step names its own label already.
func noteWrapped(err error, label string) error {
	if e, ok := err.(*Error); ok && e.Input == label && e.msg != "" {
		e.msg += " (the offset is in " + quoteClip(label) + ", the wrapped label being mapped)"
	}
	return err
}

// maxQuoted bounds the octets of a label (or of its decoded form) that a
// message quotes: a message goes into logs, 415 bodies and mail reports,
// and a label may be as long as its caller allows. Input holds it all.
const maxQuoted = 64

// quoteClip quotes s as %q does, cut to maxQuoted octets.
func quoteClip(s string) string { return printable.Quote(s, maxQuoted) }
