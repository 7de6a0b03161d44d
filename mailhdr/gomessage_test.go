package mailhdr

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/mapping"
	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readHeader(t *testing.T, s string) textproto.Header {
	t.Helper()
	h, err := textproto.ReadHeader(bufio.NewReader(strings.NewReader(s)))
	require.NoError(t, err)
	return h
}

func writeHeader(t *testing.T, h textproto.Header) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, textproto.WriteHeader(&b, h))
	return b.String()
}

func TestRewriteHeaderKeepsOrderAndRawFields(t *testing.T) {
	const in = "Received: from x\r\n\tby y; Sat, 1 Jan 2000 00:00:00 +0000\r\n" +
		"content-type:  text/plain;\r\n charset=us-ascii\r\n" +
		"X-Odd:no space\r\n" +
		"Content-Type: image/PNG\r\n" +
		"Subject: last\r\n\r\n"
	h := readHeader(t, in)
	n, err := RewriteHeader(&h, Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	want := strings.Replace(in, "content-type:  text/plain;\r\n charset=us-ascii\r\n", "content-type:  ContentType:text/plain?charset=\"us-ascii\"\r\n", 1)
	want = strings.Replace(want, "Content-Type: image/PNG", "Content-Type: ContentType:image/png", 1)
	assert.Equal(t, want, writeHeader(t, h))
	assert.Equal(t, "ContentType:text/plain?charset=\"us-ascii\"", h.Get("Content-Type"))

	// And back, by the keys go-message indexes.
	n, err = RewriteHeader(&h, Options{To: ToContentType})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, []string{"text/plain; charset=\"us-ascii\"", "image/png"}, h.Values("Content-Type"))
}

func TestRewriteHeaderProblems(t *testing.T) {
	const in = "Content-Type: text\r\nSubject: x\r\n\r\n"
	h := readHeader(t, in)
	n, err := RewriteHeader(&h, Options{})
	assert.Zero(t, n)
	assert.ErrorIs(t, err, ErrMapping)
	var p *Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, KindMapping, p.Kind)
	assert.Equal(t, in, writeHeader(t, h), "unchanged")

	// Going to Content-Types the field is left as it is, as the target
	// says, parsed or not.
	n, err = RewriteHeader(&h, Options{To: ToContentType})
	assert.Zero(t, n)
	assert.NoError(t, err)
	assert.Equal(t, in, writeHeader(t, h), "unchanged")

	// A field whose mapping would make its body another structure.
	const multi = "Content-Type: multipart/uri.a%3Ab; boundary=x\r\n\r\n"
	h = readHeader(t, multi)
	n, err = RewriteHeader(&h, Options{})
	assert.Zero(t, n)
	require.ErrorAs(t, err, &p)
	assert.Equal(t, KindStructureChange, p.Kind)
	assert.ErrorIs(t, err, ErrStructureChange)
	assert.Equal(t, multi, writeHeader(t, h), "unchanged")

	var empty textproto.Header
	n, err = RewriteHeader(&empty, Options{})
	assert.Zero(t, n)
	assert.NoError(t, err)
}

// TestRewriteHeaderPartly: a field that does not map is reported and
// left as it is, while the other Content-Type field is still rewritten
// and counted; the Problem has no input offset, and does not speak of
// passing the body through, which go-message reads.
func TestRewriteHeaderPartly(t *testing.T) {
	h := readHeader(t, "Content-Type: ContentType:text/plain%0A\r\nContent-Type: ContentType:text/html\r\n\r\n")
	n, err := RewriteHeader(&h, Options{To: ToContentType})
	assert.Equal(t, 1, n)
	assert.ErrorIs(t, err, ErrMapping)
	var p *Problem
	require.ErrorAs(t, err, &p)
	assert.Equal(t, int64(-1), p.Offset)
	assert.Equal(t, "Content-Type not rewritten", p.Detail)
	assert.Equal(t, []string{"ContentType:text/plain%0A", "text/html"}, h.Values("Content-Type"))
}

