package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	"github.com/cturi/cturi/mapping"
	message "github.com/emersion/go-message"
	"github.com/stretchr/testify/require"
)

// mailCorpusDir holds the hand-written messages of package mailhdr.
const mailCorpusDir = "../mailhdr/testdata/corpus"

// goMessageReadable lists the corpus messages go-message parses without
// error, so that its tree can be compared. The others are malformed on
// purpose, or beyond go-message: nested.eml has the unquoted
// boundary=----=_Part_1_2.3 that mime.ParseMediaType refuses,
// ambiguous-boundary.eml is read differently (go-message's part reader
// takes "--b--" for the end of a part of boundary "b" even inside a
// multipart of boundary "b--"; and in mixed-endings.eml, whose part reader
// keeps the line ending of the first delimiter, so that it finds one part
// where mailhdr, like Python's email package, finds two), mbox.eml starts
// with an mbox "From " line, and uri-already.eml has a URI label for a
// Content-Type.
var goMessageReadable = map[string]bool{
	"simple.eml": true, "simple-lf.eml": true, "rfc822.eml": true,
	"global.eml": true, "encoded-message.eml": true, "digest.eml": true,
	"prefix-boundary.eml": true, "long.eml": true, "signed.eml": true,
}

func mailCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(mailCorpusDir, "*.eml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the mail corpus of package mailhdr is missing")
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		m[filepath.Base(f)] = b
	}
	return m
}

func mailRewrite(t testing.TB, in []byte, to mailhdr.Target) ([]byte, mailhdr.Report) {
	t.Helper()
	var out bytes.Buffer
	rep, err := mailhdr.Rewrite(&out, bytes.NewReader(in), mailhdr.Options{To: to})
	require.NoError(t, err)
	return out.Bytes(), rep
}

// fieldPair is a Content-Type field of two messages: prefix its name,
// colon and the white space after it (the same in both), a and b its
// values, unfolded, and uriA and uriB the same read as URI labels,
// without the white space around line breaks (RFC 3986 Appendix C).
type fieldPair struct{ prefix, a, b, uriA, uriB string }

// aIsURI reports whether mailhdr reads a as a URI label. As mailhdr does,
// it reads a folded value without the white space around its line breaks
// first: "A\n :" is the URI "A:".
func (d fieldPair) aIsURI() bool {
	return mapping.Detect(d.uriA) == mapping.DirectionToContentType ||
		mapping.Detect(d.a) == mapping.DirectionToContentType
}

// foldingWSP is a line break with the white space around it.
var foldingWSP = regexp.MustCompile(`[ \t]*\r?\n[ \t]*`)

// uriFieldValue is the value of a Content-Type field read as a URI label.
func uriFieldValue(raw []byte) string {
	v := raw[bytes.IndexByte(raw, ':')+1:]
	return strings.Trim(foldingWSP.ReplaceAllString(string(v), ""), " \t")
}

// isContentTypeStart reports whether line starts a Content-Type field.
func isContentTypeStart(line []byte) bool {
	const name = "content-type"
	if len(line) < len(name) || !strings.EqualFold(string(line[:len(name)]), name) {
		return false
	}
	rest := bytes.TrimLeft(line[len(name):], " \t")
	return len(rest) > 0 && rest[0] == ':'
}

// fieldValue returns the unfolded, trimmed value of a field.
func fieldValue(raw []byte) string {
	v := raw[bytes.IndexByte(raw, ':')+1:]
	v = bytes.ReplaceAll(v, []byte("\r\n"), nil)
	v = bytes.ReplaceAll(v, []byte("\n"), nil)
	return strings.Trim(string(v), " \t")
}

// fieldPrefix returns the field's name, colon and following white space.
func fieldPrefix(raw []byte) string {
	i := bytes.IndexByte(raw, ':') + 1
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t') {
		i++
	}
	return string(raw[:i])
}

