package urlencoded

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		d    DataSet
		want string
	}{
		{"empty", nil, ""},
		{"undefined and empty values", DataSet{{"a", "", false}, {"b", "", true}}, "a;b="},
		{"space and plus", DataSet{{"a b", "c+d", true}}, "a+b=c%2Bd"},
		{"separators and percent", DataSet{{"a;b&c=d", "100%", true}}, "a%3Bb%26c%3Dd=100%25"},
		{"iquery punctuation stays", DataSet{{"u", "http://x/?q(1)!$'*,:@~", true}}, "u=http://x/?q(1)!$'*,:@~"},
		{"escaped ASCII", DataSet{{"k", "\"#<>[\\]^`{|}\x00\x1f\x7f", true}}, "k=%22%23%3C%3E%5B%5C%5D%5E%60%7B%7C%7D%00%1F%7F"},
		{"non-ASCII stays", DataSet{{"Chevron3", "Boötes", true}, {"€", "今日は", true}}, "Chevron3=Boötes;€=今日は"},
		{"C1 controls and non-characters", DataSet{{"k", "\u0085\ufdd0\ufffe\U0001fffe\U000e0001", true}}, "k=%C2%85%EF%B7%90%EF%BF%BE%F0%9F%BF%BE%F3%A0%80%81"},
		{"private use stays", DataSet{{"k", "\ue000\U000f0000", true}}, "k=\ue000\U000f0000"},
		{"two empty undefined pairs", DataSet{{"", "", false}, {"", "", false}}, ";"},
	}
	for _, tt := range tests {
		got, err := tt.d.Encode()
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, got, tt.name)
		back, err := Decode(got)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.d.withoutEmpty(), back.withoutEmpty(), "%s: Decode(Encode(d)) == d", tt.name)
	}
}

func TestEncodeErrors(t *testing.T) {
	_, err := DataSet{{"", "", false}}.Encode()
	assert.ErrorIs(t, err, ErrUnencodable)
	_, err = DataSet{{"ok", "a\xffb", true}}.Encode()
	require.ErrorIs(t, err, ErrBadUTF8)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 1, e.Offset)
	assert.True(t, strings.HasPrefix(err.Error(), "urlencoded: "))
}

func TestDecode(t *testing.T) {
	tests := []struct {
		in   string
		want DataSet
	}{
		{"", nil},
		{"a", DataSet{{"a", "", false}}},
		{"a=", DataSet{{"a", "", true}}},
		{"a=b=c", DataSet{{"a", "b=c", true}}},
		{"a;;b", DataSet{{"a", "", false}, {"", "", false}, {"b", "", false}}},
		{"&", DataSet{{"", "", false}, {"", "", false}}},
		{"%zz=%", DataSet{{"%zz", "%", true}}},
		{"a+b=%2B", DataSet{{"a b", "+", true}}},
		{"k=\x00\n", DataSet{{"k", "\x00\n", true}}},
	}
	for _, tt := range tests {
		got, err := Decode(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, "Decode(%q)", tt.in)
	}
}

func TestDecodeLegacy(t *testing.T) {
	got, err := DecodeLegacy("&a=1&&b;c=2+3&flag&")
	require.NoError(t, err)
	assert.Equal(t, DataSet{{"a", "1", true}, {"b;c", "2 3", true}, {"flag", "", false}}, got)
	got, err = DecodeLegacy("&&&")
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = DecodeLegacy("a=%ff")
	assert.ErrorIs(t, err, ErrBadUTF8)
}

func TestDecodeUTF8Offsets(t *testing.T) {
	tests := []struct {
		in     string
		offset int
	}{
		{"Lookup=%C3", 7},
		{"Chevron3=Bo%F6tes", 11},
		{"a=ok;Lookup=%C0%80", 12},
		{"n\xff=1", 1},
		{"x=%E2%82", 2},
		{"x=a%E2%82%41", 3},
	}
	for _, tt := range tests {
		_, err := Decode(tt.in)
		var e *Error
		require.ErrorAs(t, err, &e, tt.in)
		assert.ErrorIs(t, err, ErrBadUTF8)
		assert.Equal(t, tt.offset, e.Offset, "Decode(%q): %v", tt.in, err)
	}
}

func TestDecodeLimits(t *testing.T) {
	many := strings.Repeat("a=1;", DefaultMaxPairs) + "z"
	_, err := Decode(many)
	assert.ErrorIs(t, err, ErrTooManyPairs)
	got, err := DecodeOptions{MaxPairs: -1}.Decode(many)
	require.NoError(t, err)
	assert.Len(t, got, DefaultMaxPairs+1)
	_, err = DecodeOptions{MaxPairs: 2}.Decode("a;b;c")
	assert.ErrorIs(t, err, ErrTooManyPairs)
	got, err = DecodeOptions{MaxPairs: 2, Legacy: true}.Decode("a&&&&b")
	require.NoError(t, err, "legacy empty pairs do not count")
	assert.Len(t, got, 2)
}

