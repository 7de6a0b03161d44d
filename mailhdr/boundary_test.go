package mailhdr

import (
	"mime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoundaryRFC2231 reads boundaries in RFC 2231 form as Go's
// mime.ParseMediaType (and so go-message) reads them, for values that it
// reads at all.
func TestBoundaryRFC2231(t *testing.T) {
	cases := []struct {
		name, ct string
		boundary string
		ok       bool
	}{
		{"plain", `multipart/mixed; boundary="a b"`, "a b", true},
		{"continuations", `multipart/mixed; boundary*0="ab"; boundary*1="cd"`, "abcd", true},
		{"continuations out of order", `multipart/mixed; boundary*1=cd; boundary*0=ab`, "abcd", true},
		{"continuations up to a gap", `multipart/mixed; boundary*0=ab; boundary*2=ef`, "ab", true},
		{"no first continuation", `multipart/mixed; boundary*1=cd; boundary=x`, "x", true},
		{"encoded continuations", `multipart/mixed; boundary*0*=utf-8''a%20b; boundary*1*=%3Dc; boundary*2=%41`, "a b=c%41", true},
		{"extended value", `multipart/mixed; boundary*=US-ASCII'en'a%27b`, "a'b", true},
		{"extended value wins", `multipart/mixed; boundary=x; boundary*=utf-8''y`, "y", true},
		{"extended value wins over continuations", `multipart/mixed; boundary*0=x; boundary*=utf-8''y`, "y", true},
		{"plain continuation wins over encoded", `multipart/mixed; boundary*0*=utf-8''x; boundary*0=y`, "y", true},
		{"plain continuation wins over a later encoded", `multipart/mixed; boundary*0=a; boundary*1=b; boundary*1*=%41`, "ab", true},
		{"plain later continuation wins", `multipart/mixed; boundary*0=a; boundary*1*=%41; boundary*1=b`, "ab", true},
		{"name case", `multipart/mixed; BOUNDARY*0=ab; Boundary*1=cd`, "abcd", true},
		{"unknown charset", `multipart/mixed; boundary=x; boundary*=latin1''y`, "x", true},
		{"bad escape", `multipart/mixed; boundary=x; boundary*=utf-8''y%2`, "x", true},
		{"no charset quotes", `multipart/mixed; boundary*=y`, "", false},
		{"one charset quote", `multipart/mixed; boundary=x; boundary*=utf-8'y`, "x", true},
		{"one charset quote, no boundary=", `multipart/mixed; boundary*=utf-8'y`, "", false},
		{"leading zero is not a number", `multipart/mixed; boundary*00=y`, "", false},
		{"another name", `multipart/mixed; boundaryx*0=y`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := structureOf(tc.ct)
			require.NoError(t, err)
			assert.Equal(t, tc.ok, info.hasBoundary)
			assert.Equal(t, tc.boundary, info.boundary)
			if _, params, err := mime.ParseMediaType(tc.ct); err == nil {
				b, ok := params["boundary"]
				assert.Equal(t, b, info.boundary, "mime.ParseMediaType")
				assert.Equal(t, ok, info.hasBoundary, "mime.ParseMediaType")
			}
		})
	}
}

// TestBoundaryBackslash: in a quoted boundary, Go's mime.ParseMediaType
// keeps a backslash before an octet other than a tspecial (RFC 5322 would
// drop it), and go-message splits the body on what it reads, so the
// scanner does too. Where mime.ParseMediaType refuses the field, the RFC
// reading stands.
func TestBoundaryBackslash(t *testing.T) {
	testBoundaries(t, []boundaryCase{
		{"before a letter", `multipart/mixed; boundary="a\b"`, `a\b`},
		{"before a tspecial", `multipart/mixed; boundary="a\(b"`, `a(b`},
		{"escaped backslash", `multipart/mixed; boundary="a\\b"`, `a\b`},
		{"escaped quote", `multipart/mixed; boundary="a\"b"`, `a"b`},
		{"in an RFC 2231 continuation", `multipart/mixed; boundary*0="a\b"; boundary*1=c`, `a\bc`},
		{"a field mime refuses (repeated name)", `multipart/mixed; boundary="a\b"; boundary=c`, `ab`},
		{"in a comment", `multipart/mixed; boundary=ab (a\b)`, `ab`},
	})
}

type boundaryCase struct{ name, ct, boundary string }

// testBoundaries checks the boundary the scanner reads from each
// Content-Type, and that mime.ParseMediaType reads the same where it
// reads the field at all.
func testBoundaries(t *testing.T, cases []boundaryCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := structureOf(tc.ct)
			require.NoError(t, err)
			assert.True(t, info.hasBoundary)
			assert.Equal(t, tc.boundary, info.boundary)
			if _, params, err := mime.ParseMediaType(tc.ct); err == nil {
				assert.Equal(t, params["boundary"], info.boundary, "mime.ParseMediaType")
			}
		})
	}
}

