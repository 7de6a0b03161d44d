package mapping

import (
	"testing"

	"github.com/cturi/cturi/internal/vectors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vector is one row of testdata/vectors.tsv (a copy of the project's
// shared vectors: direction, input, expected, section, note).
type vector struct {
	line            int
	direction       string
	input, expected string
	section, note   string
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	var vs []vector
	for _, v := range vectors.Load(t, "testdata/vectors.tsv") {
		vs = append(vs, vector{v.Line, v.Direction, v.Input, v.Expected, v.Section, v.Note})
	}
	return vs
}

// apply runs a vector's direction and renders the result as the file does.
func (v vector) apply() string {
	return v.applyWith(ToURI, ToContentType)
}

// applyGeneral is apply without the direct paths (direct.go).
func (v vector) applyGeneral() string {
	toURI := func(s string, opts ...Option) (string, error) { return toURIGeneral(nil, s, optionsOf(opts), 0) }
	toCT := func(s string, opts ...Option) (string, error) {
		return toContentTypeGeneral(nil, s, optionsOf(opts), 0)
	}
	return v.applyWith(toURI, toCT)
}

func (v vector) applyWith(toURI, toCT func(string, ...Option) (string, error)) string {
	var out string
	var err error
	switch v.direction {
	case "ct2uri":
		out, err = toURI(v.input)
	case "ct2uri-strict":
		out, err = toURI(v.input, StrictURI)
	case "ct2uri-lenient":
		out, err = toURI(v.input, Lenient)
	case "uri2ct":
		out, err = toCT(v.input)
	default:
		return "unknown direction " + v.direction
	}
	if err != nil {
		return "ERROR:" + KindOf(err).String()
	}
	return out
}

func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	require.Greater(t, len(vs), 200, "the vector file should hold the whole shared set")
	for _, v := range vs {
		t.Run(v.direction+"/"+v.input, func(t *testing.T) {
			assert.Equal(t, v.expected, v.apply(), "line %d, §%s: %s", v.line, v.section, v.note)
			assert.Equal(t, v.expected, v.applyGeneral(), "general path, line %d", v.line)
		})
	}
}