func TestDecodeAllocations(t *testing.T) {
	in := "url=http://example.org/x;lang=de;q=a+b"
	allocs := testing.AllocsPerRun(100, func() { _, _ = Decode(in) })
	assert.Equal(t, 2.0, allocs, "the pairs slice, and the one value with '+' to decode")
}

func TestValues(t *testing.T) {
	d := DataSet{{"b", "1", true}, {"a", "", false}, {"b", "2", true}}
	v := d.Values()
	assert.Equal(t, url.Values{"b": {"1", "2"}, "a": {""}}, v)
	assert.Equal(t, DataSet{{"a", "", true}, {"b", "1", true}, {"b", "2", true}}, FromValues(v),
		"names sorted, values in order, all defined")
	val, ok := d.Get("b")
	assert.True(t, ok)
	assert.Equal(t, "1", val)
	_, ok = d.Get("a")
	assert.False(t, ok, "undefined value")
	_, ok = d.Get("z")
	assert.False(t, ok)
}

func TestFilter(t *testing.T) {
	d := DataSet{{"a", "1", true}, {"b", "", false}, {"d,", "", false}, {"é", "x", true}}
	got, err := Filter(d, "%C3%A9,a")
	require.NoError(t, err)
	assert.Equal(t, DataSet{{"a", "1", true}, {"é", "x", true}}, got, "original order kept")
	got, err = Filter(d, "")
	require.NoError(t, err)
	assert.Empty(t, got, "the empty name matches no pair here")
	for _, frag := range []string{"value-of(a)", "a,b)"} {
		_, err = Filter(d, frag)
		assert.ErrorIs(t, err, ErrReservedFragment, frag)
	}
	_, err = Filter(d, "%FF")
	assert.ErrorIs(t, err, ErrBadUTF8)
	got, err = Filter(d, "a+b,%28")
	require.NoError(t, err, "an escaped parenthesis is a name character")
	assert.Empty(t, got)
}

// Seed 001, case C, with its errata corrected: "4 ÷ 3" stored in a
// single-byte charset as 34 20 F7 20 33.
func TestEscapeCharset(t *testing.T) {
	latin := []byte{0x34, 0x20, 0xF7, 0x20, 0x33}
	for _, cs := range []string{"iso-8859-1", "windows-1252", "latin1"} {
		got, err := EscapeCharset(latin, cs, Opaque, mapping.Unreserved)
		require.NoError(t, err)
		assert.Equal(t, "4%20%F7%203", got, "%s opaque", cs)
		got, err = EscapeCharset(latin, cs, Decoded, mapping.Unreserved)
		require.NoError(t, err)
		assert.Equal(t, "4%20%C3%B7%203", got, "%s decoded: ÷ is C3 B7 in UTF-8 (the seed says C2 B7)", cs)
	}
	sjis := []byte{0x8D, 0xA1, 0x93, 0xFA, 0x82, 0xCD} // 今日は in Shift_JIS
	got, err := EscapeCharset(sjis, "shift_jis", Decoded, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "%E4%BB%8A%E6%97%A5%E3%81%AF", got)
	got, err = EscapeCharset(sjis, "shift_jis", Opaque, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "%8D%A1%93%FA%82%CD", got)
	got, err = EscapeCharset([]byte("greeting"), "utf-8", Decoded, mapping.ByteSet{})
	require.NoError(t, err)
	assert.Equal(t, "%67%72%65%65%74%69%6E%67", got, "greeting is 67 72 65 65 ... (the seed says 64 64)")

	_, err = EscapeCharset(latin, "no-such-charset", Opaque, mapping.Unreserved)
	assert.ErrorIs(t, err, ErrUnknownCharset)
	_, err = EscapeCharset([]byte{0x82}, "shift_jis", Decoded, mapping.Unreserved)
	assert.ErrorIs(t, err, ErrCharsetData, "a lone lead octet is not replaced with U+FFFD")
	_, err = EscapeCharset([]byte{0xFF}, "utf-8", Decoded, mapping.Unreserved)
	assert.ErrorIs(t, err, ErrCharsetData)
	got, err = EscapeCharset([]byte("\uFFFD"), "utf-8", Decoded, mapping.Unreserved)
	require.NoError(t, err, "a real U+FFFD in UTF-8 input is data")
	assert.Equal(t, "%EF%BF%BD", got)
}
