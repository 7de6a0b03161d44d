package checkedio

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// countingWriter returns n and err whatever it is given.
type countingWriter struct {
	n   int
	err error
}

func (w countingWriter) Write([]byte) (int, error) { return w.n, w.err }

func TestWriter(t *testing.T) {
	errW := errors.New("w failed")
	for _, tt := range []struct {
		name  string
		w     countingWriter
		wantN int
		want  error
	}{
		{"whole", countingWriter{n: 4}, 4, nil},
		{"short with an error", countingWriter{n: 2, err: errW}, 2, errW},
		{"short without an error", countingWriter{n: 2}, 2, io.ErrShortWrite},
		{"nothing without an error", countingWriter{}, 0, io.ErrShortWrite},
		{"negative", countingWriter{n: -1}, 0, ErrInvalidWrite},
		{"past the slice", countingWriter{n: 5}, 0, ErrInvalidWrite},
		{"past the slice with an error", countingWriter{n: 5, err: errW}, 0, errW},
		{"whole with an error", countingWriter{n: 4, err: errW}, 4, errW},
	} {
		c := &Writer{W: tt.w, N: 10}
		n, err := c.Write([]byte("abcd"))
		assert.Equal(t, tt.wantN, n, tt.name)
		assert.Equal(t, int64(10+tt.wantN), c.N, tt.name)
		if tt.want == nil {
			assert.NoError(t, err, tt.name)
		} else {
			assert.ErrorIs(t, err, tt.want, tt.name)
		}
	}
}
