package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain runs the command itself in place of the tests when
// CTURI_TEST_MAIN holds its command line, for TestClosedPipe; otherwise
// it runs the tests, and fails them when a goroutine that one of them
// started (a child process's pipes) is still running after the last.
func TestMain(m *testing.M) {
	if args := os.Getenv("CTURI_TEST_MAIN"); args != "" {
		os.Args = strings.Fields(args)
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errs)
	return out.String(), errs.String(), code
}

func TestCLI(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		out    string
		errSub string
		code   int
	}{
		{"args, auto", []string{"image/JPEG", "http://example.com/tag42"}, "",
			"ContentType:image/jpeg\napplication/uri.http%3A%2F%2Fexample.com%2Ftag42\n", "", exitOK},
		{"stdin, CRLF and LF", nil, "image/JPEG\r\nContentType:image/jpeg\n",
			"ContentType:image/jpeg\nimage/jpeg\n", "", exitOK},
		{"stdin without a final newline", nil, "image/JPEG", "ContentType:image/jpeg\n", "", exitOK},
		{"a final CR without LF is a line ending too", nil, "image/JPEG\r", "ContentType:image/jpeg\n", "", exitOK},
		{"a lone CR is an empty value", nil, "\r", "ERROR:syntax\n", `line 1: ""`, exitFailed},
		{"a CR inside a value stays", nil, "image/JPEG\rx\n", "ERROR:ctl\n", "0x0D", exitFailed},
		{"only the last CR before LF goes", nil, "image/JPEG\r\r\n", "ERROR:ctl\n", "0x0D", exitFailed},
		{"only the last CR at the end goes", nil, "image/JPEG\r\r", "ERROR:ctl\n", "0x0D", exitFailed},
		{"the word mail after -- is a value", []string{"--", "mail"}, "", "ERROR:syntax\n", `"mail"`, exitFailed},
		{"mail on standard input", nil, "mail\n", "ERROR:syntax\n", `line 1: "mail"`, exitFailed},
		{"a value starting with '-', after --", []string{"--", "-x/y"}, "", "ContentType:-x/y\n", "", exitOK},
		{"-mail after the first argument", []string{"-json", "-mail"}, "", "", "-mail must be the first argument", exitUsage},
		{"-mail=false first maps as usual", []string{"-mail=false", "image/JPEG"}, "", "ContentType:image/jpeg\n", "", exitOK},
		{"empty stdin", nil, "", "", "", exitOK},
		{"an empty line is a value", nil, "\n", "ERROR:syntax\n", `line 1: ""`, exitFailed},
		{"an empty line under -to ct is not a URI", []string{"-to", "ct"}, "\n", "ERROR:relative-uri\n", `line 1: ""`, exitFailed},
		{"failure in the middle", nil, "image/JPEG\ntext\nhttp://x/a b\nimage/png\n",
			"ContentType:image/jpeg\nERROR:syntax\nERROR:invalid-uri\nContentType:image/png\n", "line 3:", exitFailed},
		{"-to uri forces the direction", []string{"-to", "uri", "http://x"}, "", "ERROR:syntax\n", "expected '/' after the type", exitFailed},
		{"-to ct forces the direction", []string{"-to", "ct", "text/plain"}, "", "ERROR:relative-uri\n", "no scheme", exitFailed},
		{"-strict-uri", []string{"-strict-uri", `text/plain; a="b"`}, "", "ContentType:text/plain?a=%22b%22\n", "", exitOK},
		{"-lenient", []string{"-lenient", "multipart/mixed; boundary=----=_P"}, "", `ContentType:multipart/mixed?boundary="----%3D_P"` + "\n", "", exitOK},
		{"without -lenient", []string{"multipart/mixed; boundary=----=_P"}, "", "ERROR:syntax\n", "expected ';' or the end at offset 30", exitFailed},
		{"injection refused", []string{"ContentType:text/plain%0D%0AX-Evil:%201"}, "", "ERROR:ctl\n", "0x0D at offset 22", exitFailed},
		{"bad -to", []string{"-to", "sideways", "x"}, "", "", `-to must be uri, ct or auto, not "sideways"`, exitUsage},
		{"unknown flag", []string{"-nope"}, "", "", "flag provided but not defined", exitUsage},
		// A value that starts with '-' without a -- before it is taken for
		// a flag; the flag package's message shows its name as it is.
		{"unknown flag with control characters", []string{"-x\r\x1b[2K\u202e\xff"}, "", "", "flag provided but not defined: -x\\r\\x1b[2K\\u202e\\xff\n", exitUsage},
		{"bad flag syntax with control characters", []string{"-=\x1b[2K"}, "", "", "bad flag syntax: -=\\x1b[2K\n", exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tt.stdin, tt.args...)
			assert.Equal(t, tt.out, out)
			assert.Equal(t, tt.code, code, "stderr: %s", errs)
			if tt.errSub != "" {
				assert.Contains(t, errs, tt.errSub)
			} else {
				assert.Empty(t, errs)
			}
			if code == exitUsage {
				// What is wrong, and where the usage is: not the usage
				// itself, which would scroll it away.
				assert.True(t, strings.HasSuffix(errs, "Run 'cturi -h' for usage.\n"), "%s", errs)
				assert.NotContains(t, errs, "Usage:")
			}
		})
	}
}