// TestLabel: Label reads a Content-Type as the rewriter does: unfolded
// and trimmed, and a URI label folded over lines without the white space
// around each break; other white space, in a URI label or a Content-Type,
// is kept, and the first of two fields is the one read.
func TestLabel(t *testing.T) {
	tests := []struct {
		name, header, want string
	}{
		{"plain", "Content-Type: text/plain\r\n\r\n", "text/plain"},
		{"white space at either end", "Content-Type: \t text/plain \t\r\n\r\n", "text/plain"},
		{"folded Content-Type keeps its white space", "Content-Type: text/plain;\r\n charset=us-ascii\r\n\r\n", "text/plain; charset=us-ascii"},
		{"folded URI label", "Content-Type: http://example.com/a\r\n b/c\r\n\r\n", "http://example.com/ab/c"},
		{"folded in its scheme", "Content-Type: ht\r\n tp://example.com/\r\n\r\n", "http://example.com/"},
		{"LF line endings", "Content-Type: ContentType:text/\n\tplain\n\n", "ContentType:text/plain"},
		{"white space inside a URI label is kept", "Content-Type: http://example.com/a b\r\n\r\n", "http://example.com/a b"},
		{"the first of two", "Content-Type: text/plain\r\nContent-Type: text/html\r\n\r\n", "text/plain"},
		{"no field", "Subject: x\r\n\r\n", ""},
		{"an empty field", "Content-Type:\r\n\r\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := readHeader(t, tt.header)
			got, err := Label(&h)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	// A field made with Set has no raw bytes: go-message formats it.
	var h textproto.Header
	h.Set("Content-Type", "ContentType:image/png")
	got, err := Label(&h)
	require.NoError(t, err)
	assert.Equal(t, "ContentType:image/png", got)

	// One go-message cannot format is an error, this package's.
	h.Set("Content-Type", "text/plain\r\nX: y")
	got, err = Label(&h)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "mailhdr: "), "%v", err)
	assert.Empty(t, got)
}

// TestLabelReadsWhatRewriteFolds: every URI label Rewrite folds over
// lines, Label reads back whole, so it maps back to the Content-Type it
// came from.
func TestLabelReadsWhatRewriteFolds(t *testing.T) {
	for _, n := range []int{60, 200, 990, 3000} {
		ct := "application/uri.http%3A%2F%2Fexample.com%2F" + strings.Repeat("x", n)
		var out bytes.Buffer
		rep, err := Rewrite(&out, strings.NewReader("Content-Type: "+ct+"\r\n\r\n"), Options{})
		require.NoError(t, err)
		require.True(t, rep.OK(), "%v", rep.Err())
		h := readHeader(t, out.String())
		if n > 60 {
			require.Contains(t, h.Get("Content-Type"), " ", "folded, so Get sees white space")
		}
		label, err := Label(&h)
		require.NoError(t, err)
		back, err := mapping.ToContentType(label)
		require.NoError(t, err, "%d", n)
		assert.Equal(t, ct, back, "%d", n)
	}
}

func TestWalk(t *testing.T) {
	const msg = "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\none\r\n" +
		"--b\r\nContent-Type: text\r\n\r\ntwo\r\n" +
		"--b--\r\n"
	e, err := message.Read(strings.NewReader(msg))
	require.NoError(t, err)
	var seen []string
	rep, err := Walk(e, Options{}, func(path []int, part *message.Entity, err error) error {
		seen = append(seen, part.Header.Get("Content-Type"))
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, []string{`ContentType:multipart/mixed?boundary="b"`, "ContentType:text/plain", "text"}, seen)
	assert.Equal(t, 3, rep.Entities)
	assert.Equal(t, 2, rep.Rewritten)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, "2", rep.Problems[0].Path.String())
	assert.Equal(t, KindMapping, rep.Problems[0].Kind)
	assert.Equal(t, int64(-1), rep.Problems[0].Offset)

	// Report and Problem are used as they are returned, by value (neither
	// line would compile with pointer receivers).
	assert.ErrorIs(t, rep.Err(), ErrMapping)
	assert.NoError(t, NewReader(strings.NewReader("\r\n"), Options{}).Report().Err())
	for _, p := range rep.Problems {
		assert.ErrorIs(t, p, ErrMapping)
		assert.EqualError(t, p, "mailhdr: 2: mapping: Content-Type not rewritten: "+p.Err.Error())
	}
}

