package urlencoded

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unsafe"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		modern, old  DataSet // Decode, DecodeLegacy
		sameForLegcy bool
	}{
		{"empty", "", nil, nil, true},
		{"separators only", ";", DataSet{undef(""), undef("")}, DataSet{undef(";")}, false},
		{"ampersands only", "&&", DataSet{undef(""), undef(""), undef("")}, nil, false},
		{"empty sequences", "a;;b&&c", DataSet{undef("a"), undef(""), undef("b"), undef(""), undef("c")},
			DataSet{undef("a;;b"), undef("c")}, false},
		{"first = splits", "a=b=c", DataSet{def("a", "b=c")}, nil, true},
		{"empty name and value", "=", DataSet{def("", "")}, nil, true},
		{"semicolon in legacy", "a=1;b=2&c", DataSet{def("a", "1"), def("b", "2"), undef("c")},
			DataSet{def("a", "1;b=2"), undef("c")}, false},
		{"plus and %20", "a+b=%20c+%2B", DataSet{def("a b", " c +")}, nil, true},
		{"stray percent kept", "p=%;q=%4;r=%zz;s=100%", DataSet{def("p", "%"), def("q", "%4"), def("r", "%zz"), def("s", "100%")},
			DataSet{def("p", "%;q=%4;r=%zz;s=100%")}, false},
		{"one level only", "x=%2541", DataSet{def("x", "%41")}, nil, true},
		{"lower-case hex", "%c3%b6=%e2%82%ac", DataSet{def("ö", "€")}, nil, true},
		{"lower-case a-f, every digit", "%2f%7e%5b%5d%7c=%ef%bf%bd%3a%3b%3c%3d", DataSet{def("/~[]|", "\uFFFD:;<=")}, nil, true},
		{"raw UTF-8", "Chevron3=Boötes", DataSet{def("Chevron3", "Boötes")}, nil, true},
		{"raw and encoded octets form one character", "x=%C3\xB6&y=\xC3%B6", DataSet{def("x", "ö"), def("y", "ö")}, nil, true},
		{"NUL, CR, LF are data", "a=\x00%00\r%0A", DataSet{def("a", "\x00\x00\r\n")}, nil, true},
		{"BOM is part of the name (§11)", "\uFEFFa=1", DataSet{def("\uFEFFa", "1")}, nil, true},
		{"U+FFFD is a character", "r=%EF%BF%BD", DataSet{def("r", "\uFFFD")}, nil, true},
		{"hash is data", "a=1#x", DataSet{def("a", "1#x")}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.modern, got, "Decode")
			want := tt.old
			if tt.sameForLegcy {
				want = tt.modern
			}
			got, err = DecodeLegacy(tt.in)
			require.NoError(t, err)
			assert.Equal(t, want, got, "DecodeLegacy")
		})
	}
}