func TestMailFlag(t *testing.T) {
	for arg, want := range map[string]bool{
		"-mail": true, "--mail": true, "-mail=true": true, "--mail=1": true, "-mail=T": true,
		"-mail=false": false, "-mail=0": false, "-mail=x": false, "mail": false, "---mail": false, "-mailx": false, "-json": false,
	} {
		assert.Equal(t, want, mailFlag(arg), arg)
	}
}

func TestCLIJSON(t *testing.T) {
	out, _, code := runCLI(t, "image/JPEG\nContentType:text\n", "-json")
	assert.Equal(t, exitFailed, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2)
	var rs []result
	for _, l := range lines {
		var r result
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		rs = append(rs, r)
	}
	assert.Equal(t, result{Input: "image/JPEG", Direction: "to-uri", Output: "ContentType:image/jpeg"}, rs[0])
	assert.Equal(t, "to-ct", rs[1].Direction)
	assert.Equal(t, "bad-mime-type", rs[1].Kind)
	assert.Empty(t, rs[1].Output)
	assert.Contains(t, rs[1].Error, "mapping: ")
	// Field names are part of the contract.
	assert.Contains(t, lines[0], `"input":`)
	assert.Contains(t, lines[0], `"direction":`)
	assert.Contains(t, lines[0], `"output":`)
	assert.Contains(t, lines[0], `"kind":""`)
	assert.Contains(t, lines[0], `"error":""`)
}

// JSON strings hold Unicode only: a value that is not UTF-8 shows as
// U+FFFD in input, fails, and is quoted exactly on standard error; the cut
// of an over-long value ends on a whole character.
func TestCLIJSONInvalidUTF8(t *testing.T) {
	out, errs, code := runCLI(t, "text/plain; a=\"\xff\"\n", "-json")
	assert.Equal(t, exitFailed, code)
	var r result
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	assert.Equal(t, result{Input: "text/plain; a=\"\uFFFD\"", Direction: "to-uri", Kind: "bad-utf8", Error: "mapping: invalid UTF-8 at offset 15"}, r)
	assert.Contains(t, errs, `"text/plain; a=\"\xff\""`)

	m, err := newMapper("auto", false, false)
	require.NoError(t, err)
	long := "text/plain; a=\"" + strings.Repeat("x", 48) + strings.Repeat("é", 10) // é straddles octet 64
	got := m.tooLong(long, false).Input
	assert.True(t, utf8.ValidString(got), "%q", got)
	assert.Equal(t, long[:63]+"...", got)
	// Octets that are not UTF-8 are cut at most three short of 64.
	assert.Equal(t, strings.Repeat("\x80", 61)+"...", m.tooLong(strings.Repeat("\x80", 100), false).Input)
}

