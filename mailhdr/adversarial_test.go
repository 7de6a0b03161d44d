package mailhdr

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested returns a message of depth multiparts nested in one another,
// each with its own boundary, around one text part. With closed false,
// only the outermost multipart is closed, which closes all the others.
func nested(depth int, closed bool) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\r\n\r\nleaf\r\n")
	for i := depth - 1; i >= 0; i-- {
		if closed || i == 0 {
			fmt.Fprintf(&b, "--b%d--\r\n", i)
		}
	}
	return b.String()
}

func TestDeepNesting(t *testing.T) {
	const depth = 5000
	msg := nested(depth, true)

	// The default depth limit stops the descent at depth 100.
	out, rep := rewriteBytes(t, []byte(msg), Options{To: Canonical})
	assert.Equal(t, DefaultMaxDepth+1, rep.Rewritten)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, KindTooDeep, rep.Problems[0].Kind)
	assert.Len(t, rep.Problems[0].Path, DefaultMaxDepth)
	assert.Equal(t, len(msg)+2*(DefaultMaxDepth+1), len(out), "each rewritten field gains two quotes")

	// Without a limit, every level is read, in linear time.
	start := time.Now()
	out, rep = rewriteBytes(t, []byte(msg), Options{MaxDepth: -1})
	elapsed := time.Since(start)
	assert.Equal(t, depth+1, rep.Rewritten)
	assert.True(t, rep.OK(), "%v", rep.Err())
	back, rep := rewriteBytes(t, out, Options{To: ToContentType, MaxDepth: -1})
	assert.Equal(t, depth+1, rep.Rewritten)
	canon, _ := rewriteBytes(t, []byte(msg), Options{To: Canonical, MaxDepth: -1})
	assert.Equal(t, string(canon), string(back))
	assert.Less(t, elapsed, 10*time.Second)
}

// TestDeepNestingClosedByOutermost: one close delimiter closes 5000 open
// multiparts; the report counts every one and lists up to MaxProblems,
// and no more than MaxReportBytes hold: each of these problems has a path
// thousands of parts deep.
func TestDeepNestingClosedByOutermost(t *testing.T) {
	const depth = 5000
	msg := nested(depth, false)
	out, rep := rewriteBytes(t, []byte(msg), Options{MaxDepth: -1, To: ToContentType, MaxReportBytes: -1})
	assert.Equal(t, msg, string(out))
	assert.Len(t, rep.Problems, DefaultMaxProblems)
	assert.Equal(t, depth-1, len(rep.Problems)+rep.Omitted)
	for _, p := range rep.Problems {
		require.Equal(t, KindMissingDelimiter, p.Kind)
	}

	_, rep = rewriteBytes(t, []byte(msg), Options{MaxDepth: -1, To: ToContentType})
	assert.Equal(t, depth-1, len(rep.Problems)+rep.Omitted)
	assert.NotEmpty(t, rep.Problems)
	assert.Less(t, len(rep.Problems), DefaultMaxProblems)
	assertReportWithin(t, &rep, DefaultMaxReportBytes)
}

// assertReportWithin checks that the problems rep lists hold at most max
// bytes, counting every path element (an int: 4 bytes on 32-bit
// platforms, as problemSize counts it) and string they hold.
func assertReportWithin(t *testing.T, rep *Report, max int) {
	t.Helper()
	total := 0
	for i := range rep.Problems {
		p := &rep.Problems[i]
		total += len(p.Path)*strconv.IntSize/8 + len(p.Detail)
		if p.Err != nil {
			total += len(p.Err.Error())
			if me, ok := errors.AsType[*mapping.Error](p.Err); ok {
				total += len(me.Input)
			}
		}
	}
	assert.LessOrEqual(t, total, max)
}

// The problems listed are the first ones: once one is omitted for
// MaxReportBytes, the later ones are only counted too, however small, so
// that Omitted counts what follows the list.
func TestReportHasNoGap(t *testing.T) {
	msg := "Content-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text " + strings.Repeat("y", 3000) + "\r\n\r\nx\r\n" +
		"--b\r\nContent-Type: text\r\n\r\nx\r\n--b--\r\n"
	_, rep := rewriteBytes(t, []byte(msg), Options{MaxReportBytes: 2000})
	assert.Equal(t, Report{Entities: 3, Rewritten: 1, Omitted: 2}, rep)
	_, rep = rewriteBytes(t, []byte(msg), Options{})
	require.Len(t, rep.Problems, 2)
	assert.Equal(t, Path{1}, rep.Problems[0].Path)
	assert.Equal(t, Path{2}, rep.Problems[1].Path)
}

