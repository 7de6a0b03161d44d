package mailhdr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on Rewrite and Reader: sources that deliver a message
// in any chunks and fail at any offset, and writers that fail, take part
// of a write or break the io.Writer contract.

var errFault = errors.New("fault injected")

// cutReader returns data in reads of at most chunk octets (0: as many as
// fit), then fails with err: for ever, or once and then io.EOF (once),
// or once and then the octets after the cut (resume), as
// iotest.TimeoutReader goes on after its error.
type cutReader struct {
	data, after  []byte
	chunk        int
	err          error
	once, resume bool
	failed       bool
}

func (r *cutReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		switch {
		case !r.failed || !r.once:
			r.failed = true
			return 0, r.err
		case r.resume && len(r.after) > 0:
			n := copy(p, r.after)
			r.after = r.after[n:]
			return n, nil
		}
		return 0, io.EOF
	}
	if r.chunk > 0 && len(p) > r.chunk {
		p = p[:r.chunk]
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadErrorAnyChunking cuts corpus messages at every offset with a
// read error, delivered in one read or octet by octet, repeated, reported
// once, or reported once with the message going on after it: Rewrite,
// Reader (read an octet at a time) and io.Copy all return the error, and
// give the output and Report of the source that fails for good, in one
// read; a Reader keeps failing after it. (FuzzReadError holds that
// reference to the properties of a cut; this holds every way of
// delivering the cut to it.)
func TestReadErrorAnyChunking(t *testing.T) {
	files := []string{"nested.eml", "rfc822.eml", "digest.eml", "mixed-endings.eml", "malformed-truncated.eml", "signed.eml"}
	if testing.Short() || raceEnabled {
		files = files[:1] // 17 s for all six under the race detector
	}
	sources := []struct {
		name         string
		chunk        int
		once, resume bool
	}{
		{"repeated, octet by octet", 1, false, false},
		{"once", 0, true, false},
		{"once, octet by octet", 1, true, false},
		{"once, then the rest", 0, true, true},
		{"once, then the rest, octet by octet", 1, true, true},
	}
	for _, file := range files {
		in := readCorpus(t, file)
		for n := 0; n <= len(in); n++ {
			var want bytes.Buffer
			wantRep, err := Rewrite(&want, &cutReader{data: in[:n], err: errFault}, Options{})
			require.ErrorIs(t, err, errFault)
			for _, src := range sources {
				what := fmt.Sprintf("%s cut at %d, %s", file, n, src.name)
				mk := func() io.Reader {
					return &cutReader{data: in[:n], after: in[n:], chunk: src.chunk, err: errFault, once: src.once, resume: src.resume}
				}
				var out bytes.Buffer
				rep, err := Rewrite(&out, mk(), Options{})
				require.ErrorIs(t, err, errFault, what)
				require.Equal(t, want.String(), out.String(), what)
				require.Equal(t, wantRep, rep, what)

				r := NewReader(mk(), Options{})
				var got []byte
				one := make([]byte, 1)
				for {
					k, err := r.Read(one)
					got = append(got, one[:k]...)
					if err != nil {
						require.ErrorIs(t, err, errFault, what)
						break
					}
				}
				require.Equal(t, want.String(), string(got), what)
				require.Equal(t, wantRep, r.Report(), what)
				_, err = r.Read(one)
				require.ErrorIs(t, err, errFault, "%s: Read after the error", what)

				var copied bytes.Buffer
				_, err = io.Copy(&copied, NewReader(mk(), Options{}))
				require.ErrorIs(t, err, errFault, what)
				require.Equal(t, want.String(), copied.String(), what)
			}
		}
	}
}

// faultWriter takes octets until it holds limit, then fails a write that
// would go past it: with err, taking nothing (or, partial, what fits);
// with err nil, it takes what fits and returns that short count, which
// the io.Writer contract forbids; over, it takes what fits and claims one
// octet more than it was given. It refuses to be called more than 1000
// times past its limit, so that a writer loop that never ends fails the
// test instead of hanging it.
type faultWriter struct {
	bytes.Buffer
	limit   int
	err     error
	partial bool
	over    bool
	faults  int
}

func (w *faultWriter) Write(p []byte) (int, error) {
	room := max(w.limit-w.Len(), 0)
	if len(p) <= room {
		return w.Buffer.Write(p)
	}
	if w.faults++; w.faults > 1000 {
		panic("written to 1000 times after it stopped taking octets")
	}
	switch {
	case w.over:
		w.Buffer.Write(p[:room])
		return len(p) + 1, nil
	case w.err == nil || w.partial:
		n, _ := w.Buffer.Write(p[:room])
		return n, w.err
	}
	return 0, w.err
}

// TestWriterFaults: a writer that fails, fails after taking part of a
// write, returns a short count without an error, or claims more than it
// was given, at any point of the output (before, at and after the output
// buffer's size), makes Rewrite and Reader.WriteTo return an error,
// without a panic; the writer holds a prefix of the output, and WriteTo
// counts what it took; the Reader fails after it. The message with a
// Content-Type longer than the buffer has bufio.Writer write that field
// straight to the writer, which a short count must not stall.
func TestWriterFaults(t *testing.T) {
	msgs := []struct{ name, in string }{
		{"a long body", "Content-Type: text/plain\r\n\r\n" + strings.Repeat("body line\r\n", 20000)},
		{"a Content-Type longer than the buffer, rewritten",
			"Content-Type: text/plain; x=\"" + strings.Repeat("a ", readBufSize/2) + "\"\r\n\r\nbody\r\n"},
		{"a Content-Type longer than the buffer, not rewritten",
			"Content-Type: text/plain; x=\"" + strings.Repeat("\xff ", readBufSize/2) + "\"\r\n\r\nbody\r\n"},
	}
	writers := []struct {
		name    string
		err     error
		partial bool
		over    bool
		want    error // what errors.Is finds, if not err
	}{
		{name: "error", err: errFault},
		{name: "error after part of a write", err: errFault, partial: true},
		{name: "short count, no error", want: io.ErrShortWrite},
		{name: "count past the write, no error", over: true},
	}
	for _, m := range msgs {
		var want bytes.Buffer
		_, err := Rewrite(&want, strings.NewReader(m.in), Options{})
		require.NoError(t, err)
		for _, limit := range []int{0, 1, 100, readBufSize - 1, readBufSize, readBufSize + 1, want.Len() - 1} {
			for _, wr := range writers {
				what := fmt.Sprintf("%s: %s after %d octets", m.name, wr.name, limit)
				mk := func() *faultWriter {
					return &faultWriter{limit: limit, err: wr.err, partial: wr.partial, over: wr.over}
				}
				check := func(w *faultWriter, err error) {
					t.Helper()
					switch {
					case wr.want != nil:
						assert.ErrorIs(t, err, wr.want, what)
					case wr.err != nil:
						assert.ErrorIs(t, err, wr.err, what)
					default:
						assert.Error(t, err, what)
					}
					assert.True(t, bytes.HasPrefix(want.Bytes(), w.Bytes()), "%s: not a prefix of the output", what)
				}

				w := mk()
				var err error
				if !assert.NotPanics(t, func() { _, err = Rewrite(w, strings.NewReader(m.in), Options{}) }, "%s: Rewrite", what) {
					continue
				}
				check(w, err)

				w = mk()
				r := NewReader(strings.NewReader(m.in), Options{})
				var n int64
				if !assert.NotPanics(t, func() { n, err = r.WriteTo(w) }, "%s: WriteTo", what) {
					continue
				}
				check(w, err)
				if wr.over {
					assert.LessOrEqual(t, n, int64(w.Len()), "%s: counted", what)
				} else {
					assert.Equal(t, int64(w.Len()), n, "%s: counted", what)
				}
				_, err = r.Read(make([]byte, 10))
				assert.Error(t, err, "%s: Read after", what)
			}
		}
	}
}

// TestWriteToDrainFaults: WriteTo after a Read that left output buffered
// writes that first; a writer that breaks the io.Writer contract there
// gives an error too, not a panic (bytes.Buffer.WriteTo panics on a count
// past the write) or a silent short write.
func TestWriteToDrainFaults(t *testing.T) {
	const in = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nbody\r\n"
	for _, w := range []*faultWriter{{limit: 3}, {limit: 3, over: true}} {
		r := NewReader(strings.NewReader(in), Options{})
		_, err := io.ReadFull(r, make([]byte, 5))
		require.NoError(t, err)
		var n int64
		require.NotPanics(t, func() { n, err = r.WriteTo(w) })
		assert.Error(t, err)
		if !w.over {
			assert.ErrorIs(t, err, io.ErrShortWrite)
			assert.Equal(t, int64(3), n)
		}
		assert.LessOrEqual(t, n, int64(3))
	}
}
