package mapping

import (
	"slices"
	"unicode/utf8"
)

// This file is the one set-driven percent-encoder of SPEC.md R0.7-R0.11:
// ENC_C and ENC_U are appendEscape with setEncC and setEncU, dec is
// appendUnescape, and REPAIR_X is appendRepair with the set of context X.

const upperHex = "0123456789ABCDEF"

// unhex returns the value of the hex digit c, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	}
	return -1
}

// isTriplet reports whether s[i:] starts with '%' and two HEXDIGs.
func isTriplet[T bytesOrString](s T, i int) bool {
	return i+2 < len(s) && s[i] == '%' && tabHex[s[i+1]] && tabHex[s[i+2]]
}

// Escape percent-encodes s: every octet that is not in keep becomes %HH with
// upper-case hex; the others stay. Octets >= 0x80 are always encoded, and so
// is '%', even when keep holds it, which makes the encoding injective:
// Unescape(Escape(s, keep)) == s for every s.
//
// Escape treats s as octets (seed 001 case A: with the empty set every octet
// is encoded). For text that must be valid UTF-8 use EscapeText. When nothing
// needs encoding, s is returned without allocating.
func Escape(s string, keep ByteSet) string {
	tab, i := keep.literal(), 0
	for i < len(s) && tab[s[i]] {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+2*(len(s)-i))
	return string(appendEscape(append(b, s[:i]...), s[i:], keep))
}

// AppendEscape appends Escape(s, keep) to dst and returns the extended slice.
func AppendEscape(dst []byte, s string, keep ByteSet) []byte {
	return appendEscape(dst, s, keep)
}

// EscapeText is Escape for Unicode text (seed 001 case B): s must be valid
// UTF-8, otherwise the error is a *Error of kind KindBadUTF8 with the offset
// of the first invalid octet. Non-ASCII characters become the %HH of their
// UTF-8 octets. EscapeText(s, Unreserved) is the conservative encoding of
// text for any URI component.
func EscapeText(s string, keep ByteSet) (string, error) {
	if i := invalidUTF8(s); i >= 0 {
		return "", newError(KindBadUTF8, s, i, "invalid UTF-8 at offset %d", i)
	}
	return Escape(s, keep), nil
}

// Unescape undoes one level of percent-encoding (SPEC R0.10): in one left to
// right pass each '%' followed by two hex digits (either case) becomes that
// octet, and any other '%' is copied. Octets it produces are never decoded
// again, so "%2541" gives "%41" and "%%41" gives "%A". It never fails and
// returns s itself when s holds no triplet.
func Unescape(s string) string {
	i := indexTriplet(s)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	return string(appendUnescape(append(b, s[:i]...), s[i:]))
}

// AppendUnescape appends Unescape(s) to dst and returns the extended slice.
func AppendUnescape(dst []byte, s string) []byte { return appendUnescape(dst, s) }

// Repair makes text valid in a URI context without changing what it decodes
// to (SPEC R0.11): a %HH triplet is copied with its hex case, an octet in
// allowed is copied, and any other octet, including a '%' that does not
// start a triplet, becomes %HH. Repair is idempotent and
// Unescape(Repair(s, x)) == Unescape(s).
func Repair(s string, allowed ByteSet) string {
	if invalidIn(s, allowed) < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	return string(appendRepair(b, s, allowed))
}

// AppendRepair appends Repair(s, allowed) to dst and returns the extended
// slice.
func AppendRepair(dst []byte, s string, allowed ByteSet) []byte {
	return appendRepair(dst, s, allowed)
}

func appendPct(dst []byte, c byte) []byte {
	return append(dst, '%', upperHex[c>>4], upperHex[c&15])
}

// appendEscape is ENC_C / ENC_U: keep never matters for '%', which is
// always encoded so that the encoding can be undone.
func appendEscape[T bytesOrString](dst []byte, s T, keep ByteSet) []byte {
	return appendEncoded(dst, s, keep.literal(), &foldNone)
}