// TestDecodeBadUTF8: the offset is that of the octet or triplet that
// starts the invalid sequence, in the caller's input.
func TestDecodeBadUTF8(t *testing.T) {
	tests := []struct {
		in            string
		offset, index int
		part          string
	}{
		{"%FF=1", 0, 0, "name"},
		{"x=\xff", 2, 0, "value"},
		{"a=ok&b=%C3%28", 7, 1, "value"},
		{"a=1&b%E2%82=2", 5, 1, "name"},
		{"a=%E2%82", 2, 0, "value"},
		{"a=+%2B%ED%A0%80", 6, 0, "value"},     // surrogate
		{"a=x%F4%90%80%80", 3, 0, "value"},     // above U+10FFFF
		{"a=%E0%80%AF", 2, 0, "value"},         // overlong
		{"a&b&c=\xC3", 6, 2, "value"},          // raw, truncated
		{"a&b&c=d\xC3%", 7, 2, "value"},        // raw octet before a stray '%'
		{"ab%41%42%C3%41", 8, 0, "name"},       // after decoded ASCII
		{"k=%C3%B6%C3+", 8, 0, "value"},        // valid character first
		{"k=%C3%B6\xE2\x82%41", 8, 0, "value"}, // mixed
		{"a=%80", 2, 0, "value"},               // lone continuation octet 0x80, the lowest non-ASCII one
		{"%80", 0, 0, "name"},
		{"a=%zz%FF", 5, 0, "value"},        // a '%' that starts no triplet is one octet
		{"a=100%%C3", 6, 0, "value"},       // ... also right before a triplet
		{"a=%EF%BF%BD%FF", 11, 0, "value"}, // after a valid U+FFFD
		{"a=\uFFFD\xff", 5, 0, "value"},
	}
	for _, tt := range tests {
		for name, decode := range map[string]func(string) (DataSet, error){"Decode": Decode, "DecodeLegacy": DecodeLegacy} {
			got, err := decode(tt.in)
			require.Error(t, err, "%s(%q) = %v", name, tt.in, got)
			assert.Nil(t, got)
			var e *Error
			require.True(t, errors.As(err, &e), "%T", err)
			assert.ErrorIs(t, err, ErrBadUTF8)
			assert.Equal(t, tt.offset, e.Offset, "%s(%q): %v", name, tt.in, err)
			assert.Equal(t, tt.index, e.Index, "%s(%q)", name, tt.in)
			assert.Equal(t, tt.in, e.Input)
			assert.Contains(t, err.Error(), "the "+tt.part+" of pair")
		}
	}
}

func TestDecodeMaxPairs(t *testing.T) {
	many := func(n int, sep string) string { return strings.Repeat("a=1"+sep, n-1) + "a=1" }

	d, err := Decode(many(DefaultMaxPairs, ";"))
	require.NoError(t, err)
	assert.Len(t, d, DefaultMaxPairs)

	_, err = Decode(many(DefaultMaxPairs+1, "&"))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindTooManyPairs, e.Kind)
	assert.Equal(t, 4*DefaultMaxPairs, e.Offset)
	assert.Equal(t, DefaultMaxPairs, e.Index)
	assert.ErrorIs(t, err, ErrTooManyPairs)

	d, err = Decoder{MaxPairs: -1}.Decode(many(3*DefaultMaxPairs, ";"))
	require.NoError(t, err)
	assert.Len(t, d, 3*DefaultMaxPairs)

	_, err = Decoder{MaxPairs: 2}.Decode("a;b;c")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 4, e.Offset)
	assert.Equal(t, 2, e.Index)

	// Empty sequences, which the legacy format skips, do not count there.
	d, err = Decoder{MaxPairs: 2}.DecodeLegacy("&&a&&&b&&")
	require.NoError(t, err)
	assert.Equal(t, DataSet{undef("a"), undef("b")}, d)
	_, err = Decoder{MaxPairs: 2}.Decode("&&a&&&b&&")
	assert.ErrorIs(t, err, ErrTooManyPairs)
}

// TestDefaultMaxPairsIsNetURLs: DefaultMaxPairs is the limit url.ParseQuery
// applies by default (10000 pairs), as documented: at the limit both
// accept, one past it both refuse.
func TestDefaultMaxPairsIsNetURLs(t *testing.T) {
	many := func(n int) string { return strings.Repeat("a=1&", n-1) + "a=1" }
	for _, tt := range []struct {
		pairs int
		ok    bool
	}{
		{10000, true},
		{10001, false},
	} {
		_, uerr := url.ParseQuery(many(tt.pairs))
		require.Equal(t, tt.ok, uerr == nil, "url.ParseQuery of %d pairs: %v", tt.pairs, uerr)
		d, err := Decode(many(tt.pairs))
		if tt.ok {
			require.NoError(t, err)
			assert.Len(t, d, tt.pairs)
		} else {
			assert.ErrorIs(t, err, ErrTooManyPairs, "%d pairs", tt.pairs)
		}
	}
}

