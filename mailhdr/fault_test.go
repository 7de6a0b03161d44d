package mailhdr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fault injection on Rewrite and Reader: sources that deliver a message
// in any chunks and fail at any offset.

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
	if testing.Short() {
		files = files[:1]
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
