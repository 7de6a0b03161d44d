package mailhdr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// problemAt is a (path, kind) pair a corpus message must report.
type problemAt struct {
	path string
	kind Kind
}

// corpusCases says, for each hand-written message in testdata/corpus, how
// many Content-Type fields a rewrite to URI labels must rewrite, how many
// entities it must see, and which problems it must report, in order.
var corpusCases = []struct {
	file      string
	rewritten int
	entities  int
	problems  []problemAt
}{
	{"simple.eml", 1, 1, nil},
	{"simple-lf.eml", 1, 1, nil},
	{"nested.eml", 5, 5, nil},
	{"rfc822.eml", 6, 6, nil},
	{"global.eml", 3, 3, nil},
	{"encoded-message.eml", 4, 4, []problemAt{{"1", KindOpaqueMessage}, {"2", KindOpaqueMessage}, {"3", KindOpaqueMessage}}},
	{"digest.eml", 4, 6, nil},
	{"mixed-endings.eml", 3, 3, nil},
	{"prefix-boundary.eml", 5, 5, nil},
	{"ambiguous-boundary.eml", 3, 3, nil},
	{"long.eml", 1, 1, nil},
	{"uri-already.eml", 1, 2, nil},
	{"mbox.eml", 1, 1, nil},
	{"malformed-nocolon.eml", 1, 1, []problemAt{{"top", KindMalformedHeader}}},
	{"malformed-truncated.eml", 2, 3, []problemAt{{"2", KindTruncatedHeader}, {"top", KindMissingDelimiter}}},
	{"malformed-unclosed.eml", 4, 4, []problemAt{{"1", KindMissingDelimiter}, {"top", KindMissingDelimiter}}},
	{"malformed-junk.eml", 2, 2, []problemAt{{"1", KindBadDelimiter}}},
	{"malformed-ct.eml", 0, 1, []problemAt{{"top", KindMapping}}},
	{"malformed-noboundary.eml", 1, 1, []problemAt{{"top", KindNoBoundary}}},
	{"signed.eml", 4, 4, []problemAt{{"2.1", KindSigned}}},
}

func readCorpus(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	require.NoError(t, err)
	return b
}

func rewriteBytes(t testing.TB, in []byte, opts Options) ([]byte, Report) {
	t.Helper()
	var out bytes.Buffer
	rep, err := Rewrite(&out, bytes.NewReader(in), opts)
	require.NoError(t, err)
	return out.Bytes(), rep
}

func problemsOf(rep Report) []problemAt {
	var ps []problemAt
	for _, p := range rep.Problems {
		ps = append(ps, problemAt{p.Path.String(), p.Kind})
	}
	return ps
}

func TestCorpusReport(t *testing.T) {
	for _, tc := range corpusCases {
		t.Run(tc.file, func(t *testing.T) {
			in := readCorpus(t, tc.file)
			out, rep := rewriteBytes(t, in, Options{})
			assert.Equal(t, tc.rewritten, rep.Rewritten, "rewritten")
			assert.Equal(t, tc.entities, rep.Entities, "entities")
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, len(tc.problems) == 0, rep.OK())
			if tc.rewritten > 0 {
				assert.NotEqual(t, in, out)
			}
			// Every rewritten field is folded within the limits.
			for _, line := range bytes.SplitAfter(out, []byte("\n")) {
				assert.LessOrEqual(t, len(bytes.TrimRight(line, "\r\n")), maxLineLen)
			}
		})
	}
}

// TestCorpusNothingToDo: a message whose fields are all in the target
// syntax already comes out byte for byte.
func TestCorpusNothingToDo(t *testing.T) {
	for _, tc := range corpusCases {
		t.Run(tc.file, func(t *testing.T) {
			in := readCorpus(t, tc.file)
			uri, _ := rewriteBytes(t, in, Options{})
			again, rep := rewriteBytes(t, uri, Options{})
			assert.Equal(t, string(uri), string(again), "URI labels rewritten to URI labels")
			assert.Zero(t, rep.Rewritten)
			if tc.file != "uri-already.eml" {
				same, rep := rewriteBytes(t, in, Options{To: ToContentType})
				assert.Equal(t, string(in), string(same), "Content-Types rewritten to Content-Types")
				assert.Zero(t, rep.Rewritten)
			}
		})
	}
}