// TestWalkReadsBodies: fn that reads the body of each part which is not
// a multipart, telling them apart as Walk's doc says, reads every body,
// nested parts included, after the headers are rewritten to URI labels.
func TestWalkReadsBodies(t *testing.T) {
	const msg = "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\none\r\n" +
		"--b\r\nContent-Type: multipart/alternative; boundary=a\r\n\r\n" +
		"--a\r\nContent-Type: text/plain\r\n\r\ntwo\r\n" +
		"--a\r\nContent-Type: text/html\r\n\r\n<p>two</p>\r\n--a--\r\n" +
		"--b\r\n\r\nthree\r\n--b--\r\n"
	e, err := message.Read(strings.NewReader(msg))
	require.NoError(t, err)
	bodies := map[string]string{}
	rep, err := Walk(e, Options{To: ToURI}, func(path []int, part *message.Entity, err error) error {
		if err != nil || part.MultipartReader() != nil {
			return err
		}
		b, err := io.ReadAll(part.Body)
		bodies[onePlus(path).String()] = string(b)
		return err
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"1": "one", "2.1": "two", "2.2": "<p>two</p>", "3": "three"}, bodies)
	assert.True(t, rep.OK(), "%v", rep.Err())
	assert.Equal(t, 5, rep.Rewritten)
}

// TestWalkCutHeader: go-message reads a header cut off by the end of the
// input as a whole one, so Walk rewrites the cut field, where Rewrite
// passes it through as read; the doc of Walk says so.
func TestWalkCutHeader(t *testing.T) {
	const msg = "Content-Type: text/plain; charset=us-a"
	out, rep := rewriteBytes(t, []byte(msg), Options{})
	assert.Equal(t, msg, string(out))
	assert.Equal(t, []problemAt{{"top", KindTruncatedHeader}}, problemsOf(rep))

	e, err := message.Read(strings.NewReader(msg))
	require.True(t, err == nil || message.IsUnknownCharset(err), "%v", err)
	rep, err = Walk(e, Options{}, func([]int, *message.Entity, error) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Rewritten)
	assert.Equal(t, `ContentType:text/plain?charset="us-a"`, e.Header.Get("Content-Type"))
}

// TestWalkEscapesGoMessageErrors: go-message's error for a malformed
// part header quotes the line (with its CR LF), or the field name, as it
// is, and Walk
// returns that error: a message could put a line break, a terminal escape
// sequence or a bidi control into the caller's log. Walk escapes what does
// not print in it (and only in go-message's errors, not in fn's), and the
// error still unwraps to go-message's.
func TestWalkEscapesGoMessageErrors(t *testing.T) {
	for _, tc := range []struct{ line, shown string }{
		{"\x1b[2J\u202eforged\u009b\xff\x7f\rx", `message: malformed MIME header line: \x1b[2J\u202eforged\u009b\xff\x7f\rx\r\n`},
		{"X\x1b[31m\u2028: v", `message: malformed MIME header key: X\x1b[31m\u2028`},
	} {
		msg := "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n" +
			"--b\r\n" + tc.line + "\r\n\r\none\r\n--b--\r\n"
		e, err := message.Read(strings.NewReader(msg))
		require.NoError(t, err)
		_, err = Walk(e, Options{}, func([]int, *message.Entity, error) error { return nil })
		require.Error(t, err)
		assert.EqualError(t, err, tc.shown)
		assert.True(t, printable.Is(err.Error()), "%q prints", err.Error())
		assert.Contains(t, errors.Unwrap(err).Error(), tc.line[:4], "go-message's error, as it came")
	}

	// fn's own error is returned as it is.
	e, err := message.Read(strings.NewReader("Content-Type: text/plain\r\n\r\nx\r\n"))
	require.NoError(t, err)
	mine := errors.New("mine\n")
	_, err = Walk(e, Options{}, func([]int, *message.Entity, error) error { return mine })
	assert.Same(t, mine, err)
}

// TestWalkReportLimits: Walk's Report keeps to MaxProblems as Rewrite's
// does, counting the rest.
func TestWalkReportLimits(t *testing.T) {
	const msg = "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text\r\n\r\none\r\n" +
		"--b\r\nContent-Type: text\r\n\r\ntwo\r\n" +
		"--b\r\nContent-Type: text\r\n\r\nthree\r\n" +
		"--b--\r\n"
	cases := []struct {
		max, listed, omitted int
	}{
		{0, 3, 0},
		{1, 1, 2},
		{3, 3, 0},
		{-1, 3, 0},
	}
	for _, tc := range cases {
		e, err := message.Read(strings.NewReader(msg))
		require.NoError(t, err)
		rep, err := Walk(e, Options{MaxProblems: tc.max}, func([]int, *message.Entity, error) error { return nil })
		require.NoError(t, err)
		assert.Len(t, rep.Problems, tc.listed, "MaxProblems %d", tc.max)
		assert.Equal(t, tc.omitted, rep.Omitted, "MaxProblems %d", tc.max)
		assert.Equal(t, "1", rep.Problems[0].Path.String())
	}
}

