package middleware

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/mapping/urlencoded"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMapLabel(t *testing.T) {
	const (
		tag42   = "http://example.com/tag42"
		tag42CT = "application/uri.http%3A%2F%2Fexample.com%2Ftag42"
		xmlBody = `application/xml; URI-body="http://xml.example/foo"`
		xmlURI  = `http://xml.example/foo?MIME-type="application/xml"`
		mailMT  = `mailto:joe@blow.test?MIME-type="message%2Frfc822"#123`
		mailCT  = `message/rfc822; URI-body="mailto%3Ajoe%40blow.test"; URI-fragment="123"`
	)
	tests := []struct {
		name string
		mode Mode
		opts Options
		in   string
		want string // "" with err set: the label comes back unchanged
		err  error
	}{
		{"to-ct leaves a Content-Type", ToContentType, Options{}, "TEXT/Plain;a=b", "TEXT/Plain;a=b", nil},
		{"to-ct leaves even a bad Content-Type", ToContentType, Options{}, "not a label", "not a label", nil},
		{"to-ct maps a URI (draft 3.1)", ToContentType, Options{}, tag42, tag42CT, nil},
		{"to-ct decodes a ContentType URI (3.2)", ToContentType, Options{}, "ContentType:image/jpeg", "image/jpeg", nil},
		{"to-ct controlled mapping (3.3)", ToContentType, Options{}, mailMT, mailCT, nil},
		{"to-ct refuses CRLF", ToContentType, Options{}, "ContentType:text/plain%0D%0AX-Evil:%201", "", mapping.ErrCTL},
		{"to-ct refuses NUL", ToContentType, Options{}, `ContentType:text/plain?a="%00"`, "", mapping.ErrCTL},
		{"to-ct refuses a relative label", ToContentType, Options{}, "ContentType://x", "", mapping.ErrReserved},
		{"to-uri maps a Content-Type (2.1)", ToURI, Options{}, "image/JPEG", "ContentType:image/jpeg", nil},
		{"to-uri leaves a URI", ToURI, Options{}, "http://x/%0D", "http://x/%0D", nil},
		{"to-uri controlled mapping (2.4)", ToURI, Options{}, xmlBody, xmlURI, nil},
		{"to-uri syntax error", ToURI, Options{}, "text", "", mapping.ErrSyntax},
		{"to-uri StrictURI", ToURI, Options{Mapping: []mapping.Option{mapping.StrictURI}}, "image/tiff; application=faxbw", "ContentType:image/tiff?application=%22faxbw%22", nil},
		{"to-uri Lenient", ToURI, Options{Mapping: []mapping.Option{mapping.Lenient}}, "multipart/mixed; boundary=----=_Part_0", `ContentType:multipart/mixed?boundary="----%3D_Part_0"`, nil},
		{"canonical writes a Content-Type canonically", Canonical, Options{}, "TEXT/PLAIN; charset=utf-8", `text/plain; charset="utf-8"`, nil},
		{"canonical leaves a canonical Content-Type", Canonical, Options{}, `text/plain; charset="utf-8"`, `text/plain; charset="utf-8"`, nil},
		{"canonical maps a URI", Canonical, Options{}, tag42, tag42CT, nil},
		{"canonical collapses a wrapped label", Canonical, Options{}, "application/uri.ContentType%3Atext%2Fplain", "text/plain", nil},
		{"canonical syntax error", Canonical, Options{}, "text/", "", mapping.ErrSyntax},
		{"leave leaves anything", Leave, Options{}, "ContentType:text/plain%0D%0A", "ContentType:text/plain%0D%0A", nil},

		{"canonical keeps a boundary", Canonical, Options{}, "Multipart/Form-Data; boundary=xyz", `multipart/form-data; boundary="xyz"`, nil},
		{"canonical keeps a multipart without a boundary", Canonical, Options{}, "multipart/mixed", "multipart/mixed", nil},
		{"canonical refuses to drop a backslash Go keeps", Canonical, Options{}, `multipart/form-data; boundary="a\b"`, "", ErrStructureChange},
		{"canonical refuses it after white space", Canonical, Options{}, " \tmultipart/form-data; boundary=\"a\\b\"", "", ErrStructureChange},
		{"canonical refuses to make a multipart an application", Canonical, Options{}, "multipart/uri.a%3Ab; boundary=x", "", ErrStructureChange},
		{"canonical refuses a boundary encoded again", Canonical, Options{}, `multipart/form-data; boundary="x y"; URI-body="http://a/b"`, "", ErrStructureChange},
		{"to-uri keeps a boundary", ToURI, Options{}, `multipart/form-data; boundary="x y"`, `ContentType:multipart/form-data?boundary="x%20y"`, nil},
		{"to-uri refuses to drop a backslash Go keeps", ToURI, Options{}, `multipart/form-data; boundary="a\b"`, "", ErrStructureChange},
		{"to-uri refuses a boundary encoded again", ToURI, Options{}, `multipart/form-data; boundary="x y"; URI-body="http://a/b"`, "", ErrStructureChange},
		{"to-ct may make a multipart of a URI label", ToContentType, Options{}, `ContentType:multipart/mixed?boundary="x%5Cb"`, `multipart/mixed; boundary="x\\b"`, nil},

		{"NoControlled refuses MIME-type", ToContentType, Options{Mapping: []mapping.Option{mapping.NoControlled}}, mailMT, "", mapping.ErrReservedParam},
		{"NoControlled refuses URI-body", ToURI, Options{Mapping: []mapping.Option{mapping.NoControlled}}, xmlBody, "", mapping.ErrReservedParam},
		{"NoControlled allows the plain mapping", ToContentType, Options{Mapping: []mapping.Option{mapping.NoControlled}}, tag42, tag42CT, nil},

		{"Schemes allow a listed scheme", ToContentType, Options{Schemes: []string{"HTTP"}}, tag42, tag42CT, nil},
		{"Schemes refuse another", ToContentType, Options{Schemes: []string{"https"}}, tag42, "", ErrSchemeNotAllowed},
		{"Schemes always allow ContentType", ToContentType, Options{Schemes: []string{"https"}}, "ContentType:image/jpeg", "image/jpeg", nil},
		{"Schemes see through a ContentType wrapper", ToContentType, Options{Schemes: []string{"https"}}, "ContentType:application/uri.http%253A%252F%252Fx", "", ErrSchemeNotAllowed},
		{"Schemes check a produced URI", ToURI, Options{Schemes: []string{"https"}}, "application/uri.http%3A%2F%2Fx", "", ErrSchemeNotAllowed},
		{"Schemes check a URI-body", ToURI, Options{Schemes: []string{"https"}}, xmlBody, "", ErrSchemeNotAllowed},
		{"Schemes allow ContentType output", ToURI, Options{Schemes: []string{"https"}}, "text/plain", "ContentType:text/plain", nil},
		{"Schemes check a canonical uri. type", Canonical, Options{Schemes: []string{"https"}}, "application/uri.http%3A%2F%2Fx", "", ErrSchemeNotAllowed},
		{"Schemes check a canonical URI-body", Canonical, Options{Schemes: []string{"https"}}, xmlBody, "", ErrSchemeNotAllowed},
		{"Schemes pass a canonical native type", Canonical, Options{Schemes: []string{"https"}}, "TEXT/plain", "text/plain", nil},
		{"Schemes ignore labels left alone", ToContentType, Options{Schemes: []string{"https"}}, "application/uri.http%3A%2F%2Fx", "application/uri.http%3A%2F%2Fx", nil},

		{"MaxLabelLen refuses a long label", ToContentType, Options{MaxLabelLen: 10}, tag42, "", ErrLabelTooLong},
		{"MaxLabelLen ignores labels left alone", ToContentType, Options{MaxLabelLen: 10}, "application/octet-stream", "application/octet-stream", nil},
		{"default limit", ToContentType, Options{}, "http://x/" + strings.Repeat("a", DefaultMaxLabelLen), "", ErrLabelTooLong},
		{"no limit", ToContentType, Options{MaxLabelLen: -1}, "http://x/" + strings.Repeat("a", DefaultMaxLabelLen), "application/uri.http%3A%2F%2Fx%2F" + strings.Repeat("a", DefaultMaxLabelLen), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rw := newRewriter(tt.opts)
			out, _, err := rw.mapLabel(tt.in, tt.mode)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.Equal(t, tt.in, out, "a label that cannot be mapped comes back unchanged")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
			assert.True(t, validHeaderValue(out))
		})
	}
}

