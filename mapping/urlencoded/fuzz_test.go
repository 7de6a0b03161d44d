package urlencoded

import (
	"bytes"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/htmlindex"
)

// Fuzz targets. Their properties come from seed 002: Decode(Encode(x))
// == x for every data set the format can represent (§3, §4), and a
// string either decodes to a data set whose canonical encoding decodes to
// it again, or fails with a typed error (§4, §5). The rows of form.tsv are
// the seed corpus.

// dataSetFrom builds a data set from fuzz bytes: for each pair, a control
// octet (bits 0-5 the name's length, bit 7 set when the value is
// defined), the name, and for a defined value an octet with its length
// (bits 0-5) and the value. Lengths are cut at the end of the input.
func dataSetFrom(b []byte) DataSet {
	take := func(n int) string {
		n = min(n, len(b))
		s := string(b[:n])
		b = b[n:]
		return s
	}
	var d DataSet
	for len(b) > 0 {
		c := b[0]
		b = b[1:]
		p := Pair{Name: take(int(c & 0x3F))}
		if c&0x80 != 0 && len(b) > 0 {
			n := int(b[0] & 0x3F)
			b = b[1:]
			p.Value, p.Defined = take(n), true
		}
		d = append(d, p)
	}
	return d
}

// bytesOf is the inverse of dataSetFrom for names and values of at most
// 63 octets, for the seed corpus.
func bytesOf(d DataSet) []byte {
	var b []byte
	for _, p := range d {
		c := byte(len(p.Name))
		if p.Defined {
			c |= 0x80
		}
		b = append(append(b, c), p.Name...)
		if p.Defined {
			b = append(append(b, byte(len(p.Value))), p.Value...)
		}
	}
	return b
}

func withoutEmptyUndefined(d DataSet) DataSet {
	var out DataSet
	for _, p := range d {
		if p.Name != "" || p.Defined {
			out = append(out, p)
		}
	}
	return out
}