// diffContentTypes walks a and b line by line, independently of
// package mailhdr's scanner, and returns the Content-Type fields that
// differ. Every other line must be identical, octet for octet, line
// endings included; a differing line outside a Content-Type field fails
// the test. A differing field must keep its name and the white space
// after the colon, and the line ending of its last line.
func diffContentTypes(t testing.TB, a, b []byte) []fieldPair {
	t.Helper()
	la := bytes.SplitAfter(a, []byte("\n"))
	lb := bytes.SplitAfter(b, []byte("\n"))
	field := func(ls [][]byte, i int) ([]byte, int) {
		raw := slices.Clone(ls[i])
		for i++; i < len(ls) && len(ls[i]) > 0 && (ls[i][0] == ' ' || ls[i][0] == '\t'); i++ {
			raw = append(raw, ls[i]...)
		}
		return raw, i
	}
	var diffs []fieldPair
	i, j := 0, 0
	for i < len(la) && j < len(lb) {
		if isContentTypeStart(la[i]) && isContentTypeStart(lb[j]) {
			fa, ni := field(la, i)
			fb, nj := field(lb, j)
			if !bytes.Equal(fa, fb) {
				require.Equal(t, fieldPrefix(fa), fieldPrefix(fb), "field name and white space kept")
				require.Equal(t, lineEnding(fa), lineEnding(fb), "final line ending kept")
				for _, l := range bytes.SplitAfter(fb, []byte("\n")) {
					require.LessOrEqual(t, len(bytes.TrimRight(l, "\r\n")), 998, "line length")
				}
				diffs = append(diffs, fieldPair{fieldPrefix(fa), fieldValue(fa), fieldValue(fb), uriFieldValue(fa), uriFieldValue(fb)})
			}
			i, j = ni, nj
			continue
		}
		require.Equal(t, string(la[i]), string(lb[j]), "line %d of a differs from line %d of b outside a Content-Type field", i+1, j+1)
		i++
		j++
	}
	require.Equal(t, len(la)-i, len(lb)-j, "line counts differ")
	return diffs
}

// foldsWithinLimit reports whether a Content-Type field starting with
// prefix can hold value v in lines of at most 998 octets (RFC 5322
// §2.1.1) when folded only at a single SP between two other octets, the
// only places mailhdr folds a Content-Type. Each line then holds one run
// between such SPs at least, so the field fits exactly when every run
// fits on a line of its own, the first run either after the prefix or,
// when it cannot follow the prefix, on the next line; mailhdr reports
// KindLineTooLong otherwise.
func foldsWithinLimit(prefix, v string) bool {
	// A value that cannot follow the prefix starts on the next line,
	// after a fold (mailhdr's appendFolded).
	return foldsFrom(len(prefix), v) || len(prefix) <= 998 && foldsFrom(1, v)
}

func foldsFrom(col int, v string) bool {
	isWSP := func(c byte) bool { return c == ' ' || c == '\t' }
	start := 0
	for i := 1; i < len(v)-1; i++ {
		if v[i] == ' ' && !isWSP(v[i-1]) && !isWSP(v[i+1]) {
			if col+i-start > 998 {
				return false
			}
			col, start = 0, i // the next line starts with this SP
		}
	}
	return col+len(v)-start <= 998
}

func hasProblem(rep mailhdr.Report, kind mailhdr.Kind) bool {
	return slices.ContainsFunc(rep.Problems, func(p mailhdr.Problem) bool { return p.Kind == kind })
}

func lineEnding(raw []byte) string {
	switch {
	case bytes.HasSuffix(raw, []byte("\r\n")):
		return "CRLF"
	case bytes.HasSuffix(raw, []byte("\n")):
		return "LF"
	}
	return "none"
}

// sameContentType checks SPEC N2's semantic identity of two
// Content-Types: type, subtype and parameter names compared without
// case, parameter order ignored, values compared unquoted.
func sameContentType(t testing.TB, a, b string) {
	t.Helper()
	pa, err := mapping.ParseContentType(a, mapping.Lenient)
	require.NoError(t, err, a)
	pb, err := mapping.ParseContentType(b, mapping.Lenient)
	require.NoError(t, err, b)
	require.Equal(t, strings.ToLower(pa.Type+"/"+pa.Subtype), strings.ToLower(pb.Type+"/"+pb.Subtype), "%s vs %s", a, b)
	norm := func(ps []mapping.Param) []string {
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = strings.ToLower(p.Name) + "=" + p.Value
		}
		slices.Sort(s)
		return s
	}
	require.Equal(t, norm(pa.Params), norm(pb.Params), "%s vs %s", a, b)
}