// TestReportMemoryBounded: a streamed message of many parts whose labels
// are long and unmappable lists problems only while they fit in
// MaxReportBytes, and counts the rest.
func TestReportMemoryBounded(t *testing.T) {
	label := "text " + strings.Repeat("y", 90<<10) // no '/': syntax
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=b\r\n\r\n")
	const parts = 200
	for range parts {
		b.WriteString("--b\r\nContent-Type: " + label + "\r\n\r\nx\r\n")
	}
	b.WriteString("--b--\r\n")
	_, rep := rewriteBytes(t, []byte(b.String()), Options{})
	assert.Equal(t, parts, len(rep.Problems)+rep.Omitted)
	assert.Less(t, len(rep.Problems), 12, "about 1 MiB of 90 KiB labels")
	assertReportWithin(t, &rep, DefaultMaxReportBytes)
	for _, p := range rep.Problems {
		require.Equal(t, KindMapping, p.Kind)
	}
}

// TestDeepMessageChain nests message/rfc822 parts 5000 deep, then
// multiparts inside, and checks that delimiter lines deep inside cost
// the same as anywhere (no scan of the stack per line).
func TestDeepMessageChain(t *testing.T) {
	const depth = 5000
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=top\r\n\r\n--top\r\n")
	for range depth {
		b.WriteString("Content-Type: message/rfc822\r\n\r\n")
	}
	b.WriteString("Content-Type: multipart/mixed; boundary=in\r\n\r\n")
	for range 2000 {
		b.WriteString("--in\r\nContent-Type: text/plain\r\n\r\n--inx not a delimiter\r\n--in-- junk\r\n--top-- neither\r\n")
	}
	b.WriteString("--in--\r\n--top--\r\n")
	msg := b.String()
	out, rep := rewriteBytes(t, []byte(msg), Options{MaxDepth: -1, MaxProblems: -1, MaxReportBytes: -1})
	assert.Equal(t, 1+depth+1+2000, rep.Rewritten)
	assert.Equal(t, 2000, len(rep.Problems), "one bad-delimiter per part")
	for _, p := range rep.Problems {
		require.Equal(t, KindBadDelimiter, p.Kind)
	}
	back, _ := rewriteBytes(t, out, Options{MaxDepth: -1, To: ToContentType})
	canon, _ := rewriteBytes(t, []byte(msg), Options{MaxDepth: -1, To: Canonical})
	assert.Equal(t, string(canon), string(back))
}

// bigHeader returns a message whose header holds n octets of folded
// X-Big field before its Content-Type.
func bigHeader(n int, folded bool) string {
	var b strings.Builder
	b.WriteString("X-Big: ")
	line := strings.Repeat("a", 70)
	for b.Len() < n {
		b.WriteString(line)
		if folded {
			b.WriteString("\r\n ")
		}
	}
	b.WriteString("\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nbody\r\n")
	return b.String()
}

func TestHugeHeader(t *testing.T) {
	for _, folded := range []bool{true, false} {
		msg := bigHeader(10<<20, folded)
		out, rep := rewriteBytes(t, []byte(msg), Options{})
		assert.Equal(t, msg, string(out), "passed through whole")
		require.Len(t, rep.Problems, 1)
		if folded {
			assert.Equal(t, KindHeaderTooLarge, rep.Problems[0].Kind)
		} else {
			assert.Equal(t, KindHeaderTooLarge, rep.Problems[0].Kind, "the header limit comes before the field limit: X-Big is not held")
		}

		out, rep = rewriteBytes(t, []byte(msg), Options{MaxHeaderBytes: 16 << 20})
		assert.True(t, rep.OK(), "%v", rep.Err())
		assert.Equal(t, 1, rep.Rewritten)
		assert.Equal(t, strings.Replace(msg, `text/plain; charset=us-ascii`, `ContentType:text/plain?charset="us-ascii"`, 1), string(out))
	}
}

func TestHugeContentTypeField(t *testing.T) {
	msg := "Content-Type: multipart/mixed; boundary=b; x=\"" + strings.Repeat("y", 200<<10) + "\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n"
	out, rep := rewriteBytes(t, []byte(msg), Options{})
	assert.Equal(t, msg, string(out))
	assert.Equal(t, []problemAt{{"top", KindFieldTooLarge}}, problemsOf(rep))
	assert.Equal(t, 0, rep.Rewritten, "the parts are not examined")

	_, rep = rewriteBytes(t, []byte(msg), Options{MaxFieldBytes: 1 << 20})
	assert.True(t, rep.OK())
	assert.Equal(t, 2, rep.Rewritten)
}