// TestUnknownTarget: an Options.To that is no Target is refused by every
// entry point with ErrUnknownTarget, before anything is read or written,
// instead of being taken for one of the three.
func TestUnknownTarget(t *testing.T) {
	const msg = "Content-Type: TEXT/plain; a=b\r\n\r\nhi\r\n"
	opts := Options{To: Target(7)}
	const want = "mailhdr: unknown target: Options.To is Target(7)"

	var out bytes.Buffer
	src := strings.NewReader(msg)
	rep, err := Rewrite(&out, src, opts)
	assert.ErrorIs(t, err, ErrUnknownTarget)
	assert.EqualError(t, err, want)
	assert.Empty(t, out.String())
	assert.Equal(t, Report{}, rep)
	assert.Equal(t, len(msg), src.Len(), "nothing read")

	src = strings.NewReader(msg)
	r := NewReader(src, opts)
	n, err := r.Read(make([]byte, 64))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, ErrUnknownTarget)
	_, err = io.Copy(&out, r)
	assert.ErrorIs(t, err, ErrUnknownTarget, "WriteTo")
	assert.Empty(t, out.String())
	assert.Equal(t, len(msg), src.Len(), "nothing read")

	h := readHeader(t, msg)
	n, err = RewriteHeader(&h, opts)
	assert.Zero(t, n)
	assert.ErrorIs(t, err, ErrUnknownTarget)
	assert.Equal(t, "TEXT/plain; a=b", h.Get("Content-Type"))

	e, err := message.Read(strings.NewReader(msg))
	require.NoError(t, err)
	called := false
	_, err = Walk(e, opts, func([]int, *message.Entity, error) error { called = true; return nil })
	assert.ErrorIs(t, err, ErrUnknownTarget)
	assert.False(t, called)
}