// TestCLIJSONEscapesNonPrinting: encoding/json writes DEL, the C1
// controls (U+0080-U+009F: CSI to some terminals), the bidi controls and
// other characters that do not print as they are, and the input (or an
// output decoded from percent-escapes) may hold any of them: -json
// writes them as \u escapes, the same JSON strings, so that its lines
// cannot reorder or drive the terminal or log viewer that shows them.
// Printable characters stay as they are.
func TestCLIJSONEscapesNonPrinting(t *testing.T) {
	for _, tt := range []struct {
		value string
		args  []string
	}{
		{"text/plain; a=\"\u202e\x7f\u009b\u2066\u00ad\ufeff\"", nil},
		{`ContentType:text/plain?a="%E2%80%AE%E2%81%A9%F0%9D%85%B3"`, nil},
		{"ContentType:text/plain?a=\"\u202ez\u00fcrich\U0001D173\"", []string{"-to", "ct"}},
	} {
		out, _, _ := runCLI(t, "", append(append([]string{"-json"}, tt.args...), tt.value)...)
		line := strings.TrimSuffix(out, "\n")
		assert.True(t, printable.Is(line), "%q prints", line)
		var r result
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		assert.Equal(t, tt.value, r.Input, "the same string")
	}
	out, _, code := runCLI(t, "", "-json", `ContentType:text/plain?a="%E2%80%AEz%C3%BCrich"`)
	assert.Equal(t, exitOK, code)
	assert.Equal(t, `{"input":"ContentType:text/plain?a=\"%E2%80%AEz%C3%BCrich\"","direction":"to-ct","output":"text/plain; a=\"\u202ezürich\"","kind":"","error":""}`+"\n", out)
}

// TestHelpExamples runs the examples that -h shows and checks their output.
func TestHelpExamples(t *testing.T) {
	help, errs, code := runCLI(t, "", "-h")
	assert.Equal(t, exitOK, code)
	assert.Empty(t, errs)
	for _, want := range []string{"-to", "-strict-uri", "-lenient", "-json", "ERROR:<kind>",
		"Exit status: 0 if every value mapped, 1 if any failed or on an I/O error\n(cturi stops at the first error writing standard output)"} {
		assert.Contains(t, help, want)
	}
	re := regexp.MustCompile(`(?m)^  \$ cturi '([^']*)'\n  (.*)$`)
	examples := re.FindAllStringSubmatch(help, -1)
	require.Len(t, examples, 2, "two draft examples")
	for _, ex := range examples {
		out, _, code := runCLI(t, "", ex[1])
		assert.Equal(t, exitOK, code)
		assert.Equal(t, ex[2]+"\n", out, "the help shows the real output of %q", ex[1])
	}
}

func TestLongLine(t *testing.T) {
	long := "text/plain; a=\"" + strings.Repeat("x", maxLineSize) + "\"\nimage/png\n"
	out, errs, code := runCLI(t, long)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, "ERROR:syntax\nContentType:image/png\n", out, "the line after a long one is still mapped")
	assert.Contains(t, errs, "line 1:")
	assert.Contains(t, errs, "longer than")
}

// lowerLineLimit sets maxLineSize to 256 KiB for the test, after checking
// it is the 16 MiB -h promises: the limit's logic is the same at any size
// over the 64 KiB read buffer, and a 16 MiB value took the race detector
// 20 s over the two tests that use it.
func lowerLineLimit(t *testing.T) {
	require.Equal(t, 16<<20, maxLineSize)
	maxLineSize = 256 << 10
	t.Cleanup(func() { maxLineSize = 16 << 20 })
}