// TestBoundaryBackslashMessage: a multipart whose boundary Go reads with
// a backslash that the mapping would drop has its parts rewritten, and
// its own field left alone (KindStructureChange): rewritten, it would
// name another boundary.
func TestBoundaryBackslashMessage(t *testing.T) {
	in := "Content-Type: multipart/mixed; boundary=\"a\\b\"\r\n\r\n" +
		"--a\\b\r\nContent-Type: text/plain\r\n\r\nx\r\n--a\\b--\r\n"
	out, rep := rewriteBytes(t, []byte(in), Options{})
	assert.Equal(t, 2, rep.Entities)
	assert.Equal(t, 1, rep.Rewritten)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, KindStructureChange, rep.Problems[0].Kind)
	assert.ErrorIs(t, rep.Err(), ErrStructureChange)
	assert.Equal(t, strings.Replace(in, "text/plain", "ContentType:text/plain", 1), string(out))
}

// TestBoundaryRFC2231Message: the parts of a multipart whose boundary is
// in RFC 2231 form are rewritten.
func TestBoundaryRFC2231Message(t *testing.T) {
	cases := []struct {
		ct        string
		rewritten int // the part's field, and the message's unless a URI label
	}{
		{`multipart/mixed; boundary*0="a"; boundary*1="b"`, 2},
		{`multipart/mixed; boundary*=utf-8''a%62`, 2},
		{`ContentType:multipart/mixed?boundary*0=%22a%22&boundary*1=%22b%22`, 1},
	}
	for _, tc := range cases {
		t.Run(tc.ct, func(t *testing.T) {
			in := "Content-Type: " + tc.ct + "\r\n\r\n--ab\r\nContent-Type: text/plain\r\n\r\nx\r\n--ab--\r\n"
			_, rep := rewriteBytes(t, []byte(in), Options{})
			assert.True(t, rep.OK(), "%v", rep.Err())
			assert.Equal(t, 2, rep.Entities)
			assert.Equal(t, tc.rewritten, rep.Rewritten)
		})
	}
}

// FuzzBoundaryOf: wherever Go's mime.ParseMediaType (which go-message
// uses to find a multipart's parts) reads a Content-Type, the scanner
// reads the same boundary from it, or none when it has none.
func FuzzBoundaryOf(f *testing.F) {
	for _, s := range []string{
		`multipart/mixed; boundary="a b"`,
		`multipart/mixed; boundary*0="ab"; boundary*1*=%3Dc; boundary*2=%41`,
		`multipart/mixed; boundary*0*=utf-8''a%20b; boundary*1=cd`,
		`multipart/mixed; boundary=x; boundary*=utf-8''y`,
		`multipart/mixed; BOUNDARY*=US-ASCII'en'a%27b`,
		`multipart/mixed; boundary*1=cd; boundary=x`,
		`multipart/mixed; boundary="a\b"`,
		`text/plain`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if strings.IndexByte(ct, '\\') >= 0 {
			return // read by mime.ParseMediaType itself (TestBoundaryBackslash)
		}
		_, params, err := mime.ParseMediaType(ct)
		if err != nil {
			return
		}
		info, err := structureOf(ct)
		if err != nil {
			return // mapping's grammar is stricter in places (SPEC C)
		}
		want, ok := params["boundary"]
		assert.Equal(t, ok, info.hasBoundary, "hasBoundary")
		assert.Equal(t, want, info.boundary, "boundary")
	})
}

// TestBoundaryRepeated: of repeated boundary parameters in one RFC 2231
// form the first counts (mime.ParseMediaType refuses such a field).
func TestBoundaryRepeated(t *testing.T) {
	testBoundaries(t, []boundaryCase{
		{"extended values", `multipart/mixed; boundary*=utf-8''x; boundary*=utf-8''y`, "x"},
		{"continuations", `multipart/mixed; boundary*0=x; boundary*0=y`, "x"},
	})
}

// TestDelimiterLineLimit: a delimiter line with transport padding (white
// space after the boundary, RFC 2046) is one while it fits in the read
// buffer, 64 KiB with its CRLF; one octet longer, it is body text (here
// the preamble, so the part after it is not one).
func TestDelimiterLineLimit(t *testing.T) {
	cases := []struct {
		n         int // octets of the delimiter line, CRLF included
		rewritten int
		problems  []problemAt
	}{
		{readBufSize, 2, nil},
		{readBufSize + 1, 1, nil},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.n), func(t *testing.T) {
			line := "--b" + strings.Repeat(" ", tc.n-len("--b\r\n")) + "\r\n"
			require.Len(t, line, tc.n)
			in := "Content-Type: multipart/mixed; boundary=b\r\n\r\n" + line + "Content-Type: text/plain\r\n\r\nx\r\n--b--\r\n"
			_, rep := rewriteBytes(t, []byte(in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
		})
	}
}

// TestBoundaryLengthLimit: a boundary of 996 octets, whose delimiter
// line fits in 998, is used; one octet longer is not (KindNoBoundary).
func TestBoundaryLengthLimit(t *testing.T) {
	cases := []struct {
		n         int
		rewritten int
		problems  []problemAt
	}{
		{996, 2, nil},
		{997, 1, []problemAt{{"top", KindNoBoundary}}},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.n), func(t *testing.T) {
			b := strings.Repeat("b", tc.n)
			in := "Content-Type: multipart/mixed; boundary=\"" + b + "\"\r\n\r\n--" + b + "\r\nContent-Type: text/plain\r\n\r\nx\r\n--" + b + "--\r\n"
			_, rep := rewriteBytes(t, []byte(in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
		})
	}
}