// TestCorpusCanonicalIdempotent: canonical once is canonical for good.
func TestCorpusCanonicalIdempotent(t *testing.T) {
	for _, tc := range corpusCases {
		t.Run(tc.file, func(t *testing.T) {
			once, _ := rewriteBytes(t, readCorpus(t, tc.file), Options{To: Canonical})
			twice, rep := rewriteBytes(t, once, Options{To: Canonical})
			assert.Equal(t, string(once), string(twice))
			assert.Zero(t, rep.Rewritten)
		})
	}
}

// TestReaderMatchesRewrite reads each corpus message through NewReader
// with sources that return one octet, half the request, or data with
// io.EOF, and with tiny reads, so that every buffer boundary falls
// everywhere; the output and report must be Rewrite's.
func TestReaderMatchesRewrite(t *testing.T) {
	sources := map[string]func(io.Reader) io.Reader{
		"one-byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data-err": iotest.DataErrReader,
	}
	for _, tc := range corpusCases {
		in := readCorpus(t, tc.file)
		want, wantRep := rewriteBytes(t, in, Options{})
		for name, wrap := range sources {
			t.Run(tc.file+"/"+name, func(t *testing.T) {
				r := NewReader(wrap(bytes.NewReader(in)), Options{})
				got, err := io.ReadAll(iotest.OneByteReader(r))
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got))
				assert.Equal(t, wantRep, r.Report())

				r = NewReader(wrap(bytes.NewReader(in)), Options{})
				var buf bytes.Buffer
				_, err = io.Copy(&buf, r) // WriteTo
				require.NoError(t, err)
				assert.Equal(t, string(want), buf.String())
			})
		}
	}
}

func TestReaderPassesReadErrors(t *testing.T) {
	boom := io.ErrUnexpectedEOF
	r := NewReader(io.MultiReader(strings.NewReader("Subject: x\r\n"), iotest.ErrReader(boom)), Options{})
	_, err := io.ReadAll(r)
	assert.ErrorIs(t, err, boom)
	_, err = Rewrite(io.Discard, iotest.ErrReader(boom), Options{})
	assert.ErrorIs(t, err, boom)
}

// TestRewriteWritesWhatItReadBeforeAnError: after a read error, dst has
// the rewritten message up to the error, as a Reader returns it and as
// io.Copy would leave it, and the Report covers it.
func TestRewriteWritesWhatItReadBeforeAnError(t *testing.T) {
	boom := io.ErrUnexpectedEOF
	// tail is what the output must end with: the input after the last
	// thing that may have been rewritten, as it was read.
	cases := []struct{ name, in, tail string }{
		{"in the body", "Subject: x\r\nContent-Type: text/plain\r\n\r\nbody line\r\n", "\r\n\r\nbody line\r\n"},
		{"in the header", "Subject: x\r\nContent-Type: text/plain\r\n", "Subject: x\r\nContent-Type: text/plain\r\n"},
		{"in a part", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\npart\r\n", "\r\n\r\npart\r\n"},
		{"in a Content-Type line", "Subject: x\r\nContent-Type: text/pl", "Subject: x\r\nContent-Type: text/pl"},
		{"in a Content-Transfer-Encoding field", "Subject: x\r\nContent-Transfer-Encoding: 7bit\r\n", "Subject: x\r\nContent-Transfer-Encoding: 7bit\r\n"},
		{"in a part's Content-Type", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain;\r\n charset=us-ascii\r\n", "\r\n\r\n--b\r\nContent-Type: text/plain;\r\n charset=us-ascii\r\n"},
		{"in a continuation line", "Subject: x\r\nContent-Type: text/plain;\r\n charset=us-as", "Subject: x\r\nContent-Type: text/plain;\r\n charset=us-as"},
		{"in a delimiter line", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b", "\r\n\r\n--b"},
		{"in a line that is not a field", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nno colon", "\r\n\r\n--b\r\nno colon"},
	}
	// The source repeats its error (as a broken connection does), or
	// reports it once, with the last octets, and then io.EOF: the error
	// must not be lost either way.
	sources := map[string]func(in string) io.Reader{
		"repeated": func(in string) io.Reader { return io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom)) },
		"once":     func(in string) io.Reader { return &failOnce{data: in, err: boom} },
	}
	for _, tc := range cases {
		for srcName, src := range sources {
			t.Run(tc.name+"/"+srcName, func(t *testing.T) {
				r := NewReader(src(tc.in), Options{})
				want, err := io.ReadAll(r)
				require.ErrorIs(t, err, boom)
				require.NotEmpty(t, want)

				var out bytes.Buffer
				rep, err := Rewrite(&out, src(tc.in), Options{})
				require.ErrorIs(t, err, boom)
				assert.Equal(t, string(want), out.String())
				assert.Equal(t, r.Report(), rep)
				// Every octet read comes out; a field the error cut off (it
				// might have gone on) as it was read.
				assert.True(t, strings.HasSuffix(out.String(), tc.tail), "%q", out.String())

				var copied bytes.Buffer
				_, err = io.Copy(&copied, NewReader(src(tc.in), Options{})) // WriteTo
				require.ErrorIs(t, err, boom)
				assert.Equal(t, string(want), copied.String())
			})
		}
	}
}

// failOnce returns data, the last of it with err, and then io.EOF: an
// io.Reader need not repeat its error.
type failOnce struct {
	data string
	err  error
	done bool
}

func (r *failOnce) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if r.data == "" {
		r.done = true
		return n, r.err
	}
	return n, nil
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, io.ErrShortWrite
	}
	return len(p), nil
}