// TestLineSizeLimit: the limit applies to the value, not to its line
// ending: a value of exactly maxLineSize octets maps whatever ends its
// line, and one octet more is refused.
func TestLineSizeLimit(t *testing.T) {
	lowerLineLimit(t)
	uri := func(n int) string { return "http://x.test/" + strings.Repeat("a", n-len("http://x.test/")) }
	for _, tt := range []struct {
		name, stdin string
		mapped      bool
	}{
		{"at the limit, LF", uri(maxLineSize) + "\n", true},
		{"at the limit, CRLF", uri(maxLineSize) + "\r\n", true},
		{"at the limit, no line ending", uri(maxLineSize), true},
		{"one octet over, LF", uri(maxLineSize+1) + "\n", false},
		{"one octet over, CRLF", uri(maxLineSize+1) + "\r\n", false},
		{"one octet over, no line ending", uri(maxLineSize + 1), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := tt.stdin
			if strings.HasSuffix(stdin, "\n") {
				stdin += "image/png\n"
			}
			out, errs, code := runCLI(t, stdin)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if strings.HasSuffix(tt.stdin, "\n") {
				require.Len(t, lines, 2)
				assert.Equal(t, "ContentType:image/png", lines[1], "the line after it is mapped")
			} else {
				require.Len(t, lines, 1)
			}
			if tt.mapped {
				assert.True(t, strings.HasPrefix(lines[0], "application/uri.http%3A%2F%2Fx.test%2Faaa"), "first result %.60q", lines[0])
				assert.Equal(t, exitOK, code, "stderr: %.200s", errs)
			} else {
				assert.Equal(t, "ERROR:invalid-uri", lines[0])
				assert.Equal(t, exitFailed, code)
				assert.Contains(t, errs, "longer than")
			}
		})
	}
}

// TestAnswersEachLineAtOnce feeds the command one line at a time through a
// pipe, as a coprocess would, and waits for each answer before sending the
// next line: buffered output must not hold an answer back until EOF.
func TestAnswersEachLineAtOnce(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(nil, inR, outW, io.Discard)
		outW.Close()
		done <- code
	}()
	answers := bufio.NewReader(outR)
	for _, c := range []struct{ in, want string }{
		{"image/JPEG\n", "ContentType:image/jpeg\n"},
		{"http://example.com/tag42\r\n", "application/uri.http%3A%2F%2Fexample.com%2Ftag42\n"},
		{"text\n", "ERROR:syntax\n"},
	} {
		_, err := io.WriteString(inW, c.in)
		require.NoError(t, err)
		got := make(chan string, 1)
		go func() {
			line, _ := answers.ReadString('\n')
			got <- line
		}()
		select {
		case line := <-got:
			assert.Equal(t, c.want, line)
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %q while the input stays open", c.in)
		}
	}
	require.NoError(t, inW.Close())
	_, err := io.ReadAll(answers)
	require.NoError(t, err)
	assert.Equal(t, exitFailed, <-done)
}

// lineSource generates n lines of input without holding them in memory.
type lineSource struct {
	n, i int
	buf  []byte
}

func (s *lineSource) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.i < s.n {
		if s.i%2 == 0 {
			s.buf = fmt.Appendf(s.buf, "text/plain; n=\"%d\"\n", s.i)
		} else {
			s.buf = fmt.Appendf(s.buf, "http://example.com/%d\r\n", s.i)
		}
		s.i++
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// heapSampler counts output lines and samples the heap every 100 000.
type heapSampler struct {
	lines      int
	minH, maxH uint64
}

func (w *heapSampler) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			w.lines++
			if w.lines%100_000 == 0 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if w.minH == 0 || ms.HeapInuse < w.minH {
					w.minH = ms.HeapInuse
				}
				w.maxH = max(w.maxH, ms.HeapInuse)
			}
		}
	}
	return len(p), nil
}

// TestStreamMillionLines: a million lines go through one run with memory
// that does not grow with the input.
func TestStreamMillionLines(t *testing.T) {
	n := 1_000_000
	w := &heapSampler{}
	var errs bytes.Buffer
	code := run(nil, bufio.NewReader(&lineSource{n: n}), w, &errs)
	assert.Equal(t, exitOK, code, errs.String())
	assert.Equal(t, n, w.lines)
	t.Logf("heap in use between %d and %d bytes", w.minH, w.maxH)
	assert.Less(t, w.maxH-w.minH, uint64(4<<20), "heap grew with the input")
}

// longFirstLine generates a first line of n octets (x's, then LF), then
// lines of "text/plain" for ever, without holding them.
type longFirstLine struct {
	n   int // octets of the first line still to send, its LF included
	cur strings.Reader
}

