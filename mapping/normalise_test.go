package mapping

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestURIRoundTrip checks SPEC N1: uri2ct then ct2uri gives the URI back,
// except for the listed normalisations, each shown here.
func TestURIRoundTrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"other schemes come back byte for byte", "xyz://abc.test/d%7eef?h=%6A&k=a+b#l%2Fmn", `xyz://abc.test/d%7eef?h="%6A"&k="a+b"#l%2Fmn`},
		{"opaque query byte for byte", "http://x?a=1&flag#f", "http://x?a=1&flag#f"},
		{"(a) scheme lower-cased", "HTTP://x", "http://x"},
		{"(a) ContentType spelling", "contentTYPE:text/plain", "ContentType:text/plain"},
		{"(b) values get delimiters", `http://x?a=1&b=%22q%22`, `http://x?a="1"&b="q"`},
		{"(c) empty query and items removed", "http://x?&a=1&&", `http://x?a="1"`},
		{"(c) empty query removed", "http://x?", "http://x"},
		{"(d) MIME-type canonical", "http://x?mime-TYPE=Text%2FHTML", `http://x?MIME-type="text/html"`},
		{"(e) ContentType: URIs re-encoded canonically", "ContentType:TEXT%2fplain?a=%7e%3a", `ContentType:text/plain?a="~%3A"`},
		{"(e) a wrapped uri. subtype becomes the URI", "ContentType:application/uri.http%253A%252F%252Fx?a=1", `http://x?a="1"`},
		{"(f) outer WSP stripped", " \thttp://x\t ", "http://x"},
		{"(g) IRI converted", "http://x/café", "http://x/caf%C3%A9"},
	}
	for _, tt := range tests {
		c, err := ToContentType(tt.in)
		require.NoError(t, err, tt.name)
		u, err := ToURI(c)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, u, "%s: %q -> %q", tt.name, tt.in, c)
	}
}

// TestContentTypeRoundTrip checks SPEC N2: ct2uri then uri2ct gives a
// semantically identical Content-Type, exactly so for native ones.
func TestContentTypeRoundTrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"native, exact", `text/plain; charset="us-ascii"; title*=us-ascii'en'This%20is%20fun`, `text/plain; charset="us-ascii"; title*="us-ascii'en'This%20is%20fun"`},
		{"native, HTAB kept", "text/plain; a=\"x\ty\"", "text/plain; a=\"x\ty\""},
		{"native, quotes and backslashes", `text/plain; a="q\"\\"`, `text/plain; a="q\"\\"`},
		{"native, non-ASCII", `text/plain; t="café"`, `text/plain; t="café"`},
		{"native, duplicates and name case", "text/plain; A=1; a=2", `text/plain; A="1"; a="2"`},
		{"native, MIME-type is ordinary and keeps its spelling", `0/0;MiME-tYpe=""`, `0/0; MiME-tYpe=""`},
		{"comments dropped", "text/plain (c); a=b (d)", `text/plain; a="b"`},
		{"uri. top-level type becomes application", "text/uri.http%3A%2F%2Fx", "application/uri.http%3A%2F%2Fx"},
		{"embedded scheme lower-cased", "application/uri.HTTP%3A%2F%2Fx", "application/uri.http%3A%2F%2Fx"},
		{"URI-fragment moves to the end", `application/uri.x%3Ay; URI-fragment="f"; a="1"`, `application/uri.x%3Ay; a="1"; URI-fragment="f"`},
		{"level value valid in context: unchanged meaning", `application/uri.x%3Ay; k="a%26b"`, `application/uri.x%3Ay; k="a%2526b"`},
		{"level value normalised", `application/uri.x%3Ay; k="a b"`, `application/uri.x%3Ay; k="a%2520b"`},
		{"fragment normalised", `text/plain; URI-fragment="z%25z"`, `text/plain; URI-fragment="z%2525z"`},
		{"uri. wrapping ContentType: becomes the wrapped CT", `application/uri.ContentType%3Atext%2Fplain; a="1"`, `text/plain; a="1"`},
		{"URI-body canonical", `text/XML; URI-body="HTTP://x/P"`, `text/xml; URI-body="http%3A%2F%2Fx%2FP"`},
	}
	for _, tt := range tests {
		for _, o := range []Option{0, StrictURI} {
			u, err := ToURI(tt.in, o)
			require.NoError(t, err, tt.name)
			c, err := ToContentType(u)
			require.NoError(t, err, tt.name)
			assert.Equal(t, tt.want, c, "%s (options %d): %q -> %q", tt.name, o, tt.in, u)
		}
	}
	// Lenient values are quoted and encoded.
	u, err := ToURI("multipart/mixed; boundary=----=_Part_0", Lenient)
	require.NoError(t, err)
	c, err := ToContentType(u)
	require.NoError(t, err)
	assert.Equal(t, `multipart/mixed; boundary="----=_Part_0"`, c)
}

