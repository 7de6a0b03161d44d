package integration

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/internal/vectors"
	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// whatwgMIMEScript parses Content-Types with Node's util.MIMEType, the
// WHATWG MIME Sniffing Standard's parser, which fetch() and Blob in a
// browser apply to a Content-Type (see the script's own comment).
const whatwgMIMEScript = "testdata/whatwg-mimetype.mjs"

// A browser reads a Content-Type by the WHATWG MIME Sniffing Standard
// (§4.4, "parse a MIME type"), not by RFC 2045, and the two differ on the
// labels below. Each class names a way in which the browser's reading of
// a Content-Type the mapping produces differs from the mapping's own
// (ParseContentType), or in which the type the browser gives back
// (Blob.type, MIMEType's serialization) maps to another URI. Nothing else
// differs: TestWHATWGMIMEType holds every other label to the same media
// type, the same parameters and the same URI.
const (
	// The mapping's token is RFC 2045's (SPEC R0.3), which allows '{' and
	// '}'; HTTP's (RFC 9110 §5.6.2), which the Standard uses, does not. The
	// browser refuses the whole Content-Type when the type or subtype holds
	// one, and drops a parameter whose name does.
	classTypeNotHTTPToken = "type or subtype not an HTTP token: refused"
	classNameNotHTTPToken = "parameter name not an HTTP token: parameter dropped"
	// The Standard keeps the first of two parameters of the same name
	// (ASCII case-insensitively); the mapping keeps both (SPEC C3, R1.4,
	// R2.4).
	classDuplicate = "parameter name repeated: the first kept"
	// The Standard lower-cases parameter names; the mapping keeps their case
	// (SPEC R0.13, K3), so that Charset= and charset= are different URIs.
	// The names the mapping reads case-insensitively (URI-body and
	// URI-fragment, SPEC R0.14) do not count.
	classNameCase = "parameter name lower-cased"
	// The Standard lower-cases the whole subtype; the mapping lower-cases
	// only the "uri." of a subtype that carries a URI (SPEC R0.13, R1), so
	// that mailto:User@host keeps its case. Percent-encoded octets do
	// not count: %3A and %3a decode alike.
	classURISubtypeCase = "uri. subtype lower-cased"
)

// whatwgMIMELabels are URIs whose Content-Types fall in each class above
// (and one that falls in none although the browser changes it), so that
// each class is met whatever the vectors hold.
var whatwgMIMELabels = []string{
	"ContentType:text/x%7By%7D",                         // classTypeNotHTTPToken
	"ContentType:text/plain?a%7Bb%7D=%22c%22&d=%22e%22", // classNameNotHTTPToken
	`ContentType:text/plain?a="1"&a="2"`,                // classDuplicate
	`ContentType:text/plain?a="1"&A="1"`,                // classDuplicate (the second name, dropped, is not lower-cased)
	`ContentType:text/plain?Charset="utf-8"`,            // classNameCase
	"mailto:User@host.example",                          // classURISubtypeCase
	"urn:ISBN:0-395-36341-1",                            // classURISubtypeCase
	"http://x.test/a#Frag",                              // URI-fragment= becomes uri-fragment=, which maps alike
	`ContentType:text/plain?k="%C3%A9"&q="a%5C%22b"`,    // UTF-8 and a quoted-pair, both kept
}

