package urlencoded

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

func unhexOctets(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// TestSeed001Greeting: case B, with the seed's octets corrected
// ("greeting" is 67 72 65 65 74 69 6E 67, not 67 72 64 64 ...).
func TestSeed001Greeting(t *testing.T) {
	assert.Equal(t, unhexOctets(t, "6772656574696e67"), []byte("greeting"))
	assert.Equal(t, "greeting", mapping.Unescape("%67%72%65%65%74%69%6E%67"))
	assert.Equal(t, "grddting", mapping.Unescape("%67%72%64%64%74%69%6E%67"), "the seed's erratum spells another word")

	value := []byte("今日は") // U+4ECA U+65E5 U+306F
	assert.Equal(t, unhexOctets(t, "e4bb8ae697a5e381af"), value)
	got, err := EscapeCharset(value, "utf-8", DecodeFirst, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "%E4%BB%8A%E6%97%A5%E3%81%AF", got)

	// The same text held in Shift_JIS: decoded first it gives the same
	// component; opaque it keeps the Shift_JIS octets.
	sjis := unhexOctets(t, "8da193fa82cd")
	got, err = EscapeCharset(sjis, "shift_jis", DecodeFirst, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "%E4%BB%8A%E6%97%A5%E3%81%AF", got)
	got, err = EscapeCharset(sjis, "Shift_JIS", Opaque, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "%8D%A1%93%FA%82%CD", got)

	// As form data: '=' used for its reserved purpose, or not.
	d, err := Decode("greeting=%E4%BB%8A%E6%97%A5%E3%81%AF")
	require.NoError(t, err)
	assert.Equal(t, DataSet{def("greeting", "今日は")}, d)
	d, err = Decode("greeting%3D%E4%BB%8A%E6%97%A5%E3%81%AF")
	require.NoError(t, err)
	assert.Equal(t, DataSet{undef("greeting=今日は")}, d)
	assert.Equal(t, "greeting%3D今日は", must(t)(d.Encode()))
	assert.Equal(t, "greeting%3D%E4%BB%8A%E6%97%A5%E3%81%AF", must(t)(d.EncodeURI()))
}

// TestSeed001Division: case C, "4 ÷ 3" in a single-byte charset, with
// the seed's UTF-8 corrected (U+00F7 is C3 B7; C2 B7 is U+00B7).
func TestSeed001Division(t *testing.T) {
	text := unhexOctets(t, "3420f72033")
	for _, cs := range []string{"windows-1252", "iso-8859-1", "ISO_8859-1", "latin1", "cp1252"} {
		got, err := EscapeCharset(text, cs, Opaque, mapping.Unreserved)
		require.NoError(t, err, cs)
		assert.Equal(t, "4%20%F7%203", got, cs)

		got, err = EscapeCharset(text, cs, DecodeFirst, mapping.Unreserved)
		require.NoError(t, err, cs)
		assert.Equal(t, "4%20%C3%B7%203", got, cs)
		assert.NotEqual(t, "4%20%C2%B7%203", got, "the seed's erratum")
		assert.Equal(t, "4 ÷ 3", mapping.Unescape(got))
	}
	assert.Equal(t, "\u00B7", mapping.Unescape("%C2%B7"), "what the seed wrote is MIDDLE DOT")
}

// TestSeed001Octets: case A, the 16 GIF octets, opaque with nothing kept,
// and their base64 form (with the padding the seed dropped).
func TestSeed001Octets(t *testing.T) {
	gif := unhexOctets(t, "47494638396107000700a20000000000")
	got, err := EscapeCharset(gif, "", Opaque, mapping.ByteSet{})
	require.NoError(t, err)
	assert.Equal(t, "%47%49%46%38%39%61%07%00%07%00%A2%00%00%00%00%00", got)
	b64 := base64.StdEncoding.EncodeToString(gif)
	assert.Equal(t, "R0lGODlhBwAHAKIAAAAAAA==", b64)
	got, err = EscapeCharset([]byte(b64), "", DecodeFirst, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "R0lGODlhBwAHAKIAAAAAAA%3D%3D", got)
}

// TestEscapeCharsetAlwaysEncodesPercent: '%' is encoded whatever keep
// says, with either treatment, so that the result decodes to the octets
// (SPEC R0.7, R0.8).
func TestEscapeCharsetAlwaysEncodesPercent(t *testing.T) {
	keep := mapping.NewByteSet("%05")
	for _, how := range []Treatment{Opaque, DecodeFirst} {
		for _, charset := range []string{"", "windows-1252", "shift_jis"} {
			got, err := EscapeCharset([]byte("50%"), charset, how, keep)
			require.NoError(t, err, "%v %q", how, charset)
			assert.Equal(t, "50%25", got, "%v %q", how, charset)
		}
	}
}

func TestEscapeCharsetErrors(t *testing.T) {
	for _, tt := range []struct {
		text    string
		charset string
		how     Treatment
		kind    Kind
		offset  int
	}{
		{"abc", "klingon", Opaque, KindUnknownCharset, 0},
		{"abc", "klingon", DecodeFirst, KindUnknownCharset, 0},
		{"abc", "replacement", DecodeFirst, KindUnknownCharset, 0},
		{"ab\xC3", "", DecodeFirst, KindUndecodable, 2},
		{"ab\xC3(", "utf-8", DecodeFirst, KindUndecodable, 2},
		{"ok\x82", "shift_jis", DecodeFirst, KindUndecodable, 2},
		{"a\x81b", "windows-1252", DecodeFirst, KindUndecodable, 1},
		{"\xd8", "utf-16be", DecodeFirst, KindUndecodable, 0},
	} {
		got, err := EscapeCharset([]byte(tt.text), tt.charset, tt.how, mapping.Unreserved)
		assert.Empty(t, got)
		var e *Error
		require.ErrorAs(t, err, &e, "%q %s", tt.text, tt.charset)
		assert.Equal(t, tt.kind, e.Kind, "%q %s: %v", tt.text, tt.charset, err)
		assert.Equal(t, tt.offset, e.Offset, "%q %s: %v", tt.text, tt.charset, err)
	}
	// Opaque never looks at the octets.
	got, err := EscapeCharset([]byte("a\x81b"), "windows-1252", Opaque, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "a%81b", got)

	_, err = EscapeCharset([]byte("a"), "", Treatment(0), mapping.Unreserved)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindBadArgument, e.Kind)
	assert.ErrorIs(t, err, ErrBadArgument)
	assert.Equal(t, "Treatment(0)", e.Input)
	assert.Equal(t, "urlencoded: EscapeCharset: Treatment(0) is not a Treatment (Opaque or DecodeFirst)", err.Error())
	assert.Equal(t, "Treatment(7)", Treatment(7).String())
	assert.Equal(t, "decode-first", DecodeFirst.String())
	assert.Equal(t, "opaque", Opaque.String())
}

