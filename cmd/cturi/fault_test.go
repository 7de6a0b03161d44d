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

	"github.com/cturi/cturi/mailhdr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on the command's standard input, output and error:
// inputs read in any chunks that fail at any offset, and writers that
// fail, take part of a write or break the io.Writer contract.

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

// TestMailReadFaults: cturi mail with standard input cut at any offset by
// a read error, repeated, reported once, or reported once with the input
// going on after it, writes what mailhdr.Rewrite writes of the input
// before the error, says so on standard error last, and exits with
// status 1.
func TestMailReadFaults(t *testing.T) {
	const msg = "Subject: x\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\none\r\n" +
		"--b\r\nContent-Type: message/rfc822\r\n\r\nContent-Type: text/html\r\n\r\n<p>two\r\n--b--\r\n"
	for n := 0; n <= len(msg); n++ {
		var want bytes.Buffer
		_, err := mailhdr.Rewrite(&want, &cutReader{data: msg[:n], err: errFault}, mailhdr.Options{})
		require.ErrorIs(t, err, errFault)
		for _, src := range []struct {
			name         string
			once, resume bool
		}{
			{"repeated", false, false},
			{"once", true, false},
			{"once, then the rest", true, true},
		} {
			what := fmt.Sprintf("cut at %d, error %s", n, src.name)
			var out, errs bytes.Buffer
			code := run([]string{"mail"}, &cutReader{data: msg[:n], after: msg[n:], chunk: 7, err: errFault, once: src.once, resume: src.resume}, &out, &errs)
			assert.Equal(t, exitFailed, code, what)
			assert.Equal(t, want.String(), out.String(), what)
			assert.True(t, strings.HasSuffix(errs.String(), "cturi mail: fault injected\n"), "%s: %q", what, errs.String())
		}
	}
}

// faultWriter takes octets until it holds limit, then fails a write that
// would go past it: with err, taking nothing (or, partial, what fits);
// with err nil, it takes what fits and returns that short count, which
// the io.Writer contract forbids; over, it takes what fits and claims one
// octet more than it was given. It refuses to be called more than 1000
// times past its limit, so that a writer loop that never ends fails the
// test instead of hanging it. It has no method but Write (a bytes.Buffer
// in it would make it an io.StringWriter, which stringFaultWriter is).
type faultWriter struct {
	buf     bytes.Buffer
	limit   int
	err     error
	partial bool
	over    bool
	faults  int
}

func (w *faultWriter) Write(p []byte) (int, error) {
	room := max(w.limit-w.buf.Len(), 0)
	if len(p) <= room {
		return w.buf.Write(p)
	}
	if w.faults++; w.faults > 1000 {
		panic("written to 1000 times after it stopped taking octets")
	}
	switch {
	case w.over:
		w.buf.Write(p[:room])
		return len(p) + 1, nil
	case w.err == nil || w.partial:
		n, _ := w.buf.Write(p[:room])
		return n, w.err
	}
	return 0, w.err
}

// stringFaultWriter is a faultWriter that is an io.StringWriter too,
// which bufio.Writer.WriteString hands a long string to as it is.
type stringFaultWriter struct{ *faultWriter }

func (w stringFaultWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// faultWriters are the ways a faultWriter fails.
var faultWriters = []struct {
	name    string
	err     error
	partial bool
	over    bool
	str     bool // the writer is a stringFaultWriter
}{
	{name: "error", err: errFault},
	{name: "error after part of a write", err: errFault, partial: true},
	{name: "short count, no error"},
	{name: "short count, no error, io.StringWriter", str: true},
	{name: "count past the write, no error", over: true},
}

// TestWriterFaults: standard output that fails, fails after taking part
// of a write, returns a short count without an error, or claims more than
// it was given, anywhere in the output (before, at and after the 64 KiB
// output buffer, and with answers longer than it), makes every command
// stop with a message and exit status 1, without a panic; the output has
// nothing that is not the command's. Standard error that fails so (with
// a message longer than its 16 KiB buffer) changes neither the output nor
// the exit status.
func TestWriterFaults(t *testing.T) {
	long := "text/plain; x=\"" + strings.Repeat("a%", 40000) + "\"" // maps to 160 KiB
	longBad := "text/" + strings.Repeat("a ", 12000)                // a message longer than its 16 KiB buffer
	values := "image/png\ntext\n" + long + "\n" + longBad + "\n" + strings.Repeat("image/gif\n", 100) + "x/\n"
	for _, tt := range []struct {
		args         []string
		stdin, stops string
	}{
		{nil, values, "cturi: writing standard output: "},
		{[]string{"-json"}, values, "cturi: writing standard output: "},
		{[]string{"-h"}, "", "cturi: writing standard output: "},
		{[]string{"-version"}, "", "cturi: writing standard output: "},
		{[]string{"mail"}, "Content-Type: " + long + "\r\n\r\nbody\r\n", "cturi mail: "},
	} {
		var want, wantErrs bytes.Buffer
		wantCode := run(tt.args, strings.NewReader(tt.stdin), &want, &wantErrs)
		for _, limit := range []int{0, 1, 10, 64<<10 - 1, 64 << 10, 64<<10 + 1, want.Len() - 1} {
			if limit >= want.Len() {
				continue
			}
			for _, fw := range faultWriters {
				what := fmt.Sprintf("%v: %s after %d octets", tt.args, fw.name, limit)
				mk := func() (*faultWriter, io.Writer) {
					w := &faultWriter{limit: limit, err: fw.err, partial: fw.partial, over: fw.over}
					if fw.str {
						return w, stringFaultWriter{w}
					}
					return w, w
				}

				w, stdout := mk()
				var errs bytes.Buffer
				code := -1
				if !assert.NotPanics(t, func() { code = run(tt.args, strings.NewReader(tt.stdin), stdout, &errs) }, what) {
					continue
				}
				assert.Equal(t, exitFailed, code, what)
				assert.True(t, bytes.HasPrefix(want.Bytes(), w.buf.Bytes()), "%s: output not the command's", what)
				last := errs.String()[strings.LastIndexByte(strings.TrimSuffix(errs.String(), "\n"), '\n')+1:]
				assert.True(t, strings.HasPrefix(last, tt.stops), "%s: last message %q", what, last)

				w, stderr := mk()
				var out bytes.Buffer
				if !assert.NotPanics(t, func() { code = run(tt.args, strings.NewReader(tt.stdin), &out, stderr) }, "%s, on standard error", what) {
					continue
				}
				assert.Equal(t, wantCode, code, "%s, on standard error", what)
				assert.Equal(t, want.String(), out.String(), "%s, on standard error", what)
				assert.True(t, bytes.HasPrefix(wantErrs.Bytes(), w.buf.Bytes()), "%s, on standard error: messages not the command's", what)
			}
		}
	}
}