func TestLongLinesInBodies(t *testing.T) {
	// A line much longer than the buffer, starting with a delimiter; and
	// a long line of white space after one.
	long := strings.Repeat("z", 3*readBufSize)
	msg := "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n--b" + long + "\r\n" +
		long + "\r\n--b--\r\n"
	out, rep := rewriteBytes(t, []byte(msg), Options{})
	assert.True(t, rep.OK(), "%v", rep.Err())
	assert.Equal(t, 2, rep.Rewritten)
	assert.Equal(t, len(msg)+len(`ContentType:?boundary=""`)-len(`; boundary=`)+len("ContentType:")-len(""), len(out))
}

// messageSource generates, on the fly and without allocating, a
// multipart message with one text part and one attachment of about size
// octets of base64-like lines, some of them starting with "--".
// Content-Types are written as cts gives them.
type messageSource struct {
	head, chunk, tail []byte
	cur               []byte // the rest of the segment being read
	chunks            int64  // chunks still to send
	tailSent          bool
}

var bodyLine = strings.Repeat("QUJD", 19) + "\r\n"
var dashLine = "--bndx is not a delimiter, nor is the next line\r\n--bn\r\n"

func newMessageSource(size int64, cts [3]string) *messageSource {
	chunk := []byte(strings.Repeat(bodyLine, 1000) + dashLine)
	s := &messageSource{
		head:   fmt.Appendf(nil, "From: a@example.com\r\nContent-Type: %s\r\n\r\npreamble\r\n--bnd\r\nContent-Type: %s\r\n\r\nsee attachment\r\n--bnd\r\nContent-Type: %s\r\nContent-Transfer-Encoding: base64\r\n\r\n", cts[0], cts[1], cts[2]),
		chunk:  chunk,
		tail:   []byte("--bnd--\r\nepilogue\r\n"),
		chunks: (size + int64(len(chunk)) - 1) / int64(len(chunk)),
	}
	s.cur = s.head
	return s
}