// whatwgContentTypes are the Content-Types the mapping produces from the
// vectors (the Content-Type of a uri2ct row's input, and that of the URI
// of a ct2uri row's input, with the row's options), from the real-world
// names of mapping/testdata (each bare, with a charset, and with a quoted
// name that holds a space and parentheses) and from whatwgMIMELabels.
// Each is listed once, in that order.
func whatwgContentTypes(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var cts []string
	add := func(uri string) {
		ct, err := mapping.ToContentType(uri)
		if err == nil && !seen[ct] {
			seen[ct] = true
			cts = append(cts, ct)
		}
	}
	addCT := func(ct string, opts ...mapping.Option) {
		if uri, err := mapping.ToURI(ct, opts...); err == nil {
			add(uri)
		}
	}
	for _, v := range vectors.Load(t, mappingVectors) {
		switch v.Direction {
		case "uri2ct":
			add(v.Input)
		case "ct2uri", "ct2uri-strict":
			addCT(v.Input)
		case "ct2uri-lenient":
			addCT(v.Input, mapping.Lenient)
		default:
			t.Fatalf("line %d: unknown direction %q", v.Line, v.Direction)
		}
	}
	for _, name := range vectors.MediaTypeNames(t, "..") {
		addCT(name)
		addCT(name + "; charset=UTF-8")
		addCT(name + `; name="Q3 (final).pdf"`)
	}
	for _, uri := range whatwgMIMELabels {
		_, err := mapping.ToContentType(uri)
		require.NoError(t, err, "whatwgMIMELabels: %q", uri)
		add(uri)
	}
	return cts
}

type whatwgMIMEResult struct {
	OK         bool        `json:"ok"`
	Essence    string      `json:"essence"`
	Params     [][2]string `json:"params"`
	Serialized string      `json:"serialized"`
	Error      string      `json:"error"`
}

// isHTTPToken reports whether s is an RFC 9110 token: the Standard's
// "solely contains HTTP token code points", and not empty.
func isHTTPToken(s string) bool {
	for i := range len(s) {
		if c := s[i]; c <= ' ' || c >= 0x7F || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// whatwgRefuses reports whether a browser refuses ct, a Content-Type the
// mapping produced, as a MIME type: whether its type or subtype is not an
// HTTP token (classTypeNotHTTPToken).
func whatwgRefuses(t *testing.T, ct string) bool {
	t.Helper()
	p, err := mapping.ParseContentType(ct)
	require.NoError(t, err, "the mapping's own output %q", ct)
	return !isHTTPToken(p.Type) || !isHTTPToken(p.Subtype)
}

// hasUpperOutsideTriplets reports whether s holds an ASCII upper-case
// letter other than the hex digits of a %XX.
func hasUpperOutsideTriplets(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+2 < len(s):
			i += 2
		case 'A' <= c && c <= 'Z':
			return true
		}
	}
	return false
}

// whatwgMIMEView is what the Standard's parser makes of ct, a Content-Type
// the mapping produced, as ParseContentType reads it (the fields of a
// result but Serialized and Error), and the classes that apply to it.
func whatwgMIMEView(ct mapping.ContentType) (view whatwgMIMEResult, classes []string) {
	if !isHTTPToken(ct.Type) || !isHTTPToken(ct.Subtype) {
		return whatwgMIMEResult{}, []string{classTypeNotHTTPToken}
	}
	view = whatwgMIMEResult{OK: true, Essence: strings.ToLower(ct.Type + "/" + ct.Subtype), Params: [][2]string{}}
	class := map[string]bool{}
	if len(ct.Subtype) > 4 && strings.EqualFold(ct.Subtype[:4], "uri.") && hasUpperOutsideTriplets(ct.Subtype[4:]) {
		class[classURISubtypeCase] = true
	}
	seen := map[string]bool{}
	for _, p := range ct.Params {
		name := strings.ToLower(p.Name)
		switch {
		case !isHTTPToken(p.Name):
			class[classNameNotHTTPToken] = true
			continue
		case seen[name]:
			class[classDuplicate] = true
			continue
		case name != p.Name && name != "uri-body" && name != "uri-fragment":
			class[classNameCase] = true
		}
		seen[name] = true
		view.Params = append(view.Params, [2]string{name, p.Value})
	}
	for _, c := range []string{classURISubtypeCase, classNameNotHTTPToken, classDuplicate, classNameCase} {
		if class[c] {
			classes = append(classes, c)
		}
	}
	return view, classes
}