// appendEscapeLower is appendEscape of the ASCII lower-case form of s, for
// the type and subtype of K2 and K3.
func appendEscapeLower[T bytesOrString](dst []byte, s T, keep ByteSet) []byte {
	return appendEncoded(dst, s, keep.literal(), &foldLower)
}

// Octet maps for appendEncoded.
var foldNone, foldLower = func() (none, lower [256]byte) {
	for c := range 256 {
		none[c], lower[c] = byte(c), byte(c)
		if 'A' <= c && c <= 'Z' {
			lower[c] = byte(c) + 'a' - 'A'
		}
	}
	return none, lower
}()

// appendEncoded appends fold[c] for each octet c of s, as itself when tab
// holds it and as %HH otherwise. It writes octet by octet into space grown
// once for the common case, where nothing needs encoding.
func appendEncoded[T bytesOrString](dst []byte, s T, tab *byteTable, fold *[256]byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)]
	out := dst[n:]
	for i := 0; i < len(s) && i < len(out); i++ {
		c := fold[s[i]]
		if !tab[c] {
			dst = dst[:n+i]
			if rest := len(s) - i; cap(dst)-len(dst) < 3*rest {
				dst = growEncoded(dst, s[i:], tab, fold)
			}
			for ; i < len(s); i++ {
				if c := fold[s[i]]; tab[c] {
					dst = append(dst, c)
				} else {
					dst = appendPct(dst, c)
				}
			}
			return dst
		}
		out[i] = c
	}
	return dst
}

// growEncoded returns dst grown to hold what appendEncoded writes for s,
// exactly: append's growth by a quarter would allocate five times a large
// result in all. It is kept out of appendEncoded's loop, which most
// inputs run with room to spare.
//
//go:noinline
func growEncoded[T bytesOrString](dst []byte, s T, tab *byteTable, fold *[256]byte) []byte {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if !tab[fold[s[i]]] {
			n += 2
		}
	}
	return slices.Grow(dst, n)
}

// appendUnescape is dec (R0.10).
func appendUnescape[T bytesOrString](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && isTriplet(s, i) {
			dst = append(append(dst, s[start:i]...), hexVal[s[i+1]]<<4|hexVal[s[i+2]])
			i += 2
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// hexVal holds the value of each hex digit (and 0 for other octets).
var hexVal = func() (t [256]byte) {
	for c := range 256 {
		if v := unhex(byte(c)); v >= 0 {
			t[c] = byte(v)
		}
	}
	return t
}()

// decodeAt returns the octet at s[i], or the octet a %HH triplet there
// stands for, and the index after it.
func decodeAt(s string, i int) (byte, int) {
	if c := s[i]; c != '%' || !isTriplet(s, i) {
		return c, i + 1
	}
	return hexVal[s[i+1]]<<4 | hexVal[s[i+2]], i + 3
}

// appendRepair is REPAIR_X (R0.11).
func appendRepair[T bytesOrString](dst []byte, s T, allowed ByteSet) []byte {
	tab, start := allowed.literal(), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if tab[c] {
			continue
		}
		if c == '%' && isTriplet(s, i) {
			i += 2
			continue
		}
		dst = appendPct(append(dst, s[start:i]...), c)
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// indexTriplet returns the index of the first %HH triplet in s, or -1.
func indexTriplet[T bytesOrString](s T) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && isTriplet(s, i) {
			return i
		}
	}
	return -1
}

// invalidIn returns the offset of the first octet of s that is neither in
// allowed nor part of a %HH triplet, or -1 when s is valid in that context.
func invalidIn[T bytesOrString](s T, allowed ByteSet) int {
	tab := allowed.literal()
	for i := 0; i < len(s); i++ {
		if c := s[i]; !tab[c] {
			if c != '%' || !isTriplet(s, i) {
				return i
			}
			i += 2
		}
	}
	return -1
}

// invalidUTF8 returns the offset of the first octet of s that does not start
// a valid UTF-8 sequence (RFC 3629: no overlong forms, surrogates or code
// points above U+10FFFF), or -1. Pure ASCII costs one pass.
func invalidUTF8[T bytesOrString](s T) int {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