// TestRewriteHeaderKeepsMadeFields: a field made with Header.Set or Add,
// which has no raw bytes, keeps its value as it was made, white space at
// either end included, while the Content-Type beside it is rewritten;
// fields read from a message keep their raw bytes.
func TestRewriteHeaderKeepsMadeFields(t *testing.T) {
	h := readHeader(t, "X-Read:  raw  value \r\nContent-Type: text/plain\r\n\r\n")
	h.Add("Subject", "  indented subject ")
	h.Add("X-Long", strings.Repeat("word   ", 30))
	h.Add("Subject", "second")
	n, err := RewriteHeader(&h, Options{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, []string{
		"Subject=second",
		"X-Long=" + strings.Repeat("word   ", 30),
		"Subject=  indented subject ",
		"X-Read=raw  value",
		`Content-Type=ContentType:text/plain`,
	}, fieldsOf(&h))
	raw, err := h.Raw("X-Read")
	require.NoError(t, err)
	assert.Equal(t, "X-Read:  raw  value \r\n", string(raw))
}

// TestRewriteHeaderInPlace: RewriteHeader changes a header in place,
// taking off only the fields above the last one it rewrites, or, when
// that is more than a few, building the header anew (one in four headers
// here has up to 23 fields). On headers of read and made fields, with
// Content-Types (some that do not map) anywhere and keys repeated, the
// result is the header rebuilt field by field from the rewritten fields,
// as seen through each of go-message's views: the fields in order, and
// each key's fields and values.
func TestRewriteHeaderInPlace(t *testing.T) {
	keys := []string{"Content-Type", "content-type", "Subject", "X-A", "Received"}
	values := []string{"text/plain; charset=us-ascii", "text", " spaced  value ", "image/PNG", "a/b;\r\n c=d"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var h textproto.Header
		n := rng.IntN(7)
		if rng.IntN(4) == 0 {
			n = rng.IntN(24)
		}
		for range n {
			k, v := keys[rng.IntN(len(keys))], values[rng.IntN(len(values))]
			if rng.IntN(2) == 0 {
				h.AddRaw([]byte(k + ": " + v + "\r\n"))
			} else {
				h.Add(k, strings.ReplaceAll(v, "\r\n", ""))
			}
		}
		// The reference: every field, rewritten or not, added afresh to
		// a new header, bottom to top, from its raw bytes, or as it was
		// made if those do not read back as its value.
		type field struct{ raw, key, value string }
		var fields []field
		for f := h.Fields(); f.Next(); {
			raw, err := f.Raw()
			require.NoError(t, err)
			fl := field{string(raw), f.Key(), f.Value()}
			if strings.EqualFold(fl.key, "Content-Type") {
				if out, oc := newFieldRewriter(&Options{}).rewrite(nil, raw, "\r\n"); oc.rewritten {
					fl = field{raw: string(out)}
				}
			}
			fields = append(fields, fl)
		}
		var want textproto.Header
		for _, f := range slices.Backward(fields) {
			if f.key != "" {
				tmp := textproto.Header{}
				tmp.AddRaw([]byte(f.raw))
				if tmp.Get(f.key) != f.value {
					want.Add(f.key, f.value)
					continue
				}
			}
			want.AddRaw([]byte(f.raw))
		}
		before := headerView(&h)
		_, _ = RewriteHeader(&h, Options{})
		got, exp := headerView(&h), headerView(&want)
		require.Equal(t, exp, got, "from %v", before)
	}
}

// headerView is what go-message shows of h: its fields in order, then
// each key's values and fields by key.
func headerView(h *textproto.Header) []string {
	var v []string
	for f := h.Fields(); f.Next(); {
		raw, _ := f.Raw()
		v = append(v, f.Key()+"="+f.Value()+" raw "+string(raw))
	}
	for _, k := range []string{"Content-Type", "Subject", "X-A", "Received"} {
		v = append(v, k+" values "+strings.Join(h.Values(k), "|")+" get "+h.Get(k))
		for f := h.FieldsByKey(k); f.Next(); {
			v = append(v, k+" by key "+f.Value())
		}
	}
	return v
}

// TestRewriteHeaderCopy: a header kept with Header.Copy, as RewriteHeader's
// doc advises, is not changed by the rewrite of the original.
func TestRewriteHeaderCopy(t *testing.T) {
	const in = "Subject: x\r\nContent-Type: text/plain\r\nX-A: y\r\n\r\n"
	h := readHeader(t, in)
	orig := h.Copy()
	n, err := RewriteHeader(&h, Options{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, in, writeHeader(t, orig))
	assert.Equal(t, strings.Replace(in, "text/plain", "ContentType:text/plain", 1), writeHeader(t, h))
}

// TestRewriteHeaderEmptyFieldName: go-message's AddRaw and Add take a
// field with an empty name; such a field, kept as it is, does not make
// RewriteHeader take a rewritten Content-Type for a field made with Add.
func TestRewriteHeaderEmptyFieldName(t *testing.T) {
	cases := []struct {
		name  string
		build func(h *textproto.Header)
		want  []string // Key=Value, top to bottom
	}{
		{"raw, below the Content-Type", func(h *textproto.Header) {
			h.AddRaw([]byte(": no name\r\n"))
			h.AddRaw([]byte("Content-Type: text/plain\r\n"))
		}, []string{"Content-Type=ContentType:text/plain", "=no name"}},
		{"made, below the Content-Type", func(h *textproto.Header) {
			h.Add("", "no name")
			h.AddRaw([]byte("Content-Type: text/plain\r\n"))
			h.AddRaw([]byte("Subject: x\r\n"))
		}, []string{"Subject=x", "Content-Type=ContentType:text/plain", "=no name"}},
		{"raw, above the Content-Type", func(h *textproto.Header) {
			h.AddRaw([]byte("Content-Type: text/plain\r\n"))
			h.AddRaw([]byte(": no name\r\n"))
		}, []string{"=no name", "Content-Type=ContentType:text/plain"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h textproto.Header
			tc.build(&h)
			n, err := RewriteHeader(&h, Options{})
			require.NoError(t, err)
			assert.Equal(t, 1, n)
			assert.Equal(t, tc.want, fieldsOf(&h))
			raw, err := h.Raw("Content-Type")
			require.NoError(t, err)
			assert.Equal(t, "Content-Type: ContentType:text/plain\r\n", string(raw))
		})
	}
}

// fieldsOf returns h's fields, top to bottom, as Key=Value.
func fieldsOf(h *textproto.Header) []string {
	var v []string
	for f := h.Fields(); f.Next(); {
		v = append(v, f.Key()+"="+f.Value())
	}
	return v
}

// TestUnformattableField: a field made with Header.Set that go-message
// cannot format (a line break in its value) makes RewriteHeader return
// go-message's error, this package's, with h unchanged and a count of 0,
// even for a Content-Type above it that was already rewritten in the
// copy; Walk returns the error for the part that has it, before fn sees
// the part.
func TestUnformattableField(t *testing.T) {
	var h textproto.Header
	h.Set("X-Bad", "a\r\nb")
	h.AddRaw([]byte("Content-Type: text/plain\r\n")) // above X-Bad: read first
	n, err := RewriteHeader(&h, Options{})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "mailhdr: "), "%v", err)
	assert.Zero(t, n)
	assert.Equal(t, []string{"Content-Type=text/plain", "X-Bad=a\r\nb"}, fieldsOf(&h))

	var mh message.Header
	mh.Set("X-Bad", "a\r\nb")
	mh.Set("Content-Type", "text/plain")
	e, err := message.New(mh, strings.NewReader("body"))
	require.NoError(t, err)
	called := false
	rep, err := Walk(e, Options{}, func([]int, *message.Entity, error) error { called = true; return nil })
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "mailhdr: "), "%v", err)
	assert.False(t, called, "fn is not called for a header Walk could not rewrite")
	assert.Zero(t, rep.Rewritten)
	assert.Equal(t, "text/plain", e.Header.Get("Content-Type"))
}

