package mailhdr

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/faultio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on Rewrite and Reader: sources that deliver a message
// in any chunks and fail at any offset, and writers that fail, take part
// of a write or break the io.Writer contract.

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
	sources := []faultio.Mode{
		{Name: "repeated, octet by octet", Chunk: 1},
		{Name: "once", Once: true},
		{Name: "once, octet by octet", Chunk: 1, Once: true},
		{Name: "once, then the rest", Once: true, Resume: true},
		{Name: "once, then the rest, octet by octet", Chunk: 1, Once: true, Resume: true},
	}
	for _, file := range files {
		in := string(readCorpus(t, file))
		for n := 0; n <= len(in); n++ {
			var want bytes.Buffer
			wantRep, err := Rewrite(&want, faultio.Modes[0].Cut(in, n), Options{})
			require.ErrorIs(t, err, faultio.ErrFault)
			for _, src := range sources {
				what := fmt.Sprintf("%s cut at %d, %s", file, n, src.Name)
				mk := func() io.Reader {
					return src.Cut(in, n)
				}
				var out bytes.Buffer
				rep, err := Rewrite(&out, mk(), Options{})
				require.ErrorIs(t, err, faultio.ErrFault, what)
				require.Equal(t, want.String(), out.String(), what)
				require.Equal(t, wantRep, rep, what)

				r := NewReader(mk(), Options{})
				var got []byte
				one := make([]byte, 1)
				for {
					k, err := r.Read(one)
					got = append(got, one[:k]...)
					if err != nil {
						require.ErrorIs(t, err, faultio.ErrFault, what)
						break
					}
				}
				require.Equal(t, want.String(), string(got), what)
				require.Equal(t, wantRep, r.Report(), what)
				_, err = r.Read(one)
				require.ErrorIs(t, err, faultio.ErrFault, "%s: Read after the error", what)

				var copied bytes.Buffer
				_, err = io.Copy(&copied, NewReader(mk(), Options{}))
				require.ErrorIs(t, err, faultio.ErrFault, what)
				require.Equal(t, want.String(), copied.String(), what)
			}
		}
	}
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
	for _, m := range msgs {
		var want bytes.Buffer
		_, err := Rewrite(&want, strings.NewReader(m.in), Options{})
		require.NoError(t, err)
		for _, limit := range []int{0, 1, 100, readBufSize - 1, readBufSize, readBufSize + 1, want.Len() - 1} {
			for _, wr := range faultio.WriterModes {
				what := fmt.Sprintf("%s: %s after %d octets", m.name, wr.Name, limit)
				mk := func() *faultio.Writer { return wr.After(limit) }
				check := func(w *faultio.Writer, err error) {
					t.Helper()
					switch {
					case wr.Err != nil:
						assert.ErrorIs(t, err, wr.Err, what)
					case !wr.Over:
						assert.ErrorIs(t, err, io.ErrShortWrite, what)
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
				if wr.Over {
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
// past the write) or a silent short write. The octets w did not take are
// still the Reader's: a Read after the error goes on from the first of
// them (what the scanner wrote to a writer that failed, WriteTo cannot
// give back: TestReaderWriteToBrokenWriter).
func TestWriteToDrainFaults(t *testing.T) {
	const in = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nbody\r\n"
	var want bytes.Buffer
	_, err := Rewrite(&want, strings.NewReader(in), Options{})
	require.NoError(t, err)
	for _, w := range []*faultio.Writer{{Limit: 3}, {Limit: 3, Over: true}} {
		r := NewReader(strings.NewReader(in), Options{})
		_, err := io.ReadFull(r, make([]byte, 5))
		require.NoError(t, err)
		var n int64
		require.NotPanics(t, func() { n, err = r.WriteTo(w) })
		assert.Error(t, err)
		if !w.Over {
			assert.ErrorIs(t, err, io.ErrShortWrite)
			assert.Equal(t, int64(3), n)
			rest, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, want.String()[5+3:], string(rest), "the octets the writer did not take")
		}
		assert.LessOrEqual(t, n, int64(3))
	}
}
