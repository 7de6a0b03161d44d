package mailhdr

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewriteField(t *testing.T) {
	long := strings.Repeat("x", 1200)
	pad := func(n int) string { return strings.Repeat(" ", n) }
	cases := []struct {
		name, raw string
		to        Target
		want      string // "" means unchanged
		kind      Kind
	}{
		{"name bytes and white space kept", "content-TYPE :\t text/plain\r\n", ToURI, "content-TYPE :\t ContentType:text/plain\r\n", 0},
		{"no white space after the colon", "Content-Type:text/plain\n", ToURI, "Content-Type:ContentType:text/plain\n", 0},
		{"value on a continuation line", "Content-Type:\r\n text/plain\r\n", ToURI, "Content-Type:ContentType:text/plain\r\n", 0},
		{"folded value", "Content-Type: text/plain;\r\n\tcharset=us-ascii\r\n", ToURI, "Content-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n", 0},
		{"no final line ending", "Content-Type: text/plain", ToURI, "Content-Type: ContentType:text/plain", 0},
		{"URI left alone going to URIs", "Content-Type: ContentType:text/plain\r\n", ToURI, "", 0},
		{"Content-Type left alone going to Content-Types", "Content-Type: text/plain\r\n", ToContentType, "", 0},
		{"URI to Content-Type", "Content-Type: http://example.com/tag42\r\n", ToContentType, "Content-Type: application/uri.http%3A%2F%2Fexample.com%2Ftag42\r\n", 0},
		{"folded URI read without its white space", "Content-Type: ContentType:text/plain\r\n ?charset=%22us-ascii%22\r\n", ToContentType, "Content-Type: text/plain; charset=\"us-ascii\"\r\n", 0},
		{"canonical of a Content-Type", "Content-Type: TEXT/Plain; charset=us-ascii (comment)\r\n", Canonical, "Content-Type: text/plain; charset=\"us-ascii\"\r\n", 0},
		{"canonical already", "Content-Type: text/plain; charset=\"us-ascii\"\r\n", Canonical, "", 0},
		{"canonical of a URI", "Content-Type: ContentType:image/jpeg\n", Canonical, "Content-Type: image/jpeg\n", 0},
		{"does not map", "Content-Type: text\r\n", ToURI, "", KindMapping},
		{"does not parse, going to Content-Types", "Content-Type: text\r\n", ToContentType, "", KindMapping},
		{"empty, going to Content-Types", "Content-Type: \r\n", ToContentType, "", KindMapping},
		{"bad URI", "Content-Type: ContentType://x\r\n", ToContentType, "", KindMapping},
		{"control character", "Content-Type: text/plain; a=\"\x00\"\r\n", ToURI, "", KindMapping},
		{"cannot fold into 998 octets", "Content-Type: x:" + long + "\r\n", ToContentType, "", KindLineTooLong},
		{"a long run of white space after the colon", "Content-Type:" + pad(100) + "TEXT/plain; charset=us-ascii\r\n", Canonical, "Content-Type:" + pad(100) + "text/plain;\r\n charset=\"us-ascii\"\r\n", 0},
		{"a URI after a long prefix keeps its scheme on the first line", "Content-Type:" + pad(90) + "TEXT/plain; charset=us-ascii\r\n", ToURI, "Content-Type:" + pad(90) + "ContentType:\r\n text/plain?charset=\"us-ascii\"\r\n", 0},
		{"a URI folded inside its scheme is read as a URI", "Content-Type: Content\r\n Type:text/plain\r\n", ToContentType, "Content-Type: text/plain\r\n", 0},
		{"a short URI after a long prefix", "Content-Type:" + pad(75) + "application/uri.a%3Ab\r\n", ToURI, "Content-Type:" + pad(75) + "a:b\r\n", 0},
		{"white space around a URI's line break is folding", "Content-Type: ContentType:text/plain \r\n\t ?charset=%22us-ascii%22\r\n", ToContentType, "Content-Type: text/plain; charset=\"us-ascii\"\r\n", 0},
		{"a URI breaks at the end of its line, not before an early '?'", "Content-Type: text/plain; a=" + strings.Repeat("x", 50) + "\r\n", ToURI,
			"Content-Type: ContentType:text/plain?a=\"" + strings.Repeat("x", 38) + "\r\n " + strings.Repeat("x", 12) + "\"\r\n", 0},
		{"a URI breaks before an '&' late in its line", "Content-Type: text/plain; a=" + strings.Repeat("x", 30) + "; b=" + strings.Repeat("y", 30) + "\r\n", ToURI,
			"Content-Type: ContentType:text/plain?a=\"" + strings.Repeat("x", 30) + "\"\r\n &b=\"" + strings.Repeat("y", 30) + "\"\r\n", 0},
		{"a URI keeps a scheme that fills a line on its first line", "Content-Type: application/uri." + strings.Repeat("s", 77) + "%3A" + strings.Repeat("b", 20) + "\r\n", ToURI,
			"Content-Type: " + strings.Repeat("s", 77) + ":\r\n " + strings.Repeat("b", 20) + "\r\n", 0},
		{"a Content-Type folds only at a single SP", "Content-Type: TEXT/plain; a=\"" + strings.Repeat("word  ", 20) + "end\"\r\n", Canonical,
			"Content-Type: text/plain;\r\n a=\"" + strings.Repeat("word  ", 20) + "end\"\r\n", 0},
		{"a Content-Type folds between parameters rather than inside a quoted-string", "Content-Type: TEXT/plain; a=\"one two three four five six seven eight nine ten eleven\"\r\n", Canonical,
			"Content-Type: text/plain;\r\n a=\"one two three four five six seven eight nine ten eleven\"\r\n", 0},
		{"a Content-Type line of 998 octets", "Content-Type: TEXT/plain; a=\"" + strings.Repeat("x", 993) + "\"\r\n", Canonical,
			"Content-Type: text/plain;\r\n a=\"" + strings.Repeat("x", 993) + "\"\r\n", 0},
		{"a Content-Type line of 999 octets", "Content-Type: TEXT/plain; a=\"" + strings.Repeat("x", 994) + "\"\r\n", Canonical, "", KindLineTooLong},
		{"no colon: not a field, never rewritten to one without a name", "text/plain\r\n", ToURI, "", 0},
		{"white space inside a URI is not dropped", "Content-Type: ContentType:application/octet-stream?name=%22my file.txt%22\r\n", ToContentType, "", KindMapping},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fr := newFieldRewriter(&Options{To: tc.to})
			out, oc := fr.rewrite(nil, []byte(tc.raw), "\r\n")
			want := tc.want
			if want == "" {
				want = tc.raw
			}
			assert.Equal(t, want, string(out))
			assert.Equal(t, tc.want != "", oc.rewritten)
			assert.Equal(t, tc.kind, oc.kind)
			if tc.kind == KindMapping {
				assert.NotZero(t, mapping.KindOf(oc.err))
			}
		})
	}
}

