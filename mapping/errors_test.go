package mapping

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorKinds reaches every kind of SPEC R0.16 from both directions
// where it applies, and checks the sentinel, the offset and the message.
func TestErrorKinds(t *testing.T) {
	tests := []struct {
		name   string
		toURI  bool // else ToContentType
		in     string
		opts   []Option
		kind   Kind
		offset int
		msg    string // a substring of the message
	}{
		{"syntax: no subtype", true, "text", nil, KindSyntax, 4, "expected '/' after the type at offset 4, found the end"},
		{"syntax: '=' in token", true, "text/plain; a=b=c", nil, KindSyntax, 15, `expected ';' or the end at offset 15, found '='`},
		{"syntax: a non-ASCII octet is named by its value", true, "text/plain; a=\xc3\xa9", nil, KindSyntax, 14, "expected a parameter value at offset 14, found 0xC3"},
		{"syntax: a control character is quoted", true, "text/plain; a=\x01", nil, KindCTL, 14, "0x01"},
		{"syntax: unbalanced comment", true, "text/plain (unbalanced", nil, KindSyntax, 11, "unbalanced comment starting at offset 11"},
		{"syntax: unterminated quote", true, `text/plain; a="x`, nil, KindSyntax, 14, "unterminated quoted-string starting at offset 14"},
		{"syntax: prefix", true, "Content-Type: text/plain", nil, KindSyntax, 12, "expected '/' after the type"},
		{"ctl: CR in a quoted value", true, "text/plain; a=\"x\ry\"", nil, KindCTL, 16, "control character 0x0D at offset 16 would land in a header"},
		{"ctl beats an earlier syntax error (C1 first)", true, "te xt/plain\x01", nil, KindCTL, 11, "0x01"},
		{"ctl beats bad-utf8", true, "text/plain; a=\"\xff\"; b=\"\x7f\"", nil, KindCTL, 22, "0x7F"},
		{"ctl: quoted-pair of LF", true, "text/plain; a=\"\\\n\"", nil, KindCTL, 16, "0x0A"},
		// R0.2: DEL (0x7F) is a CTL like 0x00-0x1F, in a quoted-string
		// and a comment too, on the general and the direct path.
		{"ctl: DEL in a quoted value", true, "text/plain; a=\"x\x7fy\"", nil, KindCTL, 16, "control character 0x7F at offset 16"},
		{"ctl: DEL in a quoted URI-body", true, "a/b; URI-body=\"x:\x7f\"", nil, KindCTL, 17, "0x7F"},
		{"ctl: DEL in a comment", true, "text/plain (x\x7fy)", nil, KindCTL, 13, "0x7F"},
		{"ctl: decoded CR in a ContentType: URI", false, "ContentType:text/plain%0D%0AX-Evil:%201", nil, KindCTL, 22, "decoded control character 0x0D at offset 22 would land in a header"},
		{"ctl: decoded NUL in a MIME-type", false, "http://x?MIME-type=text/pl%00ain", nil, KindCTL, 26, "0x00"},
		{"ctl: decoded HTAB in a name", false, "ContentType:text/plain?a%09b=1", nil, KindCTL, 24, "0x09"},
		{"bad-utf8: quoted-string", true, "text/plain; a=\"\xff\"", nil, KindBadUTF8, 15, "invalid UTF-8 at offset 15"},
		{"bad-utf8: comment", true, "text/plain (\xc3)", nil, KindBadUTF8, 12, "invalid UTF-8"},
		{"bad-utf8: decoded value", false, `ContentType:text/plain?a="%FF"`, nil, KindBadUTF8, 26, "not valid UTF-8 at offset 26"},
		{"relative-uri: network path", false, "//example.com/x", nil, KindRelativeURI, 0, "no scheme at offset 0"},
		{"relative-uri: after WSP", false, "  /x", nil, KindRelativeURI, 2, "no scheme at offset 2"},
		{"relative-uri: empty scheme", false, ":x", nil, KindRelativeURI, 0, "no scheme at offset 0"},
		{"bad-mime-type: a second '/' (R1.2)", false, "ContentType:a/b/c", nil, KindBadMIMEType, 15, ""},
		{"invalid-uri: a lone '\"' is reported at the value (U8)", false, `x:y?a="b`, nil, KindInvalidURI, 6, ""},
		{"ctl: a decoded C1 control after a triplet, at its own triplet", false, "ContentType:a/b?c=%41%C2%85", nil, KindCTL, 21, ""},
		{"relative-uri: empty scheme after WSP", false, " :x", nil, KindRelativeURI, 1, "no scheme at offset 1"},
		{"relative-uri: uri. body", true, "application/uri.foo", nil, KindRelativeURI, 16, "decoded URI at offset 16 has no scheme"},
		{"invalid-uri: space", false, "http://x/a b", nil, KindInvalidURI, 10, "octet 0x20 not allowed in a URI at offset 10"},
		{"invalid-uri: bad escape", false, "http://x/%zz", nil, KindInvalidURI, 9, "'%' not followed by two hex digits in the body at offset 9"},
		{"invalid-uri: IRI with invalid UTF-8", false, "http://x/\xff", nil, KindInvalidURI, 9, "invalid UTF-8 at offset 9"},
		{"invalid-uri: offset maps back through IRI conversion", false, "http://x/é é", nil, KindInvalidURI, 11, "octet 0x20 not allowed in a URI at offset 11"},
		{"invalid-uri: quote in a value", false, `http://x?q="a"b"`, nil, KindInvalidURI, 13, `'"' not allowed in a query value at offset 13`},
		{"invalid-uri: port", false, "a://h:x/", nil, KindInvalidURI, 6, "malformed authority: expected a port of digits at offset 6"},
		{"invalid-uri: ASCII escape in host", false, "a://%41/", nil, KindInvalidURI, 4, "percent-encoding only for UTF-8 octets"},
		{"invalid-uri: IP literal", false, "http://[x]/", nil, KindInvalidURI, 7, "an IPv6 literal"},
		{"invalid-uri: a MIME-type value with one '\"'", false, `x:y?MIME-type="a/b`, nil, KindInvalidURI, 14, `unbalanced '"' around the value at offset 14`},
		{"invalid-uri: a zone ID with a triplet", false, "http://[fe80::1%25e%41]/", nil, KindInvalidURI, 7, "an IPv6 literal"},
		{"invalid-uri: '[' in the userinfo", false, "http://a[b@h/", nil, KindInvalidURI, 8, "expected userinfo at offset 8"},
		{"syntax: a comment left open after a parameter name", true, "text/plain; a (x", nil, KindSyntax, 14, "unbalanced comment starting at offset 14"},
		{"ctl: in a comment after a parameter's '='", true, "text/plain; a=(\x01)1", nil, KindCTL, 15, "0x01"},
		{"invalid-uri: decoded authority", true, "application/uri.a%3A%2F%2F%3Ax", nil, KindInvalidURI, 29, "malformed authority: expected a port of digits at offset 29"},
		{"reserved", false, "ContentType://example.com/x", nil, KindReserved, 12, "ContentType:// at offset 12 is reserved"},
		{"reserved: through a collapse", true, "application/uri.ContentType%3A%2F%2Fx", nil, KindReserved, 12, "reserved"},
		{"reserved-param: URI-fragment item", false, "http://x?URI-fragment=a", nil, KindReservedParam, 9, "query item URI-fragment at offset 9 is reserved"},
		{"invalid-uri: U8 on every item comes before U9", false, `http://x?URI-body=x&q="a"b"`, nil, KindInvalidURI, 24, `'"' not allowed in a query value`},
		{"reserved-param: U9 after a valid query", false, `http://x?q=1&uri-BODY=x`, nil, KindReservedParam, 13, "query item URI-body at offset 13"},
		{"reserved-param: decoded in a ContentType: URI", false, "ContentType:text/plain?URI%2Dbody=x", nil, KindReservedParam, 23, "decodes to a special"},
		{"reserved-param: URI-body with uri.", true, `application/uri.x%3Ay; URI-body="x:z"`, nil, KindReservedParam, 23, "URI-body at offset 23 cannot go with a uri. subtype"},
		{"reserved-param: MIME-type in uri.", true, `application/uri.x%3Ay; MIME%2Dtype="a/b"`, nil, KindReservedParam, 23, `parameter "MIME%2Dtype" at offset 23 is a special name`},
		{"reserved-param: NoControlled URI-body", true, `application/xml; URI-body="http://x"`, []Option{NoControlled}, KindReservedParam, 17, "refused by NoControlled"},
		{"reserved-param: NoControlled MIME-type", false, "http://x?MIME-type=a/b", []Option{NoControlled}, KindReservedParam, 9, "refused by NoControlled"},
		{"duplicate-special: MIME-type", false, "http://x?MIME-type=a/b&MIME-type=c/d", nil, KindDuplicateSpecial, 23, "second MIME-type query item at offset 23"},
		{"duplicate-special: URI-body", true, `text/plain; URI-body="x:y"; uri-BODY="x:z"`, nil, KindDuplicateSpecial, 28, "second URI-body parameter at offset 28"},
		{"bad-mime-type: no subtype", false, "ContentType:text", nil, KindBadMIMEType, 16, `decoded "text" is not a media type`},
		{"bad-mime-type: injected parameter", false, "ContentType:text/plain%3B%20evil%3D1", nil, KindBadMIMEType, 22, "offending octet at offset 22"},
		{"bad-mime-type: MIME-type value", false, "http://x?MIME-type=textplain", nil, KindBadMIMEType, 28, `MIME-type "textplain" is not a media type`},
		{"bad-param-name", false, "ContentType:text/plain?a%3Bb=1", nil, KindBadParamName, 24, `decoded parameter name "a;b" is not a token; octet ';' at offset 24`},
		{"bad-param-name: a non-ASCII octet is named by its value", false, "ContentType:text/plain?a%C3%A9=1", nil, KindBadParamName, 24, `decoded parameter name "aé" is not a token; octet 0xC3 at offset 24`},
		{"bad-uri-body: fragment", true, "application/uri.http%3A%2F%2Fx%23f", nil, KindBadURIBody, 30, "'#' in the decoded URI at offset 30"},
		{"bad-uri-body: query with parameters", true, `application/uri.x%3Ay%3Fflag; a="1"`, nil, KindBadURIBody, 21, "'?' in the decoded URI at offset 21"},
		{"bad-uri-body: offset counts the quoted-pairs of a URI-body", true, `text/plain; URI-body="\x:y?a"`, nil, KindBadURIBody, 26, "'?' in the decoded URI at offset 26"},
		{"bad-uri-body: a quoted-pair is blamed where it starts", true, `text/plain; URI-body="x:\y\#"`, nil, KindBadURIBody, 26, "'#' in the decoded URI at offset 26"},
		{"bad-uri-body: a triplet after a quoted-pair", true, `text/plain; URI-body="x:\y%23"`, nil, KindBadURIBody, 26, "'#' in the decoded URI at offset 26"},
		{"nested: URI-body names ContentType:", true, `text/plain; URI-body="ContentType:a/b"`, nil, KindNested, 22, "names a ContentType: URI"},
		{"nested: MIME-type names uri.", false, "http://x?MIME-type=application/uri.y%253Az", nil, KindNested, 19, "names a uri. subtype"},
		// The edges of the octet classes and the order of the checks,
		// which the vectors pass over: the last CTL below SP (0x1F), DEL
		// (0x7F) decoded in each part of a URI, a lone 0x80, and which of
		// two problems of one part is reported (the first).
		// R0.2, C1: 0x1F is the last CTL below SP.
		{"C1: 0x1F", true, "text/plain\x1f", nil, KindCTL, 10, "control character 0x1F at offset 10"},
		{"C1: 0x1F in a quoted-string", true, "text/plain; a=\"\x1f\"", nil, KindCTL, 15, "0x1F"},
		// C2: 0x80, the lowest octet that needs the UTF-8 check.
		{"C2: a lone 0x80 in a quoted-string", true, "text/plain; a=\"\x80\"", nil, KindBadUTF8, 15, "invalid UTF-8 at offset 15"},
		{"C2: a lone 0x80 in a comment", true, "text/plain (\x80)", nil, KindBadUTF8, 12, "invalid UTF-8 at offset 12"},
		// U4: DEL and the other CTLs are refused where they are, in the
		// body (before U6's ContentType:// check) and in the query.
		{"U4: DEL in the body", false, "http://x/a\x7f", nil, KindInvalidURI, 10, "octet 0x7F not allowed in a URI at offset 10"},
		{"U4 before U6: DEL", false, "ContentType://x\x7f", nil, KindInvalidURI, 15, "octet 0x7F not allowed in a URI at offset 15"},
		{"U4: a CTL in the query", false, "http://x?a=b\x01", nil, KindInvalidURI, 12, "octet 0x01 not allowed in a URI at offset 12"},
		// U7: the first invalid octet of the body and of the fragment.
		{"U7: the first bad octet of the body", false, "http://x/a{b}", nil, KindInvalidURI, 10, "'{' not allowed in the body at offset 10"},
		{"U7: the first bad octet of the fragment", false, "http://x#a{b}", nil, KindInvalidURI, 10, "'{' not allowed in the fragment at offset 10"},
		// R1, R2: a decoded DEL is a CTL in every part.
		{"R1: decoded DEL in the media type", false, "ContentType:text/plain%7F", nil, KindCTL, 22, "decoded control character 0x7F at offset 22"},
		{"R1: decoded DEL in a name", false, "ContentType:text/plain?a%7Fb=1", nil, KindCTL, 24, "0x7F in a parameter name at offset 24"},
		{"R1: decoded DEL in a value", false, "ContentType:text/plain?a=%7F", nil, KindCTL, 25, "decoded control character 0x7F at offset 25"},
		{"R2: decoded DEL in MIME-type", false, "http://x?MIME-type=text/pl%7Fain", nil, KindCTL, 26, "0x7F in MIME-type at offset 26"},
		// R1: a name that decodes to URI-fragment, as to URI-body.
		{"R1: decoded URI-fragment name", false, "ContentType:text/plain?URI%2Dfragment=x", nil, KindReservedParam, 23, "decodes to a special Content-Type parameter"},
		// R2: a MIME-type needs a type before the '/'.
		{"R2: MIME-type without a type", false, "http://x?MIME-type=/b", nil, KindBadMIMEType, 19, `MIME-type "/b" is not a media type`},
		// U7-U9 and R1 on the URIs the direct path reads: a MIME-type
		// item's octets, an item without a name, a URI-fragment item, a
		// decoded CTL in a quoted value.
		{"U8: a bad triplet in MIME-type", false, "http://x?MIME-type=a/b%7g", nil, KindInvalidURI, 22, "'%' not followed by two hex digits in a query value"},
		{"U8: '^' in MIME-type", false, "http://x?MIME-type=a/b^c", nil, KindInvalidURI, 22, "'^' not allowed in a query value"},
		{"U8: an item without a name makes the query opaque", false, `ContentType:a/b?="x"`, nil, KindInvalidURI, 17, "not allowed in an opaque query"},
		{"U9: a URI-fragment item in a ContentType: URI", false, `ContentType:a/b?URI-fragment="x"`, nil, KindReservedParam, 16, "query item URI-fragment at offset 16"},
		{"R1: decoded DEL in a quoted value", false, `ContentType:a/b?a="%7F"`, nil, KindCTL, 19, "0x7F"},
		{"R1: decoded 0x1F in a quoted value", false, `ContentType:a/b?a="%1F"`, nil, KindCTL, 19, "0x1F"},
		// U7: a triplet in a host must be a UTF-8 octet (0x80-0xFF): %7A is not.
		{"U7: %7A in a host", false, "a://%7A/", nil, KindInvalidURI, 4, "percent-encoding only for UTF-8 octets"},
		{"U7: the first '@' ends the userinfo", false, "http://a@b@c/", nil, KindInvalidURI, 10, "expected a host at offset 10"},
		// R0.16 messages quote a printable octet, SP included.
		{"R1: a decoded SP in a name", false, "ContentType:text/plain?a%20b=1", nil, KindBadParamName, 24, "octet ' ' at offset 24"},
		// C2 on the labels the direct path reads (K1, K2): an empty name, an
		// empty token value, a CTL where a quoted value should end.
		{"C2: an empty name after a uri. subtype", true, "application/uri.x%3Ay; =b", nil, KindSyntax, 23, "expected a parameter name at offset 23"},
		{"C2: an empty value after a uri. subtype", true, "application/uri.x%3Ay; a=", nil, KindSyntax, 25, "expected a parameter value at offset 25"},
		{"C1: a CTL in a quoted value after a uri. subtype", true, "application/uri.x%3Ay; a=\"b\x01; c=d", nil, KindCTL, 27, "0x01"},
		{"C1: a CTL in a quoted URI-body", true, "a/b; URI-body=\"x:y\x01; c=d", nil, KindCTL, 18, "0x01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapOneWay(tt.toURI, tt.in, tt.opts...)
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.kind, e.Kind, "kind (%v)", err)
			assert.ErrorIs(t, err, sentinels[tt.kind])
			assert.Equal(t, tt.kind, KindOf(err))
			assert.Equal(t, tt.offset, e.Offset, "offset (%v)", err)
			assert.Contains(t, err.Error(), tt.msg)
			assert.True(t, strings.HasPrefix(err.Error(), "mapping: "))
			assert.False(t, strings.ContainsAny(err.Error(), "\r\n"), "messages quote control characters")
		})
	}
}