func (s *longFirstLine) Read(p []byte) (int, error) {
	if s.cur.Len() == 0 {
		switch {
		case s.n > 1:
			k := min(s.n-1, 32<<10)
			s.cur.Reset(strings.Repeat("x", k))
			s.n -= k
		case s.n == 1:
			s.cur.Reset("\n")
			s.n = 0
		default:
			s.cur.Reset(strings.Repeat("text/plain\n", 100))
		}
	}
	return s.cur.Read(p)
}

// TestLongLineBufferNotKept: the buffer a line longer than the read
// buffer is gathered in is not kept for the lines after it. It was kept
// for the rest of the run: a run fed one 8 MiB line among short ones,
// such as a program that feeds cturi a line at a time and waits for each
// answer, held 10 MiB from then on, and 16 MiB after a line over
// maxLineSize. The heap is measured after a GC at the 1000th line after a
// first line of 8 MiB and after one of 10 octets: the two must differ by
// less than 1 MiB.
func TestLongLineBufferNotKept(t *testing.T) {
	held := func(first int) int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		var at int64
		stop := errors.New("stop")
		err := eachLine(&longFirstLine{n: first}, func() error { return nil }, func(n int, line string, tooLong, uri bool) error {
			if n == 1 {
				require.Len(t, line, first-1)
				return nil
			}
			require.Equal(t, "text/plain", line)
			if n < 1000 {
				return nil
			}
			runtime.GC()
			runtime.ReadMemStats(&ms)
			at = int64(ms.HeapAlloc) - int64(base)
			return stop
		})
		require.ErrorIs(t, err, stop)
		return at
	}
	short, long := held(10), held(8<<20)
	t.Logf("at line 1000: heap %d KiB after a first line of 10 octets, %d KiB after one of 8 MiB", short>>10, long>>10)
	assert.Less(t, long-short, int64(1<<20))
}

// failingWriter fails every write, as standard output on a full disk does,
// or only its first failures writes if that is not 0, and records what it
// was asked to write.
type failingWriter struct {
	failures int
	writes   int
	tried    []string
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.tried = append(w.tried, string(p))
	if w.failures > 0 && w.writes > w.failures {
		return len(p), nil
	}
	return 0, errors.New("no space left on device")
}

// TestStopsWhenOutputFails: once standard output fails, cturi stops
// reading, reports the error and exits 1, rather than mapping the rest of
// an input that may never end.
func TestStopsWhenOutputFails(t *testing.T) {
	const n = 200_000
	for _, tt := range []struct {
		name string
		args []string
		in   *lineSource
	}{
		{"plain", nil, &lineSource{n: n}},
		{"json", []string{"-json"}, &lineSource{n: n}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := &failingWriter{}
			var errs bytes.Buffer
			code := run(tt.args, tt.in, out, &errs)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, 1, out.writes, "nothing is written after the first failure")
			assert.Less(t, tt.in.i, n/10, "lines read after the output failed")
			assert.Equal(t, "cturi: writing standard output: no space left on device\n", errs.String())
		})
	}
}

// TestMessagesInOrder: with standard output and standard error on one
// file (2>&1), each failure's message comes just before its ERROR line,
// after the answers to the values before it.
func TestMessagesInOrder(t *testing.T) {
	for _, tt := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"stdin", "image/png\ntext\nimage/gif\nx/\n", nil,
			"ContentType:image/png\n" +
				"cturi: line 2: \"text\": mapping: expected '/' after the type at offset 4, found the end\n" +
				"ERROR:syntax\n" +
				"ContentType:image/gif\n" +
				"cturi: line 4: \"x/\": mapping: expected a subtype after '/' at offset 2, found the end\n" +
				"ERROR:syntax\n"},
		{"arguments", "", []string{"image/png", "text"},
			"ContentType:image/png\n" +
				"cturi: \"text\": mapping: expected '/' after the type at offset 4, found the end\n" +
				"ERROR:syntax\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var both bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &both, &both)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, tt.want, both.String())
		})
	}
}