// TestBoundaryVectors adds, in the vector file's form, the boundary cases
// of SPEC C1-C2, K0-K4, U1-U9 and R1-R2 that the shared vectors leave out.
// Each runs through the public functions and the general path, so that a
// rule broken in either path fails here.
func TestBoundaryVectors(t *testing.T) {
	const u, l, c = "ct2uri", "ct2uri-lenient", "uri2ct"
	tests := []struct {
		rule                       string
		direction, input, expected string
	}{
		// HTAB: white space (C1, C2), allowed in quoted-strings and
		// comments, never in a token; never in a URI (U4), and a CTL
		// when decoded anywhere but in a ContentType: value (R1, R2.2).
		{"C2 HTAB as WSP", u, "text/plain\t;\ta\t=\tb\t", `ContentType:text/plain?a="b"`},
		{"C1 outer HTAB", u, "\ttext/plain\t", "ContentType:text/plain"},
		{"C2 HTAB in a comment", u, "text/plain (a\tb)", "ContentType:text/plain"},
		{"C2 HTAB in a quoted-string", u, "text/plain; a=\"x\ty\"", `ContentType:text/plain?a="x%09y"`},
		{"C2 HTAB in a subtype", u, "text/pl\tain", "ERROR:syntax"},
		{"C2 HTAB ends a token", u, "text/plain; a=b\tc", "ERROR:syntax"},
		{"C2 HTAB ends a Lenient value", l, "text/plain; a=b\tc", "ERROR:syntax"},
		{"K1.3 HTAB repaired", u, "application/uri.x%3Ay; k=\"\t\"", `x:y?k="%09"`},
		{"K4 HTAB repaired", u, "text/plain; URI-fragment=\"\t\"", "ContentType:text/plain#%09"},
		{"U2 outer HTAB", c, "\tx:y\t", "application/uri.x%3Ay"},
		{"U4 inner HTAB", c, "x:y\tz", "ERROR:invalid-uri"},
		{"R1.4 decoded HTAB in a value", c, "ContentType:a/b?a=%09", "a/b; a=\"\t\""},
		{"R1.1 decoded HTAB in a subtype", c, "ContentType:a/b%09", "ERROR:ctl"},
		{"R2.2 decoded HTAB in a MIME-type", c, "x:y?MIME-type=a/b%09", "ERROR:ctl"},
		{"R2.4 HTAB stays encoded", c, "x:y?k=%09", `application/uri.x%3Ay; k="%2509"`},

		// Empty values, empty subtypes, trailing ';'.
		{"K1.3 empty value", u, `application/uri.x%3Ay; a=""`, `x:y?a=""`},
		{"K2 empty value", u, `text/xml; a=""; URI-body="x:y"`, `x:y?a=""&MIME-type="text/xml"`},
		{"K4 empty fragment of a native CT", u, `text/plain; URI-fragment=""`, "ContentType:text/plain#"},
		{"C2 empty subtype before ';'", u, "text/;a=b", "ERROR:syntax"},
		{"C2 trailing ';' after a uri. subtype", u, "application/uri.x%3Ay;", "x:y"},
		{"K0.4 a trailing ';' is no parameter", u, "application/uri.x%3Ay%3Fflag; ;URI-fragment=f;", "x:y?flag#f"},
		{"K2 trailing ';'", u, `text/plain; URI-body="x:y";`, `x:y?MIME-type="text/plain"`},
		{"U8 empty, quoted and %22-quoted values", c, `ContentType:a/b?a=&b=""&c=%22%22`, `a/b; a=""; b=""; c=""`},
		{"U8 %22%22 is the empty value", c, "x:y?a=%22%22", `application/uri.x%3Ay; a=""`},
		{"U8 a lone '\"'", c, `x:y?a="`, "ERROR:invalid-uri"},
		{"U8 a lone %22 is data", c, "x:y?a=%22", `application/uri.x%3Ay; a="%2522"`},
		{"R1.2 empty subtype", c, "ContentType:text/", "ERROR:bad-mime-type"},
		{"R1.2 empty type", c, "ContentType:/plain", "ERROR:bad-mime-type"},
		{"R2.2 empty subtype", c, "x:y?MIME-type=text/", "ERROR:bad-mime-type"},
		{"R2.2 empty value", c, "x:y?MIME-type=", "ERROR:bad-mime-type"},
		{"U8 empty items of a ContentType: URI", c, "ContentType:text/plain?&&", "text/plain"},

		// Hex case: encoders and REPAIR write upper case; a triplet that
		// is URI text keeps its case (N1).
		{"K0.5 REPAIR writes upper-case hex", u, "application/uri.x%3Ay%7c", "x:y%7C"},
		{"K0.5 a triplet of the URI keeps its case", u, "application/uri.x%3Ay%252f", "x:y%2f"},
		{"K1.3 name and value repaired upper-case", u, "application/uri.x%3Ay; a%3d=%7c", `x:y?a%3D="%7C"`},
		{"K3 native values are never decoded", u, `text/plain; a="%2f"`, `ContentType:text/plain?a="%252f"`},
		{"R1 decodes either case", c, "ContentType:TEXT%2fPLAIN?A=%4a%4A", `text/plain; A="JJ"`},
		{"R2 keeps the URI's hex case", c, "X:Y%2f?A=%4a#%4b", `application/uri.x%3AY%252f; A="%254a"; URI-fragment="%254b"`},
		{"N1 hex case comes back", u, `application/uri.x%3AY%252f; A="%254a"; URI-fragment="%254b"`, `x:Y%2f?A="%4a"#%4b`},

		// '%' at the end of the input or not starting a triplet.
		{"K3 '%' in a subtype", u, "text/plain%", "ContentType:text/plain%25"},
		{"K3 '%' as a token value", u, "text/plain; a=%", `ContentType:text/plain?a="%25"`},
		{"K0.5 decoded '%' at the end", u, "application/uri.x%3Ay%", "x:y%25"},
		{"K0.5 decoded '%' and one hex digit", u, "application/uri.x%3Ay%2", "x:y%252"},
		{"K1.3, K4 '%' repaired", u, `application/uri.x%3Ay; a="%"; URI-fragment="%4"`, `x:y?a="%25"#%254`},
		{"K2 '%' at the end of URI-body", u, `text/plain; URI-body="x:y%"`, `x:y%25?MIME-type="text/plain"`},
		{"U7 '%' ends the body", c, "x:y%", "ERROR:invalid-uri"},
		{"U8 '%' ends a value", c, "x:y?a=%", "ERROR:invalid-uri"},
		{"U8 '%' and one hex digit", c, "x:y?a=%2", "ERROR:invalid-uri"},
		{"U8 '%' ends an opaque query", c, "x:y?%", "ERROR:invalid-uri"},
		{"U7 '%' ends the fragment", c, "x:y#%", "ERROR:invalid-uri"},
		{"U7 '%' ends a ContentType: body", c, "ContentType:a/b%", "ERROR:invalid-uri"},

		// Non-ASCII octets.
		{"C2 non-ASCII in a type", u, "t\xc3\xa9xt/plain", "ERROR:syntax"},
		{"C2 non-ASCII in a name", u, "text/plain; n\xc3\xa9=1", "ERROR:syntax"},
		{"C2 non-ASCII in a token value", u, "text/plain; n=\xc3\xa9", "ERROR:syntax"},
		{"C2 non-ASCII in a Lenient value", l, "text/plain; n=\xc3\xa9", "ERROR:syntax"},
		{"C2 '(' is part of a Lenient value", l, "text/plain; a=b(c)", `ContentType:text/plain?a="b%28c%29"`},
		{"C2 a comment after a token value", u, "text/plain; a=b(c d)", `ContentType:text/plain?a="b"`},
		{"C2 a comment after a Lenient value needs WSP", l, "text/plain; a=b(c d)", "ERROR:syntax"},
		{"C2 WSP before a comment after a Lenient value", l, "text/plain; a=b (c d)", `ContentType:text/plain?a="b"`},
		{"C2 non-ASCII in a comment", u, "text/plain (\xc3\xa9)", "ContentType:text/plain"},
		{"K1.3 non-ASCII repaired", u, "application/uri.x%3Ay; n=\"\xc3\xa9\"", `x:y?n="%C3%A9"`},
		{"K4 non-ASCII repaired", u, "text/plain; URI-fragment=\"\xc3\xa9\"", "ContentType:text/plain#%C3%A9"},
		{"U1 IRI everywhere", c, "x:caf\xc3\xa9?\xc3\xa9=\xc3\xa9#\xc3\xa9", `application/uri.x%3Acaf%25C3%25A9; %25C3%25A9="%25C3%25A9"; URI-fragment="%25C3%25A9"`},
		{"U1 a surrogate", c, "x:\xed\xa0\x80", "ERROR:invalid-uri"},
		{"R1.4 decoded UTF-8 in a value", c, "ContentType:a/b?n=%C3%A9", "a/b; n=\"\xc3\xa9\""},
		{"R1.4 decoded non-ASCII in a name", c, "ContentType:a/b?n%C3%A9=1", "ERROR:bad-param-name"},
		{"R1.2 decoded non-ASCII in a subtype", c, "ContentType:a/%C3%A9", "ERROR:bad-mime-type"},
		{"R2.2 decoded non-ASCII in a MIME-type", c, "x:y?MIME-type=a/%C3%A9", "ERROR:bad-mime-type"},
		{"R1.5 a fragment is not decoded", c, "ContentType:a/b#%FF", `a/b; URI-fragment="%25FF"`},

		// Rules no shared vector reaches.
		{"C2 no WSP before '/'", u, "text /plain", "ERROR:syntax"},
		{"C2 no WSP after '/'", u, "text/ plain", "ERROR:syntax"},
		{"K3 names through ENC_U", u, `text/plain; a%b=1; a#b="x" (c)`, `ContentType:text/plain?a%25b="1"&a%23b="x"`},
		{"K4 '#' in a fragment value", u, `text/plain; URI-fragment="a#b"`, "ContentType:text/plain#a%23b"},
		{"K0.5 an opaque query is repaired for QUERY", u, "application/uri.x%3Ay%3Fa%5Bb%3Fc", "x:y?a%5Bb?c"},
		{"U7 brackets in a body", c, "x:[a]", "application/uri.x%3A%5Ba%5D"},
		{"U7 no brackets in a fragment", c, "x:y#[a]", "ERROR:invalid-uri"},
		{"U8 no brackets in a value", c, "x:y?a=[", "ERROR:invalid-uri"},
		{"U8 no brackets in an opaque query", c, "x:y?[", "ERROR:invalid-uri"},
		{"U9 matches the raw name", c, "x:y?URI%2Dbody=1", `application/uri.x%3Ay; URI%252Dbody="1"`},
		{"R2.1 matches the raw name", c, "x:y?MIME%2Dtype=a/b", `application/uri.x%3Ay; MIME%252Dtype="a%2Fb"`},
		{"R0.14 a name that only starts with URI-body", u, `text/plain; URI-bodyx="x:y"`, `ContentType:text/plain?URI-bodyx="x%3Ay"`},
		{"R0.14 a name that only starts with MIME-type", c, " x:y?MIME-typex=a/b", `application/uri.x%3Ay; MIME-typex="a%2Fb"`},
		{"K4 a decoded '&' stays in the fragment", u, `application/uri.x%3Ay; URI-fragment="a%26b"`, "x:y#a&b"},
		{"R0.15 an item starting with '=' is opaque", u, "application/uri.x%3Ay%3F%3Da%3Db", "x:y?=a=b"},
		{"R1.2 a second '/'", c, "ContentType:a/b/c", "ERROR:bad-mime-type"},
	}
	for _, tt := range tests {
		v := vector{direction: tt.direction, input: tt.input, expected: tt.expected}
		assert.Equal(t, tt.expected, v.apply(), "%s: %s %q", tt.rule, tt.direction, tt.input)
		assert.Equal(t, tt.expected, v.applyGeneral(), "%s (general path): %s %q", tt.rule, tt.direction, tt.input)
	}
}
