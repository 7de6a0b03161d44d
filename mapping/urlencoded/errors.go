package urlencoded

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/cturi/cturi/internal/printable"
)

// Kind is the kind of an urlencoded error. Its String method returns a short
// name ("bad-utf8", "too-many-pairs", ...) suitable for logs and metrics.
type Kind uint8

// The error kinds.
const (
	// KindBadUTF8: after percent-decoding, a name or value (or a fragment
	// name) is not valid UTF-8 (RFC 3629: no overlong forms, surrogates or
	// code points above U+10FFFF). Seed 002 §2 and §5 call such strings
	// non-conforming; they are never repaired.
	KindBadUTF8 Kind = iota + 1
	// KindTooManyPairs: the input holds more pairs than the decoder's
	// MaxPairs.
	KindTooManyPairs
	// KindReservedFragment: a fragment identifier holds '(' or ')', whose
	// semantics seed 002 §6 reserves ("it is incorrect to ignore or
	// otherwise attempt to process them").
	KindReservedFragment
	// KindUnencodable: a data set an encoder cannot represent faithfully:
	// the one pair ("", undefined) on its own (seed 002 §3 note), a pair
	// that is undefined yet has a Value, and, for EncodeLegacy, any
	// ("", undefined) pair.
	KindUnencodable
	// KindUnknownCharset: a charset name that is not a WHATWG Encoding
	// name or label, or one whose data is never decoded ("replacement");
	// for Decoder.LegacyCharset also one that is not ASCII-compatible
	// (UTF-16), in which a form's '&', '=' and '%' cannot be found.
	KindUnknownCharset
	// KindUndecodable: octets that are not valid in the charset they are
	// said to be in.
	KindUndecodable
	// KindBadArgument: a function was called with an argument outside the
	// values it documents (a Treatment this package does not define): a
	// bug in the caller, not bad data.
	KindBadArgument
)

var kindNames = [...]string{
	KindBadUTF8:          "bad-utf8",
	KindTooManyPairs:     "too-many-pairs",
	KindReservedFragment: "reserved-fragment",
	KindUnencodable:      "unencodable",
	KindUnknownCharset:   "unknown-charset",
	KindUndecodable:      "undecodable",
	KindBadArgument:      "bad-argument",
}

// String returns the short name of the kind, e.g. "bad-utf8".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Sentinels, one per kind, so that errors.Is(err, urlencoded.ErrBadUTF8)
// works on every error this package returns.
var (
	ErrBadUTF8          = errors.New("urlencoded: bad-utf8")
	ErrTooManyPairs     = errors.New("urlencoded: too-many-pairs")
	ErrReservedFragment = errors.New("urlencoded: reserved-fragment")
	ErrUnencodable      = errors.New("urlencoded: unencodable")
	ErrUnknownCharset   = errors.New("urlencoded: unknown-charset")
	ErrUndecodable      = errors.New("urlencoded: undecodable")
	ErrBadArgument      = errors.New("urlencoded: bad-argument")
)

var sentinels = [...]error{
	KindBadUTF8:          ErrBadUTF8,
	KindTooManyPairs:     ErrTooManyPairs,
	KindReservedFragment: ErrReservedFragment,
	KindUnencodable:      ErrUnencodable,
	KindUnknownCharset:   ErrUnknownCharset,
	KindUndecodable:      ErrUndecodable,
	KindBadArgument:      ErrBadArgument,
}

// Error is the error every function of this package returns. It unwraps to
// the sentinel of its kind, so both errors.Is(err, ErrBadUTF8) and
// errors.AsType[*Error](err) (or errors.As) work.
type Error struct {
	// Kind says what is wrong.
	Kind Kind
	// Input is the text Offset refers to: the string given to Decode,
	// DecodeLegacy or Filter, the charset data given to EscapeCharset, or,
	// for DataSet.Validate and EncodeFragment, the name or value at fault. For
	// KindUnknownCharset it is the charset name, and for KindBadArgument
	// the argument's value as text.
	Input string
	// Offset is the byte offset in Input of the octet, %HH triplet or
	// element the error is about.
	Offset int
	// Index is the index of the pair (or, for Filter, of the fragment
	// name, and for EncodeFragment, of the name in its arguments) the
	// error is about, and -1 when the error concerns no single pair.
	Index int

	detail string
}

func newError(k Kind, input string, off, index int, format string, args ...any) *Error {
	return &Error{Kind: k, Input: input, Offset: off, Index: index, detail: fmt.Sprintf(format, args...)}
}

// Error returns a message a person can act on, prefixed "urlencoded: ".
// For an Error made outside this package, which has no message, it is
// the kind and offset: "urlencoded: bad-utf8 at offset 3".
func (e *Error) Error() string {
	if e.detail == "" {
		return "urlencoded: " + e.Kind.String() + " at offset " + strconv.Itoa(e.Offset)
	}
	return "urlencoded: " + e.detail
}

// Unwrap returns the sentinel of e.Kind (ErrBadUTF8, ErrTooManyPairs, ...),
// and nil for a nil *Error, so that errors.Is and errors.As (and so
// mapping.KindOf) walk past a caller's typed nil instead of panicking.
func (e *Error) Unwrap() error {
	if e != nil && int(e.Kind) < len(sentinels) {
		return sentinels[e.Kind]
	}
	return nil
}

// maxQuoted bounds the octets of a caller's text, such as a charset name
// (which may come from a peer's Content-Type), that a message quotes.
// Input holds it all.
const maxQuoted = 64

// quoteClip quotes s as %q does, cut to maxQuoted octets.
func quoteClip(s string) string { return printable.Quote(s, maxQuoted) }
