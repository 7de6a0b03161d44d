package urlencoded

import (
	"strings"
	"unicode/utf8"
)

// This file is the escaping the encoders share: which characters of a
// name, value or fragment name stay literal, and how the others become
// %HH. The mapping package's Escape cannot do it, since the canonical form
// keeps most non-ASCII characters literal (an IRI query) and writes space
// as '+'.

// escaper describes one way of escaping text.
type escaper struct {
	// keep holds the ASCII octets written as they are.
	keep [256]bool
	// plus writes space as '+' instead of %20.
	plus bool
	// literalRune reports whether a non-ASCII character is written as its
	// UTF-8 octets; nil means that every octet >= 0x80 becomes %HH. Octets
	// that are not valid UTF-8 always become %HH.
	literalRune func(rune) bool
}

func newEscaper(keep string, plus bool, literalRune func(rune) bool) *escaper {
	e := &escaper{plus: plus, literalRune: literalRune}
	for i := 0; i < len(keep); i++ {
		e.keep[keep[i]] = true
	}
	return e
}

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

	// iqueryKeep is what seed 002 §3 leaves literal: the ASCII characters
	// of RFC 3987 iquery (unreserved, sub-delims, ':' '@' '/' '?') less
	// the ones its steps 1 and 2 escape (';' '&' '=', '%'), and less '+',
	// which step 2 forgets: a literal '+' decodes as a space (§4 step 5).
	iqueryKeep = alnum + "-._~" + "!$'()*," + ":@/?"

	// legacyKeep is what the application/x-www-form-urlencoded serializer
	// of the WHATWG URL Standard (§5.2) leaves literal.
	legacyKeep = alnum + "*-._"

	// fragmentKeep is the ASCII of RFC 3987 ifragment less what a §6
	// fragment name must escape: '%', ',' (the separator) and '(' ')'
	// (reserved).
	fragmentKeep = alnum + "-._~" + "!$&'*+;=" + ":@/?"
)

var (
	escCanonical = newEscaper(iqueryKeep, true, isIQueryRune)
	escURI       = newEscaper(iqueryKeep, true, nil)
	escLegacy    = newEscaper(legacyKeep, true, nil)
	escFragment  = newEscaper(fragmentKeep, false, isUCSChar)
)

// nonASCII looks at the non-ASCII octet s[i] and returns the length n of
// the UTF-8 sequence it starts (1 for an invalid octet) and whether those
// n octets are written literally.
func (e *escaper) nonASCII(s string, i int) (n int, literal bool) {
	if e.literalRune == nil {
		return 1, false
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n == 1 {
		// Unreachable: the escapers with a literalRune serve Encode and
		// EncodeFragment, which refuse invalid UTF-8 first. Kept so that
		// an invalid octet is escaped whatever literalRune says of U+FFFD
		// (isIQueryRune and isUCSChar say false today).
		return 1, false
	}
	return n, e.literalRune(r)
}

// len returns the length of the escaped form of s.
func (e *escaper) len(s string) int {
	n := len(s)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case e.keep[c] || c == ' ' && e.plus:
			i++
		case c < utf8.RuneSelf:
			n += 2
			i++
		default:
			k, literal := e.nonASCII(s, i)
			if !literal {
				n += 2 * k
			}
			i += k
		}
	}
	return n
}

// write writes the escaped form of s to b.
func (e *escaper) write(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case e.keep[c]:
			i++
		case c == ' ' && e.plus:
			b.WriteString(s[start:i])
			b.WriteByte('+')
			i++
			start = i
		case c < utf8.RuneSelf:
			b.WriteString(s[start:i])
			writePct(b, c)
			i++
			start = i
		default:
			k, literal := e.nonASCII(s, i)
			if !literal {
				b.WriteString(s[start:i])
				for j := i; j < i+k; j++ {
					writePct(b, s[j])
				}
				start = i + k
			}
			i += k
		}
	}
	b.WriteString(s[start:])
}

const upperHex = "0123456789ABCDEF"

func writePct(b *strings.Builder, c byte) {
	b.Write([]byte{'%', upperHex[c>>4], upperHex[c&15]})
}

// isIQueryRune reports whether the non-ASCII character r may stand
// literally in an RFC 3987 iquery: ucschar or iprivate. These are the
// characters seed 002 §3 leaves alone (its table lists the complement).
func isIQueryRune(r rune) bool {
	return isUCSChar(r) || 0xE000 <= r && r <= 0xF8FF || r >= 0xF0000 && r <= 0x10FFFD && r&0xFFFE != 0xFFFE
}

// isUCSChar reports whether the non-ASCII character r is an RFC 3987
// ucschar: not a C1 control, a surrogate, a noncharacter or private use,
// nor in U+E0000-E0FFF (tags and variation selectors supplement).
func isUCSChar(r rune) bool {
	switch {
	case r < 0xA0:
		return false
	case r <= 0xD7FF:
		return true
	case r <= 0xF8FF: // surrogates, private use area
		return false
	case r <= 0xFDCF:
		return true
	case r <= 0xFDEF: // noncharacters
		return false
	case r <= 0xFFEF:
		return true
	case r <= 0xFFFF: // specials, U+FFFE and U+FFFF
		return false
	case r&0xFFFE == 0xFFFE: // the last two code points of each plane
		return false
	case r >= 0xE0000 && r <= 0xE0FFF:
		return false
	}
	return r < 0xF0000 // planes 15 and 16 are private use
}