func TestRewriteFieldStructure(t *testing.T) {
	cases := []struct {
		raw      string
		to       Target
		media    string
		boundary string
	}{
		{"Content-Type: Multipart/Mixed; Boundary=----=_Part_0\r\n", ToURI, "multipart/mixed", "----=_Part_0"},
		{"Content-Type: ContentType:multipart/mixed?boundary=%22----%253D_P%22\r\n", ToURI, "multipart/mixed", "----%3D_P"},
		{"Content-Type: ContentType:multipart/mixed?boundary=\"a%20b\"\r\n", ToContentType, "multipart/mixed", "a b"},
		{"Content-Type: ContentType:multipart/mixed?boundary=\"a%20b\"\r\n", Canonical, "multipart/mixed", "a b"},
	}
	for _, tc := range cases {
		fr := newFieldRewriter(&Options{To: tc.to})
		_, oc := fr.rewrite(nil, []byte(tc.raw), "\r\n")
		require.True(t, oc.ct.known, tc.raw)
		assert.Equal(t, tc.media, oc.ct.typ+"/"+oc.ct.sub)
		assert.Equal(t, tc.boundary, oc.ct.boundary)
	}
}

// TestRewriteFieldKeepsStructure: a field is rewritten only if a reader
// of the rewritten field (mapping a URI label back) reads its body as the
// original says: the same class (single part, multipart, encapsulated
// message), and for a multipart the same boundary and digest-ness.
func TestRewriteFieldKeepsStructure(t *testing.T) {
	cases := []struct {
		name, ct string
		to       Target
		kept     bool // rewritten
	}{
		{"native multipart", `multipart/mixed; boundary="x y"`, ToURI, true},
		{"native digest", `multipart/digest; boundary=x`, ToURI, true},
		{"uri. subtype of a single part", `message/uri.a%3Ab`, ToURI, true},
		{"uri. subtype wrapping a multipart", `multipart/uri.ContentType%3Amultipart%2Fmixed; boundary=q`, ToURI, true},
		{"escaped backslash in the boundary", `multipart/mixed; boundary="a\\b"`, ToURI, true},
		{"multipart with a uri. subtype becomes application", `multipart/uri.a%3Ab; boundary=x`, ToURI, false},
		{"a multipart with a uri. subtype, canonical", `multipart/uri.a%3Ab; boundary=x`, Canonical, false},
		{"URI-body encodes the boundary once more", `multipart/mixed; URI-body="a:b"; boundary="x y"`, ToURI, false},
		{"a text part collapses to a multipart", `text/uri.ContentType%3Amultipart%2Fmixed; boundary=q`, ToURI, false},
		{"a text part collapses to a multipart, canonical", `text/uri.ContentType%3Amultipart%2Fmixed; boundary=q`, Canonical, false},
		{"a multipart collapses to a digest", `multipart/uri.ContentType%3Amultipart%2Fdigest; boundary=q`, ToURI, false},
		{"a single part stays one through a collapse", `message/uri.ContentType%3Atext%2Fplain`, Canonical, true},
		{"a single part collapses to an encapsulated message", `text/uri.ContentType%3Amessage%2Frfc822`, ToURI, false},
		{"Go keeps an unneeded backslash, the mapping drops it", `multipart/mixed; boundary="a\b"`, ToURI, false},
		{"URI-body decodes a %HH in the boundary", `multipart/mixed; URI-body="a:b"; boundary=a%41`, ToURI, false},
		// Passed through before and after: a multipart without a usable
		// boundary is read as a single part is.
		{"no boundary, to a single part", `multipart/uri.a%3Ab`, ToURI, true},
		{"a single part to a multipart without a boundary", `text/uri.ContentType%3Amultipart%2Fmixed`, ToURI, true},
		{"an empty boundary, to a single part", `multipart/uri.a%3Ab; boundary=""`, Canonical, true},
	}
	for _, tc := range cases {
		for _, o := range []Options{{To: tc.to}, {To: tc.to, StrictURI: true, StrictParsing: true}} {
			t.Run(fmt.Sprintf("%s/strict=%v", tc.name, o.StrictURI), func(t *testing.T) {
				raw := "Content-Type: " + tc.ct + "\r\n"
				out, oc := newFieldRewriter(&o).rewrite(nil, []byte(raw), "\r\n")
				before, err := structureOf(tc.ct)
				require.NoError(t, err)
				assert.Equal(t, before, oc.ct, "the scanner reads the body as the original says")
				if tc.kept {
					assert.True(t, oc.rewritten)
					assert.Zero(t, oc.kind)
					return
				}
				assert.Equal(t, raw, string(out))
				assert.False(t, oc.rewritten)
				assert.Equal(t, KindStructureChange, oc.kind)
				kind, detail, err := oc.problem(true)
				assert.Equal(t, KindStructureChange, kind)
				assert.Contains(t, detail, "another structure")
				assert.NoError(t, err)
			})
		}
	}
}