// conversation gives one line, then records any further read: a program
// that waits for each answer before it writes the next line.
type conversation struct{ reads int }

func (c *conversation) Read(p []byte) (int, error) {
	c.reads++
	if c.reads == 1 {
		return copy(p, "image/png\n"), nil
	}
	return 0, io.EOF
}

// TestStopsWhenFlushBeforeWaitingFails: when the answers so far cannot be
// written before cturi would wait for more input, it stops there, rather
// than wait for a line its writer may be holding back until it has that
// answer.
func TestStopsWhenFlushBeforeWaitingFails(t *testing.T) {
	in := &conversation{}
	out := &failingWriter{}
	var errs bytes.Buffer
	code := run(nil, in, out, &errs)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, 1, in.reads, "read on after the output failed")
	assert.Equal(t, 1, out.writes, "nothing is written after the first failure")
	assert.Equal(t, "cturi: writing standard output: no space left on device\n", errs.String())
}

// errAfter gives data, then fails with err: a standard input that breaks.
type errAfter struct {
	data string
	err  error
}

func (r *errAfter) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadErrorFails: an error reading standard input is reported and
// makes the exit status 1, after the answers to the lines before it; a
// line cut short by the error is not mapped.
func TestReadErrorFails(t *testing.T) {
	for _, tt := range []struct {
		name, data, out string
		args            []string
	}{
		{"after a whole line", "image/png\n", "ContentType:image/png\n", nil},
		{"in the middle of a line", "image/png\nimage/g", "ContentType:image/png\n", nil},
		{"at once", "", "", nil},
		{"json", "image/png\n", `{"input":"image/png","direction":"to-uri","output":"ContentType:image/png","kind":"","error":""}` + "\n", []string{"-json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(tt.args, &errAfter{data: tt.data, err: errors.New("input/output error")}, &out, &errs)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, tt.out, out.String())
			assert.Equal(t, "cturi: reading standard input: input/output error\n", errs.String())

			// On one file, the message follows the answers before it.
			var both bytes.Buffer
			code = run(tt.args, &errAfter{data: tt.data, err: errors.New("input/output error")}, &both, &both)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, tt.out+"cturi: reading standard input: input/output error\n", both.String())
		})
	}
}

// TestOutputFailsWithArguments: with values as arguments, whose answers
// go out at the end, an error writing standard output is reported after
// the messages and makes the exit status 1; nothing is written after it.
func TestOutputFailsWithArguments(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"plain", []string{"text", "x/", "image/png"}},
		{"json", []string{"-json", "text", "x/", "image/png"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := &failingWriter{}
			var errs bytes.Buffer
			code := run(tt.args, strings.NewReader(""), out, &errs)
			assert.Equal(t, exitFailed, code)
			assert.Equal(t, 1, out.writes, "nothing is written after the first failure")
			assert.Equal(t, "cturi: \"text\": mapping: expected '/' after the type at offset 4, found the end\n"+
				"cturi: \"x/\": mapping: expected a subtype after '/' at offset 2, found the end\n"+
				"cturi: writing standard output: no space left on device\n", errs.String())
		})
	}
}

// TestOutputFailsWithManyArguments: when the answers to the arguments fill
// the output buffer and the write fails, cturi stops there: it maps no
// further argument, so a value after that point gets no message.
func TestOutputFailsWithManyArguments(t *testing.T) {
	args := make([]string, 0, 4001)
	for range 4000 { // 4000 x 22 octets of answer: more than the 64 KiB buffer
		args = append(args, "image/png")
	}
	args = append(args, "text")
	out := &failingWriter{}
	var errs bytes.Buffer
	code := run(args, strings.NewReader(""), out, &errs)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, 1, out.writes, "nothing is written after the first failure")
	assert.Equal(t, "cturi: writing standard output: no space left on device\n", errs.String(),
		"the last argument, after the failure, was mapped")
}