// TestEscapeCharsetGenuineReplacement: a U+FFFD the data really holds is
// not an error.
func TestEscapeCharsetGenuineReplacement(t *testing.T) {
	for cs, text := range map[string]string{
		"utf-8":    "a\uFFFDb",
		"gb18030":  "a\x84\x31\xA4\x37b",
		"utf-16le": "a\x00\xFD\xFFb\x00",
	} {
		got, err := EscapeCharset([]byte(text), cs, DecodeFirst, mapping.Unreserved)
		require.NoError(t, err, cs)
		assert.Equal(t, "a%EF%BF%BDb", got, cs)
	}
}

// TestSingleByteC1Octets: x/text's single-byte charsets leave undefined
// the octets 0x80-0x9F their code page assigns no character to (every one
// of them in ISO-8859-2 to -16), where WHATWG gives the C1 control of the
// same number. The package documents this; these octets are undecodable,
// in form data and in EscapeCharset alike, while the charsets' own
// characters decode.
func TestSingleByteC1Octets(t *testing.T) {
	for _, tt := range []struct {
		charset string
		octet   byte
	}{
		{"iso-8859-2", 0x80},
		{"iso-8859-5", 0x85},
		{"iso-8859-15", 0x9F},
		{"windows-1250", 0x81},
		{"windows-1252", 0x9D},
		{"windows-1253", 0x8C},
	} {
		_, err := EscapeCharset([]byte{'a', tt.octet}, tt.charset, DecodeFirst, mapping.Unreserved)
		assert.ErrorIs(t, err, ErrUndecodable, "%s %#x", tt.charset, tt.octet)
		_, err = Decoder{LegacyCharset: tt.charset}.DecodeLegacy("k=a" + mapping.Escape(string([]byte{tt.octet}), mapping.Unreserved))
		assert.ErrorIs(t, err, ErrUndecodable, "%s %#x", tt.charset, tt.octet)
	}
	d, err := Decoder{LegacyCharset: "iso-8859-2"}.DecodeLegacy("k=%A1%B1")
	require.NoError(t, err)
	assert.Equal(t, DataSet{def("k", "Ąą")}, d)

	// For UTF-8, named or not, invalid octets are bad-utf8, as with Decode.
	for _, cs := range []string{"", "utf-8"} {
		_, err = Decoder{LegacyCharset: cs}.DecodeLegacy("k=%C3")
		assert.ErrorIs(t, err, ErrBadUTF8, cs)
	}
}

