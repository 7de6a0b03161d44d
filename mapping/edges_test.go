package mapping

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEdgeErrors holds the edges of the octet classes and the order of the
// checks that the vectors and TestErrorKinds pass over: the last CTL
// below SP (0x1F), DEL (0x7F) decoded in each part of a URI, a lone 0x80,
// and which of two problems of one part is reported (the first).
func TestEdgeErrors(t *testing.T) {
	tests := []struct {
		name   string
		toURI  bool // else ToContentType
		in     string
		kind   Kind
		offset int
		msg    string // a substring of the message
	}{
		// R0.2, C1: 0x1F is the last CTL below SP.
		{"C1: 0x1F", true, "text/plain\x1f", KindCTL, 10, "control character 0x1F at offset 10"},
		{"C1: 0x1F in a quoted-string", true, "text/plain; a=\"\x1f\"", KindCTL, 15, "0x1F"},
		// C2: 0x80, the lowest octet that needs the UTF-8 check.
		{"C2: a lone 0x80 in a quoted-string", true, "text/plain; a=\"\x80\"", KindBadUTF8, 15, "invalid UTF-8 at offset 15"},
		{"C2: a lone 0x80 in a comment", true, "text/plain (\x80)", KindBadUTF8, 12, "invalid UTF-8 at offset 12"},
		// U4: DEL and the other CTLs are refused where they are, in the
		// body (before U6's ContentType:// check) and in the query.
		{"U4: DEL in the body", false, "http://x/a\x7f", KindInvalidURI, 10, "octet 0x7F not allowed in a URI at offset 10"},
		{"U4 before U6: DEL", false, "ContentType://x\x7f", KindInvalidURI, 15, "octet 0x7F not allowed in a URI at offset 15"},
		{"U4: a CTL in the query", false, "http://x?a=b\x01", KindInvalidURI, 12, "octet 0x01 not allowed in a URI at offset 12"},
		// U7: the first invalid octet of the body and of the fragment.
		{"U7: the first bad octet of the body", false, "http://x/a{b}", KindInvalidURI, 10, "'{' not allowed in the body at offset 10"},
		{"U7: the first bad octet of the fragment", false, "http://x#a{b}", KindInvalidURI, 10, "'{' not allowed in the fragment at offset 10"},
		// R1, R2: a decoded DEL is a CTL in every part.
		{"R1: decoded DEL in the media type", false, "ContentType:text/plain%7F", KindCTL, 22, "decoded control character 0x7F at offset 22"},
		{"R1: decoded DEL in a name", false, "ContentType:text/plain?a%7Fb=1", KindCTL, 24, "0x7F in a parameter name at offset 24"},
		{"R1: decoded DEL in a value", false, "ContentType:text/plain?a=%7F", KindCTL, 25, "decoded control character 0x7F at offset 25"},
		{"R2: decoded DEL in MIME-type", false, "http://x?MIME-type=text/pl%7Fain", KindCTL, 26, "0x7F in MIME-type at offset 26"},
		// R1: a name that decodes to URI-fragment, as to URI-body.
		{"R1: decoded URI-fragment name", false, "ContentType:text/plain?URI%2Dfragment=x", KindReservedParam, 23, "decodes to a special Content-Type parameter"},
		// R2: a MIME-type needs a type before the '/'.
		{"R2: MIME-type without a type", false, "http://x?MIME-type=/b", KindBadMIMEType, 19, `MIME-type "/b" is not a media type`},
		// U7-U9 and R1 on the URIs the direct path reads: a MIME-type
		// item's octets, an item without a name, a URI-fragment item, a
		// decoded CTL in a quoted value.
		{"U8: a bad triplet in MIME-type", false, "http://x?MIME-type=a/b%7g", KindInvalidURI, 22, "'%' not followed by two hex digits in a query value"},
		{"U8: '^' in MIME-type", false, "http://x?MIME-type=a/b^c", KindInvalidURI, 22, "'^' not allowed in a query value"},
		{"U8: an item without a name makes the query opaque", false, `ContentType:a/b?="x"`, KindInvalidURI, 17, "not allowed in an opaque query"},
		{"U9: a URI-fragment item in a ContentType: URI", false, `ContentType:a/b?URI-fragment="x"`, KindReservedParam, 16, "query item URI-fragment at offset 16"},
		{"R1: decoded DEL in a quoted value", false, `ContentType:a/b?a="%7F"`, KindCTL, 19, "0x7F"},
		{"R1: decoded 0x1F in a quoted value", false, `ContentType:a/b?a="%1F"`, KindCTL, 19, "0x1F"},
		// U7: a triplet in a host must be a UTF-8 octet (0x80-0xFF): %7A is not.
		{"U7: %7A in a host", false, "a://%7A/", KindInvalidURI, 4, "percent-encoding only for UTF-8 octets"},
		{"U7: the first '@' ends the userinfo", false, "http://a@b@c/", KindInvalidURI, 10, "expected a host at offset 10"},
		// R0.16 messages quote a printable octet, SP included.
		{"R1: a decoded SP in a name", false, "ContentType:text/plain?a%20b=1", KindBadParamName, 24, "octet ' ' at offset 24"},
		// C2 on the labels the direct path reads (K1, K2): an empty name, an
		// empty token value, a CTL where a quoted value should end.
		{"C2: an empty name after a uri. subtype", true, "application/uri.x%3Ay; =b", KindSyntax, 23, "expected a parameter name at offset 23"},
		{"C2: an empty value after a uri. subtype", true, "application/uri.x%3Ay; a=", KindSyntax, 25, "expected a parameter value at offset 25"},
		{"C1: a CTL in a quoted value after a uri. subtype", true, "application/uri.x%3Ay; a=\"b\x01; c=d", KindCTL, 27, "0x01"},
		{"C1: a CTL in a quoted URI-body", true, "a/b; URI-body=\"x:y\x01; c=d", KindCTL, 18, "0x01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapOneWay(tt.toURI, tt.in)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.kind, e.Kind, "kind (%v)", err)
			assert.Equal(t, tt.offset, e.Offset, "offset (%v)", err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

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