// TestEveryKindIsReachable keeps TestErrorKinds honest as kinds are added.
func TestEveryKindIsReachable(t *testing.T) {
	seen := map[Kind]bool{}
	for _, v := range loadVectors(t) {
		if k, ok := strings.CutPrefix(v.expected, "ERROR:"); ok {
			for kind := KindSyntax; kind <= KindNested; kind++ {
				if kind.String() == k {
					seen[kind] = true
				}
			}
		}
	}
	for kind := KindSyntax; kind <= KindNested; kind++ {
		assert.True(t, seen[kind], "no vector produces %v", kind)
		assert.NotContains(t, kind.String(), "Kind(")
	}
	assert.Equal(t, "Kind(99)", Kind(99).String())
	assert.Len(t, kindNames, int(KindNested)+1, "twelve kinds (R0.16)")
}

func TestKindOf(t *testing.T) {
	assert.Equal(t, Kind(0), KindOf(nil))
	assert.Equal(t, Kind(0), KindOf(errors.New("other")))
	assert.Equal(t, Kind(0), KindOf((*Error)(nil)), "a typed nil")
	assert.Equal(t, Kind(0), KindOf(fmt.Errorf("handler: %w", (*Error)(nil))), "a wrapped typed nil")
	// errors.Is walks a typed nil's Unwrap, too.
	assert.NotErrorIs(t, (*Error)(nil), ErrCTL)
	assert.NotErrorIs(t, fmt.Errorf("handler: %w", (*Error)(nil)), ErrCTL)
	assert.Equal(t, KindCTL, KindOf(ErrCTL))
	assert.Equal(t, KindBadUTF8, KindOf(fmt.Errorf("handler: %w", ErrBadUTF8)), "a wrapped sentinel")
	_, err := ToURI("text")
	wrapped := fmt.Errorf("handler: %w", err)
	assert.Equal(t, KindSyntax, KindOf(wrapped))
	assert.ErrorIs(t, wrapped, ErrSyntax)
	assert.NotErrorIs(t, wrapped, ErrCTL)
	assert.NoError(t, (&Error{Kind: 0}).Unwrap())
	assert.NoError(t, (&Error{Kind: 99}).Unwrap(), "a kind made by hand past the twelve")
	assert.NotErrorIs(t, &Error{Kind: 99}, ErrSyntax)
}

