package mapping

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/vectors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The media types that exist in the wild, mapped: every name of the npm
// package mime-db and of Debian's media-types (testdata/mime-db-types.txt
// and testdata/media-types.txt, from scripts/mediatypes.sh), bare, in
// upper case, with the parameters real labels carry, and as ContentType:
// URIs written as other software might write them.

// corpusName is the shape every fixture name has: RFC 6838's
// restricted-name on both sides of the '/', without '!', '#', '$', '&' and
// '^', which no name in the corpora uses. Every octet it allows is one
// ENC_U leaves as it is (SPEC R0.8), so that a name's URI is plain
// concatenation below. A new name with one of those five fails here: the
// expectations must then percent-encode its '#', '&' or '^' (ENC_U keeps
// '!' and '$'), and the URI forms that write a name as it is must too.
var corpusName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*/[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// loadCorpus returns the names of the fixtures, in order, and checks each
// fixture's size (vectors.MediaTypeFiles) and that every name is one of
// corpusName, unique in its file.
func loadCorpus(t testing.TB) []string {
	t.Helper()
	names := vectors.MediaTypeNames(t, "..")
	for _, s := range names {
		require.Regexp(t, corpusName, s)
	}
	return names
}

// corpusCase is one label built from a corpus name: the Content-Type or
// URI in, and the URI (default delimiters) and Content-Type SPEC gives.
type corpusCase struct {
	in      string
	opts    Option // Lenient or 0
	uri, ct string
	errKind Kind // a Content-Type SPEC refuses: the kind, uri and ct empty
}

// corpusForms are the labels built from one name, by form. x is the name
// as the corpus writes it, lc in lower case (SPEC R0.13).
var corpusForms = []struct {
	name string
	make func(x, lc string) (corpusCase, bool) // false: not for this name
}{
	// K3: ContentType: and the name lower-cased (R0.13), each octet kept
	// (R0.8); R1 gives it back lower-cased.
	{"bare", func(x, lc string) (corpusCase, bool) {
		return corpusCase{in: x, uri: "ContentType:" + lc, ct: lc}, true
	}},
	{"upper case", func(x, lc string) (corpusCase, bool) {
		return corpusCase{in: strings.ToUpper(x), uri: "ContentType:" + lc, ct: lc}, true
	}},
	// C2 and K3 on the parameters real labels carry: names keep their
	// case (R0.13), values are ENC_U-encoded (R0.8) between '"' (K5), and
	// R1.4 quotes them; comments and the WSP around '=' and ';' go (C2).
	{"charset", func(x, lc string) (corpusCase, bool) {
		return corpusCase{
			in:  x + "; charset=utf-8",
			uri: "ContentType:" + lc + `?charset="utf-8"`,
			ct:  lc + `; charset="utf-8"`,
		}, strings.HasPrefix(lc, "text/")
	}},
	{"Charset, no space, comment", func(x, lc string) (corpusCase, bool) {
		return corpusCase{
			in:  x + ";Charset = \"UTF-8\" (Unicode)\t; format=flowed;",
			uri: "ContentType:" + lc + `?Charset="UTF-8"&format="flowed"`,
			ct:  lc + `; Charset="UTF-8"; format="flowed"`,
		}, strings.HasPrefix(lc, "text/")
	}},
	{"quoted boundary", func(x, lc string) (corpusCase, bool) {
		return corpusCase{
			in:  x + `; boundary="----=_Part_0_1.2"`,
			uri: "ContentType:" + lc + `?boundary="----%3D_Part_0_1.2"`,
			ct:  lc + `; boundary="----=_Part_0_1.2"`,
		}, strings.HasPrefix(lc, "multipart/")
	}},
	// C2: the unquoted boundary mail software writes is a syntax error by
	// default (a=b=c) and the same value under Lenient.
	{"unquoted boundary", func(x, lc string) (corpusCase, bool) {
		return corpusCase{in: x + "; boundary=----=_Part_0_1.2", errKind: KindSyntax},
			strings.HasPrefix(lc, "multipart/")
	}},
	{"unquoted boundary, Lenient", func(x, lc string) (corpusCase, bool) {
		return corpusCase{
			in:   x + "; boundary=----=_Part_0_1.2",
			opts: Lenient,
			uri:  "ContentType:" + lc + `?boundary="----%3D_Part_0_1.2"`,
			ct:   lc + `; boundary="----=_Part_0_1.2"`,
		}, strings.HasPrefix(lc, "multipart/")
	}},
	// A quoted value with white space, a comment's parentheses, a
	// quoted-pair and UTF-8 (C2), then an RFC 2231 value, a token to
	// ENC_U and R1.4, which leave its '%' triplets text.
	{"quoted name, RFC 2231 name*", func(x, lc string) (corpusCase, bool) {
		return corpusCase{
			in:  x + "; name=\"Q3 (final) \\\"r\u00e9sum\u00e9\\\".pdf\"; name*=utf-8''r%C3%A9sum%C3%A9.pdf",
			uri: "ContentType:" + lc + `?name="Q3%20%28final%29%20%22r%C3%A9sum%C3%A9%22.pdf"&name*="utf-8''r%25C3%25A9sum%25C3%25A9.pdf"`,
			ct:  lc + "; name=\"Q3 (final) \\\"r\u00e9sum\u00e9\\\".pdf\"; name*=\"utf-8''r%C3%A9sum%C3%A9.pdf\"",
		}, true
	}},
	// R1 from the URI side: the scheme in any case (R0.13), every octet
	// percent-encoded in lower-case hex (R0.10, R0.1), a URL normaliser's
	// %22 delimiters (U8), outer WSP (U2), an empty query (U8).
	{"ContentType: URI, scheme and name in upper case", func(x, lc string) (corpusCase, bool) {
		return corpusCase{in: "CONTENTTYPE:" + strings.ToUpper(x), uri: "ContentType:" + lc, ct: lc}, true
	}},
	{"ContentType: URI, every octet encoded", func(x, lc string) (corpusCase, bool) {
		var b strings.Builder
		for i := 0; i < len(x); i++ {
			fmt.Fprintf(&b, "%%%02x", x[i])
		}
		return corpusCase{in: " contenttype:" + b.String() + "?&charset=%22utf-8%22&\t",
			uri: "ContentType:" + lc + `?charset="utf-8"`, ct: lc + `; charset="utf-8"`}, true
	}},
	// The same in upper-case hex but for the '/', with '"' delimiters and
	// nothing around it: the form above takes only ToContentType's general
	// path (its white space, %2F and %22 delimiters rule the direct one
	// out), so this is the one whose decoded letters the direct path must
	// lower-case too (R1.3).
	{"ContentType: URI, every octet but '/' encoded, upper-case hex", func(x, lc string) (corpusCase, bool) {
		var b strings.Builder
		for i := 0; i < len(x); i++ {
			if x[i] == '/' {
				b.WriteByte('/')
			} else {
				fmt.Fprintf(&b, "%%%02X", x[i])
			}
		}
		return corpusCase{in: "ContentType:" + b.String() + `?charset="utf-8"`,
			uri: "ContentType:" + lc + `?charset="utf-8"`, ct: lc + `; charset="utf-8"`}, true
	}},
}

func TestCorpus(t *testing.T) {
	names := loadCorpus(t)
	for _, form := range corpusForms {
		t.Run(form.name, func(t *testing.T) {
			n := 0
			var problems []string
			for _, x := range names {
				if c, ok := form.make(x, strings.ToLower(x)); ok {
					n++
					problems = append(problems, corpusProblems(c)...)
				}
			}
			require.Positive(t, n, "no corpus name takes this form")
			assert.Zerof(t, len(problems), "the first of them:\n%s", strings.Join(problems[:min(len(problems), 20)], "\n"))
		})
	}
}

// corpusProblems maps c both ways, directly and on the general path, and
// holds the results to c and to SPEC N4 and S. It returns what differs,
// one line each: testify's checks cost two stack walks each (Helper),
// which for every octet of 30,000 labels would take seconds.
func corpusProblems(c corpusCase) []string {
	var problems []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	equal := func(want, got string, err error, format string, args ...any) {
		if err != nil || got != want {
			problems = append(problems, fmt.Sprintf(format, args...)+fmt.Sprintf(" = %q, %v; want %q", got, err, want))
		}
	}
	isURI := strings.Contains(c.in, ":")
	d := DirectionToURI
	if isURI {
		d = DirectionToContentType
	}
	check(Detect(c.in) == d, "R0.17: Detect(%q) = %v", c.in, Detect(c.in))
	if c.errKind != 0 {
		_, err := ToURI(c.in, c.opts)
		check(KindOf(err) == c.errKind, "ToURI(%q): %v; want %v", c.in, err, c.errKind)
		_, err = toURIGeneral(nil, c.in, c.opts, 0)
		check(KindOf(err) == c.errKind, "general path: ToURI(%q): %v; want %v", c.in, err, c.errKind)
		return problems
	}
	if isURI {
		got, err := ToContentType(c.in)
		equal(c.ct, got, err, "ToContentType(%q)", c.in)
		got, err = toContentTypeGeneral(nil, c.in, 0, 0)
		equal(c.ct, got, err, "general path: ToContentType(%q)", c.in)
	} else {
		for _, f := range []Option{c.opts, c.opts | StrictURI} {
			want := c.uri
			if f&StrictURI != 0 {
				want = strings.ReplaceAll(want, `"`, "%22") // K5
			}
			u, err := ToURI(c.in, f)
			equal(want, u, err, "ToURI(%q, %v)", c.in, f)
			g, err := toURIGeneral(nil, c.in, f, 0)
			equal(want, g, err, "general path: ToURI(%q, %v)", c.in, f)
			problems = append(problems, uriOutputProblems(u, f&StrictURI != 0)...)
			back, err := ToContentType(u)
			equal(c.ct, back, err, "ToContentType(ToURI(%q, %v))", c.in, f)
		}
		// R0.13, R4: the parsed form formats as the canonical Content-Type.
		p, err := ParseContentType(c.in, c.opts)
		equal(c.ct, p.String(), err, "ParseContentType(%q).String()", c.in)
		out, dir, err := Map(c.in, c.opts)
		equal(c.uri, out, err, "Map(%q)", c.in)
		check(dir == DirectionToURI, "Map(%q) went %v", c.in, dir)
	}
	// S: no control character, canonical form (R4), Detect (R0.17).
	check(strings.IndexFunc(c.ct, func(r rune) bool { return r < 0x20 || r == 0x7F }) < 0, "control character in %q", c.ct)
	p, err := ParseContentType(c.ct)
	equal(c.ct, p.String(), err, "ParseContentType(%q).String()", c.ct)
	check(Detect(c.ct) == DirectionToURI, "R0.17: Detect(%q) = %v", c.ct, Detect(c.ct))
	// N4: the canonical Content-Type, and the URI, are fixed points.
	for _, in := range []string{c.in, c.uri, c.ct} {
		got, err := Canonical(in, c.opts)
		equal(c.ct, got, err, "Canonical(%q)", in)
	}
	u, err := ToURI(c.ct)
	equal(c.uri, u, err, "ToURI(%q)", c.ct)
	return problems
}

// uriOutputProblems is checkURIOutput without testify (SPEC S): printable
// ASCII only, no '"' with StrictURI (K5), accepted by url.Parse, and a
// URI to Detect (R0.17).
func uriOutputProblems(u string, strict bool) []string {
	var problems []string
	for i := 0; i < len(u); i++ {
		if c := u[i]; c <= 0x20 || c >= 0x7F || strict && c == '"' {
			problems = append(problems, fmt.Sprintf("S: URI %q has %q at %d", u, c, i))
		}
	}
	if _, err := url.Parse(u); err != nil {
		problems = append(problems, fmt.Sprintf("url.Parse(%q): %v", u, err))
	}
	if Detect(u) != DirectionToContentType {
		problems = append(problems, fmt.Sprintf("R0.17: Detect(%q) = %v", u, Detect(u)))
	}
	return problems
}

// TestCorpusSharedMIMEInfo: from shared-mime-info 2.2 (its
// freedesktop.org.xml, GPL-2+, which the fixtures therefore leave out; its
// 1,154 names and aliases were checked as the fixtures' are, once), the
// mixed-case names that neither fixture holds in any case, whose case
// SPEC R0.13 folds, and XML namespaces its root-XML rules name, real URI
// labels: each maps to the Content-Type R2 gives (the URI kept byte for
// byte, case included, inside application/uri.), and back (N1).
func TestCorpusSharedMIMEInfo(t *testing.T) {
	for _, x := range []string{
		"application/vnd.ms-visio.drawing.macroEnabled.main+xml",
		"application/vnd.ms-visio.stencil.macroEnabled.main+xml",
		"application/vnd.ms-visio.template.macroEnabled.main+xml",
		"audio/x-iMelody",
		"audio/iMelody",
		"text/x-iMelody",
	} {
		lc := strings.ToLower(x)
		problems := corpusProblems(corpusCase{in: x, uri: "ContentType:" + lc, ct: lc})
		assert.Zerof(t, len(problems), "%s", strings.Join(problems, "\n"))
	}
	for _, tt := range []struct{ uri, ct string }{
		{"http://www.w3.org/2000/svg", "application/uri.http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg"},
		{"http://www.w3.org/1998/Math/MathML", "application/uri.http%3A%2F%2Fwww.w3.org%2F1998%2FMath%2FMathML"},
		{"http://www.w3.org/1999/02/22-rdf-syntax-ns#", `application/uri.http%3A%2F%2Fwww.w3.org%2F1999%2F02%2F22-rdf-syntax-ns; URI-fragment=""`},
		{"http://www.daa.com.au/~james/dia-shape-ns", "application/uri.http%3A%2F%2Fwww.daa.com.au%2F~james%2Fdia-shape-ns"},
		{"http://schema.omg.org/spec/XMI/2.1", "application/uri.http%3A%2F%2Fschema.omg.org%2Fspec%2FXMI%2F2.1"},
		{"urn:oasis:names:tc:xliff:document:1.1", "application/uri.urn%3Aoasis%3Anames%3Atc%3Axliff%3Adocument%3A1.1"},
	} {
		assert.Equal(t, DirectionToContentType, Detect(tt.uri), tt.uri)
		ct, err := ToContentType(tt.uri)
		require.NoError(t, err)
		assert.Equal(t, tt.ct, ct, tt.uri)
		checkCTOutput(t, ct)
		u, err := ToURI(ct)
		require.NoError(t, err)
		assert.Equal(t, tt.uri, u, "N1: %q back", ct)
		canon, err := Canonical(ct)
		require.NoError(t, err)
		assert.Equal(t, ct, canon)
	}
}
