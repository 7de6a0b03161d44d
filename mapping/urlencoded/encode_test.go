package urlencoded

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func def(name, value string) Pair { return Pair{Name: name, Value: value, Defined: true} }
func undef(name string) Pair      { return Pair{Name: name} }

func TestEncode(t *testing.T) {
	tests := []struct {
		name                string
		in                  DataSet
		canonical, uri, old string
	}{
		{"empty", nil, "", "", ""},
		{"plus is escaped (§3 defect)", DataSet{def("a+b", "1")}, "a%2Bb=1", "a%2Bb=1", "a%2Bb=1"},
		{"spaces", DataSet{def(" a b ", "x  y")}, "+a+b+=x++y", "+a+b+=x++y", "+a+b+=x++y"},
		// ("", undefined) has no legacy encoding (an empty sequence is
		// skipped), so EncodeLegacy refuses it.
		{"undefined and empty", DataSet{undef("img"), def("e", ""), undef("")},
			"img;e=;", "img;e=;", refused},
		{"delimiters", DataSet{def("k", `%;&=#"<>[\]^`+"`{|}")},
			"k=%25%3B%26%3D%23%22%3C%3E%5B%5C%5D%5E%60%7B%7C%7D",
			"k=%25%3B%26%3D%23%22%3C%3E%5B%5C%5D%5E%60%7B%7C%7D",
			"k=%25%3B%26%3D%23%22%3C%3E%5B%5C%5D%5E%60%7B%7C%7D"},
		{"iquery characters stay", DataSet{def("u", "http://x.test/a-b._~!$'()*,:@/?")},
			"u=http://x.test/a-b._~!$'()*,:@/?",
			"u=http://x.test/a-b._~!$'()*,:@/?",
			"u=http%3A%2F%2Fx.test%2Fa-b._%7E%21%24%27%28%29*%2C%3A%40%2F%3F"},
		{"controls", DataSet{def("c", "\x00\t\n\r\x7F")}, "c=%00%09%0A%0D%7F", "c=%00%09%0A%0D%7F", "c=%00%09%0A%0D%7F"},
		{"non-ASCII", DataSet{def("Chevron3", "Boötes"), def("€", "今日は😀")},
			"Chevron3=Boötes;€=今日は😀",
			"Chevron3=Bo%C3%B6tes;%E2%82%AC=%E4%BB%8A%E6%97%A5%E3%81%AF%F0%9F%98%80",
			"Chevron3=Bo%C3%B6tes&%E2%82%AC=%E4%BB%8A%E6%97%A5%E3%81%AF%F0%9F%98%80"},
		{"not in iquery", DataSet{def("x", "\u0085\u00A0\uFDD0\uFFFE\uE000\U000E0001\U0001FFFE\U00100000")},
			"x=%C2%85\u00A0%EF%B7%90%EF%BF%BE\uE000%F3%A0%80%81%F0%9F%BF%BE\U00100000",
			"x=%C2%85%C2%A0%EF%B7%90%EF%BF%BE%EE%80%80%F3%A0%80%81%F0%9F%BF%BE%F4%80%80%80",
			"x=%C2%85%C2%A0%EF%B7%90%EF%BF%BE%EE%80%80%F3%A0%80%81%F0%9F%BF%BE%F4%80%80%80"},
		{"invalid UTF-8 octets are refused", DataSet{def("b\xff", "\xC3(")}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.Validate() != nil {
				// Octets that are not UTF-8 are refused, not written in a
				// form the decoder would then reject.
				for _, enc := range []func() (string, error){tt.in.Encode, tt.in.EncodeURI, tt.in.EncodeLegacy} {
					s, err := enc()
					assert.ErrorIs(t, err, ErrBadUTF8)
					assert.Empty(t, s)
				}
				return
			}
			assert.Equal(t, tt.canonical, must(t)(tt.in.Encode()), "Encode")
			assert.Equal(t, tt.uri, must(t)(tt.in.EncodeURI()), "EncodeURI")
			if tt.old == refused {
				_, err := tt.in.EncodeLegacy()
				assert.ErrorIs(t, err, ErrUnencodable)
			} else {
				assert.Equal(t, tt.old, must(t)(tt.in.EncodeLegacy()), "EncodeLegacy")
			}
			for _, s := range []string{tt.canonical, tt.uri} {
				got, err := Decode(s)
				require.NoError(t, err)
				assert.Equal(t, tt.in, got, "Decode(%q)", s)
			}
		})
	}
}

// draftEscapeSet is seed 002 §3's table of the characters step 2 escapes,
// copied as the draft prints it.
const draftEscapeSet = `
      %x00000-00020 / %x00022-00023 / %x00026-000026 / %x00003B-00003D /
      %x0003E-0003E / %x0005B-0005E / %x00060-000060 / %x00007B-00007D /
      %x0007F-0009F / %x0D800-0DFFF / %x0FDD0-00FDEF / %x00FFF0-00FFFF /
      %x1FFFE-1FFFF / %x2FFFE-2FFFF / %x3FFFE-03FFFF / %x04FFFE-04FFFF /
      %x5FFFE-5FFFF / %x6FFFE-6FFFF / %x7FFFE-07FFFF / %x08FFFE-08FFFF /
      %x9FFFE-9FFFF / %xAFFFE-AFFFF / %xBFFFE-0BFFFF / %x0CFFFE-0CFFFF /
      %xDFFFE-E0FFF / %xEFFFE-EFFFF / %xFFFFE-0FFFFF / %x10FFFE-10FFFF ;`

