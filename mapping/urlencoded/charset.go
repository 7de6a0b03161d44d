package urlencoded

import (
	"unicode/utf8"

	"github.com/cturi/cturi/mapping"
	"golang.org/x/text/encoding/htmlindex"
)

// CharsetMode chooses how EscapeCharset treats text in a legacy charset
// (seed 001, case C).
type CharsetMode int

const (
	// Opaque percent-encodes the octets as they are (case C.1): octets that
	// are in the keep set in US-ASCII stay, the others become %HH. The URI
	// then carries the charset's octets, and its reader must know the
	// charset.
	Opaque CharsetMode = iota
	// Decoded decodes the octets to Unicode with the named charset and
	// percent-encodes the result as UTF-8 (case C.2, then case B): the URI
	// no longer depends on the charset.
	Decoded
)

// EscapeCharset percent-encodes text, octets in the named charset, for a
// URI component: with Opaque each octet not in keep becomes %HH; with
// Decoded the text is first converted from the charset to UTF-8 and each
// octet not in keep of the UTF-8 becomes %HH. keep is typically
// mapping.Unreserved; octets >= 0x80 and '%' are always encoded.
//
// charset is a WHATWG Encoding label ("iso-8859-1", "windows-1252",
// "shift_jis", "utf-8", ...; note that WHATWG reads iso-8859-1 as
// windows-1252). An unknown label is ErrUnknownCharset (also with Opaque,
// so that a mistyped name never goes unnoticed); with Decoded, octets that
// are not valid in the charset are ErrCharsetData rather than being
// replaced with U+FFFD.
func EscapeCharset(text []byte, charset string, mode CharsetMode, keep mapping.ByteSet) (string, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return "", newError(ErrUnknownCharset, -1, "unknown charset %q", charset)
	}
	if mode == Opaque {
		return mapping.Escape(string(text), keep), nil
	}
	name, _ := htmlindex.Name(enc)
	var u []byte
	if name == "utf-8" {
		u = text // the decoder would replace invalid octets; check instead
	} else if u, err = enc.NewDecoder().Bytes(text); err != nil {
		return "", newError(ErrCharsetData, -1, "decoding %s: %v", name, err)
	}
	if i := invalidOrReplaced(u, name == "utf-8"); i >= 0 {
		return "", newError(ErrCharsetData, -1, "octets invalid in %s (decoded text offset %d)", name, i)
	}
	return mapping.Escape(string(u), keep), nil
}

// invalidOrReplaced returns the offset in the decoded text u of the first
// sign that the input was not valid in its charset: invalid UTF-8, or a
// U+FFFD that a decoder put in place of an invalid sequence. A U+FFFD is
// the decoder's only way to say so; only UTF-8 input can carry a real one,
// and that input is checked directly.
func invalidOrReplaced(u []byte, isUTF8 bool) int {
	for i := 0; i < len(u); {
		r, n := utf8.DecodeRune(u[i:])
		if r == utf8.RuneError && (n == 1 || !isUTF8) {
			return i
		}
		i += n
	}
	return -1
}