// TestStructureKeptThroughARoundTrip: a multipart whose field the
// mapping would turn into another structure keeps its field, so its
// parts' labels, rewritten to URIs, come back on the way to Content-Types
// and the message is as it was. (Rewriting the outer field had left a
// label that maps to a single part, or to another boundary, and the parts
// below it unreachable.)
func TestStructureKeptThroughARoundTrip(t *testing.T) {
	for _, top := range []string{
		`multipart/uri.a%3Ab; boundary=x`,
		`multipart/mixed; URI-body="a:b"; boundary="x y"`,
		`multipart/mixed; boundary="a\b"`,
	} {
		t.Run(top, func(t *testing.T) {
			ct, err := structureOf(top)
			require.NoError(t, err)
			b := ct.boundary
			in := "Content-Type: " + top + "\n\n--" + b + "\nContent-Type: text/plain\n\nhi\n--" + b + "--\n"
			uri, rep := rewriteBytes(t, []byte(in), Options{})
			assert.Equal(t, 1, rep.Rewritten)
			assert.Equal(t, []problemAt{{"top", KindStructureChange}}, problemsOf(rep))
			assert.Contains(t, string(uri), "ContentType:text/plain")
			back, rep := rewriteBytes(t, uri, Options{To: ToContentType})
			assert.Equal(t, 1, rep.Rewritten)
			assert.Equal(t, in, string(back))
		})
	}
	// A text part whose label would collapse to a multipart stays a
	// single part: its body is not read for fields.
	in := "Content-Type: text/uri.ContentType%3Amultipart%2Fmixed; boundary=q\n\n--q\nContent-Type: text/plain\n\n--q--\n"
	out, rep := rewriteBytes(t, []byte(in), Options{})
	assert.Equal(t, in, string(out))
	assert.Equal(t, 1, rep.Entities)
	assert.Equal(t, []problemAt{{"top", KindStructureChange}}, problemsOf(rep))
}