func requireASCIIURIText(t *testing.T, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		require.True(t, s[i] > 0x20 && s[i] < 0x7F, "octet %#x at %d of %q", s[i], i, s)
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, r := range loadFormRows(f) {
		f.Add(bytesOf(r.dataSet))
		f.Add(bytesOf(r.decoded))
	}
	f.Add(bytesOf(DataSet{def("a+b", "1"), undef(""), def("\xff", "\xC3(")}))
	// Past the default decoders' pair limit: empty pairs and pairs named a.
	f.Add(bytes.Repeat([]byte{0}, DefaultMaxPairs+1))
	f.Add(bytes.Repeat([]byte("\x01a"), DefaultMaxPairs+1))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := dataSetFrom(data)
		enc, err := x.Encode()
		if verr := x.Validate(); verr != nil {
			// What the format cannot carry is refused by every encoder,
			// with the error Validate gives.
			require.True(t, errors.Is(verr, ErrUnencodable) || errors.Is(verr, ErrBadUTF8))
			for _, e := range []func() (string, error){x.Encode, x.EncodeURI, x.EncodeLegacy} {
				s, err := e()
				require.Equal(t, verr.Error(), err.Error())
				require.Empty(t, s)
			}
			return
		}
		require.NoError(t, err)
		// The encoders have no limit; the default decoders refuse more
		// than DefaultMaxPairs pairs (one control octet a pair is
		// enough), so the round trip is checked without a limit.
		if len(x) > DefaultMaxPairs {
			_, err := Decode(enc)
			require.ErrorIs(t, err, ErrTooManyPairs)
		}
		unlimited := Decoder{MaxPairs: -1}
		got, err := unlimited.Decode(enc)
		require.NoError(t, err, "Decode(%q)", enc)
		require.Equal(t, x, got, "Decode(Encode(x)) for %q", enc)
		require.Equal(t, enc, must(t)(got.Encode()))

		uri := must(t)(x.EncodeURI())
		requireASCIIURIText(t, uri)
		got, err = unlimited.Decode(uri)
		require.NoError(t, err)
		require.Equal(t, x, got, "Decode(EncodeURI(x)) for %q", uri)

		legacy, err := x.EncodeLegacy()
		if !equalDataSets(x, withoutEmptyUndefined(x)) {
			// ("", undefined) would be an empty sequence legacy parsers skip.
			require.ErrorIs(t, err, ErrUnencodable)
		} else {
			require.NoError(t, err)
			requireASCIIURIText(t, legacy)
			got, err = unlimited.Decode(legacy)
			require.NoError(t, err)
			require.Equal(t, x, got, "Decode(EncodeLegacy(x)) for %q", legacy)
			got, err = unlimited.DecodeLegacy(legacy)
			require.NoError(t, err)
			require.Equal(t, x, got, "DecodeLegacy(EncodeLegacy(x)) for %q", legacy)
		}

		// The fragment naming every other pair's name selects those pairs.
		var names []string
		for i := 0; i < len(x); i += 2 {
			names = append(names, x[i].Name)
		}
		if len(names) > 0 {
			frag, err := EncodeFragment(names...)
			require.NoError(t, err)
			sel, err := x.Filter(frag)
			require.NoError(t, err, "Filter(%q)", frag)
			require.Equal(t, x.Select(names...), sel)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, r := range loadFormRows(f) {
		f.Add(r.input)
	}
	f.Add("a=1&&b=%zz+%2B&c")
	f.Fuzz(func(t *testing.T, s string) {
		for legacy, decode := range []func(string) (DataSet, error){Decode, DecodeLegacy} {
			d, err := decode(s)
			// The decoders agree with a direct transcription of §4 (and of
			// the WHATWG parser for the legacy format), so that a pair or
			// octet lost or altered in decoding is found, not only one
			// that the canonical form would not reproduce.
			want, wantOK := sec4Decode(s, legacy == 1)
			if len(want) > DefaultMaxPairs {
				require.ErrorIs(t, err, ErrTooManyPairs)
				continue
			}
			require.Equal(t, wantOK, err == nil, "%q: %v", s, err)
			if wantOK {
				require.Equal(t, want, d, "%q", s)
			}
			if err != nil {
				var e *Error
				require.ErrorAs(t, err, &e)
				require.Nil(t, d)
				require.Contains(t, []Kind{KindBadUTF8, KindTooManyPairs}, e.Kind)
				if legacy == 1 {
					checkError(t, s, err, "&", true)
				} else {
					checkError(t, s, err, "&;", false)
				}
				continue
			}
			require.NoError(t, d.Validate(), "a decoded data set is encodable")
			enc := must(t)(d.Encode())
			again, err := Decode(enc)
			require.NoError(t, err, "Decode(%q)", enc)
			require.Equal(t, d, again, "re-encoded as %q", enc)
			require.Equal(t, enc, must(t)(again.Encode()), "canonical form is a fixed point")
			if legacy == 1 {
				again, err = DecodeLegacy(must(t)(d.EncodeLegacy()))
				require.NoError(t, err)
				require.Equal(t, d, again)
				// Where net/url accepts the input, it agrees.
				if v, err := url.ParseQuery(s); err == nil {
					require.Equal(t, len(v), len(d.Values()))
					if len(v) > 0 {
						require.Equal(t, v, d.Values())
					}
				}
			}
		}
	})
}

func FuzzFilter(f *testing.F) {
	f.Add("a=1;b;a=2;=3;d,;f", "e,,a,%64%2C")
	f.Add("a=1", "value-of(a)")
	f.Add("%FF", "%FF")
	f.Add("a;b;c;d;e;f;g;h;a=2;b=3", "a,h,zz,a,%61,x,y,z,w,b,,c") // a map finds the later names
	f.Fuzz(func(t *testing.T, query, fragment string) {
		d, err := Decode(query)
		if err != nil {
			return
		}
		sel, err := d.Filter(fragment)
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Contains(t, []Kind{KindBadUTF8, KindReservedFragment}, e.Kind)
			if e.Kind == KindBadUTF8 {
				checkError(t, fragment, err, ",", false)
			} else {
				require.Contains(t, "()", string(fragment[e.Offset]), "%q: %v", fragment, err)
			}
			return
		}
		// The selection is a subsequence of d, and filtering is idempotent.
		j := 0
		for _, p := range sel {
			for j < len(d) && d[j] != p {
				j++
			}
			require.Less(t, j, len(d), "pair %v not in order in %v", p, d)
			j++
		}
		again, err := sel.Filter(fragment)
		require.NoError(t, err)
		require.Equal(t, sel, again)
		// It selects what Select does with the names decoded on their own.
		var names []string
		for raw := range strings.SplitSeq(fragment, ",") {
			names = append(names, mapping.Unescape(raw))
		}
		require.Equal(t, d.Select(names...), sel, "Filter(%q)", fragment)
	})
}