// sameContentTypeOrURI is sameContentType of d.a and d.b where d.a may
// be a URI label, which is compared by its mapping.
func sameContentTypeOrURI(t testing.TB, d fieldPair) {
	t.Helper()
	a := d.a
	if d.aIsURI() {
		var err error
		a, err = mapping.ToContentType(d.uriA)
		require.NoError(t, err)
	}
	sameContentType(t, a, d.b)
}

// checkRoundTrip rewrites msg to URI labels and back and checks the
// issue's three properties against the original; it returns the
// intermediate message.
func checkRoundTrip(t *testing.T, msg []byte, goMessage bool) []byte {
	t.Helper()
	uri, repURI := mailRewrite(t, msg, mailhdr.ToURI)
	back, repBack := mailRewrite(t, uri, mailhdr.ToContentType)

	// Forward: each rewritten field holds a URI that maps back to the
	// original Content-Type.
	forward := diffContentTypes(t, msg, uri)
	require.Len(t, forward, repURI.Rewritten)
	for _, d := range forward {
		ct, err := mapping.ToContentType(d.uriB)
		require.NoError(t, err, d.b)
		sameContentType(t, d.a, ct)
	}
	require.GreaterOrEqual(t, repBack.Rewritten, repURI.Rewritten, "every URI label comes back")

	// Round trip: only Content-Type fields differ, each semantically
	// identical to the original (or to its mapping, where the original
	// held a URI label already).
	for _, d := range diffContentTypes(t, msg, back) {
		sameContentTypeOrURI(t, d)
	}
	if goMessage {
		want, err := goMessageTree(msg)
		require.NoError(t, err, "go-message reads the original")
		got, err := goMessageTree(back)
		require.NoError(t, err, "go-message reads the round-tripped message")
		require.Equal(t, want, got, "go-message reads the same tree")
	}
	return uri
}

// goMessageTree reads msg with go-message and describes each entity on
// one line: path, media type, sorted parameters and a digest of the
// decoded body. It descends into multiparts and, unlike Walk, into
// message/rfc822 and message/global parts that are not encoded. An error
// means go-message could not read msg.
func goMessageTree(msg []byte) ([]string, error) {
	e, err := message.Read(bytes.NewReader(msg))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return nil, err
	}
	var out []string
	err = describeEntity(e, "top", false, &out)
	return out, err
}

func tolerable(err error) bool {
	return err == nil || message.IsUnknownCharset(err) || message.IsUnknownEncoding(err)
}

func describeEntity(e *message.Entity, path string, inDigest bool, out *[]string) error {
	mt, params, _ := e.Header.ContentType()
	if inDigest && !e.Header.Has("Content-Type") {
		mt = "message/rfc822" // RFC 2046 §5.1.5, which go-message does not apply
	}
	// go-message unfolds by trimming the white space around a line break
	// and joining with one SP, so a value it folded between two spaces
	// comes back to it with one: compare values with runs of white space
	// collapsed.
	keys := slices.Sorted(func(yield func(string) bool) {
		for k, v := range params {
			if !yield(k + "=" + strings.Join(strings.Fields(v), " ")) {
				return
			}
		}
	})
	line := fmt.Sprintf("%s %s %v", path, mt, keys)
	if mr := e.MultipartReader(); mr != nil {
		*out = append(*out, line)
		for n := 1; ; n++ {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if !tolerable(err) {
				return fmt.Errorf("%s: %w", path, err)
			}
			if err := describeEntity(p, fmt.Sprintf("%s.%d", path, n), mt == "multipart/digest", out); err != nil {
				return err
			}
		}
	}
	body, err := io.ReadAll(e.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	cte := strings.ToLower(e.Header.Get("Content-Transfer-Encoding"))
	if (mt == "message/rfc822" || mt == "message/global") && (cte == "" || cte == "7bit" || cte == "8bit" || cte == "binary") {
		*out = append(*out, line)
		inner, err := message.Read(bytes.NewReader(body))
		if !tolerable(err) {
			return fmt.Errorf("%s: %w", path, err)
		}
		return describeEntity(inner, path+".msg", false, out)
	}
	sum := sha256.Sum256(body)
	*out = append(*out, line+" "+hex.EncodeToString(sum[:8]))
	return nil
}