// TestStrictParsingStructure: with StrictParsing, a Content-Type that
// parses only strictly (a comment right after a value) is rewritten and
// its structure read, by Rewrite and by RewriteHeader.
func TestStrictParsingStructure(t *testing.T) {
	const ct = "multipart/mixed; boundary=x; a=b(c d)"
	for _, to := range []Target{ToURI, Canonical} {
		o := Options{To: to, StrictParsing: true}
		_, oc := newFieldRewriter(&o).rewrite(nil, []byte("Content-Type: "+ct+"\r\n"), "\r\n")
		assert.True(t, oc.rewritten, to)
		assert.Zero(t, oc.kind, to)
		assert.Equal(t, bodyReading{multipart: true, boundary: "x"}, oc.ct.reading(), to)

		in := "Content-Type: " + ct + "\r\n\r\n--x\r\nContent-Type: TEXT/plain\r\n\r\n--x--\r\n"
		_, rep := rewriteBytes(t, []byte(in), o)
		assert.Equal(t, 2, rep.Entities, to)
		assert.Equal(t, 2, rep.Rewritten, to)
		assert.True(t, rep.OK(), "%v", rep.Err())

		h := readHeader(t, "Content-Type: "+ct+"\r\n\r\n")
		n, err := RewriteHeader(&h, o)
		assert.Equal(t, 1, n, to)
		assert.NoError(t, err)
	}
	// Lenient reading cannot map it, and says so.
	_, oc := newFieldRewriter(&Options{}).rewrite(nil, []byte("Content-Type: "+ct+"\r\n"), "\r\n")
	assert.Equal(t, KindMapping, oc.kind)
	assert.Equal(t, "x", oc.ct.boundary)
}

// TestStrictParsing: mail's unquoted values map only with the default
// lenient parsing, while the structure is read either way.
func TestStrictParsing(t *testing.T) {
	raw := []byte("Content-Type: multipart/mixed; boundary=----=_P\r\n")
	_, oc := newFieldRewriter(&Options{}).rewrite(nil, raw, "\r\n")
	assert.True(t, oc.rewritten)
	_, oc = newFieldRewriter(&Options{StrictParsing: true}).rewrite(nil, raw, "\r\n")
	assert.False(t, oc.rewritten)
	assert.Equal(t, KindMapping, oc.kind)
	assert.Equal(t, "----=_P", oc.ct.boundary)
}