// TestNoFullClosure documents SPEC N3: a uri. value decoding to CR cannot
// come back as CR.
func TestNoFullClosure(t *testing.T) {
	u, err := ToURI(`application/uri.x%3Ay; k="%0D"`)
	require.NoError(t, err)
	assert.Equal(t, `x:y?k="%0D"`, u)
	c, err := ToContentType(u)
	require.NoError(t, err)
	assert.Equal(t, `application/uri.x%3Ay; k="%250D"`, c)
}

func TestParseContentType(t *testing.T) {
	ct, err := ParseContentType(`Text/Plain (c); Charset="us-ascii"; a=1; a="x\"y"; uri-body="x:y"`)
	require.NoError(t, err)
	assert.Equal(t, ContentType{Type: "Text", Subtype: "Plain", Params: []Param{
		{"Charset", "us-ascii"}, {"a", "1"}, {"a", `x"y`}, {"uri-body", "x:y"},
	}}, ct)
	v, ok := ct.Param("CHARSET")
	assert.True(t, ok)
	assert.Equal(t, "us-ascii", v)
	_, ok = ct.Param("missing")
	assert.False(t, ok)
	assert.Equal(t, `text/plain; Charset="us-ascii"; a="1"; a="x\"y"; URI-body="x:y"`, ct.String())

	ct, err = ParseContentType("application/URI.Http%3A%2F%2FX")
	require.NoError(t, err)
	assert.Equal(t, "application/uri.Http%3A%2F%2FX", ct.String(), "only the uri. prefix is lower-cased")

	_, err = ParseContentType("multipart/mixed; boundary=----=_Part_0")
	assert.ErrorIs(t, err, ErrSyntax)
	ct, err = ParseContentType("multipart/mixed; boundary=----=_Part_0", Lenient)
	require.NoError(t, err)
	assert.Equal(t, "----=_Part_0", ct.Params[0].Value)

	_, err = ParseContentType(`text/plain; URI-fragment=a; uri-fragment=b`)
	assert.ErrorIs(t, err, ErrDuplicateSpecial)
	_, err = ParseContentType("")
	assert.ErrorIs(t, err, ErrSyntax)
}

func TestParseURI(t *testing.T) {
	u, err := ParseURI(`  MailTo:joe@blow.test?subject=%22hi%22&MIME-type="message%2Frfc822"#123 `)
	require.NoError(t, err)
	assert.Equal(t, URI{
		Scheme: "MailTo", Body: "joe@blow.test",
		Query:    []QueryItem{{"subject", "hi"}, {"MIME-type", "message%2Frfc822"}},
		Fragment: "123", HasFragment: true,
	}, u)
	assert.Equal(t, `mailto:joe@blow.test?subject="hi"&MIME-type="message%2Frfc822"#123`, u.String())
	assert.Equal(t, `mailto:joe@blow.test?subject=%22hi%22&MIME-type=%22message%2Frfc822%22#123`, u.Format(StrictURI))
	v, ok := u.Param("mime-type")
	assert.True(t, ok)
	assert.Equal(t, "message/rfc822", Unescape(v))
	_, ok = u.Param("nope")
	assert.False(t, ok)

	u, err = ParseURI("http://x?a=1&flag")
	require.NoError(t, err)
	assert.Equal(t, "//x?a=1&flag", u.Body, "an opaque query stays in the body")
	assert.Empty(t, u.Query)

	u, err = ParseURI("x:y#")
	require.NoError(t, err)
	assert.True(t, u.HasFragment)
	assert.Equal(t, "x:y#", u.String())

	u, err = ParseURI(" x:\u00e9?\u00e9=\u00e9#\u00e9")
	require.NoError(t, err)
	assert.Equal(t, URI{Scheme: "x", Body: "%C3%A9", Query: []QueryItem{{"%C3%A9", "%C3%A9"}}, Fragment: "%C3%A9", HasFragment: true}, u,
		"an IRI is converted first (U1): every part is URI text")

	u, err = ParseURI("http://[fe80::1%25en0]:8080/p")
	require.NoError(t, err, "RFC 6874 zone")
	assert.Equal(t, "//[fe80::1%25en0]:8080/p", u.Body)

	for _, bad := range []string{"http://[v1.x]/", "http://[1.2.3.4]/", "http://a@b@c/", "http://h:80:90/", "http://a[b/", "http://h]/"} {
		_, err = ParseURI(bad)
		assert.ErrorIs(t, err, ErrInvalidURI, bad)
	}
	for _, good := range []string{"http://u:p@h:8080/", "http://[::1]/", "http://h:/", "a://", "a://%C3%A9/", "http://!$&'()*+,;=/"} {
		_, err = ParseURI(good)
		assert.NoError(t, err, good)
	}
}
