package faultio

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reads reads r to its first error, then makes `after` more reads, and
// returns what it read, what those further reads gave, and the first error.
func reads(r io.Reader, after int) (got string, later []string, first error) {
	buf := make([]byte, 4)
	for first == nil {
		n, err := r.Read(buf)
		got += string(buf[:n])
		first = err
	}
	for range after {
		n, err := r.Read(buf)
		later = append(later, string(buf[:n])+"|"+errString(err))
	}
	return got, later, first
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func TestModes(t *testing.T) {
	want := map[string][]string{
		"repeated":            {"|fault injected", "|fault injected", "|fault injected"},
		"once":                {"|EOF", "|EOF", "|EOF"},
		"once, then the rest": {"defg|nil", "h|nil", "|EOF"},
	}
	require.Len(t, Modes, len(want))
	for _, m := range Modes {
		got, later, first := reads(m.Cut("abcdefgh", 3), 3)
		assert.Equal(t, "abc", got, m.Name)
		assert.ErrorIs(t, first, ErrFault, m.Name)
		assert.Equal(t, want[m.Name], later, m.Name)
	}
}

func TestReaderChunks(t *testing.T) {
	r := EmptyReads(&Reader{Data: "abcdefg", Chunk: 2, Err: io.EOF})
	var sizes []int
	buf := make([]byte, 8)
	for {
		n, err := r.Read(buf)
		sizes = append(sizes, n)
		if err != nil {
			break
		}
	}
	assert.Equal(t, []int{0, 2, 0, 2, 0, 2, 0, 1, 0, 0}, sizes)
}

func TestWriterModes(t *testing.T) {
	for _, tt := range []struct {
		mode  WriterMode
		n     int
		err   error
		holds string
	}{
		{WriterModes[0], 0, ErrFault, "ab"},
		{WriterModes[1], 1, ErrFault, "abc"},
		{WriterModes[2], 1, nil, "abc"},
		{WriterModes[3], 4, nil, "abc"},
	} {
		w := tt.mode.After(3)
		n, err := w.Write([]byte("ab"))
		require.NoError(t, err, tt.mode.Name)
		require.Equal(t, 2, n, tt.mode.Name)
		n, err = w.Write([]byte("cde"))
		assert.Equal(t, tt.n, n, tt.mode.Name)
		assert.Equal(t, tt.err, err, tt.mode.Name)
		assert.Equal(t, tt.holds, w.String(), tt.mode.Name)
		assert.Equal(t, len(tt.holds), w.Len(), tt.mode.Name)
	}
}

func TestWriterOnce(t *testing.T) {
	w := &Writer{Limit: 1, Err: ErrFault, Partial: true, Once: true}
	n, err := w.Write([]byte("ab"))
	assert.Equal(t, 1, n)
	assert.ErrorIs(t, err, ErrFault)
	n, err = w.Write([]byte("cd"))
	assert.Equal(t, 2, n)
	assert.NoError(t, err)
	assert.Equal(t, "acd", w.String())
}

func TestWriterEndlessLoop(t *testing.T) {
	w := WriterModes[2].After(0)
	assert.Panics(t, func() {
		for {
			_, _ = w.Write([]byte("x"))
		}
	})
}

func TestChunkings(t *testing.T) {
	const data = "abcdefghij"
	for _, c := range Chunkings {
		got, err := io.ReadAll(c.Wrap(strings.NewReader(data)))
		require.NoError(t, err, c.Name)
		assert.Equal(t, data, string(got), c.Name)
	}
	n, err := Chunkings[4].Wrap(strings.NewReader(data)).Read(make([]byte, 4))
	assert.Equal(t, 0, n)
	assert.NoError(t, err)
}