// TestGBKDecodesAsGB18030: in the WHATWG Encoding Standard "the gbk
// decoder is the gb18030 decoder", so data labelled gbk or gb2312 may hold
// GB18030's four-byte sequences (x/text's GBK decoder refuses them).
func TestGBKDecodesAsGB18030(t *testing.T) {
	for _, cs := range []string{"gbk", "GB2312", "x-gbk", "gb18030"} {
		got, err := EscapeCharset([]byte("a\x81\x30\x81\x30\x94\x39\xFC\x36\xA1\xA1"), cs, DecodeFirst, mapping.Unreserved)
		require.NoError(t, err, cs)
		assert.Equal(t, "a%C2%80%F0%9F%98%80%E3%80%80", got, cs) // U+0080, U+1F600, U+3000

		d, err := Decoder{LegacyCharset: cs}.DecodeLegacy("q=%94%39%FC%36&r=%84%31%A4%37")
		require.NoError(t, err, cs)
		assert.Equal(t, DataSet{def("q", "😀"), def("r", "\uFFFD")}, d, cs)

		_, err = EscapeCharset([]byte("ok\x81\x30\x81"), cs, DecodeFirst, mapping.Unreserved)
		var e *Error
		require.ErrorAs(t, err, &e, cs)
		assert.Equal(t, KindUndecodable, e.Kind, cs)
		assert.Equal(t, 2, e.Offset, cs)

		// x/text leaves the user-defined areas undefined (documented).
		_, err = EscapeCharset([]byte("\xAA\xA1"), cs, DecodeFirst, mapping.Unreserved)
		assert.ErrorIs(t, err, ErrUndecodable, cs)
	}
}

// TestBOMIsACharacter: a leading byte order mark is neither interpreted
// nor dropped: DecodeFirst writes it as U+FEFF (%EF%BB%BF), as Decode and
// DecodeLegacy keep it in the first name (seed 002 §11).
func TestBOMIsACharacter(t *testing.T) {
	for _, tt := range []struct {
		charset, text, want string
	}{
		{"", "\xEF\xBB\xBFa", "%EF%BB%BFa"},
		{"utf-8", "\xEF\xBB\xBFa", "%EF%BB%BFa"},
		{"UTF8", "a\xEF\xBB\xBF", "a%EF%BB%BF"},
		{"utf-16le", "\xFF\xFEa\x00", "%EF%BB%BFa"},
		{"utf-16be", "\xFE\xFF\x00a", "%EF%BB%BFa"},
		{"utf-16be", "\xFF\xFE\x00a", "%EF%BF%BEa"}, // the other order is U+FFFE, not a BOM
	} {
		got, err := EscapeCharset([]byte(tt.text), tt.charset, DecodeFirst, mapping.Unreserved)
		require.NoError(t, err, "%s %q", tt.charset, tt.text)
		assert.Equal(t, tt.want, got, "%s %q", tt.charset, tt.text)
		got, err = EscapeCharset([]byte(tt.text), tt.charset, Opaque, mapping.Unreserved)
		require.NoError(t, err)
		assert.Equal(t, mapping.Escape(tt.text, mapping.Unreserved), got, "Opaque: %s %q", tt.charset, tt.text)
	}
	for _, cs := range []string{"", "utf-8"} {
		d, err := Decoder{LegacyCharset: cs}.DecodeLegacy("%EF%BB%BFa=1&\uFEFFb=2")
		require.NoError(t, err, cs)
		assert.Equal(t, DataSet{def("\uFEFFa", "1"), def("\uFEFFb", "2")}, d, cs)
	}
}

