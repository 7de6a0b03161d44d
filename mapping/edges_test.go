package mapping

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEdgeOutputs maps labels whose result the vectors leave open, on the
// whole mapping and on the general path alone (the direct paths hand most
// ASCII labels past it).
func TestEdgeOutputs(t *testing.T) {
	tests := []struct {
		name  string
		toURI bool // else ToContentType
		in    string
		want  string
	}{
		// K0: a quoted-pair in a parameter of a uri. subtype is unquoted
		// before the value is repaired, '%' or not.
		{"K0: quoted-pair without a triplet", true, `application/uri.x%3Ay; a="b\"c"`, `x:y?a="b%22c"`},
		// K0: REPAIR keeps a decoded '%' that starts a triplet of dec(S),
		// also when the triplet's octets were themselves encoded.
		{"K0: %25 before encoded hex digits", true, "application/uri.x%3Ay%25%34%31", "x:y%41"},
		{"K0: %25 before a hex digit and an encoded one", true, "application/uri.x%3Ay%254%31", "x:y%41"},
		{"K0: %25 before encoded hex digits in a URI-body", true, `text/plain; URI-body="x:y%25%34%31"`, `x:y%41?MIME-type="text/plain"`},
		// K1.3, K4: the same one-level decoding in a parameter's value and
		// in URI-fragment (REPAIR keeps the triplet dec produces).
		{"K1.3: %25 before encoded hex digits in a value", true, `application/uri.x%3Ay; a="%25%34%31"`, `x:y?a="%41"`},
		{"K4: %25 before encoded hex digits in URI-fragment", true, `application/uri.x%3Ay; URI-fragment="%25%34%31"`, "x:y#%41"},
		{"K4: '%%41' in URI-fragment decodes to '%A', repaired", true, `text/plain; URI-body="x:y"; URI-fragment="%%41"`, `x:y?MIME-type="text/plain"#%25A`},
		// K3: 'Z', the last upper-case letter, is lower-cased.
		{"K3: Z", true, "TEXT/PLAINZ; A=Z", `ContentType:text/plainz?A="Z"`},
		{"K3: a type and subtype of Z alone", true, "Z/Z; A=Z", `ContentType:z/z?A="Z"`},
		{"R2: Z in a scheme", false, "HTTPZ:x", "application/uri.httpz%3Ax"},
		{"R1: an encoded upper-case letter in the media type", false, "ContentType:TEXT/%50lain%5A", "text/plainz"},
		{"R1: the letter A in the media type", false, "ContentType:TEXT/PLAIN", "text/plain"},
		{"R1: a triplet in the media type", false, "ContentType:text/x%41", "text/xa"},
		{"R1: a triplet in a name", false, `ContentType:a/b?x%41="1"`, `a/b; xA="1"`},
		{"R2: Z in MIME-type", false, "http://x?MIME-type=TEXT/PLAINZ", `text/plainz; URI-body="http%3A%2F%2Fx"`},
		// R4: the fragment is ENC_C-encoded, which keeps '&'.
		{"R4: '&' in the fragment", false, "http://x#a&b", `application/uri.http%3A%2F%2Fx; URI-fragment="a&b"`},
		{"R4: '&' in the fragment of an IRI", false, "http://x/\u00e9#a&b", `application/uri.http%3A%2F%2Fx%2F%25C3%25A9; URI-fragment="a&b"`},
		// U7: %80-%8F are UTF-8 octets, allowed in a host.
		{"U7: %82 in a host", false, "a://%E2%82%AC/", "application/uri.a%3A%2F%2F%25E2%2582%25AC%2F"},
		{"U7: a body of one '/' has no authority", false, "a:/x:y", "application/uri.a%3A%2Fx%3Ay"},
		{"U7: a zone ID of unreserved octets", false, "http://[fe80::1%25eth_0]/", "application/uri.http%3A%2F%2F%5Bfe80%3A%3A1%2525eth_0%5D%2F"},
		// C2: U+FFFD written as it is, is valid UTF-8.
		{"C2: U+FFFD in a quoted-string", true, "text/plain; a=\"\ufffd\"", `ContentType:text/plain?a="%EF%BF%BD"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, general string
			var err, gerr error
			if tt.toURI {
				got, err = ToURI(tt.in)
				general, gerr = toURIGeneral(nil, tt.in, 0, 0)
			} else {
				got, err = ToContentType(tt.in)
				general, gerr = toContentTypeGeneral(nil, tt.in, 0, 0)
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			require.NoError(t, gerr)
			assert.Equal(t, tt.want, general, "general path")
		})
	}
}

// TestContentTypeStringEdges: String lower-cases the media type through
// 'Z' and writes the special parameter names in their canonical case.
func TestContentTypeStringEdges(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"TEXT/PLAINZ; A=Z", `text/plainz; A="Z"`},
		{"a/b; uri-FRAGMENT=x", `a/b; URI-fragment="x"`},
		{"a/b; uri-BODY=x", `a/b; URI-body="x"`},
	} {
		ct, err := ParseContentType(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, ct.String(), tt.in)
	}
}

// TestLongURIBodyMIMEType: a K2 label too long for nativeDirect's output to
// stay in ToURI's buffer has its MIME-type item written from the label
// itself, still lower-cased (K3).
func TestLongURIBodyMIMEType(t *testing.T) {
	long := "http://x/" + strings.Repeat("a", 200)
	in := `TEXT/Plain; URI-body="` + long + `"`
	want := long + `?MIME-type="text/plain"`
	got, err := ToURI(in)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	direct, ok := toURIDirect(nil, in, 0)
	require.True(t, ok, "direct path")
	assert.Equal(t, want, string(direct))
}