// wrapDeep builds a Content-Type wrapped n times in both syntaxes: a uri.
// subtype wrapping a ContentType: URI wrapping a uri. subtype ...
func wrapDeep(n int) string {
	c := "text/plain"
	for range n {
		u := "ContentType:" + Escape(c, ComponentSafe)
		c = "application/uri." + Escape(u, TokenSafe)
	}
	return c
}

func TestCollapseDepth(t *testing.T) {
	for n := 1; n <= 4; n++ {
		u, err := ToURI(wrapDeep(n))
		require.NoError(t, err, "depth %d", n)
		assert.Equal(t, "ContentType:text/plain", u, "depth %d collapses", n)
	}
	_, err := ToURI(wrapDeep(MaxCollapseDepth))
	require.ErrorIs(t, err, ErrNested)
	assert.Contains(t, err.Error(), "wrapped deeper than 8 layers")
	_, err = ToContentType("ContentType:" + Escape(wrapDeep(MaxCollapseDepth), ComponentSafe))
	require.ErrorIs(t, err, ErrNested)
}

// wrapLayers gives text/plain's URI label, ContentType:text/plain, wrapped
// n times: in an application/uri. subtype, that in a ContentType: URI,
// and so on, each layer one that a mapping unwraps (SPEC K6, R3).
func wrapLayers(n int) string {
	c := "ContentType:text/plain"
	for i := range n {
		if i%2 == 0 {
			c = "application/uri." + Escape(c, TokenSafe)
		} else {
			c = "ContentType:" + Escape(c, ComponentSafe)
		}
	}
	return c
}