// TestDecodeAllocations: Decode allocates the result slice, plus one
// buffer when some name or value needs decoding; the other strings are
// substrings of the input.
func TestDecodeAllocations(t *testing.T) {
	for _, tt := range []struct {
		in     string
		allocs float64
	}{
		{"", 0},
		{"a=1;b=2&c=Boötes;d;e=", 1},
		{"q=a+b;url=http%3A%2F%2Fx.test%2F;lang=de;x=%C3%B6;y=+", 2},
		// The buffer is sized once for the rest of the input from the first
		// text that needs decoding, that text included: no regrowth.
		{"k=" + strings.Repeat("+", 64), 2},
		{"k=" + strings.Repeat("%41", 30) + ";z=" + strings.Repeat("+", 30), 2},
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := Decode(tt.in); err != nil {
				panic(err)
			}
		})
		assert.Equal(t, tt.allocs, allocs, "Decode(%q)", tt.in)
	}
	in := "a=1;b=two"
	d, err := Decode(in)
	require.NoError(t, err)
	assert.Same(t, unsafe.StringData(in[6:]), unsafe.StringData(d[1].Value), "a substring of the input")
}

func TestDecodeLegacyCharset(t *testing.T) {
	jis, err := japanese.ISO2022JP.NewEncoder().String("今日は")
	require.NoError(t, err)
	tests := []struct {
		charset, in string
		want        DataSet
	}{
		{"windows-1252", "name=Bo%F6tes&sign=%80+5&plain=a", DataSet{def("name", "Boötes"), def("sign", "€ 5"), def("plain", "a")}},
		{"ISO-8859-1", "d=4+%F7+3", DataSet{def("d", "4 ÷ 3")}},
		{"latin1", "%F6=%F7", DataSet{def("ö", "÷")}},
		{"shift_jis", "q=%8D%A1%93%FA%82%CD", DataSet{def("q", "今日は")}},
		{"iso-2022-jp", "q=" + mapping.Escape(jis, mapping.Unreserved), DataSet{def("q", "今日は")}},
		{"utf-8", "q=%E4%BB%8A", DataSet{def("q", "今")}},
		{" UTF8 ", "q=%E4%BB%8A", DataSet{def("q", "今")}},
		{"windows-1252", "a+b=c+d&e=+", DataSet{def("a b", "c d"), def("e", " ")}}, // '+' without any '%'
		{"shift_jis", "q=+", DataSet{def("q", " ")}},
	}
	for _, tt := range tests {
		got, err := Decoder{LegacyCharset: tt.charset}.DecodeLegacy(tt.in)
		require.NoError(t, err, "%s %q", tt.charset, tt.in)
		assert.Equal(t, tt.want, got, "%s %q", tt.charset, tt.in)
	}

	// Decode ignores LegacyCharset: the new format is UTF-8 only.
	_, err = Decoder{LegacyCharset: "windows-1252"}.Decode("d=%F7")
	assert.ErrorIs(t, err, ErrBadUTF8)
	_, err = Decoder{LegacyCharset: "utf-8"}.DecodeLegacy("d=%F7")
	assert.ErrorIs(t, err, ErrBadUTF8)

	for _, tt := range []struct {
		charset, in   string
		offset, index int
	}{
		{"shift_jis", "a=1&q=ok%82", 8, 1},      // truncated double-byte character
		{"shift_jis", "q=%A0", 2, 0},            // not a Shift_JIS octet
		{"windows-1252", "ok=1&%81=x", 5, 1},    // x/text leaves 0x81 undefined
		{"euc-kr", "q=%B0%A1%FF%FF", 8, 0},      // after a valid character
		{"gb18030", "q=%84%31%A4%37", -1, -1},   // GB18030's own U+FFFD: valid
		{"gb18030", "q=%84%31%A4%37%FF", 14, 0}, // ... then an invalid octet
	} {
		got, err := Decoder{LegacyCharset: tt.charset}.DecodeLegacy(tt.in)
		if tt.offset < 0 {
			require.NoError(t, err)
			assert.Equal(t, DataSet{def("q", "\uFFFD")}, got)
			continue
		}
		var e *Error
		require.ErrorAs(t, err, &e, "%s %q", tt.charset, tt.in)
		assert.Equal(t, KindUndecodable, e.Kind)
		assert.ErrorIs(t, err, ErrUndecodable)
		assert.Equal(t, tt.offset, e.Offset, "%s %q: %v", tt.charset, tt.in, err)
		assert.Equal(t, tt.index, e.Index)
	}

	for _, cs := range []string{"klingon", "utf-16le", "utf-16be", "UTF-16", "replacement", "iso-2022-kr"} {
		_, err := Decoder{LegacyCharset: cs}.DecodeLegacy("a=1")
		assert.ErrorIs(t, err, ErrUnknownCharset, cs)
	}
}