func (s *messageSource) Read(p []byte) (int, error) {
	for len(s.cur) == 0 {
		switch {
		case s.chunks > 0:
			s.chunks--
			s.cur = s.chunk
		case !s.tailSent:
			s.tailSent = true
			s.cur = s.tail
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

// TestStreamLargeBody streams a message with a large attachment through
// Rewrite and compares a checksum of the output with one of the expected
// output, generated the same way with the Content-Types written as URIs.
// The size is 64 MiB (8 MiB under the race detector) unless
// MAILHDR_STREAM_BYTES says otherwise: CI runs it once with 1 GiB,
// without -race (see .ci/run). Heap in use must not grow with the size.
func TestStreamLargeBody(t *testing.T) {
	size := int64(64 << 20)
	if raceEnabled {
		size = 8 << 20
	}
	if v := os.Getenv("MAILHDR_STREAM_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "MAILHDR_STREAM_BYTES")
		size = n
	}
	cts := [3]string{"multipart/mixed; boundary=bnd", "text/plain; charset=us-ascii", "application/octet-stream; name=\"big.bin\""}
	var uris [3]string
	for i, ct := range cts {
		u, err := mapping.ToURI(ct, mapping.Lenient)
		require.NoError(t, err)
		uris[i] = u
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	src := &heapSampler{r: newMessageSource(size, cts)}
	got := crc32.NewIEEE()
	start := time.Now()
	rep, err := Rewrite(got, src, Options{})
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%v", rep.Err())
	assert.Equal(t, 3, rep.Rewritten)

	want := crc32.NewIEEE()
	_, err = io.Copy(want, newMessageSource(size, uris))
	require.NoError(t, err)
	assert.Equal(t, want.Sum32(), got.Sum32(), "output differs from the expected stream")

	growth := int64(src.peak) - int64(before.HeapInuse)
	t.Logf("%d MiB in %v (%.0f MB/s), heap in use grew by at most %d KiB", size>>20, elapsed, float64(size)/elapsed.Seconds()/1e6, growth>>10)
	assert.Less(t, growth, int64(4<<20), "heap in use must not depend on the body size")
}

// TestHeapIndependentOfSize streams a 1 MiB and a 64 MiB message (16 MiB
// under the race detector) through Rewrite and compares the growth of
// HeapInuse (runtime.ReadMemStats, sampled during the run, over a GC'd
// baseline): it must not differ by more than 1 MiB.
func TestHeapIndependentOfSize(t *testing.T) {
	big := int64(64 << 20)
	if raceEnabled {
		big = 16 << 20
	}
	cts := [3]string{"multipart/mixed; boundary=bnd", "text/plain", "application/octet-stream"}
	growth := func(size int64) int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		src := &heapSampler{r: newMessageSource(size, cts)}
		_, err := Rewrite(io.Discard, src, Options{})
		require.NoError(t, err)
		return int64(src.peak) - int64(ms.HeapInuse)
	}
	small, large := growth(1<<20), growth(big)
	t.Logf("heap in use grew by %d KiB for 1 MiB, %d KiB for %d MiB", small>>10, large>>10, big>>20)
	assert.Less(t, large-small, int64(1<<20))
}

// The limits bound what is read, not what is written: a field whose value
// must be percent-encoded throughout grows over three times, and no more
// than four (what Options.MaxFieldBytes tells a reader of the output to
// allow). A second pass with the same limits refuses it; one with limits
// four times as large maps it back.
func TestRewrittenFieldGrowth(t *testing.T) {
	field := "Content-Type: a/" + strings.Repeat("`", 300) + "\r\n"
	opts := Options{MaxFieldBytes: len(field)}
	uri := rewriteGrowth(t, field, opts, 3, 4)

	opts.To = ToContentType
	var back strings.Builder
	rep, err := Rewrite(&back, strings.NewReader(uri), opts)
	require.NoError(t, err)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, KindFieldTooLarge, rep.Problems[0].Kind)

	opts.MaxFieldBytes *= 4
	back.Reset()
	rep, err = Rewrite(&back, strings.NewReader(uri), opts)
	require.NoError(t, err)
	assert.Empty(t, rep.Problems)
	assert.Equal(t, "Content-Type: a/"+strings.Repeat("`", 300)+"\r\n\r\nbody\r\n", back.String())
}

// TestProblemsQuoteDecodedOctets: a boundary decoded from an RFC 2231
// value (boundary*=utf-8'en'%0D...) may hold any octet, control characters
// included, and a problem naming it goes to logs and terminals (cturi
// mail's standard error, the relay's Logf): the octets are escaped there,
// so that the text cannot move the cursor, rewrite a log line or send
// terminal escape sequences.
func TestProblemsQuoteDecodedOctets(t *testing.T) {
	for _, b := range []string{"\r\x1b[2Kforged", "a\x00b\x7f", "nel\u0085", "ls\u2028", `back\slash"`} {
		var enc strings.Builder
		for i := 0; i < len(b); i++ {
			fmt.Fprintf(&enc, "%%%02X", b[i])
		}
		msg := "Content-Type: multipart/mixed; boundary*=utf-8''" + enc.String() + "\r\n\r\n--" + b + "-x\r\n"
		_, rep := rewriteBytes(t, []byte(msg), Options{})
		require.NotEmpty(t, rep.Problems, "%q", b)
		p := rep.Problems[0]
		require.Equal(t, KindBadDelimiter, p.Kind, "%q", b)
		assert.Contains(t, p.Detail, strconv.Quote(b), "%q", b)
		for _, s := range []string{p.Detail, p.Error()} {
			for _, r := range s {
				assert.False(t, r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029, "%q: raw %U in %q", b, r, s)
			}
		}
	}
}

// TestNoControlsDecodedIntoHeaders: a URI label whose decoding would put a
// control character into the header, ASCII's (CR LF, which would start a
// new field) or Unicode's (NEL, a line break to some readers; CSI, an
// escape to terminals), is left as it is and reported, and no such
// character reaches the output.
func TestNoControlsDecodedIntoHeaders(t *testing.T) {
	for _, label := range []string{
		"ContentType:text/plain?a=%22x%0D%0AX-Injected:%201%22",
		"ContentType:text/plain?a=%C2%85X-Injected:%201",
		"ContentType:text/plain?a=%E2%80%A8",
		"ContentType:text/plain?a=%C2%9B31m",
	} {
		in := "Content-Type: " + label + "\r\n\r\nbody\r\n"
		out, rep := rewriteBytes(t, []byte(in), Options{To: ToContentType})
		assert.Equal(t, in, string(out), label)
		require.Equal(t, []problemAt{{"top", KindMapping}}, problemsOf(rep), label)
		assert.ErrorIs(t, rep.Err(), mapping.ErrCTL, label)
	}
}

// TestRewrittenIRIGrowth: a URI label with non-ASCII text (an IRI, as an
// RFC 6532 header may carry) written as an application/uri. type grows
// over four times and no more than six (each non-ASCII octet becomes
// %25HH); a reader with limits six times as large reads it.
func TestRewrittenIRIGrowth(t *testing.T) {
	field := "Content-Type: x:" + strings.Repeat("\u00e9", 80) + "\r\n" // written on one line: no white space to fold at
	ct := rewriteGrowth(t, field, Options{To: ToContentType, MaxFieldBytes: len(field)}, 4, 6)
	for _, mult := range []int{4, 6} {
		rep, err := Rewrite(io.Discard, strings.NewReader(ct), Options{To: ToURI, MaxFieldBytes: mult * len(field)})
		require.NoError(t, err)
		assert.Equal(t, mult == 6, rep.OK(), "limits %d times as large: %v", mult, rep.Err())
	}
}

// rewriteGrowth rewrites a message of the one header field field as opts
// says, requires the field rewritten to more than over and at most upTo
// times its length, and returns the message written.
func rewriteGrowth(t *testing.T, field string, opts Options, over, upTo int) string {
	t.Helper()
	var out strings.Builder
	rep, err := Rewrite(&out, strings.NewReader(field+"\r\nbody\r\n"), opts)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Rewritten)
	header, _, ok := strings.Cut(out.String(), "\r\n\r\n")
	require.True(t, ok)
	grown := len(header) + len("\r\n")
	assert.Greater(t, grown, over*len(field))
	assert.LessOrEqual(t, grown, upTo*len(field))
	return out.String()
}

// TestDeepMessageNesting: encapsulated messages (message/rfc822) count
// towards the depth limit as multiparts do, alone and mixed with them.
func TestDeepMessageNesting(t *testing.T) {
	const depth = 5000
	messages := strings.Repeat("Content-Type: message/rfc822\r\n\r\n", depth) + "Content-Type: text/plain\r\n\r\nleaf\r\n"
	var mixed strings.Builder
	for i := range depth / 2 {
		fmt.Fprintf(&mixed, "Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\nContent-Type: message/rfc822\r\n\r\n", i, i)
	}
	mixed.WriteString("Content-Type: text/plain\r\n\r\nleaf\r\n")
	for i := depth/2 - 1; i >= 0; i-- {
		fmt.Fprintf(&mixed, "--b%d--\r\n", i)
	}
	for name, msg := range map[string]string{"messages": messages, "mixed": mixed.String()} {
		t.Run(name, func(t *testing.T) {
			// ToURI rewrites every field: those of the top level and of
			// DefaultMaxDepth levels below it.
			out, rep := rewriteBytes(t, []byte(msg), Options{})
			assert.Equal(t, DefaultMaxDepth+1, rep.Rewritten)
			require.Len(t, rep.Problems, 1)
			assert.Equal(t, KindTooDeep, rep.Problems[0].Kind)
			assert.Equal(t, DefaultMaxDepth+1, strings.Count(string(out), "Content-Type: ContentType:"), "what is past the limit passes unchanged")

			start := time.Now()
			_, rep = rewriteBytes(t, []byte(msg), Options{MaxDepth: -1})
			assert.Equal(t, depth+1, rep.Rewritten)
			assert.True(t, rep.OK(), "%v", rep.Err())
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
}

// TestProblemsCutLongBoundaries: a boundary may be 996 octets long, and a
// problem that names it gives its first 40 octets and "...", so that a
// Problem stays short; a boundary of 40 octets is given whole.
func TestProblemsCutLongBoundaries(t *testing.T) {
	for _, n := range []int{40, 41, 996} {
		b := strings.Repeat("0123456789", 100)[:n]
		msg := "Content-Type: multipart/mixed; boundary=\"" + b + "\"\r\n\r\n--" + b + "-x\r\n"
		_, rep := rewriteBytes(t, []byte(msg), Options{})
		require.NotEmpty(t, rep.Problems, "%d", n)
		p := rep.Problems[0]
		require.Equal(t, KindBadDelimiter, p.Kind, "%d", n)
		if n <= 40 {
			assert.Contains(t, p.Detail, strconv.Quote(b), "%d", n)
			continue
		}
		assert.Contains(t, p.Detail, strconv.Quote(b[:40]+"..."), "%d", n)
		assert.NotContains(t, p.Detail, b[:41], "%d", n)
	}
}

// nestedPaddedSource generates, on the fly, depth multiparts nested in
// one another, each with a Content-Type of its own boundary and a
// parameter of pad octets, never closed: a reader of it keeps every
// multipart open.
type nestedPaddedSource struct {
	depth, pad, level int
	cur               strings.Reader
}

func (n *nestedPaddedSource) Read(p []byte) (int, error) {
	for n.cur.Len() == 0 {
		if n.level == n.depth {
			return 0, io.EOF
		}
		var b strings.Builder
		if n.level > 0 {
			fmt.Fprintf(&b, "--b%d\r\n", n.level-1)
		}
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d; x=\"%s\"\r\n\r\n", n.level, strings.Repeat("a", n.pad))
		n.cur.Reset(b.String())
		n.level++
	}
	return n.cur.Read(p)
}

// TestOpenMultipartsHoldBoundariesOnly: each open multipart keeps its
// boundary, and only that, not the whole Content-Type it was read from.
// Its boundary was a substring of the field's label, so the stack held
// the label of every open multipart, up to MaxFieldBytes each: 90 open
// multiparts with 90 KiB Content-Types held 9 MiB (10 MiB at the default
// limits, 100 levels and 100 KiB fields; as much as the message without
// a depth limit), where memory must not depend on the size of the
// message. The heap is measured, after a GC, with the scanner at the
// innermost header, for 10-octet and 90 KiB parameters: the two must
// differ by less than 1 MiB (about 0.5 MiB, the buffers of one field,
// with the boundaries copied).
func TestOpenMultipartsHoldBoundariesOnly(t *testing.T) {
	const depth = 90
	for _, to := range []Target{ToURI, Canonical} {
		held := func(pad int) int64 {
			return heldAfterGC(func() any {
				s := newScanner(&nestedPaddedSource{depth: depth, pad: pad}, io.Discard, &Options{To: to})
				for s.st.depth() < depth {
					require.NoError(t, s.step())
				}
				return s
			})
		}
		small, large := held(10), held(90<<10)
		t.Logf("%v: %d open multiparts hold %d KiB with 10-octet parameters, %d KiB with 90 KiB ones", to, depth, small>>10, large>>10)
		assert.Less(t, large-small, int64(1<<20), "%v", to)
	}
}

// headThenBody is a message source: head, then lines of base64-like
// body text for ever. Once head is read it holds none of it.
type headThenBody struct {
	head string
	cur  strings.Reader
}

func (s *headThenBody) Read(p []byte) (int, error) {
	if s.cur.Len() == 0 {
		s.cur.Reset(s.head)
		if s.head == "" {
			s.cur.Reset(bodyLine)
		}
		s.head = ""
	}
	return s.cur.Read(p)
}

// TestLargeFieldBuffersNotKept: the buffers a large Content-Type field
// grew are not kept for the rest of the message, as the held field's own
// is not (flushField). A field rewritten to a URI label grows (three
// octets for each one percent-encoded): the rewritten field's buffer and
// the Reader's output buffer, each over 300 KiB after a 98 KiB field,
// stayed with the Reader while it streamed the body, however long (at
// 256 sessions, the mail gateway's default, 156 MiB). The heap is measured
// after a GC, with 1 MiB of the body read, after a field with a 98 KiB
// parameter of octets to percent-encode and after one with a 10-octet
// parameter: the two must differ by less than 512 KiB (the field itself,
// its unfolded label and the label the header's structure is read from,
// held until the next header, each under 128 KiB).
func TestLargeFieldBuffersNotKept(t *testing.T) {
	held := func(pad int) int64 {
		return heldAfterGC(func() any {
			head := "Content-Type: text/plain; x=\"" + strings.Repeat("`", pad) + "\"\r\n\r\n"
			r := NewReader(&headThenBody{head: head}, Options{})
			n, err := io.CopyN(io.Discard, r, int64(len(head))+1<<20)
			require.NoError(t, err)
			require.Positive(t, n)
			require.Equal(t, 1, r.Report().Rewritten)
			return r
		})
	}
	small, large := held(10), held(98<<10)
	t.Logf("a Reader 1 MiB into the body holds %d KiB after a small Content-Type, %d KiB after one of 98 KiB", small>>10, large>>10)
	assert.Less(t, large-small, int64(512<<10))
}

// heldAfterGC returns how much more heap is in use, after a GC, while the
// value build returns is alive than before build ran.
func heldAfterGC(build func() any) int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(v)
	return int64(ms.HeapAlloc) - int64(base)
}
