package integration

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/internal/vectors"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// whatwgScript parses labels with Node's global URL, the WHATWG URL
// Standard's parser that browsers use (see the script's own comment).
const whatwgScript = "testdata/whatwg-url.mjs"

// mappingVectors are the shared vectors of package mapping.
const mappingVectors = "../mapping/testdata/vectors.tsv"

// whatwgChange is a class of labels whose meaning a WHATWG URL parser
// changes: it rewrites the URI itself, and the mapping, which carries a
// URI other than ContentType: byte for byte (SPEC R2, N1), maps the new
// text to a new Content-Type. fix turns the label, as the parser writes
// it otherwise (whatwgPlain), into the href the parser gives.
type whatwgChange struct {
	class  string
	fix    func(string) string
	labels []string
}

// whatwgChanges lists every label, from the vectors, whose Content-Type
// changes when it goes through a WHATWG URL parser. All are http URIs:
// for a special scheme (http, https, ws, wss, ftp, file) the parser
// applies RFC 3986's scheme-based normalisation (§6.2.2.1, §6.2.3),
// under which both forms are equivalent. SPEC asks for no such
// normalisation: the body of an http URI, host and port included, is
// carried with its case (R2) and comes back byte for byte (N1), so
// equivalent spellings are different labels, as they are for every
// other scheme. A label is listed in its default form; its StrictURI
// form (every '"' written as %22, SPEC K5) is listed with it.
//
// Nothing else changes a Content-Type: the parser lower-cases the
// scheme (ContentType: becomes contenttype:, which R0.13 reads alike)
// and writes the '"' delimiters of a query value as %22, which SPEC U8
// removes like '"'. Non-special schemes (ContentType:, mailto:, x:,
// urn:, xyz://) keep their host and port as written. The parser also
// removes dot segments from any path that starts with '/' (x:/a/../b
// becomes x:/b), which would change a Content-Type; no vector has one.
var whatwgChanges = []whatwgChange{
	{
		// An http URI with an empty path gets the path "/": the parser
		// writes http://x as http://x/ (RFC 3986 §6.2.3).
		class: "empty http path becomes /",
		fix: func(s string) string {
			i := strings.Index(s, "//") + 2
			j := i + strings.IndexAny(s[i:]+"?", "/?#")
			return s[:j] + "/" + s[j:]
		},
		labels: []string{
			"http://x",
			`http://x.test?foo="123"&bar="abcd"`,
			`http://x?a="1"&MIME-type="text/html"&b="2"`,
			`http://x?Foo="1"`,
			`http://x?a=""`,
			`http://x?a="1"`,
			`http://x?q="a=b"`,
			`http://x?q="a+b%2Bc"`,
			`http://x?q="/p?x:y@z"`,
			`http://x?a="%E2%82%AC"`,
			"http://x?flag",
			"http://x?=1",
			`http://x?MIME-type="a/b"#f`,
			`http://x?MIME-type="x-foo%3Fbar/a%23b"`,
			`http://x?a="1"#f`,
			"http://x?a=1&flag#f",
			"http://x?MIME-type=a/b&flag",
			`http://x?q="abc"`,
			`http://x?MIME-type="text/plain"`,
		},
	},
	{
		// The host of an http URI is lower-cased (RFC 3986 §6.2.2.1: a
		// host is case-insensitive); the path keeps its case.
		class: "http host lower-cased",
		fix: func(s string) string {
			i := strings.Index(s, "//") + 2
			j := i + strings.IndexAny(s[i:]+"/", "/?#")
			return s[:i] + strings.ToLower(s[i:j]) + s[j:]
		},
		labels: []string{
			"http://X.test/Path",
			`http://X/p?MIME-type="text/plain"`,
			"http://Example.COM/A",
		},
	},
	{
		// The default port of http, 80, is dropped (RFC 3986 §6.2.3).
		class: "http default port dropped",
		fix:   func(s string) string { return strings.Replace(s, ":80/", "/", 1) },
		labels: []string{
			"http://[::1]:80/",
		},
	},
}

// whatwgPlain is label as a WHATWG URL parser writes it when it changes
// nothing else: the scheme lower-cased and each '"' (in these labels a
// query value's delimiter, SPEC K5 and S) percent-encoded as %22.
func whatwgPlain(label string) string {
	i := strings.IndexByte(label, ':')
	return strings.ToLower(label[:i]) + strings.ReplaceAll(label[i:], `"`, "%22")
}

// whatwgLabel is a URI that package mapping produces from a vector.
type whatwgLabel struct {
	label         string
	plain, strict bool // produced without StrictURI, with it
}

