package printable

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTokenText: a token or a text that is printable ASCII stays as it
// is (a text may hold spaces, a token not); any other is Go-quoted whole.
func TestTokenText(t *testing.T) {
	for _, tt := range []struct{ in, token, text string }{
		{"a@example.com", "a@example.com", "a@example.com"},
		{"", "", ""},
		{"SMTP error 550: no such user", `"SMTP error 550: no such user"`, "SMTP error 550: no such user"},
		{"a\r\nb", `"a\r\nb"`, `"a\r\nb"`},
		{"tab\there", `"tab\there"`, `"tab\there"`},
		{"\x1b[2K", `"\x1b[2K"`, `"\x1b[2K"`},
		{"z\u00fcrich", `"zürich"`, `"zürich"`},
		{"\u009b\u202e\xff\x7f", `"\u009b\u202e\xff\x7f"`, `"\u009b\u202e\xff\x7f"`},
	} {
		assert.Equal(t, tt.token, Token(tt.in), "Token(%q)", tt.in)
		assert.Equal(t, tt.text, Text(tt.in), "Text(%q)", tt.in)
	}
}

// TestEscape: what does not print is escaped as strconv.Quote escapes it,
// and nothing else changes, non-ASCII letters and a quote included.
func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{`plain "text", zürich, 😀`, `plain "text", zürich, 😀`},
		{"format: \U0001D173.", `format: \U0001d173.`},
		{"line: a\r\nb", `line: a\r\nb`},
		{"\x1b[2J\u202eforged\u009b\xff\x7f", `\x1b[2J\u202eforged\u009b\xff\x7f`},
		{"\u2028\u2066\ufeff\u00ad", `\u2028\u2066\ufeff\u00ad`},
		{"\xe2\x80", `\xe2\x80`},
	} {
		assert.Equal(t, tt.want, Escape(tt.in), "%q", tt.in)
		assert.Equal(t, tt.want == tt.in, Is(tt.in), "%q", tt.in)
		assert.True(t, Is(Escape(tt.in)), "escaped %q prints", tt.in)
	}
}

// TestQuote: short text is quoted as %q does; long text is cut to max
// octets, back to the start of a UTF-8 character, and marked with "..."
// inside the quotes.
func TestQuote(t *testing.T) {
	const max = 64
	long := strings.Repeat("x", max)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "a;b", `"a;b"`},
		{"control characters are escaped", "a\r\nb\x00", `"a\r\nb\x00"`},
		{"exactly the limit", long, `"` + long + `"`},
		{"one over the limit", long + "y", `"` + long[:max-3] + `..."`},
		{"a character is not split", long[:max-4] + "é" + long, `"` + long[:max-4] + `..."`},
		{"invalid UTF-8 is cut where it is", long[:max-4] + "\xff\xff\xff\xff" + long, `"` + long[:max-4] + `\xff..."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Quote(tt.in, max))
		})
	}
}