// TestMultiByteUndefinedCodes: besides the GB18030 user-defined areas,
// x/text leaves undefined the Shift_JIS user-defined area F0 40-F9 FC
// (WHATWG: U+E000-E757) and two-byte GB18030 codes outside the
// user-defined areas that WHATWG's index maps to characters. The package
// documentation names them; they are undecodable in form data and in
// EscapeCharset alike.
func TestMultiByteUndefinedCodes(t *testing.T) {
	for _, tt := range []struct {
		charset string
		octets  string
	}{
		{"shift_jis", "\xF0\x40"}, // WHATWG: U+E000
		{"shift_jis", "\xF9\xFC"}, // WHATWG: U+E757
		{"gb18030", "\xA2\xAB"},
		{"gb18030", "\xA6\xD9"},
		{"gb18030", "\xD7\xFA"},
		{"gb18030", "\xFE\x51"},
	} {
		_, err := EscapeCharset([]byte("a"+tt.octets), tt.charset, DecodeFirst, mapping.Unreserved)
		var e *Error
		require.ErrorAs(t, err, &e, "%s %q", tt.charset, tt.octets)
		assert.Equal(t, KindUndecodable, e.Kind)
		assert.Equal(t, 1, e.Offset)
		_, err = Decoder{LegacyCharset: tt.charset}.DecodeLegacy("k=a" + mapping.Escape(tt.octets, mapping.Unreserved))
		assert.ErrorIs(t, err, ErrUndecodable, "%s %q", tt.charset, tt.octets)
	}
}

// TestGB18030Pointer7457: the four-byte GB18030 sequence 81 35 F4 37 is
// U+E7C7, as WHATWG's "index gb18030 ranges code point" says (pointer
// 7457) and browsers encode that character, not the U+1E3F x/text's
// ranges give, whether the text is escaped (DecodeFirst) or form data
// (DecodeLegacy, under each label decoded as gb18030). The correction
// replaces every U+1E3F x/text writes, which is right only while nothing
// else decodes to U+1E3F: no two-byte code does (WHATWG's A8 BC, which
// is U+1E3F, x/text cannot decode), and one four-byte sequence stands for
// one code point.
func TestGB18030Pointer7457(t *testing.T) {
	for _, cs := range []string{"gb18030", "gbk", "gb2312"} {
		got, err := EscapeCharset([]byte("a\x81\x35\xF4\x37b"), cs, DecodeFirst, mapping.Unreserved)
		require.NoError(t, err, cs)
		assert.Equal(t, "a%EE%9F%87b", got, cs)
		d, err := Decoder{LegacyCharset: cs}.DecodeLegacy("k=%81%35%F4%37")
		require.NoError(t, err, cs)
		assert.Equal(t, DataSet{def("k", "\uE7C7")}, d, cs)
	}
	// Any other character is left alone, U+1E3E before it included.
	got, err := EscapeCharset([]byte("\x81\x35\xF4\x36"), "gb18030", DecodeFirst, mapping.Unreserved)
	require.NoError(t, err)
	assert.Equal(t, "%E1%B8%BE", got)

	enc, err := lookupCharset("gb18030")
	require.NoError(t, err)
	dec := enc.NewDecoder()
	for lead := 0x81; lead <= 0xFE; lead++ {
		for trail := 0x40; trail <= 0xFE; trail++ {
			if trail == 0x7F {
				continue
			}
			out, _ := dec.String(string([]byte{byte(lead), byte(trail)}))
			require.NotContains(t, out, "\u1E3F", "x/text decodes %02X %02X to U+1E3F", lead, trail)
		}
	}
}