var fuzzCharsets = []string{"", "windows-1252", "shift_jis", "euc-jp", "iso-2022-jp", "gb18030", "big5", "euc-kr", "koi8-r", "x-user-defined", "utf-16le"}

func FuzzEscapeCharset(f *testing.F) {
	f.Add([]byte("4 \xF7 3"), uint8(1))
	f.Add([]byte("\x81\x35\xF4\x37"), uint8(5)) // gb18030's pointer 7457
	f.Add([]byte("\x8D\xA1\x93\xFA\x82\xCD"), uint8(2))
	f.Add([]byte("\x1B$B:#\x1B(B"), uint8(4))
	f.Add([]byte("a\x84\x31\xA4\x37"), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		cs := fuzzCharsets[int(which)%len(fuzzCharsets)]
		opaque, err := EscapeCharset(data, cs, Opaque, mapping.Unreserved)
		require.NoError(t, err)
		require.Equal(t, string(data), mapping.Unescape(opaque))
		if len(opaque) > 0 {
			requireASCIIURIText(t, opaque)
		}

		text, err := EscapeCharset(data, cs, DecodeFirst, mapping.Unreserved)
		// x/text's own decoder is the reference: it replaces what it
		// cannot decode with U+FFFD, so where its output has none the
		// octets are valid and EscapeCharset must give that text, and
		// where EscapeCharset succeeds it must give that text too.
		ref, refOK := string(data), utf8.Valid(data)
		if cs != "" {
			enc, lerr := htmlindex.Get(cs)
			require.NoError(t, lerr)
			out, derr := enc.NewDecoder().Bytes(data)
			ref, refOK = whatwgGB18030(cs, string(out)), derr == nil && !bytes.ContainsRune(out, utf8.RuneError)
		}
		if refOK {
			require.NoError(t, err, "%s %q decodes to %q", cs, data, ref)
		}
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, KindUndecodable, e.Kind)
			require.True(t, e.Offset >= 0 && e.Offset < len(data), "offset %d of %d", e.Offset, len(data))
		} else {
			require.Equal(t, ref, mapping.Unescape(text), "%s %q", cs, data)
			require.True(t, utf8.ValidString(mapping.Unescape(text)))
		}
		if strings.HasPrefix(cs, "utf-16") {
			return
		}
		// The legacy form decoder converts the same octets the same way.
		d, derr := Decoder{LegacyCharset: cs}.DecodeLegacy("k=" + opaque)
		require.Equal(t, err == nil, derr == nil, "EscapeCharset: %v; DecodeLegacy: %v", err, derr)
		if err == nil {
			require.Equal(t, DataSet{def("k", mapping.Unescape(text))}, d)
		}
	})
}