// TestSchemeNotAllowedNamesIt: the error names the scheme refused, the
// one a wrapped label names too, and cuts a long one short.
func TestSchemeNotAllowedNamesIt(t *testing.T) {
	rw := newRewriter(Options{Schemes: []string{"https"}})
	long := "x" + strings.Repeat("y", 100)
	for _, tt := range []struct {
		mode      Mode
		in, quote string
	}{
		{ToContentType, "ftp://example.com/a", `"ftp"`},
		{ToURI, "application/uri.urn%3Aisbn%3A1", `"urn"`},
		{ToContentType, long + ":z", `"x` + strings.Repeat("y", 63) + `..."`},
		{ToContentType, long[:64] + ":z", `"x` + strings.Repeat("y", 63) + `"`}, // 64 octets: whole
		{ToContentType, long[:65] + ":z", `"x` + strings.Repeat("y", 63) + `..."`},
	} {
		_, _, err := rw.mapLabel(tt.in, tt.mode)
		require.ErrorIs(t, err, ErrSchemeNotAllowed)
		assert.EqualError(t, err, "middleware: URI scheme not allowed: "+tt.quote)
	}
}

// TestMapLabelMatchesMapping checks each mode against the mapping function
// it stands for, over the SPEC vectors' inputs.
func TestMapLabelMatchesMapping(t *testing.T) {
	rw := newRewriter(Options{MaxLabelLen: -1})
	for _, in := range vectorInputs(t) {
		for _, m := range []Mode{ToContentType, ToURI, Canonical} {
			got, _, gotErr := rw.mapLabel(in, m)
			var want string
			var wantErr error
			switch {
			case m == Canonical:
				want, wantErr = mapping.Canonical(in)
			case m == ToContentType && mapping.Detect(in) == mapping.DirectionToContentType:
				want, wantErr = mapping.ToContentType(in)
			case m == ToURI && mapping.Detect(in) == mapping.DirectionToURI:
				want, wantErr = mapping.ToURI(in)
			default:
				want = in
			}
			if wantErr != nil {
				assert.Equal(t, mapping.KindOf(wantErr), mapping.KindOf(gotErr), "%s %q", m, in)
				assert.Equal(t, in, got)
				continue
			}
			assert.NoError(t, gotErr, "%s %q", m, in)
			assert.Equal(t, want, got, "%s %q", m, in)
		}
	}
}

func TestNewRewriterPanicsOnBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"request mode":  {Request: Leave + 1},
		"response mode": {Response: 200},
		"policy":        {Unmappable: PassThrough + 1},
		"scheme colon":  {Schemes: []string{"http:"}},
		"scheme empty":  {Schemes: []string{""}},
		"scheme digit":  {Schemes: []string{"1http"}},
	} {
		assert.Panics(t, func() { Rewrite(o) }, name)
		// The proxy helpers check opts as Rewrite does, when built.
		assert.Panics(t, func() { ProxyRewrite(o, nil) }, name)
		assert.Panics(t, func() { ProxyModifyResponse(o, nil) }, name)
	}
	assert.NotPanics(t, func() { Rewrite(Options{Schemes: []string{"a+b-c.d"}}) })
}

func TestOptionsAreCopied(t *testing.T) {
	o := Options{Schemes: []string{"https"}, Mapping: []mapping.Option{mapping.NoControlled}}
	rw := newRewriter(o)
	o.Schemes[0] = "http"
	o.Mapping[0] = mapping.Lenient
	_, _, err := rw.mapLabel("http://x", ToContentType)
	assert.ErrorIs(t, err, ErrSchemeNotAllowed)
	_, _, err = rw.mapLabel(`mailto:a@b?MIME-type="text%2Fplain"`, ToContentType)
	assert.ErrorIs(t, err, mapping.ErrReservedParam)
}

func TestURIScheme(t *testing.T) {
	for in, want := range map[string]string{
		"http://x":           "http",
		" \tContentType:a/b": "ContentType",
		"a+b.c-d:x":          "a+b.c-d",
		"text/plain; a=b:c":  "",
		"1a:b":               "",
		":x":                 "",
		"nocolon":            "",
	} {
		assert.Equal(t, want, uriScheme(in), in)
	}
}