func TestRewritePassesWriteErrors(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	_, err := Rewrite(&failWriter{n: 100}, strings.NewReader("Content-Type: text/plain\r\n\r\n"+big), Options{})
	assert.ErrorIs(t, err, io.ErrShortWrite)
}

func TestEmptyAndHeaderOnly(t *testing.T) {
	for _, in := range []string{"", "\r\n", "Subject: x\r\n", "Content-Type: text/plain\n", "body only, no header\n"} {
		out, rep := rewriteBytes(t, []byte(in), Options{To: ToContentType})
		assert.Equal(t, in, string(out))
		if in == "body only, no header\n" {
			assert.Equal(t, []problemAt{{"top", KindMalformedHeader}}, problemsOf(rep))
		} else {
			assert.True(t, rep.OK(), "%q: %v", in, rep.Err())
		}
	}
}

// TestDelimiterLines covers what is and is not a delimiter line.
func TestDelimiterLines(t *testing.T) {
	const head = "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
	cases := []struct {
		name, line string
		closes     bool // the line closes the multipart
		problems   []problemAt
	}{
		{"close", "--b--\r\n", true, nil},
		{"close with white space", "--b-- \t\r\n", true, nil},
		{"close at the end without a line ending", "--b--", true, nil},
		{"close with LF", "--b--\n", true, nil},
		{"junk after close", "--b--junk\r\n", false, []problemAt{{"1", KindBadDelimiter}, {"top", KindMissingDelimiter}}},
		{"junk after white space", "--b x\r\n", false, []problemAt{{"1", KindBadDelimiter}, {"top", KindMissingDelimiter}}},
		{"longer boundary", "--bc--\r\n", false, []problemAt{{"top", KindMissingDelimiter}}},
		{"indented", " --b--\r\n", false, []problemAt{{"top", KindMissingDelimiter}}},
		{"bare CR inside", "--b--\r \r\n", false, []problemAt{{"1", KindBadDelimiter}, {"top", KindMissingDelimiter}}},
		{"junk after close, cut off at the end", "--b--junk", false, []problemAt{{"1", KindBadDelimiter}, {"top", KindMissingDelimiter}}},
		{"longer boundary, cut off at the end", "--bc", false, []problemAt{{"top", KindMissingDelimiter}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := head + "text\r\n" + tc.line
			out, rep := rewriteBytes(t, []byte(in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, 2, rep.Rewritten)
			assert.True(t, strings.HasSuffix(string(out), "text\r\n"+tc.line))
		})
	}
}

func TestProblemsAreErrors(t *testing.T) {
	_, rep := rewriteBytes(t, readCorpus(t, "malformed-ct.eml"), Options{})
	err := rep.Err()
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrMapping)
	var p *Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, KindMapping, p.Kind)
	assert.Contains(t, p.Error(), "mailhdr: top: mapping: ")
	assert.NoError(t, (&Report{}).Err())
}

