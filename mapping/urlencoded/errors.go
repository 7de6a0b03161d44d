package urlencoded

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is. Every error this package returns is an *Error
// that unwraps to one of them.
var (
	// ErrBadUTF8: decoded octets that are not valid UTF-8 (§2, §5), or a
	// name or value that is not valid UTF-8 when encoding.
	ErrBadUTF8 = errors.New("urlencoded: invalid UTF-8")
	// ErrTooManyPairs: more pairs than DecodeOptions.MaxPairs.
	ErrTooManyPairs = errors.New("urlencoded: too many pairs")
	// ErrUnencodable: the data set (("", undefined)), the one data set the
	// format cannot represent (§3: it would encode as "", the empty list).
	ErrUnencodable = errors.New("urlencoded: data set cannot be encoded")
	// ErrReservedFragment: a fragment identifier with '(' or ')', whose
	// semantics are reserved (§6).
	ErrReservedFragment = errors.New("urlencoded: reserved fragment identifier")
	// ErrUnknownCharset: a charset name that the WHATWG Encoding standard
	// does not define.
	ErrUnknownCharset = errors.New("urlencoded: unknown charset")
	// ErrCharsetData: octets that are not valid in the named charset.
	ErrCharsetData = errors.New("urlencoded: octets invalid in charset")
)

// Error is the error every function of this package returns.
type Error struct {
	Err    error // one of the sentinels above
	Offset int   // byte offset in the input the error is about, or -1
	msg    string
}

func newError(err error, off int, format string, args ...any) *Error {
	return &Error{Err: err, Offset: off, msg: fmt.Sprintf(format, args...)}
}

// Error returns a message prefixed "urlencoded: ".
func (e *Error) Error() string { return "urlencoded: " + e.msg }

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }
