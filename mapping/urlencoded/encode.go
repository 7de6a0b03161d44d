package urlencoded

import (
	"strings"
	"unicode/utf8"
)

// Encode returns the canonical encoding of d (§3): in each name and value
// a space becomes '+'; '%', '+', ';', '&', '=' and every character that
// cannot occur in an RFC 3987 iquery are percent-encoded as the upper-case
// %HH of their UTF-8 octets; other characters, non-ASCII included, stay as
// they are. A pair is written "name" when its value is undefined and
// "name=value" otherwise, and pairs are joined with ';'.
//
// The draft's step 2 forgets '+': its encoder writes ("a+b", "1") as
// "a+b=1", which decodes to ("a b", "1"). Encode escapes it, so that
// Decode(Encode(d)) == d for every d Encode accepts.
//
// The error is an *Error: ErrBadUTF8 if a name or value is not valid UTF-8
// (the format is UTF-8 only), ErrUnencodable for the data set
// (("", undefined)), which would encode as "", the empty data set.
func (d DataSet) Encode() (string, error) {
	if len(d) == 1 && d[0].Name == "" && !d[0].Defined {
		return "", newError(ErrUnencodable, -1, `the data set (("", undefined)) has no encoding (it would be the empty one)`)
	}
	n := 0
	for _, p := range d {
		n += len(p.Name) + len(p.Value) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range d {
		if i > 0 {
			b.WriteByte(';')
		}
		if err := encodeComponent(&b, p.Name); err != nil {
			return "", err
		}
		if p.Defined {
			b.WriteByte('=')
			if err := encodeComponent(&b, p.Value); err != nil {
				return "", err
			}
		}
	}
	return b.String(), nil
}

// literalASCII holds the ASCII octets Encode writes as they are: those an
// iquery allows, less '%', '+' and the separators ';', '&', '='.
var literalASCII = func() (t [128]bool) {
	for c := 0x21; c < 0x7F; c++ {
		t[c] = strings.IndexByte(`"#&;<=>[\]^`+"`{|}%+", byte(c)) < 0
	}
	return t
}()

const upperHex = "0123456789ABCDEF"

func encodeComponent(b *strings.Builder, s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ':
				b.WriteByte('+')
			case literalASCII[c]:
				b.WriteByte(c)
			default:
				b.Write([]byte{'%', upperHex[c>>4], upperHex[c&15]})
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return newError(ErrBadUTF8, i, "cannot encode invalid UTF-8 (offset %d of %q)", i, s)
		}
		if iqueryAllows(r) {
			b.WriteString(s[i : i+n])
		} else {
			for _, o := range []byte(s[i : i+n]) {
				b.Write([]byte{'%', upperHex[o>>4], upperHex[o&15]})
			}
		}
		i += n
	}
	return nil
}

// iqueryAllows reports whether a non-ASCII character may occur literally
// in an RFC 3987 iquery (ucschar or iprivate), that is, whether it is
// outside the ranges the draft's §3 lists after %x7F.
func iqueryAllows(r rune) bool {
	switch {
	case r <= 0x9F: // C1 controls
		return false
	case 0xD800 <= r && r <= 0xDFFF, 0xFDD0 <= r && r <= 0xFDEF, 0xFFF0 <= r && r <= 0xFFFF:
		return false
	case r&0xFFFE == 0xFFFE: // U+xFFFE and U+xFFFF of every plane
		return false
	case 0xE0000 <= r && r <= 0xE0FFF:
		return false
	}
	return true
}
