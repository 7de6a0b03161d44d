package mapping

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDirect holds the direct paths (direct.go) to the general ones: where
// a direct path maps an input, the general path must map it to the same
// text, so the direct paths can only add speed. The inputs wrap the fuzzed
// text where each direct path looks at it.
func FuzzDirect(f *testing.F) {
	for _, s := range []string{
		"model/vnd.example.longish.sub%23type.name",
		`text/plain?charset="US-ASCII"&x-obscure="value"`,
		`a/b?x="%22%5C%09%41"&&y=""`,
		"mailto%3Auser%40host.example",
		"http://xml.example/foo",
		"http%3A%2F%2Fa%3Ab%40c.text%2Fx%2Fy",
		"x%3A%7B%7D%20%C3%A9",
		"//a@b:80/p?q=%22v%22&r=#f",
		`//h/p?a="1"&MIME-type=%22Text%2FPlain%22&b=2#x`,
		` ; a=b ;; c="d e%" ;`,
		`x=(c); y="a\"b"`,
		// Where a uri. subtype ends (K1): a literal ':', a '%' or a
		// triplet next to the end, octets of BODY outside RCHAR.
		"http:x", "http%3Ax:y", "x%3Ay%25;a=b", "x%3Ay%2;a", "x%3A%2F%2Fh@[::1]", "x%3Aa^b~c'd;e=f",
		// Non-ASCII, raw and decoded, which only the general path maps.
		"a=\"\u00e9\"", "a=%22%C3%A9%22", "a=\"\u0085\"", "a=%22%C2%85%22", "x%3Ay%C3%A9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range []string{s, "ContentType:" + s, "ContentType:a/b?" + s, "x:y?" + s, "http://" + s} {
			for _, f := range []Option{0, NoControlled} {
				got, ok := toContentTypeDirect(nil, u, f)
				requireGeneralAgrees(t, "ToContentType", u, f, got, ok, toContentTypeGeneral)
			}
		}
		for _, ct := range []string{s, "text/plain; " + s, "a/b;" + s, "a/uri.x%3Ay;" + s, "a/uri." + s, `a/b; URI-body="` + s + `"`, `a/b; c=d; URI-body=` + s} {
			for _, f := range []Option{0, StrictURI, Lenient, NoControlled} {
				// With ToURI's buffer, and with none: a K2 label keeps
				// what nativeDirect wrote only when there is room.
				var obuf [256]byte
				for _, out := range [][]byte{outputBuffer(obuf[:0], len(ct)), nil} {
					got, ok := toURIDirect(out, ct, f)
					requireGeneralAgrees(t, "ToURI", ct, f, got, ok, toURIGeneral)
				}
			}
		}
		for _, mode := range []int{modeSubtype, modeURIBody} {
			got, collapse, ok := baseDirect(nil, s)
			if !ok || collapse && mode == modeURIBody {
				continue
			}
			m := uriMapper{sc: &ctScan{s: s}, d: `"`}
			want, wantCollapse, err := m.baseGeneral(nil, nil, 0, s, mode, false)
			require.Nil(t, err, "direct path mapped %q, which the general path refuses", s)
			require.Equal(t, string(want), string(got), "K0 of %q", s)
			require.Equal(t, wantCollapse, collapse, "K6 of %q", s)
		}
	})
}

// requireGeneralAgrees fails unless a result the direct path took (ok) is
// what general, the rule-by-rule path of the same direction, gives.
func requireGeneralAgrees(t *testing.T, what, in string, f Option, got []byte, ok bool,
	general func([]byte, string, Option, int) (string, error)) {
	t.Helper()
	if !ok {
		return
	}
	want, err := general(nil, in, f, 0)
	require.NoError(t, err, "direct path mapped %q (options %d), which the general path refuses", in, f)
	require.Equal(t, want, string(got), "%s(%q, %d)", what, in, f)
	// The direct paths take ASCII Content-Types only, so the check of
	// unicodectl.go runs after the general path alone.
	if what == "ToURI" {
		require.False(t, hasHighOctet(in), "direct path mapped the non-ASCII Content-Type %q", in)
	} else {
		require.False(t, hasHighOctet(string(got)), "direct path produced the non-ASCII Content-Type %q", got)
	}
}

func TestDirectPathsTaken(t *testing.T) {
	// The direct paths must serve the draft's examples, or the benchmarks
	// measure the general path.
	for _, u := range []string{
		"ContentType:model/vnd.example.longish.sub%23type.name",
		`ContentType:text/plain?charset="US-ASCII"&x-obscure="value"`,
		"http://example.com/tag42",
		`mailto:U@example.net?subject="misc"&body="line1%0D%0Aline2"`,
		"xyz://abc.test/def?h=ijk#lmn",
		`mailto:joe@blow.test?MIME-type="message%2Frfc822"#123`,
	} {
		_, ok := toContentTypeDirect(nil, u, 0)
		require.True(t, ok, u)
	}
	for _, ct := range []string{
		"image/JPEG",
		"x-FOO?bar/biZZare#sUb#tYpe",
		`text/plain; charset="us-ascii"; x-mac-type="54455854"; x-mac-creator="4D4F5353"`,
		"image/tiff; application=faxbw",
		"application/uri.mailto%3Auser%40host.example",
		`application/uri.http%3A%2F%2Fx.test; foo="123"; bar="abcd"`,
		`application/uri.http%3A%2F%2Fa%3Ab%40c.text%2Fx%2Fy; URI-fragment="z%25z"`,
		`application/xml; URI-body="http://xml.example/foo"`,
	} {
		_, ok := toURIDirect(nil, ct, 0)
		require.True(t, ok, ct)
	}
	for _, raw := range []string{"mailto%3Auser%40host.example", "http://xml.example/foo"} {
		_, _, ok := baseDirect(nil, raw)
		require.True(t, ok, raw)
	}
}

// TestSubtypeBaseDirect: the base URI of a uri. subtype ends at the first
// octet outside RCHAR, and a ':' there is the end, not the scheme's colon.
func TestSubtypeBaseDirect(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		end      int
		ok       bool
	}{
		{"mailto%3Au%40h; a=b", "mailto:u@h", 14, true},
		{"http%3A%2F%2Fx(c)", "http://x", 14, true},
		{"x%3Ay%25;a", "x:y%25", 8, true},
		{"x%3Aa^b~c'd=e", "x:a%5Eb~c'd", 11, true}, // '=' is BODY but not RCHAR
		{"x%3A", "x:", 4, true},
		{"http:x", "", 0, false}, // a literal ':' ends the subtype "http"
		{"http;a=b", "", 0, false},
		{"x%3Ay%3Fz", "", 0, false}, // a '?' in the body: the general path
	} {
		out, end, _, ok := subtypeBaseDirect(nil, tt.in)
		require.Equal(t, tt.ok, ok, tt.in)
		if ok {
			require.Equal(t, tt.want, string(out), tt.in)
			require.Equal(t, tt.end, end, tt.in)
		}
	}
}