// TestOutputFailsOnOneFile: with standard output and standard error on one
// file (2>&1), the answers before a failed value go out just before its
// message; when that write fails, cturi stops: the values after it are not
// mapped and get no message. The file fails only that one write, so a
// message written later would show.
func TestOutputFailsOnOneFile(t *testing.T) {
	both := &failingWriter{failures: 1}
	code := run([]string{"image/png", "text", "x/", "image/gif"}, strings.NewReader(""), both, both)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, []string{
		"ContentType:image/png\n",
		"cturi: \"text\": mapping: expected '/' after the type at offset 4, found the end\n",
		"cturi: writing standard output: no space left on device\n",
	}, both.tried)
}

// countingWriter records its writes.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestMessagesBufferedApart: with standard output and standard error on
// different files, messages are buffered like the answers, so that a
// failing value costs no write of its own; both streams keep their order.
func TestMessagesBufferedApart(t *testing.T) {
	const n = 2000
	var in, wantOut, wantErrs strings.Builder
	for i := 1; i <= n; i++ {
		if i%2 == 0 {
			in.WriteString("image/PNG\n")
			wantOut.WriteString("ContentType:image/png\n")
			continue
		}
		fmt.Fprintf(&in, "x%d\n", i)
		wantOut.WriteString("ERROR:syntax\n")
		fmt.Fprintf(&wantErrs, "cturi: line %d: \"x%d\": mapping: expected '/' after the type at offset %d, found the end\n", i, i, len(strconv.Itoa(i))+1)
	}
	var out, errs countingWriter
	code := run(nil, strings.NewReader(in.String()), &out, &errs)
	assert.Equal(t, exitFailed, code)
	assert.Equal(t, wantOut.String(), out.String())
	assert.Equal(t, wantErrs.String(), errs.String())
	assert.LessOrEqual(t, out.writes, out.Len()/(64<<10)+1, "standard output written in 64 KiB blocks")
	assert.LessOrEqual(t, errs.writes, errs.Len()/(16<<10)+1, "messages written in 16 KiB blocks")
}

// sliceWriter is a writer whose values cannot be compared.
type sliceWriter []byte

func (w sliceWriter) Write(p []byte) (int, error) { return len(p), nil }

// wrapWriter is a comparable type that may hold such a writer: comparing
// two of them panics.
type wrapWriter struct{ io.Writer }

// TestSameDestination: the streams count as one file when they are one
// writer or one file, however it was opened, so that 2>&1 and a terminal
// keep each message before its ERROR line.
func TestSameDestination(t *testing.T) {
	r1, w1, err := os.Pipe()
	require.NoError(t, err)
	defer r1.Close()
	defer w1.Close()
	r2, w2, err := os.Pipe()
	require.NoError(t, err)
	defer r2.Close()
	defer w2.Close()
	name := filepath.Join(t.TempDir(), "log")
	f1, err := os.Create(name)
	require.NoError(t, err)
	defer f1.Close()
	f2, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f2.Close()
	other, err := os.Create(name + "2")
	require.NoError(t, err)
	defer other.Close()
	closed, err := os.Create(name + "3")
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	null1, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null1.Close()
	null2, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null2.Close()
	zero, err := os.OpenFile("/dev/zero", os.O_WRONLY, 0)
	require.NoError(t, err)
	defer zero.Close()
	var b1, b2 bytes.Buffer
	for _, tt := range []struct {
		name           string
		stdout, stderr io.Writer
		same           bool
	}{
		{"one pipe (2>&1)", w1, w1, true},
		{"two pipes", w1, w2, false},
		{"one file opened twice", f1, f2, true},
		{"two files", f1, other, false},
		{"a file and a pipe", f1, w1, false},
		{"a file that cannot be examined", closed, w1, true},
		{"one buffer", &b1, &b1, true},
		{"two buffers", &b1, &b2, false},
		{"a file and a buffer", f1, &b1, false},
		{"io.Discard twice", io.Discard, io.Discard, true},
		{"/dev/null opened twice", null1, null2, true},
		// A terminal is a character device reached by more than one name
		// (/dev/tty, /dev/pts/N), as /dev/null and /dev/zero are two.
		{"two character devices", null1, zero, true},
		{"a character device and a file", null1, f1, false},
		{"writers that cannot be compared", wrapWriter{sliceWriter(nil)}, wrapWriter{sliceWriter(nil)}, true},
		{"a writer that cannot be compared and another", wrapWriter{sliceWriter(nil)}, &b1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.same, sameDestination(tt.stdout, tt.stderr))
		})
	}
}