func TestFoldLongValues(t *testing.T) {
	var params strings.Builder
	for i := range 30 {
		params.WriteString("; p")
		params.WriteString(strings.Repeat("q", i))
		params.WriteString("=\"v w\"")
	}
	ct := "Application/Example" + params.String()
	for _, to := range []Target{ToURI, Canonical} {
		fr := newFieldRewriter(&Options{To: to})
		out, oc := fr.rewrite(nil, []byte("Content-Type: "+ct+"\n"), "\r\n")
		require.True(t, oc.rewritten, to)
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		require.Greater(t, len(lines), 1, to)
		for _, l := range lines {
			assert.LessOrEqual(t, len(l), foldWidth, "%s: %q", to, l)
			assert.False(t, strings.HasSuffix(l, "\r"), "folds use the field's own LF")
		}
	}
}

// TestFoldOutsideQuotedStrings: a Content-Type is folded between
// parameters rather than inside a quoted-string, whose end a quoted-pair
// (\") does not make.
func TestFoldOutsideQuotedStrings(t *testing.T) {
	c := strings.Repeat("c", 60)
	for _, tt := range []struct{ value, want string }{
		{`text/plain; a="x\" y"; b="` + c + `"`, "Content-Type: text/plain; a=\"x\\\" y\";\r\n b=\"" + c + "\"\r\n"},
		{`text/plain; a="x y"; b="` + c + `"`, "Content-Type: text/plain; a=\"x y\";\r\n b=\"" + c + "\"\r\n"},
		// With no break outside, one inside is better than none.
		{`text/plain;a="x y` + c + `"`, "Content-Type: text/plain;a=\"x\r\n y" + c + "\"\r\n"},
	} {
		out, ok := appendFolded(nil, []byte("Content-Type: "), tt.value, false, "\r\n", "\r\n")
		require.True(t, ok)
		assert.Equal(t, tt.want, string(out))
	}
}

// FuzzFold: folding then unfolding gives the value back, by RFC 5322
// unfolding and (for Content-Types) by go-message's lossy unfolding; a
// URI loses only the inserted white space; no line exceeds 998 octets,
// and URI lines stay within 78.
func FuzzFold(f *testing.F) {
	f.Add("text/plain; a=\"b c\"; d=\"e\"", false)
	f.Add("ContentType:text/plain?a=%22b%22&c=%22d%22#frag", true)
	f.Add(strings.Repeat("a ", 100), false)
	f.Add(strings.Repeat("%41", 100), true)
	f.Add("x"+strings.Repeat("%41", 100), true)
	f.Add("xy"+strings.Repeat("%41", 100), true)
	f.Add(strings.Repeat("ab  ", 40)+"ab", false)
	f.Add(strings.Repeat("s", 77)+":"+strings.Repeat("b", 100), true)
	f.Fuzz(func(t *testing.T, v string, uri bool) {
		checkFold(t, []byte("Content-Type: "), v, uri)
	})
}

// FuzzFoldPrefix is FuzzFold after a prefix of any length up to past
// 998 octets (white space after the colon, which the rewritten field
// keeps), so that the value starts anywhere on the first line or beyond it.
func FuzzFoldPrefix(f *testing.F) {
	f.Add("TEXT/plain; charset=us-ascii", false, uint16(100))
	f.Add("a:b", true, uint16(70))
	f.Add("ContentType:text/plain?a=%22b%22&c=%22d%22#frag", true, uint16(75))
	f.Add(strings.Repeat("a ", 100), false, uint16(990))
	f.Fuzz(func(t *testing.T, v string, uri bool, pad uint16) {
		prefix := append([]byte("Content-Type:"), bytes.Repeat([]byte{' '}, int(pad%1100))...)
		checkFold(t, prefix, v, uri)
	})
}