func TestMaxProblems(t *testing.T) {
	// n parts, each with a Content-Type that does not map: n problems.
	msg := func(n int) []byte {
		var b strings.Builder
		b.WriteString("Content-Type: multipart/mixed; boundary=b\r\n\r\n")
		for range n {
			b.WriteString("--b\r\nContent-Type: a\r\n\r\nx\r\n")
		}
		b.WriteString("--b--\r\n")
		return []byte(b.String())
	}
	for _, tt := range []struct {
		problems, max, listed, omitted int
	}{
		{20, 5, 5, 15},
		{5, 5, 5, 0}, // at the limit: all listed
		{6, 5, 5, 1}, // one over
		{DefaultMaxProblems, 0, DefaultMaxProblems, 0},
		{DefaultMaxProblems + 1, 0, DefaultMaxProblems, 1},
	} {
		_, rep := rewriteBytes(t, msg(tt.problems), Options{MaxProblems: tt.max, MaxReportBytes: -1})
		assert.Len(t, rep.Problems, tt.listed, "%d problems, MaxProblems %d", tt.problems, tt.max)
		assert.Equal(t, tt.omitted, rep.Omitted, "%d problems, MaxProblems %d", tt.problems, tt.max)
		assert.False(t, rep.OK())
		if tt.omitted > 0 {
			assert.ErrorContains(t, rep.Err(), fmt.Sprintf("mailhdr: %d more not listed", tt.omitted))
		} else {
			assert.NotContains(t, rep.Err().Error(), "more not listed")
		}
	}
}

// TestKinds: every kind has a name and a sentinel of that name, and a
// Problem of the kind is that sentinel for errors.Is.
func TestKinds(t *testing.T) {
	require.Len(t, sentinels, len(kindNames))
	for k := KindMapping; int(k) < len(kindNames); k++ {
		require.NotContains(t, k.String(), "Kind(", "kind %d has no name", k)
		assert.EqualError(t, sentinels[k], "mailhdr: "+k.String())
		assert.ErrorIs(t, &Problem{Kind: k}, sentinels[k])
	}
	assert.Equal(t, "structure-change", KindStructureChange.String())
	assert.Equal(t, "opaque-message", KindOpaqueMessage.String())
}

func TestPathString(t *testing.T) {
	assert.Equal(t, "top", Path(nil).String())
	assert.Equal(t, "2.msg.1", Path{2, 0, 1}.String())
}

func TestParseTarget(t *testing.T) {
	for _, tg := range []Target{ToURI, ToContentType, Canonical} {
		got, err := ParseTarget(tg.String())
		require.NoError(t, err)
		assert.Equal(t, tg, got)
	}
	_, err := ParseTarget("auto")
	assert.ErrorIs(t, err, ErrUnknownTarget)
	assert.EqualError(t, err, `mailhdr: unknown target "auto" (want uri, ct or canonical)`)
	assert.Equal(t, "Target(9)", Target(9).String())
	assert.Equal(t, "Kind(99)", Kind(99).String())
}