// FuzzDecodeLegacyCharset: DecodeLegacy with a LegacyCharset, on any
// input, agrees with the WHATWG steps (sec4Octets) followed by x/text's
// decoder for the charset, the reference of FuzzEscapeCharset: where that
// decoder converts every name and value without a U+FFFD, DecodeLegacy
// gives the same data set, and whatever DecodeLegacy gives is that. A
// charset that is not ASCII-compatible is refused whatever the input.
func FuzzDecodeLegacyCharset(f *testing.F) {
	f.Add("a=%82%A0&b+c=%F0%40", uint8(2))
	f.Add("k=\x8D\xA1&%1B$B:#%1B(B=x&&=", uint8(4))
	f.Add("a=%84%31%A4%37&%FE%51", uint8(5))
	f.Add("x=%C3%A9;y", uint8(0))
	f.Add("a=%81%35%F4%37", uint8(5)) // gb18030's pointer 7457
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		cs := fuzzCharsets[int(which)%len(fuzzCharsets)]
		d, err := Decoder{LegacyCharset: cs, MaxPairs: -1}.DecodeLegacy(s)
		if strings.HasPrefix(cs, "utf-16") {
			require.ErrorIs(t, err, ErrUnknownCharset)
			return
		}
		convert := func(b string) (string, bool) {
			if cs == "" {
				return b, utf8.ValidString(b)
			}
			enc, lerr := htmlindex.Get(cs)
			require.NoError(t, lerr)
			out, derr := enc.NewDecoder().String(b)
			return whatwgGB18030(cs, out), derr == nil && !strings.ContainsRune(out, utf8.RuneError)
		}
		var want DataSet
		wantOK := true
		for _, p := range sec4Octets(s, true) {
			name, nameOK := convert(p.Name)
			value, valueOK := convert(p.Value)
			wantOK = wantOK && nameOK && valueOK
			want = append(want, Pair{Name: name, Value: value, Defined: p.Defined})
		}
		if wantOK {
			require.NoError(t, err, "%s %q", cs, s)
		}
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Nil(t, d)
			wantKind := KindUndecodable
			if cs == "" {
				wantKind = KindBadUTF8
			}
			require.Equal(t, wantKind, e.Kind, "%s %q: %v", cs, s, err)
			checkError(t, s, err, "&", true)
			return
		}
		require.Equal(t, want, d, "%s %q", cs, s)
		for _, p := range d {
			require.True(t, utf8.ValidString(p.Name) && utf8.ValidString(p.Value))
		}
	})
}

// must returns an encoder's result, failing t on an error.
func must(t testing.TB) func(string, error) string {
	return func(s string, err error) string {
		t.Helper()
		require.NoError(t, err)
		return s
	}
}

func equalDataSets(a, b DataSet) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sec4Decode is seed 002 §4 written out as the draft states it, one step
// after another and without the decoders' optimisations: split at ';' and
// '&' ('&' only, skipping empty sequences, for the legacy format), split
// each sequence at its first '=', replace %HH and '+', check UTF-8. It
// reports false for a data set that is not UTF-8.
func sec4Decode(s string, legacy bool) (DataSet, bool) {
	d := sec4Octets(s, legacy)
	for _, p := range d {
		if !utf8.ValidString(p.Name) || !utf8.ValidString(p.Value) {
			return nil, false
		}
	}
	return d, true
}

// sec4Octets is sec4Decode without the UTF-8 check: the pairs' octets.
func sec4Octets(s string, legacy bool) DataSet {
	if s == "" {
		return nil
	}
	seps := ";&"
	if legacy {
		seps = "&"
	}
	var d DataSet
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && strings.IndexByte(seps, s[i]) < 0 {
			continue
		}
		seq := s[start:i]
		start = i + 1
		if legacy && seq == "" {
			continue
		}
		name, value, defined := strings.Cut(seq, "=")
		p := Pair{Name: sec4Replace(name), Defined: defined}
		if defined {
			p.Value = sec4Replace(value)
		}
		d = append(d, p)
	}
	return d
}

// sec4Replace is §4 step 5: each %HH (either case) becomes its octet and
// each '+' a space, in one pass; any other '%' stays.
func sec4Replace(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+':
			b = append(b, ' ')
		case s[i] == '%' && i+2 < len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
			b = append(b, '%')
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}

// whatwgGB18030 makes text x/text's decoder wrote for cs what WHATWG's
// decoder writes where the package corrects x/text (see
// TestGB18030Pointer7457): under gb18030, U+1E3F, which x/text makes of
// the four-byte 81 35 F4 37, is U+E7C7.
func whatwgGB18030(cs, text string) string {
	if cs != "gb18030" {
		return text
	}
	return strings.ReplaceAll(text, "\u1E3F", "\uE7C7")
}