func TestValidHeaderValue(t *testing.T) {
	for in, want := range map[string]bool{
		`text/plain; a="x	y"`: true, // HTAB in a value
		"text/plain; a=\"é\"": true, // obs-text
		"":                    true,
		"a\rb":                false,
		"a\nb":                false,
		"a\x00b":              false,
		"a\x7fb":              false,
		"a\x1bb":              false,
	} {
		assert.Equal(t, want, validHeaderValue(in), "%q", in)
	}
}

func TestModeString(t *testing.T) {
	for m, s := range map[Mode]string{ToContentType: "to-ct", ToURI: "to-uri", Canonical: "canonical", Leave: "leave", 9: "Mode(9)"} {
		assert.Equal(t, s, m.String())
	}
}

func TestErrorKind(t *testing.T) {
	_, merr := mapping.ToContentType("ContentType:a%0Ab/c")
	_, utf8Err := urlencoded.Decode("a=%FF")
	_, pairsErr := urlencoded.Decoder{MaxPairs: 1}.Decode("a;b")
	tests := []struct {
		err    error
		kind   string
		status int
	}{
		{ErrMultipleLabels, "multiple-labels", 415},
		{ErrLabelTooLong, "too-long", 415},
		{ErrSchemeNotAllowed, "scheme-not-allowed", 415},
		{ErrStructureChange, "structure-change", 415},
		{ErrInvalidHeaderValue, "invalid-header-value", 415},
		{merr, "ctl", 415},
		{errors.New("other"), "unknown", 415},
		{ErrFormTooLarge, "form-too-large", 413},
		{formBodyError{ErrFormTooLarge, &http.MaxBytesError{Limit: 1}}, "form-too-large", 413},
		{formBodyError{ErrFormTooLarge, fmt.Errorf("inflate: %w", &http.MaxBytesError{Limit: 1})}, "form-too-large", 413},
		{&http.MaxBytesError{Limit: 1}, "form-too-large", 413}, // an Error built by hand
		{utf8Err, "form-bad-utf8", 400},
		{pairsErr, "form-too-many-pairs", 400},
		{formBodyError{ErrFormUnreadable, io.ErrUnexpectedEOF}, "form-unreadable", 400},
	}
	for _, tt := range tests {
		e := &Error{Side: SideRequest, Label: "l", Err: tt.err}
		assert.Equal(t, tt.kind, e.Kind())
		assert.ErrorIs(t, e, tt.err)
		what := "the request's Content-Type label cannot be mapped"
		switch {
		case tt.kind == "form-unreadable":
			what = "the request body cannot be read"
		case strings.HasPrefix(tt.kind, "form-"):
			what = "the request body cannot be decoded as application/www-form-urlencoded"
		}
		assert.True(t, strings.HasPrefix(e.Error(), "middleware: "+what+" ("+tt.kind+"): "), e.Error())
		assert.Equal(t, 1, strings.Count(e.Error(), "middleware: "), "the package's prefix once: %s", e.Error())
		assert.Equal(t, tt.status, status(e.Kind()))
		assert.NotContains(t, e.Error(), "\n")
	}
	// A hand-built Error around a typed nil (a caller's bug) is of no
	// kind the package knows, and Kind does not panic on it.
	for _, err := range []error{(*mapping.Error)(nil), (*urlencoded.Error)(nil), fmt.Errorf("form: %w", (*urlencoded.Error)(nil))} {
		e := &Error{Side: SideRequest, Label: "l", Err: err}
		require.NotPanics(t, func() { assert.Equal(t, "unknown", e.Kind(), "%#v", err) })
	}
	var me *mapping.Error
	require.ErrorAs(t, &Error{Side: SideResponse, Err: merr}, &me)
	assert.Equal(t, mapping.KindCTL, me.Kind)
	assert.Equal(t, "response", SideResponse.String())
	assert.Equal(t, "Side(0)", Side(0).String())
}

// The word-at-a-time check agrees with the octet-by-octet one for every
// octet value at every position of every alignment.
func TestValidHeaderValueEveryOctet(t *testing.T) {
	base := []byte("application/uri.x%3Ay; a=\"b\"") // 29 octets: 3 words and a tail
	for pos := range base {
		for c := range 256 {
			b := append([]byte(nil), base...)
			b[pos] = byte(c)
			want := (c >= 0x20 || c == '\t') && c != 0x7F
			if got := validHeaderValue(string(b)); got != want {
				t.Fatalf("octet 0x%02X at %d: got %v", c, pos, got)
			}
		}
	}
}