func checkFold(t *testing.T, prefix []byte, v string, uri bool) {
	if strings.ContainsAny(v, "\r\n") || (uri && strings.ContainsAny(v, " \t")) {
		return
	}
	out, ok := appendFolded(nil, prefix, v, uri, "\r\n", "\r\n")
	if !ok {
		require.Empty(t, out)
		require.False(t, uri && len(v) > 0 && len(v) < 1<<16 && len(prefix) <= maxLineLen, "a URI always folds")
		return
	}
	// A value that cannot follow the prefix starts on the next line.
	ownLine := bytes.HasPrefix(out[len(prefix):], []byte("\r\n "))
	if ownLine {
		_, fits := appendFoldedValue(append([]byte(nil), prefix...), len(prefix), v, uri, "\r\n")
		require.False(t, fits, "the value could follow the prefix")
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\r\n"), "\r\n")
	for i, l := range lines {
		require.LessOrEqual(t, len(l), maxLineLen)
		if uri && i > 0 {
			require.LessOrEqual(t, len(l), foldWidth)
		}
	}
	require.True(t, bytes.HasPrefix(out, prefix))
	if i := strings.IndexByte(v, ':'); uri && !ownLine && i >= 0 && i+1 <= min(foldWidth, maxLineLen-len(prefix)) {
		require.True(t, strings.HasPrefix(lines[0], string(prefix)+v[:i+1]), "the scheme stays on the first line: %q", lines[0])
	}
	if uri {
		require.Equal(t, v, string(trimWSP(unfold(nil, out[len(prefix):], true))))
		if mapping.Detect(v) == mapping.DirectionToContentType {
			// Label (readLabel) reads the folded URI label back whole.
			got, isURI, _ := readLabel(nil, out[bytes.IndexByte(out, ':')+1:])
			require.True(t, isURI)
			require.Equal(t, v, got)
		}
		if percentEncoded(v) {
			// Never inside a %HH triplet.
			for _, l := range lines[:len(lines)-1] {
				require.False(t, strings.HasSuffix(l, "%") || len(l) >= 2 && l[len(l)-2] == '%', "a line break inside a triplet: %q", l)
			}
		}
		return
	}
	unfolded := string(unfold(nil, out, false))
	require.True(t, strings.HasPrefix(unfolded, string(prefix)))
	if ownLine {
		unfolded = unfolded[1:] // the fold's SP, more white space before the value
	}
	require.Equal(t, v, unfolded[len(prefix):])
	// go-message joins the lines trimmed of white space with one SP.
	if len(prefix) > len("Content-Type: ") {
		return // the prefix's own white space is trimmed too
	}
	var b bytes.Buffer
	for i, l := range lines {
		if i > 0 {
			l = strings.TrimLeft(l, " \t")
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimRight(l, " \t"))
	}
	if v != "" && strings.Trim(v, " \t") == v {
		require.Equal(t, string(prefix)+v, b.String())
	}
}

// TestUnparsableContentTypeReported: a Content-Type that does not parse
// leaves the entity's body unexamined, which the Report says whatever the
// target, also when the field was not to be rewritten (a Content-Type
// going to Content-Types); the message comes out unchanged.
func TestUnparsableContentTypeReported(t *testing.T) {
	const body = "\r\n--b\r\nContent-Type: ContentType:text/plain\r\n\r\nx\r\n--b--\r\n"
	cases := []struct {
		name, ct string
		to       Target
	}{
		{"to URIs", `multipart/mixed; boundary="b`, ToURI},
		{"to Content-Types", `multipart/mixed; boundary="b`, ToContentType},
		{"to Content-Types, a comment left open", `multipart/mixed; boundary=b (open`, ToContentType},
		{"canonical", `multipart/mixed; boundary="b`, Canonical},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := "Content-Type: " + tc.ct + "\r\n" + body
			out, rep := rewriteBytes(t, []byte(in), Options{To: tc.to})
			assert.Equal(t, in, string(out))
			require.Equal(t, []problemAt{{"top", KindMapping}}, problemsOf(rep))
			assert.NotZero(t, mapping.KindOf(rep.Problems[0].Err))
		})
	}
}

