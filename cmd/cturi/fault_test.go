package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/faultio"
	"github.com/cturi/cturi/mailhdr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on the command's standard input, output and error:
// inputs read in any chunks that fail at any offset, and writers that
// fail, take part of a write or break the io.Writer contract.

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
		for _, wrap := range faultio.Chunkings {
			var out, errs bytes.Buffer
			code := run(args, wrap.Wrap(strings.NewReader(in)), &out, &errs)
			assert.Equal(t, wantCode, code, "%v %s", args, wrap.Name)
			assert.Equal(t, want.String(), out.String(), "%v %s", args, wrap.Name)
			assert.Equal(t, wantErrs.String(), errs.String(), "%v %s", args, wrap.Name)
		}
		for n := 0; n <= len(in); n++ {
			whole := in[:strings.LastIndexByte(in[:n], '\n')+1]
			var wantCut, wantCutErrs bytes.Buffer
			run(args, strings.NewReader(whole), &wantCut, &wantCutErrs)
			for _, src := range []faultio.Mode{
				{Name: "repeated, octet by octet", Chunk: 1},
				{Name: "once", Once: true},
				{Name: "once, then the rest, octet by octet", Chunk: 1, Once: true, Resume: true},
			} {
				what := fmt.Sprintf("%v cut at %d, error %s", args, n, src.Name)
				var out, errs bytes.Buffer
				code := run(args, faultio.EmptyReads(src.Cut(in, n)), &out, &errs)
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
		_, err := mailhdr.Rewrite(&want, faultio.Modes[0].Cut(msg, n), mailhdr.Options{})
		require.ErrorIs(t, err, faultio.ErrFault)
		for _, src := range faultio.Modes {
			src.Chunk = 7
			what := fmt.Sprintf("cut at %d, error %s", n, src.Name)
			var out, errs bytes.Buffer
			code := run([]string{"mail"}, faultio.EmptyReads(src.Cut(msg, n)), &out, &errs)
			assert.Equal(t, exitFailed, code, what)
			assert.Equal(t, want.String(), out.String(), what)
			assert.True(t, strings.HasSuffix(errs.String(), "cturi mail: fault injected\n"), "%s: %q", what, errs.String())
		}
	}
}

// stringFaultWriter is a faultio.Writer that is an io.StringWriter too,
// which bufio.Writer.WriteString hands a long string to as it is.
type stringFaultWriter struct{ *faultio.Writer }

func (w stringFaultWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// faultWriters are the ways a faultio.Writer fails, and one more: a
// short count from an io.StringWriter.
var faultWriters = []struct {
	faultio.WriterMode
	str bool // the writer is a stringFaultWriter
}{
	{faultio.WriterModes[0], false},
	{faultio.WriterModes[1], false},
	{faultio.WriterModes[2], false},
	{faultio.WriterMode{Name: "short count, no error, io.StringWriter"}, true},
	{faultio.WriterModes[3], false},
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
				what := fmt.Sprintf("%v: %s after %d octets", tt.args, fw.Name, limit)
				mk := func() (*faultio.Writer, io.Writer) {
					w := fw.After(limit)
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
				assert.True(t, bytes.HasPrefix(want.Bytes(), w.Bytes()), "%s: output not the command's", what)
				last := errs.String()[strings.LastIndexByte(strings.TrimSuffix(errs.String(), "\n"), '\n')+1:]
				assert.True(t, strings.HasPrefix(last, tt.stops), "%s: last message %q", what, last)

				w, stderr := mk()
				var out bytes.Buffer
				if !assert.NotPanics(t, func() { code = run(tt.args, strings.NewReader(tt.stdin), &out, stderr) }, "%s, on standard error", what) {
					continue
				}
				assert.Equal(t, wantCode, code, "%s, on standard error", what)
				assert.Equal(t, want.String(), out.String(), "%s, on standard error", what)
				assert.True(t, bytes.HasPrefix(wantErrs.Bytes(), w.Bytes()), "%s, on standard error: messages not the command's", what)
			}
		}
	}
}