// TestProblemOffsets: each problem's Offset is that of the line or field
// it concerns, or of the header of the entity it concerns.
func TestProblemOffsets(t *testing.T) {
	const mp = "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
	type want struct {
		path string
		kind Kind
		at   string // the problem is at the first occurrence of at, or at the end of the input if ""
	}
	cases := []struct {
		name, in string
		opts     Options
		want     []want
	}{
		{"malformed line", "Subject: x\r\nno colon\r\n\r\n", Options{}, []want{{"top", KindMalformedHeader, "no colon"}}},
		{"input ends in a header", mp + "Subject: x\r\nX-Cut: y", Options{}, []want{{"1", KindTruncatedHeader, "Subject"}, {"top", KindMissingDelimiter, ""}}},
		{"delimiter in a header", mp + "Subject: x\r\n--b--\r\n", Options{}, []want{{"1", KindTruncatedHeader, "--b--"}}},
		{"Content-Type that does not map", "Subject: x\r\nContent-Type: text\r\n\r\n", Options{}, []want{{"top", KindMapping, "Content-Type: text"}}},
		{"bad delimiter", mp + "Subject: x\r\n\r\n--b--junk\r\n--b--\r\n", Options{}, []want{{"1", KindBadDelimiter, "--b--junk"}}},
		{"closed by an outer delimiter", mp + "Content-Type: multipart/mixed; boundary=i\r\n\r\n--i\r\n\r\nx\r\n--b--\r\n", Options{}, []want{{"1", KindMissingDelimiter, "--b--"}}},
		{"no boundary", mp + "Subject: x\r\nContent-Type: multipart/mixed\r\n\r\n--b--\r\n", Options{}, []want{{"1", KindNoBoundary, "Subject"}}},
		{"too deep", mp + "Subject: x\r\nContent-Type: multipart/mixed; boundary=i\r\n\r\n--b--\r\n", Options{MaxDepth: 1}, []want{{"1", KindTooDeep, "Subject"}}},
		{"header too large", mp + "Subject: x\r\nX-Long: " + strings.Repeat("y", 100) + "\r\n\r\n--b--\r\n", Options{MaxHeaderBytes: 100}, []want{{"1", KindHeaderTooLarge, "Subject"}}},
		{"field too large", mp + "Subject: x\r\nContent-Type: text/plain; a=" + strings.Repeat("y", 100) + "\r\n\r\n--b--\r\n", Options{MaxFieldBytes: 100}, []want{{"1", KindFieldTooLarge, "Content-Type: text/plain; a="}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := rewriteBytes(t, []byte(tc.in), tc.opts)
			var got, exp []string
			for _, p := range rep.Problems {
				got = append(got, fmt.Sprintf("%s %s @%d", p.Path, p.Kind, p.Offset))
			}
			for _, w := range tc.want {
				off := len(tc.in)
				if w.at != "" {
					off = strings.Index(tc.in, w.at)
					require.GreaterOrEqual(t, off, 0)
				}
				exp = append(exp, fmt.Sprintf("%s %s @%d", w.path, w.kind, off))
			}
			assert.Equal(t, exp, got)
		})
	}
}