// percentEncoded reports whether each '%' in v starts a %HH triplet.
func percentEncoded(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] == '%' {
			if i+2 >= len(v) || !isHex(v[i+1]) || !isHex(v[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// TestFoldURIKeepsTriplets: wherever its line ends, a URI label of
// percent-encoded octets is broken between triplets.
func TestFoldURIKeepsTriplets(t *testing.T) {
	for _, name := range []string{"n", "na", "nam"} {
		t.Run(name, func(t *testing.T) {
			raw := "Content-Type: text/plain; " + name + "=\"" + strings.Repeat("é", 60) + "\"\r\n"
			out, oc := newFieldRewriter(&Options{}).rewrite(nil, []byte(raw), "\r\n")
			require.True(t, oc.rewritten)
			lines := strings.Split(strings.TrimSuffix(string(out), "\r\n"), "\r\n")
			require.Greater(t, len(lines), 2)
			for _, l := range lines[1:] {
				assert.True(t, strings.HasPrefix(l, " %"), "%q", l)
			}
			back, oc := newFieldRewriter(&Options{To: ToContentType}).rewrite(nil, out, "\r\n")
			require.True(t, oc.rewritten)
			assert.Equal(t, raw, string(unfold(nil, back, false))+"\r\n")
		})
	}
}

// TestURILabelNotMapping: a URI label that does not map is reported with
// its mapping error also going to URI labels, where it is left as it is.
func TestURILabelNotMapping(t *testing.T) {
	const label = "ContentType://x"
	_, want := mapping.ToContentType(label, mapping.Lenient)
	require.Error(t, want)
	for _, to := range []Target{ToURI, ToContentType, Canonical} {
		t.Run(to.String(), func(t *testing.T) {
			in := "Content-Type: " + label + "\r\n\r\nbody\r\n"
			out, rep := rewriteBytes(t, []byte(in), Options{To: to})
			assert.Equal(t, in, string(out))
			require.Equal(t, []problemAt{{"top", KindMapping}}, problemsOf(rep))
			assert.Equal(t, "Content-Type not rewritten; the body is passed through", rep.Problems[0].Detail)
			assert.Equal(t, want.Error(), rep.Problems[0].Err.Error())
		})
	}
}

// TestMappingProblemDetail: a field that does not map but whose structure
// is known (here refused by NoControlled) has its body examined, and the
// detail says only that the field was not rewritten.
func TestMappingProblemDetail(t *testing.T) {
	in := "Content-Type: message/rfc822; URI-body=\"http%3A%2F%2Fx\"\r\n\r\nContent-Type: text/plain\r\n\r\nbody\r\n"
	_, rep := rewriteBytes(t, []byte(in), Options{NoControlled: true})
	require.Equal(t, []problemAt{{"top", KindMapping}}, problemsOf(rep))
	assert.Equal(t, "Content-Type not rewritten", rep.Problems[0].Detail)
	assert.ErrorIs(t, rep.Problems[0].Err, mapping.ErrReservedParam, "refused by NoControlled")
	assert.Equal(t, 1, rep.Rewritten, "the encapsulated message's header was read")
}

// TestMappingOptions: StrictURI and NoControlled reach the mapping.
func TestMappingOptions(t *testing.T) {
	const controlled = `mailto:a@b?MIME-type="text%2Fplain"`
	cases := []struct {
		name, in string
		opts     Options
		want     string // "" means unchanged
		err      error
	}{
		{"default", "Content-Type: text/plain; charset=us-ascii\r\n\r\n", Options{}, "Content-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n\r\n", nil},
		{"StrictURI", "Content-Type: text/plain; charset=us-ascii\r\n\r\n", Options{StrictURI: true}, "Content-Type: ContentType:text/plain?charset=%22us-ascii%22\r\n\r\n", nil},
		{"controlled", "Content-Type: " + controlled + "\r\n\r\n", Options{To: ToContentType}, "Content-Type: text/plain; URI-body=\"mailto%3Aa%40b\"\r\n\r\n", nil},
		{"NoControlled", "Content-Type: " + controlled + "\r\n\r\n", Options{To: ToContentType, NoControlled: true}, "", mapping.ErrReservedParam},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := rewriteBytes(t, []byte(tc.in), tc.opts)
			want := tc.want
			if want == "" {
				want = tc.in
			}
			assert.Equal(t, want, string(out))
			if tc.err == nil {
				assert.True(t, rep.OK(), "%v", rep.Err())
			} else {
				assert.ErrorIs(t, rep.Err(), tc.err)
			}
		})
	}
}

// TestFoldAfterLongPrefix: a field whose white space after the colon
// fills most of its first line, as a folded field may have it, is
// rewritten with its value on the next line, and reads back as it was; so
// is one whose value has a run too long to follow the field's name.
func TestFoldAfterLongPrefix(t *testing.T) {
	for _, pad := range []int{982, 985} {
		prefix := "Content-Type:" + strings.Repeat(" ", pad)
		in := prefix + "\r\n text/plain\r\n\r\nx"
		out, rep := rewriteBytes(t, []byte(in), Options{})
		require.True(t, rep.OK(), "%d: %v", pad, rep.Err())
		assert.Equal(t, prefix+"\r\n ContentType:text/plain\r\n\r\nx", string(out), pad)
		back, rep := rewriteBytes(t, out, Options{To: ToContentType})
		require.True(t, rep.OK(), "%d: %v", pad, rep.Err())
		assert.Equal(t, in, string(back), pad)
	}
	// A run that fits a continuation line but not the first line after a
	// short prefix goes on the next line too.
	label := "x:" + strings.Repeat("a", 970)
	in0 := "Content-Type: " + label + "\r\n\r\nbody\r\n"
	out0, rep0 := rewriteBytes(t, []byte(in0), Options{To: ToContentType})
	require.True(t, rep0.OK(), "%v", rep0.Err())
	assert.Equal(t, "Content-Type: \r\n application/uri.x%3A"+strings.Repeat("a", 970)+"\r\n\r\nbody\r\n", string(out0))
	back, rep0 := rewriteBytes(t, out0, Options{To: ToURI})
	require.True(t, rep0.OK(), "%v", rep0.Err())
	assert.Equal(t, label, string(trimWSP(unfold(nil, back[len("Content-Type:"):bytes.Index(back, []byte("\r\n\r\n"))], true))))

	// A URI whose scheme and ':' take 78 octets, on a continuation line
	// after a long prefix, has its scheme split there rather than make a
	// 79-octet line (FuzzFoldPrefix found it).
	scheme := strings.Repeat("s", 77) + ":"
	out1, ok := appendFolded(nil, []byte("Content-Type:"+strings.Repeat(" ", 980)), scheme, true, "\r\n", "")
	require.True(t, ok)
	assert.Equal(t, "Content-Type:"+strings.Repeat(" ", 980)+"\r\n "+scheme[:77]+"\r\n :", string(out1))

	// A prefix over 998 octets cannot be kept on one line: not rewritten.
	in := "Content-Type:" + strings.Repeat(" ", 990) + "\r\n text/plain\r\n\r\nx"
	out, rep := rewriteBytes(t, []byte(in), Options{})
	assert.Equal(t, []problemAt{{"top", KindLineTooLong}}, problemsOf(rep))
	assert.Equal(t, in, string(out))
}

// TestRewriteFieldAppendsToDst: the field rewriter appends to dst, as
// append does, whether it rewrites the field or passes it through, and
// whatever room dst has.
func TestRewriteFieldAppendsToDst(t *testing.T) {
	cases := []struct {
		name, raw, want string
	}{
		{"rewritten", "Content-Type: text/plain\r\n", "Content-Type: ContentType:text/plain\r\n"},
		{"rewritten and folded", "Content-Type: text/plain; name=" + strings.Repeat("n", 200) + "\r\n", ""},
		{"passed through", "Content-Type: ContentType:text/plain\r\n", "Content-Type: ContentType:text/plain\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			alone, _ := newFieldRewriter(&Options{}).rewrite(nil, []byte(tc.raw), "\r\n")
			if tc.want != "" {
				require.Equal(t, tc.want, string(alone))
			}
			for _, dst := range [][]byte{
				[]byte("X-Before: a\r\n"),
				append(make([]byte, 0, 4096), "X-Before: a\r\n"...),
			} {
				out, _ := newFieldRewriter(&Options{}).rewrite(dst, []byte(tc.raw), "\r\n")
				assert.Equal(t, "X-Before: a\r\n"+string(alone), string(out), "cap(dst) %d", cap(dst))
			}
		})
	}
}
