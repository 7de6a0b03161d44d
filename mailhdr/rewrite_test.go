package mailhdr

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cturi/cturi/internal/faultio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errBroken = errors.New("broken pipe")

// brokenWriter accepts limit octets, then fails with errBroken.
func brokenWriter(limit int) *faultio.Writer {
	return &faultio.Writer{Limit: limit, Err: errBroken, Partial: true}
}

// TestReaderWriteToAfterRead: WriteTo takes over from Read wherever Read
// stopped, and reports what it wrote; after the end, or after an error,
// it writes nothing more and returns what Read would.
func TestReaderWriteToAfterRead(t *testing.T) {
	const in = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nbody\r\n"
	var want bytes.Buffer
	_, err := Rewrite(&want, strings.NewReader(in), Options{})
	require.NoError(t, err)

	t.Run("after part of a step", func(t *testing.T) {
		r := NewReader(strings.NewReader(in), Options{})
		head := make([]byte, 5)
		_, err := io.ReadFull(r, head)
		require.NoError(t, err)
		var rest bytes.Buffer
		n, err := r.WriteTo(&rest)
		require.NoError(t, err)
		assert.Equal(t, int64(rest.Len()), n)
		assert.Equal(t, want.String(), string(head)+rest.String())
	})
	t.Run("failing while it drains what Read left", func(t *testing.T) {
		r := NewReader(strings.NewReader(in), Options{})
		_, err := io.ReadFull(r, make([]byte, 5))
		require.NoError(t, err)
		w := brokenWriter(3)
		n, err := r.WriteTo(w)
		assert.ErrorIs(t, err, errBroken)
		assert.Equal(t, int64(3), n, "the octets it wrote")
		assert.Equal(t, want.String()[5:8], w.String())
	})
	t.Run("after the end", func(t *testing.T) {
		r := NewReader(strings.NewReader(in), Options{})
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.Equal(t, want.String(), string(got))
		var more bytes.Buffer
		n, err := r.WriteTo(&more)
		assert.NoError(t, err, "the end is not an error for WriteTo")
		assert.Zero(t, n)
		assert.Zero(t, more.Len())
	})
	t.Run("after a read error", func(t *testing.T) {
		boom := io.ErrUnexpectedEOF
		r := NewReader(io.MultiReader(strings.NewReader(in[:20]), iotest.ErrReader(boom)), Options{})
		_, err := io.ReadAll(r)
		require.ErrorIs(t, err, boom)
		var more bytes.Buffer
		n, err := r.WriteTo(&more)
		assert.ErrorIs(t, err, boom, "the source's error again")
		assert.Zero(t, n)
		assert.Zero(t, more.Len())
	})
}

// TestReaderWriteToBrokenWriter: an error writing the rewritten message
// stops WriteTo, which returns it and the octets the writer took, and
// every later Read or WriteTo returns it too: the Reader cannot go on
// from a point the writer did not reach. (Output that a Read left
// buffered is the Reader's still: TestWriteToDrainFaults.)
func TestReaderWriteToBrokenWriter(t *testing.T) {
	in := "Subject: x\r\nContent-Type: text/plain\r\n\r\n" + strings.Repeat("body line\r\n", 20000)
	var want bytes.Buffer
	_, err := Rewrite(&want, strings.NewReader(in), Options{})
	require.NoError(t, err)
	for _, limit := range []int{0, 10, readBufSize + 7, want.Len() - 1} {
		w := brokenWriter(limit)
		r := NewReader(strings.NewReader(in), Options{})
		n, err := r.WriteTo(w)
		assert.ErrorIs(t, err, errBroken, "limit %d", limit)
		assert.Equal(t, int64(limit), n, "limit %d", limit)
		assert.Equal(t, want.String()[:limit], w.String(), "limit %d", limit)
		_, err = r.Read(make([]byte, 10))
		assert.ErrorIs(t, err, errBroken, "limit %d: Read after", limit)
		_, err = r.WriteTo(io.Discard)
		assert.ErrorIs(t, err, errBroken, "limit %d: WriteTo after", limit)
	}
}