// TestWalkDepthLimit: Walk stops at a part nested deeper than MaxDepth,
// before fn sees it, with a *Problem of KindTooDeep at the multipart at
// the limit (as Rewrite reports it), listed in the Report too; at the
// limit or without one, it walks every part. go-message reads a part
// through a reader for each multipart around it, so without the limit a
// walk takes time in the square of the depth.
func TestWalkDepthLimit(t *testing.T) {
	for _, tc := range []struct {
		name            string
		depth, maxDepth int
		visits          int // the entities fn sees
		stopped         bool
	}{
		{"under the limit", 2, 3, 3, false},
		{"at the limit", 3, 3, 4, false},
		{"past the limit", 5, 3, 4, true},
		{"the default", 150, 0, DefaultMaxDepth + 1, true},
		{"no limit", 150, -1, 151, false},
	} {
		e, err := message.Read(strings.NewReader(nested(tc.depth, true)))
		require.NoError(t, err, tc.name)
		visits := 0
		rep, err := Walk(e, Options{MaxDepth: tc.maxDepth}, func([]int, *message.Entity, error) error {
			visits++
			return nil
		})
		assert.Equal(t, tc.visits, visits, tc.name)
		assert.Equal(t, tc.visits, rep.Entities, tc.name)
		if !tc.stopped {
			require.NoError(t, err, tc.name)
			assert.Empty(t, rep.Problems, tc.name)
			continue
		}
		require.ErrorIs(t, err, ErrTooDeep, tc.name)
		p, ok := errors.AsType[*Problem](err)
		require.True(t, ok, tc.name)
		limit := limitOf(tc.maxDepth, DefaultMaxDepth)
		assert.Len(t, p.Path, limit, "%s: the multipart at the limit", tc.name)
		assert.Equal(t, []Problem{*p}, rep.Problems, tc.name)
		assert.EqualError(t, err, "mailhdr: "+p.Path.String()+": too-deep: "+tooDeepWalkDetail, tc.name)
	}

	// The multipart at the limit after other parts: Walk names it by the
	// Path Rewrite gives its too-deep problem.
	const msg = "Content-Type: multipart/mixed; boundary=a\r\n\r\n" +
		"--a\r\nContent-Type: text/plain\r\n\r\nx\r\n" +
		"--a\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\ny\r\n" +
		"--b\r\nContent-Type: multipart/alternative; boundary=c\r\n\r\n" +
		"--c\r\nContent-Type: text/plain\r\n\r\nz\r\n--c--\r\n" +
		"--b--\r\n--a--\r\n"
	for _, maxDepth := range []int{1, 2} {
		rep, err := Rewrite(io.Discard, strings.NewReader(msg), Options{MaxDepth: maxDepth})
		require.NoError(t, err)
		require.Len(t, rep.Problems, 1)
		require.Equal(t, KindTooDeep, rep.Problems[0].Kind)
		e, err := message.Read(strings.NewReader(msg))
		require.NoError(t, err)
		wrep, err := Walk(e, Options{MaxDepth: maxDepth}, func([]int, *message.Entity, error) error { return nil })
		p, ok := errors.AsType[*Problem](err)
		require.True(t, ok, "MaxDepth %d: %v", maxDepth, err)
		assert.Equal(t, rep.Problems[0].Path, p.Path, "MaxDepth %d", maxDepth)
		assert.Equal(t, rep.Rewritten, wrep.Rewritten, "MaxDepth %d: the fields rewritten before the stop", maxDepth)
	}
}