// TestCutFieldGoesOutAsRead: a Content-Type cut off by the end of the
// input in the middle of a line might have gone on (another parameter, a
// longer value), so it is not rewritten from the part that arrived: it
// goes out as it was read, as after a read error, and the report says the
// header is truncated. A field that ends with its line ending before the
// end of the input is whole, and is rewritten.
func TestCutFieldGoesOutAsRead(t *testing.T) {
	const head = "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
	truncated := []problemAt{{"1", KindTruncatedHeader}, {"top", KindMissingDelimiter}}
	cases := []struct {
		name, part string // the input is head+part
		cut        bool   // the part's Content-Type is cut off
		problems   []problemAt
	}{
		{"cut value", "Content-Type: text/plain; charset=us-a", true, truncated},
		{"cut folded value", "Content-Type: text/plain;\r\n charset=us-a", true, truncated},
		{"cut line ending", "Content-Type: text/plain\r", true, truncated},
		{"cut line longer than the buffer", "Content-Type: text/plain; name=" + strings.Repeat("n", readBufSize+100), true, truncated},
		{"cut after the field", "Content-Type: text/plain\r\nX-A: b", false, truncated},
		{"whole field, no empty line", "Content-Type: text/plain\r\n", false, []problemAt{{"top", KindMissingDelimiter}}},
		// Cut off before a colon: the header is cut off, not malformed.
		{"cut field name", "Content-Type: text/plain\r\nSubj", false, truncated},
		{"cut empty line", "Content-Type: text/plain\r\n\r", false, truncated},
		{"cut continuation with no field", " x", true, truncated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := head + tc.part
			out, rep := rewriteBytes(t, []byte(in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			_, part, ok := strings.Cut(string(out), "--b\r\n")
			require.True(t, ok)
			if tc.cut {
				assert.Equal(t, 1, rep.Rewritten)
				assert.Equal(t, tc.part, part, "the cut field goes out as read")
			} else {
				assert.Equal(t, 2, rep.Rewritten)
				assert.True(t, strings.HasPrefix(part, "Content-Type: ContentType:text/plain\r\n"), part)
			}

			// NewReader writes the same octets.
			got, err := io.ReadAll(NewReader(strings.NewReader(in), Options{}))
			require.NoError(t, err)
			assert.Equal(t, string(out), string(got))
		})
	}

	// A top-level header cut off the same way, and cut off where a line
	// fills the input buffer exactly (found in review: the end of the
	// input then came with no octet of the line left to read), in the
	// field's first line or in a continuation line.
	const top = "Content-Type: text/plain; charset=us-a"
	const p, q = "Content-Type: text/plain; name=", "Content-Type: text/plain;\r\n name="
	for _, in := range []string{
		top,
		"Subj",
		"\r",
		" folded",
		p + strings.Repeat("n", readBufSize-1-len(p)),
		p + strings.Repeat("n", readBufSize-len(p)),
		p + strings.Repeat("n", readBufSize+1-len(p)),
		q + strings.Repeat("n", readBufSize-len(" name=")),
	} {
		out, rep := rewriteBytes(t, []byte(in), Options{})
		assert.Equal(t, in, string(out), "%d octets", len(in))
		assert.Equal(t, 0, rep.Rewritten, "%d octets", len(in))
		assert.Equal(t, []problemAt{{"top", KindTruncatedHeader}}, problemsOf(rep), "%d octets", len(in))
		got, err := io.ReadAll(NewReader(strings.NewReader(in), Options{}))
		require.NoError(t, err)
		assert.Equal(t, in, string(got), "%d octets", len(in))
	}
}

// TestMaxReportBytesInclusive: a problem that takes the listed problems
// to exactly MaxReportBytes is listed.
func TestMaxReportBytesInclusive(t *testing.T) {
	in := readCorpus(t, "malformed-ct.eml")
	_, rep := rewriteBytes(t, in, Options{})
	require.Len(t, rep.Problems, 1)
	n := problemSize(&rep.Problems[0])
	_, rep = rewriteBytes(t, in, Options{MaxReportBytes: n})
	assert.Len(t, rep.Problems, 1)
	assert.Zero(t, rep.Omitted)
	_, rep = rewriteBytes(t, in, Options{MaxReportBytes: n - 1})
	assert.Empty(t, rep.Problems)
	assert.Equal(t, 1, rep.Omitted)
}

// FuzzReadError cuts a message at any point with a read error, repeated
// or reported once: the error always comes back, Reader, io.Copy and
// Rewrite give the same output and Report, a message in which nothing
// was rewritten comes out as every octet read, unchanged, and a message
// cut in the middle of a line comes out as it does when the input simply
// ends there.
func FuzzReadError(f *testing.F) {
	for _, c := range corpusCases {
		f.Add(readCorpus(f, c.file), uint16(len(c.file)*7), false)
	}
	f.Add([]byte("Subject: x\r\nContent-Type: text/plain;\r\n charset=us-ascii\r\n\r\nx"), uint16(30), true)
	boom := errors.New("connection reset")
	opts := Options{MaxDepth: 20, MaxHeaderBytes: 4096, MaxFieldBytes: 1024}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, once bool) {
		read := in[:int(cut)%(len(in)+1)]
		src := func() io.Reader {
			if once {
				return &failOnce{data: string(read), err: boom}
			}
			return io.MultiReader(bytes.NewReader(read), iotest.ErrReader(boom))
		}
		var out bytes.Buffer
		rep, err := Rewrite(&out, src(), opts)
		require.ErrorIs(t, err, boom)
		r := NewReader(src(), opts)
		got, err := io.ReadAll(r)
		require.ErrorIs(t, err, boom)
		require.Equal(t, out.String(), string(got))
		require.Equal(t, rep, r.Report())
		var copied bytes.Buffer
		_, err = io.Copy(&copied, NewReader(src(), opts))
		require.ErrorIs(t, err, boom)
		require.Equal(t, out.String(), copied.String())
		if rep.Rewritten == 0 {
			require.Equal(t, string(read), out.String())
		}
		if len(read) > 0 && read[len(read)-1] != '\n' {
			// Cut in the middle of a line, the end of the input is no
			// different: a field cut off goes out as read either way.
			var ended bytes.Buffer
			_, err := Rewrite(&ended, bytes.NewReader(read), opts)
			require.NoError(t, err)
			require.Equal(t, out.String(), ended.String())
		}
	})
}

