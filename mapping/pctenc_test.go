package mapping

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetsMatchSPEC checks every predefined set octet by octet against the
// definition in SPEC R0.3-R0.9, written out independently here.
func TestSetsMatchSPEC(t *testing.T) {
	alnum := func(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	unreserved := func(c byte) bool { return alnum(c) || strings.IndexByte("-._~", c) >= 0 }
	subDelims := func(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }
	tchar := func(c byte) bool { return c > 0x20 && c < 0x7F && strings.IndexByte(`()<>@,;:\"/[]?=`, c) < 0 }
	troublesome := func(c byte) bool { return c <= 0x20 || c == 0x7F || strings.IndexByte(`()<>@,;:\/[]?%#=`, c) >= 0 }
	query := func(c byte) bool { return unreserved(c) || subDelims(c) || strings.IndexByte(":@/?", c) >= 0 }
	tests := []struct {
		name string
		set  ByteSet
		want func(c byte) bool
	}{
		{"Unreserved", Unreserved, unreserved},
		{"ComponentSafe (ENC_U, R0.8)", ComponentSafe, func(c byte) bool { return unreserved(c) || strings.IndexByte("!$'*+", c) >= 0 }},
		{"TokenSafe (ENC_C, R0.7)", TokenSafe, func(c byte) bool { return c < 0x80 && !troublesome(c) && c != '"' }},
		{"BodyChars", BodyChars, func(c byte) bool { return unreserved(c) || subDelims(c) || strings.IndexByte(":@/[]", c) >= 0 }},
		{"QueryChars", QueryChars, query},
		{"FragmentChars", FragmentChars, query},
		{"QueryNameChars", QueryNameChars, func(c byte) bool { return query(c) && c != '&' && c != '=' }},
		{"QueryValueChars", QueryValueChars, func(c byte) bool { return query(c) && c != '&' }},
		{"TCHAR (R0.3)", setTChar, tchar},
		{"RCHAR (R0.4)", setRChar, func(c byte) bool { return tchar(c) || c == '?' }},
		{"LCHAR (R0.5)", setLChar, func(c byte) bool { return c > 0x20 && c < 0x7F && c != ';' && c != '"' }},
	}
	for _, tt := range tests {
		for c := range 256 {
			assert.Equal(t, tt.want(byte(c)), tt.set.Contains(byte(c)), "%s: octet 0x%02X", tt.name, c)
		}
	}
	// ENC_C's output is made of TCHAR only (R0.7).
	for c := range 128 {
		if TokenSafe.Contains(byte(c)) {
			assert.True(t, tchar(byte(c)))
		}
	}
}

func TestByteSet(t *testing.T) {
	var empty ByteSet
	assert.False(t, empty.Contains('a'), "zero value is the empty set")
	s := NewByteSet("ab\xff")
	assert.True(t, s.Contains('a'))
	assert.False(t, s.Contains('c'))
	assert.False(t, s.Contains(0xFF), "octets >= 0x80 are never members")
	u := s.Union(NewByteSet("c"))
	assert.True(t, u.Contains('c'))
	assert.False(t, s.Contains('c'), "Union does not change its operands")
	w := u.Without("a")
	assert.False(t, w.Contains('a'))
	assert.True(t, u.Contains('a'), "Without does not change its operand")
	assert.True(t, empty.Union(s).Contains('b'))
	assert.False(t, empty.Without("a").Contains('a'))
}

func TestEscape(t *testing.T) {
	tests := []struct {
		in   string
		keep ByteSet
		want string
	}{
		{"", Unreserved, ""},
		{"plain", Unreserved, "plain"},
		{"a b/c?d", Unreserved, "a%20b%2Fc%3Fd"},
		{"100%", NewByteSet("%0123456789"), "100%25"}, // '%' is always encoded
		{"café", Unreserved, "caf%C3%A9"},
		{"\x00\xff", Unreserved, "%00%FF"},
		// Seed 001 case A: GIF octets, every octet encoded (the empty set).
		{"GIF89a\x07\x00\x07\x00\xa2\x00\x00\x00\x00\x00", ByteSet{}, "%47%49%46%38%39%61%07%00%07%00%A2%00%00%00%00%00"},
		// Seed 001 case B, corrected: "greeting" is 67 72 65 65 ... and the
		// '=' used for its reserved purpose stays outside the encoding.
		{"greeting", ByteSet{}, "%67%72%65%65%74%69%6E%67"},
		{"今日は", Unreserved, "%E4%BB%8A%E6%97%A5%E3%81%AF"},
		{"greeting=今日は", Unreserved, "greeting%3D%E4%BB%8A%E6%97%A5%E3%81%AF"},
		{"a+b!c", ComponentSafe, "a+b!c"},
		{"a&b=c", QueryValueChars, "a%26b=c"},
	}
	for _, tt := range tests {
		got := Escape(tt.in, tt.keep)
		assert.Equal(t, tt.want, got, "Escape(%q)", tt.in)
		assert.Equal(t, tt.in, Unescape(got), "Unescape(Escape(%q))", tt.in)
		assert.Equal(t, tt.want, string(AppendEscape([]byte("x"), tt.in, tt.keep)[1:]))
	}
	// Case B with the '=' kept for its reserved purpose: encode the parts.
	assert.Equal(t, "greeting=%E4%BB%8A%E6%97%A5%E3%81%AF", Escape("greeting", Unreserved)+"="+Escape("今日は", Unreserved))
	// No allocation when nothing needs encoding.
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Escape("plain-text", Unreserved) }))
}

