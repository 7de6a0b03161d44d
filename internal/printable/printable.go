// Package printable makes text that came from a peer safe to show: in a
// log line, on a terminal, in an error message. A CR or LF in it could
// forge a log line, an ESC or a C1 control (U+009B is CSI to some
// terminals) could drive a terminal, and a bidi control (U+202E) could
// reorder what a person reads.
//
// What does not print is what strconv.IsPrint rejects, and an octet that
// is not UTF-8; it is written as strconv.Quote writes it (\r, \x1b,
// \u202e, \xff).
package printable

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Token returns s as it is when it is printable ASCII without a space,
// as a log field such as an address or a user name is, and Go-quoted
// otherwise, so that the field stays one field on one line.
func Token(s string) string {
	return quoteUnless(s, '!')
}

// Text returns s as it is when it is printable ASCII, spaces included,
// as a message is, and Go-quoted otherwise.
func Text(s string) string {
	return quoteUnless(s, ' ')
}

func quoteUnless(s string, lowest byte) string {
	for i := 0; i < len(s); i++ {
		if s[i] < lowest || s[i] >= 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// Is reports whether every character of s prints (space included) and s
// is UTF-8: whether Escape would leave it as it is.
func Is(s string) bool {
	return nonPrinting(s, 0) == len(s)
}

// Escape returns s with each character that does not print escaped as in
// a Go string literal, and the rest, non-ASCII letters included, as it is.
func Escape(s string) string {
	i := nonPrinting(s, 0)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		_, n := utf8.DecodeRuneInString(s[i:])
		q := strconv.Quote(s[i : i+n])
		b.WriteString(q[1 : len(q)-1])
		next := nonPrinting(s, i+n)
		b.WriteString(s[i+n : next])
		i = next
	}
	return b.String()
}

// nonPrinting returns the offset of the first character at or after i
// that does not print, or len(s).
func nonPrinting(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return i
		}
		i += n
	}
	return len(s)
}

// Quote returns s quoted as strconv.Quote quotes it, cut to max octets
// when it is longer (back to the start of a UTF-8 character, or where it
// is when s is not UTF-8 there) and marked with "..." inside the quotes,
// so that a message quoting text from a peer stays short however long
// the text. max must be at least 4.
func Quote(s string, max int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max - len("...")
	for back := 0; back < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]); back++ {
		cut--
	}
	q := strconv.Quote(s[:cut])
	return q[:len(q)-1] + `..."`
}