// TestCollapseDepthBoundary: a call unwraps MaxCollapseDepth layers, and
// refuses one more with ErrNested. ToURI reads Content-Types, so it sees
// odd numbers of layers (an application/uri. outside), ToContentType
// even ones (a ContentType: URI outside); Canonical reads both.
func TestCollapseDepthBoundary(t *testing.T) {
	require.Equal(t, 8, MaxCollapseDepth, "the depth docs/mapping.md gives")
	for _, tt := range []struct {
		name   string
		fn     func(string, ...Option) (string, error)
		layers int
		want   string // "" for ErrNested
	}{
		{"Canonical", Canonical, MaxCollapseDepth, "text/plain"},
		{"Canonical", Canonical, MaxCollapseDepth + 1, ""},
		{"ToContentType", ToContentType, MaxCollapseDepth, "text/plain"},
		{"ToContentType", ToContentType, MaxCollapseDepth + 2, ""},
		{"ToURI", ToURI, MaxCollapseDepth - 1, "ContentType:text/plain"},
		{"ToURI", ToURI, MaxCollapseDepth + 1, ""},
	} {
		t.Run(fmt.Sprintf("%s, %d layers", tt.name, tt.layers), func(t *testing.T) {
			got, err := tt.fn(wrapLayers(tt.layers))
			if tt.want == "" {
				require.ErrorIs(t, err, ErrNested)
				assert.Contains(t, err.Error(), "wrapped deeper than 8 layers")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestLenientHint: a syntax error at an octet that ends an unquoted
// value, and that Lenient would have taken into it, says so; one Lenient
// would not take, or at another place, does not; the kind and offset are
// the same either way.
func TestLenientHint(t *testing.T) {
	const hint = "quote the value, or map with the Lenient option"
	for _, tt := range []struct {
		in     string
		offset int
		hinted bool
	}{
		{"application/ld+json; profile=http://www.w3.org/ns/json-ld#expanded", 33, true},
		{"multipart/mixed; boundary=----=_Part_0", 30, true},
		{"text/plain; a=b/c", 15, true},
		{"text/plain; a=b c", 16, false},     // after white space: no value ends there
		{"text/plain; a=\"b\"=c", 17, false}, // after a quoted value
		{"text/plain=x", 10, false},          // after the subtype
		{"text/plain; a=b\"c", 15, false},    // a quote, which no unquoted value holds, Lenient or not
	} {
		_, err := ToURI(tt.in)
		var e *Error
		require.ErrorAs(t, err, &e, tt.in)
		assert.Equal(t, KindSyntax, e.Kind, tt.in)
		assert.Equal(t, tt.offset, e.Offset, tt.in)
		assert.Equal(t, tt.hinted, strings.Contains(err.Error(), hint), "%s: %v", tt.in, err)
	}
}

// TestInputOffset: an offset in the IRI-converted text (U1) maps back to
// the octet of the input it came from, any of the three octets of a
// triplet to its one octet, and the end to the end.
func TestInputOffset(t *testing.T) {
	sc := &uriScan{in: "a\u00e9b", converted: true} // "a%C3%A9b", 8 octets
	for conv, want := range []int{0, 1, 1, 1, 2, 2, 2, 3, 4} {
		assert.Equal(t, want, sc.inputOffset(conv), "offset %d of %q", conv, "a%C3%A9b")
	}
	assert.Equal(t, 5, (&uriScan{in: "abcde"}).inputOffset(5), "no conversion")
}

// TestErrorMadeByHand: an Error made outside the package, with no
// message, still says what it is.
func TestErrorMadeByHand(t *testing.T) {
	err := &Error{Kind: KindCTL, Input: "a\rb", Offset: 1}
	assert.EqualError(t, err, "mapping: ctl at offset 1")
	assert.ErrorIs(t, err, ErrCTL)
}

// TestErrorPrecedence gives inputs with more than one problem: SPEC R0.16
// reports the first failing check in rule order, which need not be the
// first problem in the text. Each row names the two rules it orders; the
// offset shows which problem was reported. input, when set, is the
// wrapped label a collapse (K6, R3) was mapping.
func TestErrorPrecedence(t *testing.T) {
	tests := []struct {
		name   string
		toURI  bool // else ToContentType
		in     string
		opts   []Option
		kind   Kind
		offset int
		input  string
	}{
		// Content-Type -> URI: C1, C2 (left to right), C3, K1/K2, K0, K6.
		{"C1 before C3", true, "text/plain; URI-fragment=a; URI-fragment=b; c=\"\x01\"", nil, KindCTL, 47, ""},
		{"C1: the first control character", true, "t\x02ext/plain; a=\"\x01\"", nil, KindCTL, 1, ""},
		{"C1 before C2's UTF-8 check of the same comment", true, "text/plain (\xff\x01)", nil, KindCTL, 13, ""},
		{"C2 left to right: bad-utf8, then syntax", true, "text/plain; a=\"\xff\"; b", nil, KindBadUTF8, 15, ""},
		{"C2 left to right: syntax, then bad-utf8", true, "text/plain; a; b=\"\xff\"", nil, KindSyntax, 13, ""},
		{"C2 before C3", true, "text/plain; URI-body=x; URI-body=y; a=\"\xff\"", nil, KindBadUTF8, 39, ""},
		{"C3 before K1.1", true, "application/uri.x%3Ay; URI-body=a; URI-body=b", nil, KindDuplicateSpecial, 35, ""},
		{"C3 before K0", true, "application/uri.foo; URI-fragment=a; URI-fragment=b", nil, KindDuplicateSpecial, 37, ""},
		{"K1.1 before K1.2", true, "application/uri.foo; URI-body=x", nil, KindReservedParam, 21, ""},
		{"K1.2 before K1.3", true, "application/uri.foo; MIME-type=x", nil, KindRelativeURI, 16, ""},
		{"K0.1 before K0.3", true, "application/uri.foo%23", nil, KindRelativeURI, 16, ""},
		{"K0.3 before K0.4, though the '?' comes first", true, "application/uri.x%3Ay%3Fa%3Db%23", nil, KindBadURIBody, 29, ""},
		{"K0.2 before K0.3", true, `text/plain; URI-body="ContentType:a#b"`, nil, KindNested, 22, ""},
		{"K0.3 before the authority check", true, "application/uri.x%3A%2F%2Fa%40b%40c%23", nil, KindBadURIBody, 35, ""},
		{"K2: the base before the items", true, "text/plain; URI-body=foo; MIME-type=a", nil, KindRelativeURI, 21, ""},
		{"K2: NoControlled before K0", true, "text/plain; URI-body=foo", []Option{NoControlled}, KindReservedParam, 12, ""},
		{"K1 before K6", true, `application/uri.ContentType%3Atext%2Fplain; MIME-type="a/b"`, nil, KindReservedParam, 44, ""},
		{"K6: the collapse's error, on the wrapped label", true, `application/uri.ContentType%3Atext%2Fplain; k="%250D"`, nil, KindCTL, 26, `ContentType:text/plain?k="%0D"`},

		// URI -> Content-Type: U1-U9, then R1 or R2, then R3.
		{"U1 before U3", false, "/\xff", nil, KindInvalidURI, 1, ""},
		{"U3 before U4", false, "/a b", nil, KindRelativeURI, 0, ""},
		{"U4 before U6", false, "ContentType://a b", nil, KindInvalidURI, 15, ""},
		{"U6 before U7", false, `ContentType://a"b`, nil, KindReserved, 12, ""},
		{"U7: the body before the fragment", false, `x:a"b#c"d`, nil, KindInvalidURI, 3, ""},
		{"U7: the body's octets before its authority", false, `http://a@b@c/"`, nil, KindInvalidURI, 13, ""},
		{"U7 before U8", false, `x:y?a=%zz#"`, nil, KindInvalidURI, 10, ""},
		{"U8: items in order", false, "x:y?a=%zz&b%zz=1", nil, KindInvalidURI, 6, ""},
		{"U8: a name before its value", false, "x:y?a=1&b%zz=%zz", nil, KindInvalidURI, 9, ""},
		{"U9 before R1", false, "ContentType:a%0A/b?URI-body=x", nil, KindReservedParam, 19, ""},
		{"U9 before R2.1", false, "x:y?MIME-type=a&MIME-type=b&URI-body=c", nil, KindReservedParam, 28, ""},
		{"R1.1: a control character anywhere before R1.2", false, "ContentType:a;b/c%0A", nil, KindCTL, 17, ""},
		{"R1.2 before R1.4", false, "ContentType:text?a%0A=1", nil, KindBadMIMEType, 16, ""},
		{"R1.4: a name before its value", false, "ContentType:a/b?a%3B=%01", nil, KindBadParamName, 17, ""},
		{"R1.4: a control character in a name before a non-token octet", false, "ContentType:text/plain?a%3B%01=1", nil, KindCTL, 27, ""},
		{"R1.4: a control character in a value before its invalid UTF-8", false, "ContentType:a/b?a=%FF%01", nil, KindCTL, 21, ""},
		{"R1.4: items in order (bad-utf8 first)", false, "ContentType:a/b?a=%FF&b=%01", nil, KindBadUTF8, 18, ""},
		{"R1.4: items in order (ctl first)", false, "ContentType:a/b?a=%01&b%3B=1", nil, KindCTL, 18, ""},
		{"R1.4 before R3", false, "ContentType:application/uri.foo?a=%01", nil, KindCTL, 34, ""},
		{"R3: the collapse's error, on the wrapped label", false, "ContentType:application/uri.x%253Ay?MIME-type=a", nil, KindReservedParam, 23, `application/uri.x%3Ay; MIME-type="a"`},
		{"R2.1 before R2.2", false, "x:y?MIME-type=bad&MIME-type=a/b", nil, KindDuplicateSpecial, 18, ""},
		{"R2.1 before NoControlled", false, "x:y?MIME-type=a&MIME-type=b", []Option{NoControlled}, KindDuplicateSpecial, 16, ""},
		{"R2.2: ctl before bad-mime-type", false, "x:y?MIME-type=a;b%0A", nil, KindCTL, 17, ""},
		{"R2.2: bad-mime-type before nested", false, "x:y?MIME-type=a/uri.b/c", nil, KindBadMIMEType, 21, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapOneWay(tt.toURI, tt.in, tt.opts...)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.kind, e.Kind, "kind (%v)", err)
			assert.Equal(t, tt.offset, e.Offset, "offset (%v)", err)
			input := tt.input
			if input == "" {
				input = tt.in
			}
			assert.Equal(t, input, e.Input)
		})
	}
}

// TestErrorOffsets: an offset names the octet in the caller's input, past
// %HH triplets, quoted-pairs and IRI characters before it.
func TestErrorOffsets(t *testing.T) {
	tests := []struct {
		name   string
		toURI  bool // else ToContentType
		in     string
		kind   Kind
		offset int
	}{
		{"R2.2: MIME-type text after triplets", false, "x:y?MIME-type=%41%42;b/c", KindBadMIMEType, 20},
		{"R1.2: type text after triplets", false, "ContentType:%41%42;b/c", KindBadMIMEType, 18},
		{"R1.4: a value's invalid UTF-8 after a triplet", false, "ContentType:a/b?a=%41%FF", KindBadUTF8, 21},
		{"R1.4: a name's non-token octet after a triplet", false, "ContentType:a/b?%41%3B=1", KindBadParamName, 19},
		{"U1: after IRI characters", false, "x:é?a=é&b=%zz", KindInvalidURI, 12},
		{"U1: a decoded control character after IRI characters", false, "ContentType:a/b?c=é&d=%01", KindCTL, 23},
		{"K0: after triplets in a uri. subtype", true, "application/uri.x%3A%41%42%23", KindBadURIBody, 26},
		{"C2: the first invalid octet of a quoted-string", true, "text/plain; n=\"é\xe2\x82\"", KindBadUTF8, 17},
		{"C2: a surrogate", true, "text/plain; n=\"\xed\xa0\x80\"", KindBadUTF8, 15},
		{"C2: an overlong form", true, "text/plain; n=\"\xc0\x80\"", KindBadUTF8, 15},
		{"C2: above U+10FFFF", true, "text/plain; n=\"\xf4\x90\x80\x80\"", KindBadUTF8, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapOneWay(tt.toURI, tt.in)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.kind, e.Kind, "kind (%v)", err)
			assert.Equal(t, tt.offset, e.Offset, "offset (%v)", err)
			assert.Contains(t, err.Error(), fmt.Sprintf("offset %d", tt.offset), "the message names the offset")
		})
	}
}

// mapOneWay calls ToURI or ToContentType and returns its error.
func mapOneWay(toURI bool, in string, opts ...Option) error {
	var err error
	if toURI {
		_, err = ToURI(in, opts...)
	} else {
		_, err = ToContentType(in, opts...)
	}
	return err
}

// TestUnicodeControls: a C1 control or U+2028/U+2029 that would reach a
// Content-Type, decoded from an ASCII label or written as it is, is
// refused as ctl by every mapping function, at the offset where the
// label holds it; ParseContentType and ParseURI accept it; other
// non-ASCII text maps as before.
func TestUnicodeControls(t *testing.T) {
	tests := []struct {
		name, in string
		ct       bool // in is a Content-Type
		off      int
		r        rune
	}{
		{"decoded NEL", "ContentType:text/plain?a=%C2%85", false, 25, 0x85},
		{"decoded CSI, lower-case hex", "ContentType:text/plain?b=x&a=%c2%9b", false, 29, 0x9B},
		{"decoded LINE SEPARATOR", "ContentType:text/plain?a=x%E2%80%A8y", false, 26, 0x2028},
		{"PARAGRAPH SEPARATOR in an IRI", "ContentType:text/plain?a=\u2029", false, 25, 0x2029},
		{"NEL in a quoted value", "text/plain; a=\"x\u0085\"", true, 16, 0x85},
		{"U+0080 in a comment", "text/plain (\u0080)", true, 12, 0x80},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(err error) {
				t.Helper()
				require.ErrorIs(t, err, ErrCTL)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tt.off, e.Offset)
				assert.Contains(t, e.Error(), fmt.Sprintf("control character U+%04X at offset %d", tt.r, tt.off))
			}
			if tt.ct {
				out, err := ToURI(tt.in)
				check(err)
				assert.Empty(t, out)
				_, err = ParseContentType(tt.in)
				assert.NoError(t, err)
			} else {
				out, err := ToContentType(tt.in)
				check(err)
				assert.Empty(t, out)
				_, err = ParseURI(tt.in)
				assert.NoError(t, err)
			}
			out, _, err := Map(tt.in)
			check(err)
			assert.Empty(t, out)
			out, err = Canonical(tt.in)
			check(err)
			assert.Empty(t, out)
		})
	}
	// What is not refused: the characters next to those refused, and a
	// URI that carries them percent-encoded into a level-encoded
	// Content-Type, where they stay encoded.
	for in, want := range map[string]string{
		"ContentType:text/plain?a=%C2%A0%E2%80%A7%E2%80%AA": "text/plain; a=\"\u00a0\u2027\u202a\"",
		"http://x/%C2%85": "application/uri.http%3A%2F%2Fx%2F%25C2%2585",
	} {
		got, err := ToContentType(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	u, err := ToURI("application/uri.http%3A%2F%2Fx%2F%25C2%2585")
	require.NoError(t, err)
	assert.Equal(t, "http://x/%C2%85", u)
}

// TestUnicodeControlsInCollapse: a collapse (K6, R3) maps Content-Types of
// its own, from labels encoded twice in the caller's; each is checked,
// and the error names the label of the step that produced the character,
// at the offset where that label holds it, as every error of a collapse
// step does. So N4 holds: what ToURI maps, ToContentType maps back.
func TestUnicodeControlsInCollapse(t *testing.T) {
	tests := []struct {
		name, in string
		toURI    bool
		input    string // the *Error's Input
		off      int
	}{
		{"K6: a uri. subtype wrapping a ContentType URI", `application/uri.ContentType%3Atext%2Fplain; a="%C2%85"`, true,
			`ContentType:text/plain?a="%C2%85"`, 26},
		{"R3: a ContentType URI wrapping a uri. subtype", "ContentType:application/uri.ContentType%253Atext%252Fplain?a=%25C2%2585", false,
			`ContentType:text/plain?a="%C2%85"`, 26},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.toURI {
				_, err = ToURI(tt.in)
			} else {
				_, err = ToContentType(tt.in)
			}
			require.ErrorIs(t, err, ErrCTL)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.input, e.Input)
			assert.Equal(t, tt.off, e.Offset)
			_, err = Canonical(tt.in)
			assert.ErrorIs(t, err, ErrCTL, "Canonical agrees")
			_, _, err = Map(tt.in)
			assert.ErrorIs(t, err, ErrCTL, "Map agrees")
		})
	}
}

// TestHasHighOctet: every length up to past two 32-octet blocks, with the
// high octet in every position, and none.
func TestHasHighOctet(t *testing.T) {
	for n := range 80 {
		b := []byte(strings.Repeat("a", n))
		require.False(t, hasHighOctet(string(b)), "n=%d", n)
		for p := range n {
			b[p] = 0x80
			require.True(t, hasHighOctet(string(b)), "n=%d p=%d", n, p)
			b[p] = 0x7F
			require.False(t, hasHighOctet(string(b)), "n=%d p=%d", n, p)
			b[p] = 'a'
		}
	}
}

// Canonical ignores StrictURI, so an error about the URI it maps through
// reads the same with it or without it.
func TestCanonicalErrorIgnoresStrictURI(t *testing.T) {
	const in = `application/uri.ContentType%3Atext%2Fplain; k="%250D"`
	for _, opts := range [][]Option{nil, {StrictURI}} {
		_, err := Canonical(in, opts...)
		var e *Error
		require.ErrorAs(t, err, &e, "%v", opts)
		assert.Equal(t, KindCTL, e.Kind)
		assert.Equal(t, 26, e.Offset)
		assert.Equal(t, `ContentType:text/plain?k="%0D"`, e.Input)
	}
}