// TestEscapeCharsetAfterFourOctetCharacters: a character of four UTF-8
// octets (GB18030's four-byte codes, UTF-16's surrogate pairs) does not
// fit the room firstUndecodable first gives the decoder, which then
// gives it more: a genuine U+FFFD after one is no error, and an invalid
// octet after one is found at its own offset.
func TestEscapeCharsetAfterFourOctetCharacters(t *testing.T) {
	for _, tt := range []struct {
		charset, char, fffd, bad string
		r                        rune
	}{
		{"gb18030", "\x95\x32\x82\x36", "\x84\x31\xA4\x37", "\xFF", 0x20000},
		{"utf-16le", "\x3D\xD8\x00\xDE", "\xFD\xFF", "\x00", 0x1F600}, // bad: a lone octet
	} {
		got, err := EscapeCharset([]byte(tt.char+tt.fffd), tt.charset, DecodeFirst, mapping.Unreserved)
		require.NoError(t, err, tt.charset)
		assert.Equal(t, mapping.Escape(string(tt.r)+"\uFFFD", mapping.Unreserved), got, tt.charset)

		_, err = EscapeCharset([]byte(tt.char+tt.char+tt.bad), tt.charset, DecodeFirst, mapping.Unreserved)
		var e *Error
		require.ErrorAs(t, err, &e, tt.charset)
		assert.Equal(t, KindUndecodable, e.Kind, tt.charset)
		assert.Equal(t, 2*len(tt.char), e.Offset, tt.charset)
	}
}

// fakeCharset stands in for a decoder x/text does not have: decode maps
// each octet to its UTF-8, or fails. U+FFFD encodes as EF BF BD.
type fakeCharset struct{ decode func(c byte) (string, error) }

func (f fakeCharset) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: octetMapper(f.decode)}
}

func (fakeCharset) NewEncoder() *encoding.Encoder { return encoding.Nop.NewEncoder() }

type octetMapper func(c byte) (string, error)

func (octetMapper) Reset() {}

func (m octetMapper) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for ; nSrc < len(src); nSrc++ {
		out, err := m(src[nSrc])
		if err != nil {
			return nDst, nSrc, err
		}
		if len(out) > len(dst)-nDst {
			return nDst, nSrc, transform.ErrShortDst
		}
		nDst += copy(dst[nDst:], out)
	}
	return nDst, nSrc, nil
}

// TestMisbehavingDecoders: what toUTF8 and firstUndecodable make of a
// decoder unlike x/text's: one that fails rather than writing U+FFFD is
// refused at the octet it fails on, and one that needs room for more than
// two characters at once at that octet, instead of looping or indexing
// past its rooms; and a charset htmlindex cannot name is "unknown" in
// messages.
func TestMisbehavingDecoders(t *testing.T) {
	errFake := errors.New("fake decoder: refused")
	cs := fakeCharset{func(c byte) (string, error) {
		switch c {
		case '!':
			return "", errFake
		case 'w':
			return strings.Repeat("\u00E9", 5), nil // 10 octets
		}
		return string(rune(c)), nil
	}}
	out, bad := toUTF8(cs, "ab!c")
	assert.Empty(t, out)
	assert.Equal(t, 2, bad, "the failing octet")
	assert.Equal(t, 2, firstUndecodable(cs, "ab!c"))

	assert.Equal(t, 1, firstUndecodable(cs, "aw"), "more room than two characters")
	assert.Equal(t, -1, firstUndecodable(cs, "ab"))
	out, bad = toUTF8(cs, "aw")
	assert.Equal(t, -1, bad, "read whole, without U+FFFD: nothing to look for")
	assert.Equal(t, "a"+strings.Repeat("\u00E9", 5), out)

	assert.Equal(t, "unknown", charsetName(cs))
	_, err := transcodeText(cs, "!")
	assert.EqualError(t, err, "urlencoded: octets not valid in charset unknown at offset 0")
}
