package urlencoded

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func seedForm(f *testing.F) {
	f.Add("")
	f.Add("a=1;b;a=2;=3;d,;f")
	f.Add("url=http://example.org/Ragnar%C3%B6k/;lang=de")
	f.Add("+a+b+c+=+1++3+")
	f.Add("Cipher=c=(m^e)%n")
	f.Add("Lookup=%C0%80")
}

// FuzzDecode: the decoders never panic; what they accept encodes
// canonically and decodes back to the same data set (§3, §4).
func FuzzDecode(f *testing.F) {
	seedForm(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, legacy := range []bool{false, true} {
			d, err := DecodeOptions{Legacy: legacy, MaxPairs: -1}.Decode(s)
			if err != nil {
				var e *Error
				require.ErrorAs(t, err, &e)
				require.True(t, e.Offset >= -1 && e.Offset < len(s))
				require.False(t, utf8.ValidString(strings.ReplaceAll(s, "%", "")) && strings.IndexByte(s, '%') < 0,
					"%q is UTF-8 without escapes, yet fails: %v", s, err)
				continue
			}
			enc, err := d.Encode()
			if err != nil {
				require.ErrorIs(t, err, ErrUnencodable)
				require.Equal(t, DataSet{{}}, d)
				continue
			}
			back, err := Decode(enc)
			require.NoError(t, err)
			require.Equal(t, d.withoutEmpty(), back.withoutEmpty(), "%q -> %q", s, enc)
			again, err := back.Encode()
			require.NoError(t, err)
			require.Equal(t, enc, again, "canonical encoding is stable")
		}
	})
}

// FuzzRoundTrip: Decode(Encode(d)) == d for data sets built from fuzz
// input (pairs separated by 0x00, name and value by 0x01, 0x02 marking an
// undefined value).
func FuzzRoundTrip(f *testing.F) {
	f.Add("a\x01b\x00c\x02\x00\x01")
	f.Add("a+b\x011\x00;\x01&=%")
	f.Fuzz(func(t *testing.T, s string) {
		var d DataSet
		for _, part := range strings.Split(strings.ToValidUTF8(s, "\uFFFD"), "\x00") {
			name, value, ok := strings.Cut(part, "\x01")
			p := Pair{Name: name, Value: value, Defined: ok}
			if strings.HasSuffix(part, "\x02") {
				p = Pair{Name: strings.TrimSuffix(part, "\x02")}
			}
			d = append(d, p)
		}
		enc, err := d.Encode()
		if len(d) == 1 && d[0] == (Pair{}) {
			require.ErrorIs(t, err, ErrUnencodable)
			return
		}
		require.NoError(t, err)
		back, err := Decode(enc)
		require.NoError(t, err)
		require.Equal(t, d, back, "%q", enc)
	})
}

// FuzzFilter: no panic; the result is a subsequence of the data set.
func FuzzFilter(f *testing.F) {
	f.Add("a=1;b;a=2;=3;d,;f", "e,,a,%64%2C")
	f.Fuzz(func(t *testing.T, query, frag string) {
		d, err := Decode(query)
		if err != nil {
			return
		}
		got, err := Filter(d, frag)
		if err != nil {
			return
		}
		j := 0
		for _, p := range got {
			for j < len(d) && d[j] != p {
				j++
			}
			require.Less(t, j, len(d), "not a subsequence")
			j++
		}
	})
}