// TestWHATWGMIMEType asks what a browser makes of the Content-Types the
// mapping produces, and whether the type it gives back is the same label:
// a page that reads a response's Content-Type (Blob.type) and sends it on
// (a fetch() body of that Blob) sends the browser's serialization, which
// the middleware maps back to a URI.
//
// Each Content-Type goes to util.MIMEType as a browser holds a field
// value (each octet a code point up to U+00FF). Unless a class applies,
// the browser must read the media type and the parameters that
// ParseContentType reads, names lower-cased, and its serialization must
// map to the URI the Content-Type maps to. Where a class applies, the
// browser must read what the Standard's rule gives, and the URI must
// differ, so that no class is listed that changes nothing; every class
// must be met.
//
// And the middleware, mapping a response's URI label to each
// Content-Type, must add X-Content-Type-Options: nosniff exactly where the
// browser cannot parse it, which would otherwise sniff the body.
func TestWHATWGMIMEType(t *testing.T) {
	node := servertest.Command(t, "node")
	cts := whatwgContentTypes(t)
	require.Greater(t, len(cts), 5000, "the vectors and the corpus should give the whole set")
	in := make([]string, len(cts))
	for i, ct := range cts {
		in[i] = toLatin1(ct)
	}
	results := nodeJSON[whatwgMIMEResult](t, node, whatwgMIMEScript, in)

	var label string // the handler's response label
	handler := middleware.Rewrite(middleware.Options{Response: middleware.ToContentType, MaxLabelLen: -1})(
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("Content-Type", label) }))
	met := map[string][]string{}
	var same, nosniff int
	for i, ct := range cts {
		r := results[i]
		parsed, err := mapping.ParseContentType(ct)
		require.NoError(t, err, "the mapping's own output %q", ct)
		view, classes := whatwgMIMEView(parsed)
		uri, err := mapping.ToURI(ct)
		require.NoError(t, err, "the mapping's own output %q", ct)

		label = uri
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		require.Equal(t, ct, rec.Header().Get("Content-Type"), "the middleware's Content-Type for %q", uri)
		if _, ok := rec.Header()["X-Content-Type-Options"]; ok {
			nosniff++
			assert.False(t, r.OK, "nosniff beside %q, which the browser parses", ct)
		} else {
			assert.True(t, r.OK, "no nosniff beside %q, which the browser cannot parse", ct)
		}
		for _, c := range classes {
			met[c] = append(met[c], ct)
		}
		if !view.OK {
			assert.False(t, r.OK, "MIMEType(%q) accepted it as %q (%s)", ct, r.Essence, classTypeNotHTTPToken)
			continue
		}
		if !assert.True(t, r.OK, "MIMEType(%q) threw: %s", ct, r.Error) {
			continue
		}
		for j := range r.Params {
			r.Params[j][0], r.Params[j][1] = fromLatin1(t, r.Params[j][0]), fromLatin1(t, r.Params[j][1])
		}
		assert.Equal(t, view.Essence, r.Essence, "essence of %q", ct)
		assert.Equal(t, view.Params, r.Params, "parameters of %q", ct)

		back := fromLatin1(t, r.Serialized)
		buri, berr := mapping.ToURI(back)
		if len(classes) == 0 {
			same++
			assert.NoError(t, berr, "%q, serialized as %q", ct, back)
			assert.Equal(t, uri, buri, "%q maps to %q; the browser's %q to %q", ct, uri, back, buri)
		} else {
			assert.True(t, berr != nil || buri != uri,
				"%q (%s): the browser's %q maps to the same URI, %q: no longer a difference", ct, strings.Join(classes, ", "), back, uri)
		}
	}
	for _, c := range []string{classTypeNotHTTPToken, classNameNotHTTPToken, classDuplicate, classNameCase, classURISubtypeCase} {
		assert.NotEmpty(t, met[c], "no Content-Type met the class %q", c)
		t.Logf("%s: %d, e.g. %q", c, len(met[c]), append(met[c], "")[0])
	}
	t.Logf("%d Content-Types; %d read alike by the browser and mapped back to the same URI; "+
		"%d with nosniff from the middleware", len(cts), same, nosniff)
}
