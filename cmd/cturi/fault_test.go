package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on the command's standard input: inputs read in any
// chunks that fail at any offset.

var errFault = errors.New("fault injected")

// cutReader returns data in reads of at most chunk octets (0: as many as
// fit), each after a read of no octets and no error, then fails with err:
// for ever, or once and then io.EOF (once), or once and then the octets
// after the cut (resume), as iotest.TimeoutReader goes on after its error.
type cutReader struct {
	data, after  string
	chunk        int
	err          error
	once, resume bool
	failed       bool
	empty        bool // the last read returned no octets and no error
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.empty = !r.empty; r.empty {
		return 0, nil
	}
	if r.data == "" {
		switch {
		case !r.failed || !r.once:
			r.failed = true
			return 0, r.err
		case r.resume && r.after != "":
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

// faultInput is the draft's examples, then values that fail, an empty
// line, and a last line that ends with a CR and no LF.
func faultInput(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/draft-examples.txt")
	require.NoError(t, err)
	return string(b) + "text\r\n\r\nx/y\r"
}

// TestReadFaults: standard input read in any chunks gives the output,
// messages and exit status of the same input read whole; one cut at any
// offset by a read error, repeated, reported once, or reported once with
// the input going on after it, gives the answers to the lines before the
// cut, none for the line it cuts or any after it, the message, and exit
// status 1.
func TestReadFaults(t *testing.T) {
	in := faultInput(t)
	for _, args := range [][]string{nil, {"-json"}} {
		var want, wantErrs bytes.Buffer
		wantCode := run(args, strings.NewReader(in), &want, &wantErrs)
		for _, wrap := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{
			{"one octet at a time", iotest.OneByteReader},
			{"half of each read", iotest.HalfReader},
			{"the last data with io.EOF", iotest.DataErrReader},
			{"one octet at a time, the last with io.EOF", func(r io.Reader) io.Reader { return iotest.DataErrReader(iotest.OneByteReader(r)) }},
			{"reads of no octets between", func(r io.Reader) io.Reader { return &cutReader{data: in, err: io.EOF} }},
		} {
			var out, errs bytes.Buffer
			code := run(args, wrap.wrap(strings.NewReader(in)), &out, &errs)
			assert.Equal(t, wantCode, code, "%v %s", args, wrap.name)
			assert.Equal(t, want.String(), out.String(), "%v %s", args, wrap.name)
			assert.Equal(t, wantErrs.String(), errs.String(), "%v %s", args, wrap.name)
		}
		for n := 0; n <= len(in); n++ {
			whole := in[:strings.LastIndexByte(in[:n], '\n')+1]
			var wantCut, wantCutErrs bytes.Buffer
			run(args, strings.NewReader(whole), &wantCut, &wantCutErrs)
			for _, src := range []struct {
				name         string
				chunk        int
				once, resume bool
			}{
				{"repeated, octet by octet", 1, false, false},
				{"once", 0, true, false},
				{"once, then the rest, octet by octet", 1, true, true},
			} {
				what := fmt.Sprintf("%v cut at %d, error %s", args, n, src.name)
				var out, errs bytes.Buffer
				code := run(args, &cutReader{data: in[:n], after: in[n:], chunk: src.chunk, err: errFault, once: src.once, resume: src.resume}, &out, &errs)
				assert.Equal(t, exitFailed, code, what)
				assert.Equal(t, wantCut.String(), out.String(), what)
				assert.Equal(t, wantCutErrs.String()+"cturi: reading standard input: fault injected\n", errs.String(), what)
			}
		}
	}
}