// whatwgLabels maps each vector that succeeds, with and without
// StrictURI, to the URIs the mapping produces: a ct2uri, ct2uri-strict
// or ct2uri-lenient row's input (with Lenient for the last), and the
// Content-Type of a uri2ct row's input. Each label is listed once, in
// the vectors' order.
func whatwgLabels(t *testing.T) []*whatwgLabel {
	t.Helper()
	seen := map[string]*whatwgLabel{}
	var labels []*whatwgLabel
	for _, v := range vectors.Load(t, mappingVectors) {
		ct, opts := v.Input, []mapping.Option(nil)
		switch v.Direction {
		case "ct2uri", "ct2uri-strict":
		case "ct2uri-lenient":
			opts = []mapping.Option{mapping.Lenient}
		case "uri2ct":
			var err error
			if ct, err = mapping.ToContentType(v.Input); err != nil {
				continue
			}
		default:
			t.Fatalf("line %d: unknown direction %q", v.Line, v.Direction)
		}
		for _, strict := range []bool{false, true} {
			o := opts
			if strict {
				o = append(o[:len(o):len(o)], mapping.StrictURI)
			}
			u, err := mapping.ToURI(ct, o...)
			if err != nil {
				continue
			}
			l := seen[u]
			if l == nil {
				l = &whatwgLabel{label: u}
				seen[u] = l
				labels = append(labels, l)
			}
			l.strict = l.strict || strict
			l.plain = l.plain || !strict
		}
	}
	return labels
}

type whatwgResult struct {
	OK    bool   `json:"ok"`
	Href  string `json:"href"`
	Error string `json:"error"`
}

// nodeJSON runs script in one node process with in, as JSON, on its
// standard input, and decodes the JSON array it prints, which must have
// one result per input.
func nodeJSON[T any](t *testing.T, node, script string, in []string) []T {
	t.Helper()
	data, err := json.Marshal(in)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Stdin = strings.NewReader(string(data))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node %s failed:\n%s\nstandard output:\n%s", script, stderr.String(), out)
	var res []T
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	require.Len(t, res, len(in))
	return res
}

// TestWHATWGURLParser asks whether a URI label survives a trip through a
// browser's URL parser (the WHATWG URL Standard, as Node's global URL
// implements it): for every URI the mapping produces from the vectors,
// with and without StrictURI, new URL(label) must accept it, its href
// must be the label as whatwgPlain writes it (or, for the labels of
// whatwgChanges, that with the class's normalisation), and mapping the
// href must give the label's Content-Type, except for whatwgChanges.
func TestWHATWGURLParser(t *testing.T) {
	node := servertest.Command(t, "node")
	labels := whatwgLabels(t)
	require.Greater(t, len(labels), 200, "the vectors of package mapping should give the whole set")
	texts := make([]string, len(labels))
	for i, l := range labels {
		texts[i] = l.label
	}
	results := nodeJSON[whatwgResult](t, node, whatwgScript, texts)

	changed := map[string]*whatwgChange{}
	for i := range whatwgChanges {
		c := &whatwgChanges[i]
		for _, l := range c.labels {
			changed[l] = c
			changed[strings.ReplaceAll(l, `"`, "%22")] = c // its StrictURI form
		}
	}
	tested := map[string]bool{}
	var accepted, equal, schemeCase, quotes, normalised, strictCT int
	for i, l := range labels {
		tested[l.label] = true
		r := results[i]
		if !assert.True(t, r.OK, "new URL(%q) threw: %s", l.label, r.Error) {
			continue
		}
		accepted++
		want := whatwgPlain(l.label)
		c := changed[l.label]
		if c != nil {
			want = c.fix(want)
		}
		assert.Equal(t, want, r.Href, "href of %q", l.label)
		switch {
		case c != nil:
			normalised++
		case r.Href == l.label:
			equal++
		case !strings.Contains(l.label, `"`):
			schemeCase++ // href == whatwgPlain(label) differs only there
		default:
			quotes++
		}
		if l.strict && strings.HasPrefix(l.label, "ContentType:") {
			strictCT++
			assert.Equal(t, "contenttype:"+strings.TrimPrefix(l.label, "ContentType:"), r.Href,
				"a StrictURI ContentType: label should come back with only its scheme lower-cased")
		}

		ct, err := mapping.ToContentType(l.label)
		require.NoError(t, err, "the mapping's own output %q", l.label)
		hct, herr := mapping.ToContentType(r.Href)
		same := herr == nil && hct == ct
		if c == nil {
			assert.True(t, same, "%q: label maps to %q, href %q to %q (%v)", l.label, ct, r.Href, hct, herr)
		} else {
			assert.False(t, same, "%q (%s) maps as its href does: no longer a difference", l.label, c.class)
		}
	}
	for l, c := range changed {
		assert.True(t, tested[l], "whatwgChanges (%s) lists %q, which no vector produces", c.class, l)
	}
	var plain, strict int
	for _, l := range labels {
		if l.plain {
			plain++
		}
		if l.strict {
			strict++
		}
	}
	t.Logf("%d labels (%d produced without StrictURI, %d with it), %d accepted by new URL; href equal: %d, "+
		"equal up to scheme case: %d, with '\"' as %%22 (and the scheme lower-cased): %d, "+
		"http normalised (Content-Type changed, whatwgChanges): %d; %d StrictURI ContentType: labels, "+
		"each back with only its scheme lower-cased", len(labels), plain, strict, accepted, equal, schemeCase, quotes, normalised, strictCT)
}