// TestCLIJSONLongLine: a value over the line limit is reported in JSON
// with its direction under -to auto, the kind that direction gives, its
// first 64 bytes followed by "...", no output, and the message.
func TestCLIJSONLongLine(t *testing.T) {
	lowerLineLimit(t)
	for _, tt := range []struct {
		name, value, direction, kind string
	}{
		{"a URI", "http://x.test/" + strings.Repeat("a", maxLineSize), "to-ct", "invalid-uri"},
		{"a Content-Type", "text/plain; a=\"" + strings.Repeat("x", maxLineSize) + "\"", "to-uri", "syntax"},
		// R0.17 looks past the limit when the value's start does not decide.
		{"a URI whose scheme runs past the limit", strings.Repeat("a", maxLineSize+1) + ":x", "to-ct", "invalid-uri"},
		{"a URI after white space past the limit", strings.Repeat(" ", maxLineSize+1) + "http://x.test/", "to-ct", "invalid-uri"},
		{"a Content-Type after white space past the limit", strings.Repeat(" ", maxLineSize+1) + "text/plain", "to-uri", "syntax"},
		{"a Content-Type whose type runs past the limit", strings.Repeat("a", maxLineSize+1) + "/b", "to-uri", "syntax"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tt.value+"\nimage/png\n", "-json")
			assert.Equal(t, exitFailed, code)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, lines, 2)
			var r result
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &r))
			assert.Equal(t, result{
				Input:     tt.value[:64] + "...",
				Direction: tt.direction,
				Kind:      tt.kind,
				Error:     fmt.Sprintf("value longer than %d bytes, not mapped", maxLineSize),
			}, r)
			assert.Contains(t, lines[0], `"output":""`)
			assert.Equal(t, `{"input":"image/png","direction":"to-uri","output":"ContentType:image/png","kind":"","error":""}`, lines[1])
			assert.Contains(t, errs, "line 1: ")
		})
	}
}

// TestCLIJSONVerbatim: JSON output keeps '<', '>' and '&' as they are
// (no \u003c escapes), so that it reads, and greps, like the plain output.
func TestCLIJSONVerbatim(t *testing.T) {
	for _, tt := range []struct {
		value, want string
	}{
		{`text/plain; a="<&>"`, `{"input":"text/plain; a=\"<&>\"","direction":"to-uri","output":"ContentType:text/plain?a=\"%3C%26%3E\"","kind":"","error":""}`},
		{"mailto:a@b?x=1&y=2", `{"input":"mailto:a@b?x=1&y=2","direction":"to-ct","output":"application/uri.mailto%3Aa%40b; x=\"1\"; y=\"2\"","kind":"","error":""}`},
	} {
		out, errs, code := runCLI(t, "", "-json", tt.value)
		assert.Equal(t, exitOK, code, errs)
		assert.Equal(t, tt.want+"\n", out)
	}
}

// TestURIStartIsDetect: uriStart, which decides the direction of a value
// too long to hold, agrees with mapping.Detect on every short value over
// an alphabet of the octets that matter, read whole or an octet at a time.
func TestURIStartIsDetect(t *testing.T) {
	const alphabet = " \tazAZ09+-.:/;\r\n\x80%"
	var walk func(v []byte)
	walk = func(v []byte) {
		want := mapping.Detect(string(v)) == mapping.DirectionToContentType
		assert.Equal(t, want, startWSP.next(v) == startURI, "%q", v)
		s := startWSP
		for i := range v {
			s = s.next(v[i : i+1])
		}
		assert.Equal(t, want, s == startURI, "%q an octet at a time", v)
		if len(v) < 4 {
			for i := range len(alphabet) {
				walk(append(v, alphabet[i]))
			}
		}
	}
	walk(nil)
}