func parseRanges(t *testing.T, table string) func(rune) bool {
	m := regexp.MustCompile(`%x([0-9A-F]+)-([0-9A-F]+)`).FindAllStringSubmatch(table, -1)
	require.Len(t, m, 28)
	type span struct{ lo, hi rune }
	var spans []span
	for _, g := range m {
		lo, err := strconv.ParseUint(g[1], 16, 32)
		require.NoError(t, err)
		hi, err := strconv.ParseUint(g[2], 16, 32)
		require.NoError(t, err)
		spans = append(spans, span{rune(lo), rune(hi)})
	}
	return func(r rune) bool {
		for _, s := range spans {
			if s.lo <= r && r <= s.hi {
				return true
			}
		}
		return false
	}
}

// TestEncodeEscapeSet checks every code point against the draft's table:
// Encode writes a character literally exactly when the table does not
// list it and §3 step 1 (space, '%') and the '+' fix leave it alone.
func TestEncodeEscapeSet(t *testing.T) {
	inTable := parseRanges(t, draftEscapeSet)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue // not characters; no string holds them
		}
		s := string(r)
		literal := escCanonical.len(s) == len(s)
		want := !inTable(r) && r != '%' && r != '+'
		if r == ' ' {
			want = true // written as '+', one octet for one
		}
		if literal != want {
			t.Fatalf("U+%04X: literal %v, want %v", r, literal, want)
		}
	}
}

// TestEncodeFragmentEscapeSet: a fragment name keeps exactly the ifragment
// characters of RFC 3987 (the draft's iquery table plus private use, which
// ifragment lacks) except '%', ',', '(' and ')'.
func TestEncodeFragmentEscapeSet(t *testing.T) {
	inTable := parseRanges(t, draftEscapeSet)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		private := 0xE000 <= r && r <= 0xF8FF || r >= 0xF0000
		want := !inTable(r) && !private && !strings.ContainsRune("%,()", r) || strings.ContainsRune(";&=", r)
		s, err := EncodeFragment(string(r))
		if err != nil {
			t.Fatalf("U+%04X: %v", r, err)
		}
		if literal := s == string(r); literal != want {
			t.Fatalf("U+%04X: EncodeFragment gives %q, want literal %v", r, s, want)
		}
	}
}

func TestEncodeURIIsASCIIAndParses(t *testing.T) {
	d := DataSet{def("url", "http://example.org/Ragnarök/"), undef("ä ö"), def("x", "\u0085#\uE000")}
	s := must(t)(d.EncodeURI())
	for i := 0; i < len(s); i++ {
		require.True(t, s[i] > 0x20 && s[i] < 0x7F, "octet %#x at %d of %q", s[i], i, s)
	}
	u, err := url.Parse("http://h.test/t?" + s)
	require.NoError(t, err)
	assert.Equal(t, s, u.RawQuery)
	got, err := Decode(u.RawQuery)
	require.NoError(t, err)
	assert.Equal(t, d, got)
}

// refused marks an encoding the encoder must refuse with ErrUnencodable.
const refused = "(refused)"

func TestEncodeAllocatesOnce(t *testing.T) {
	d := DataSet{def("q", "a b+c"), def("url", "http://example.org/Ragnarök/"), undef("flag"), def("€", "\x00;&=")}
	for name, enc := range map[string]func() (string, error){"Encode": d.Encode, "EncodeURI": d.EncodeURI, "EncodeLegacy": d.EncodeLegacy} {
		allocs := testing.AllocsPerRun(100, func() { _, _ = enc() })
		assert.Equal(t, 1.0, allocs, name) // sized exactly: no regrowth
	}
}

// TestEncodeRoundTripPairLimit: the encoders have no pair limit and the
// default decoder has one, so the round trip Encode promises holds with a
// Decoder whose MaxPairs admits the data set, and Decode refuses a data set
// past DefaultMaxPairs instead of truncating it.
func TestEncodeRoundTripPairLimit(t *testing.T) {
	for _, tt := range []struct {
		name       string
		pairs      int
		defaultErr error
	}{
		{"at the default limit", DefaultMaxPairs, nil},
		{"one past the default limit", DefaultMaxPairs + 1, ErrTooManyPairs},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := make(DataSet, tt.pairs)
			for i := range d {
				d[i] = def("a", "1")
			}
			require.NoError(t, d.Validate())
			for name, enc := range map[string]func() (string, error){"Encode": d.Encode, "EncodeURI": d.EncodeURI} {
				s, err := enc()
				require.NoError(t, err, name)
				got, err := Decode(s)
				if tt.defaultErr != nil {
					require.ErrorIs(t, err, tt.defaultErr, name)
					assert.Nil(t, got, name)
				} else {
					require.NoError(t, err, name)
					assert.Equal(t, d, got, name)
				}
				got, err = Decoder{MaxPairs: tt.pairs}.Decode(s)
				require.NoError(t, err, name)
				assert.Equal(t, d, got, name)
			}
		})
	}
}