func TestErrorKinds(t *testing.T) {
	for k := KindBadUTF8; k <= KindBadArgument; k++ {
		e := &Error{Kind: k}
		assert.Equal(t, sentinels[k], errors.Unwrap(e))
		assert.Equal(t, "urlencoded: "+k.String(), sentinels[k].Error())
		assert.NotContains(t, k.String(), "Kind(")
	}
	assert.Equal(t, "Kind(99)", Kind(99).String())
	assert.Equal(t, "Kind(0)", Kind(0).String())
	assert.Equal(t, "Kind(8)", (KindBadArgument + 1).String(), "the first kind past the last")
	assert.NoError(t, (&Error{Kind: KindBadArgument + 1}).Unwrap())
	assert.NoError(t, (&Error{Kind: 99}).Unwrap())
}

// TestTypedNilError: a nil *Error in an error, bare or wrapped (a caller's
// typed-nil bug), matches no sentinel, and errors.Is and mapping.KindOf,
// which walk the chain through Unwrap, do not panic on it.
func TestTypedNilError(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"bare", (*Error)(nil)},
		{"wrapped", fmt.Errorf("handler: %w", (*Error)(nil))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotPanics(t, func() {
				assert.NotErrorIs(t, tt.err, ErrBadUTF8)
				assert.Equal(t, mapping.Kind(0), mapping.KindOf(tt.err))
			})
			e, ok := errors.AsType[*Error](tt.err)
			assert.True(t, ok)
			assert.Nil(t, e)
		})
	}
	assert.NoError(t, (*Error)(nil).Unwrap())
}

// TestErrorMadeByHand: an Error made outside the package, with no
// message, still says what it is.
func TestErrorMadeByHand(t *testing.T) {
	err := &Error{Kind: KindBadUTF8, Offset: 3, Index: 0}
	assert.EqualError(t, err, "urlencoded: bad-utf8 at offset 3")
	assert.ErrorIs(t, err, ErrBadUTF8)
}

// TestErrorMessagePairNumbers: every message that names a pair numbers it
// as Error.Index does, from 0, so that a log line and the error's fields
// agree.
func TestErrorMessagePairNumbers(t *testing.T) {
	errOf := func(_ any, err error) error { return err }
	tests := []struct {
		name string
		err  error
	}{
		{"bad-utf8", errOf(Decode("a;b;%FF"))},
		{"undecodable", errOf(Decoder{LegacyCharset: "shift_jis"}.DecodeLegacy("a&b&c=%A0"))},
		{"too-many-pairs", errOf(Decoder{MaxPairs: 2}.Decode("a;b;c"))},
		{"too-many-pairs, legacy", errOf(Decoder{MaxPairs: 1}.DecodeLegacy("a&&b"))},
		{"validate", DataSet{def("a", ""), def("b", "\xff")}.Validate()},
		{"undefined with a value", DataSet{def("a", ""), {Name: "b", Value: "x"}}.Validate()},
		{"legacy unencodable", errOf(DataSet{def("a", "1"), undef("")}.EncodeLegacy())},
	}
	for _, tt := range tests {
		var e *Error
		require.ErrorAs(t, tt.err, &e, tt.name)
		require.Positive(t, e.Index, tt.name)
		assert.Regexp(t, fmt.Sprintf(`\bpair %d\b`, e.Index), tt.err.Error(), tt.name)
		assert.NotRegexp(t, fmt.Sprintf(`\bpair %d\b`, e.Index+1), tt.err.Error(), tt.name)
	}
}