// TestLongLineThenEndAtLineStart: a header line longer than the input
// buffer that does end with its line ending leaves the header whole; the
// input ending after it, at the start of a line and with no empty line,
// cuts nothing off, so the Content-Type is rewritten and no truncated
// header is reported. (Only a line the end of the input cuts is partial.)
func TestLongLineThenEndAtLineStart(t *testing.T) {
	long := strings.Repeat("a", readBufSize+100)
	cases := []struct {
		name, in, want string
	}{
		{"long field before the Content-Type",
			"X-Long: " + long + "\r\nContent-Type: text/plain\r\n",
			"X-Long: " + long + "\r\nContent-Type: ContentType:text/plain\r\n"},
		{"long continuation before the Content-Type",
			"X-Long: a\r\n " + long + "\r\nContent-Type: text/plain\r\n",
			"X-Long: a\r\n " + long + "\r\nContent-Type: ContentType:text/plain\r\n"},
		{"long field after the Content-Type",
			"Content-Type: text/plain\r\nX-Long: " + long + "\r\n",
			"Content-Type: ContentType:text/plain\r\nX-Long: " + long + "\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.Empty(t, problemsOf(rep))
			assert.Equal(t, 1, rep.Rewritten)
			assert.True(t, tc.want == string(out), "output %.80q...", out)

			got, err := io.ReadAll(NewReader(strings.NewReader(tc.in), Options{}))
			require.NoError(t, err)
			assert.True(t, string(out) == string(got), "NewReader writes the same octets")
		})
	}
}

// TestStepErrors: step returns io.EOF from the step that passes on the
// last octets of a "--" line the end of the input cuts off, returns a
// write error that finish meets (writing out the held Content-Type)
// rather than io.EOF, and after a write error reads no more input. The
// entry points cannot tell (bufio.Writer repeats a write error at Flush,
// stickyErr a read error at the next step, and no caller steps again
// after an error), so the scanner is driven directly.
func TestStepErrors(t *testing.T) {
	t.Run("a cut-off dash line ends the input", func(t *testing.T) {
		const in = "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\ntext\r\n--b-x"
		var out bytes.Buffer
		s := newScanner(strings.NewReader(in), &out, &Options{})
		for {
			err := s.step()
			if err != nil {
				require.Equal(t, io.EOF, err)
				break
			}
			require.Less(t, s.off, int64(len(in)), "a step that read the last octet returned nil")
		}
		assert.True(t, strings.HasSuffix(out.String(), "\r\n\r\ntext\r\n--b-x"), "%q", out.String())
	})
	t.Run("a write error in finish", func(t *testing.T) {
		const first = "X: y\r\n"
		s := newScanner(strings.NewReader(first+"Content-Type: text/plain\r\n"), &failWriter{n: len(first)}, &Options{})
		var err error
		for err == nil {
			err = s.step()
		}
		assert.ErrorIs(t, err, io.ErrShortWrite)
	})
	t.Run("no reading after a write error", func(t *testing.T) {
		s := newScanner(strings.NewReader("X: y\r\nSubject: z\r\n\r\nbody\r\n"), &failWriter{}, &Options{})
		err := s.step()
		require.ErrorIs(t, err, io.ErrShortWrite)
		off := s.off
		assert.ErrorIs(t, s.step(), io.ErrShortWrite)
		assert.Equal(t, off, s.off)
	})
}