func TestEscapeText(t *testing.T) {
	got, err := EscapeText("4 ÷ 3", Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "4%20%C3%B7%203", got, "seed 001's ÷ example, corrected: U+00F7 is C3 B7")
	_, err = EscapeText("4 \xf7 3", Unreserved)
	require.ErrorIs(t, err, ErrBadUTF8)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 2, e.Offset)
	_, err = EscapeText("\xed\xa0\x80", Unreserved) // a surrogate
	assert.ErrorIs(t, err, ErrBadUTF8)
	_, err = EscapeText("\xc0\x80", Unreserved) // overlong NUL
	assert.ErrorIs(t, err, ErrBadUTF8)
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"%41", "A"},
		{"%2541", "%41"}, // produced octets are not decoded again (R0.10)
		{"%%41", "%A"},
		{"%4", "%4"},
		{"%zz%", "%zz%"},
		{"%e2%82%AC", "€"},
		{"a+b", "a+b"}, // '+' is not a space here
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Unescape(tt.in), "Unescape(%q)", tt.in)
		assert.Equal(t, tt.want, string(AppendUnescape(nil, tt.in)))
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Unescape("no-triplets%") }))
}

func TestRepair(t *testing.T) {
	tests := []struct {
		in      string
		allowed ByteSet
		want    string
	}{
		{"a b", BodyChars, "a%20b"},
		{"z%z", FragmentChars, "z%25z"},
		{"%0d%0A", QueryValueChars, "%0d%0A"}, // triplets kept with their hex case
		{"100%", QueryChars, "100%25"},
		{`"q"`, QueryValueChars, "%22q%22"},
		{"a&b=c", QueryNameChars, "a%26b%3Dc"},
		{"[::1]", BodyChars, "[::1]"},
		{"é", BodyChars, "%C3%A9"},
	}
	for _, tt := range tests {
		got := Repair(tt.in, tt.allowed)
		assert.Equal(t, tt.want, got, "Repair(%q)", tt.in)
		assert.Equal(t, got, Repair(got, tt.allowed), "idempotent")
		assert.Equal(t, Unescape(tt.in), Unescape(got), "same decoding")
		assert.Equal(t, tt.want, string(AppendRepair(nil, tt.in, tt.allowed)))
	}
	// A caller's set holding '%' cannot make a bare '%' stay.
	assert.Equal(t, "%25x", Repair("%x", NewByteSet("%x")))
	assert.Equal(t, "%25", Escape("%", NewByteSet("%")))
}
