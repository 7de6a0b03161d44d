package mapping

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The precision of errors, written once for the fuzz targets and
// TestErrorProperties: an error's offset is within its Input
// and points at what its kind and message name, the message says that
// offset, and the message is bounded and prints.

// maxMessage bounds a message: fixed text, offsets and at most two
// quoted excerpts of maxQuoted octets (each octet at most 4 when quoted).
const maxMessage = 200 + 2*4*maxQuoted

// octetAt returns the octet at offset i of s, or the one a %HH triplet
// there stands for.
func octetAt(s string, i int) byte {
	c, _ := decodeAt(s, i)
	return c
}

// checkError asserts what every error of this package must satisfy.
func checkError(t testing.TB, err error) {
	t.Helper()
	var e *Error
	require.ErrorAs(t, err, &e)
	require.NotZero(t, e.Kind)
	s, off, msg := e.Input, e.Offset, err.Error()
	require.Truef(t, off >= 0 && off <= len(s), "offset %d outside input %q: %v", off, s, err)
	require.Truef(t, strings.HasPrefix(msg, "mapping: "), "message %q", msg)
	require.LessOrEqualf(t, len(msg), maxMessage, "message of %d bytes for an input of %d", len(msg), len(s))
	require.Falsef(t, strings.ContainsFunc(msg, func(r rune) bool { return !strconv.IsPrint(r) }), "message %q does not print", msg)
	// The message's own words: a quoted excerpt of the input may read
	// like them ("a at offset 0", "x, found the end").
	own := outsideQuotes(msg)
	require.Equalf(t, 1, strings.Count(own, " at offset "), "message %q", msg)
	_, said, _ := strings.Cut(own, " at offset ")
	said = said[:len(said)-len(strings.TrimLeft(said, "0123456789"))]
	require.Equalf(t, strconv.Itoa(off), said, "message %q names another offset than %d", msg, off)
	switch {
	case e.Kind == KindCTL:
		// An ASCII control, or the lead octet of a C1 control or of
		// U+2028/U+2029 (unicodectl.go), as it is or as a triplet.
		require.Lessf(t, off, len(s), "%v", err)
		c := octetAt(s, off)
		require.Truef(t, c < 0x20 || c == 0x7F || c == 0xC2 || c == 0xE2, "ctl at offset %d of %q, which holds %q: %v", off, s, s[off:], err)
	case e.Kind == KindBadUTF8:
		require.Lessf(t, off, len(s), "%v", err)
		require.GreaterOrEqualf(t, octetAt(s, off), byte(0x80), "bad-utf8 at offset %d of %q: %v", off, s, err)
	case strings.Contains(own, "unterminated quoted-string"):
		require.Equalf(t, byte('"'), s[off], "%q: %v", s, err)
	case strings.Contains(own, "unbalanced comment"):
		require.Equalf(t, byte('('), s[off], "%q: %v", s, err)
	case strings.Contains(own, "'%' not followed by two hex digits"):
		require.Equalf(t, byte('%'), s[off], "%q: %v", s, err)
	case strings.Contains(own, ", found the end"):
		require.Emptyf(t, strings.TrimRight(s[off:], " \t"), "%q: %v", s, err)
	case strings.Contains(own, ", found "):
		require.Lessf(t, off, len(s), "%v", err)
		require.Containsf(t, msg, ", found "+showOctet(s[off]), "%q: %v", s, err)
	}
}

// quotedText is a string as strconv.Quote writes one; showOctet's '"'
// is not one, and outsideQuotes takes it out first.
var quotedText = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// outsideQuotes returns msg with its quoted excerpts of the input, and
// showOctet's '"', replaced by "…", so that only the message's own words
// are left to read.
func outsideQuotes(msg string) string {
	return quotedText.ReplaceAllLiteralString(strings.ReplaceAll(msg, `'"'`, "…"), "…")
}

// errorInputs add to the vectors, which hold no control character or
// invalid UTF-8, a label for each place one is refused, after multi-byte
// characters, triplets and white space where they shift offsets.
var errorInputs = []string{
	"  text/plain\x01", "text/plain; a=\"é\x7f\"", "text/plain; a=\"\\\n\"", "text/plain (é\x00)",
	"text/plain; a=\"\xc3\"", "text/plain (\xff)", "text/plain; a=\"x\u0085\"", "text/plain (\u2028)",
	"application/uri.x%3Ay; a=\"\x1b\"", "a/b; URI-body=\"x:\x7f\"", "text/plain; a=\"x", "\ttext/plain (x",
	"ContentType:%41%0D/b", "ContentType:a/b?%41%09=1", "ContentType:a/b?a=é%01", "ContentType:a/b?a=%FF",
	"ContentType:a/b?a=%C2%85", "ContentType:a/b?a=\u2029", " x:y?MIME-type=%41%7F/b", "x:é?a=%zz",
	"x:\x01\xff", "x:y\x01", "http://x/é é", "application/uri.ContentType%3Atext%2Fplain; k=\"%250D\"",
	// Quoted text that reads like the message around it.
	"ContentType:a%20at%20offset%200", "ContentType:x%2C%20found%20the%20end", "ContentType:a/b?a%20at%20offset%201%3B=1",
	"ContentType:application/uri.x%253Ay?z=a%20at%20offset%201&MIME-type=a",
}

// TestErrorProperties runs checkError on every error the vectors and
// errorInputs give, through each entry point and option.
func TestErrorProperties(t *testing.T) {
	inputs := errorInputs
	for _, v := range loadVectors(t) {
		inputs = append(inputs, v.input)
	}
	for _, in := range inputs {
		for _, o := range []Option{0, StrictURI, Lenient, NoControlled} {
			for _, f := range []func(string, ...Option) (string, error){ToURI, ToContentType, Canonical} {
				if _, err := f(in, o); err != nil {
					checkError(t, err)
				}
			}
			if _, err := ParseContentType(in, o); err != nil {
				checkError(t, err)
			}
		}
		if _, err := ParseURI(in); err != nil {
			checkError(t, err)
		}
	}
}
