package servertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// curlLine matches a curl command in an example's banner or log: on a line
// of its own (indented or not), or after "try: " on a log line.
var curlLine = regexp.MustCompile(`(?m)^(?:[ \t]*|.*[Tt]ry: )(curl .*?)[ \t\r]*$`)

// CurlCommands returns the curl command lines that text, what an example
// printed, tells its user to try, in order.
func CurlCommands(text string) []string {
	var cmds []string
	for _, m := range curlLine.FindAllStringSubmatch(text, -1) {
		cmds = append(cmds, m[1])
	}
	return cmds
}

// StartBanner starts run as Start does, with the server stopped when the
// test ends, and returns its URL and the banner it printed, which ends with
// the line "Stop it with Ctrl-C." (the examples' last line before they
// serve), for CurlCommands.
func StartBanner(t testing.TB, run func(ctx context.Context, stdout io.Writer) error) (base, banner string) {
	t.Helper()
	var out SyncBuffer
	base, _ = Start(t, func(ctx context.Context, stdout io.Writer) error {
		// The banner goes to stdout too: Start reads the URL from its
		// first line.
		return run(ctx, io.MultiWriter(&out, stdout))
	}) // stopped when the test ends
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Stop it with Ctrl-C.") }, 5*time.Second, 10*time.Millisecond)
	return base, out.String()
}

// ShellWords splits line into words as a POSIX shell splits a simple
// command whose only quoting is single quotes. A character that a shell
// would read as something other than a word's text when unquoted (a
// glob, a redirection, a variable, another kind of quote, a comment...)
// is an error: a printed command holding one would not do in a user's
// shell what the test runs.
func ShellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote at offset %d", i)
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.IndexByte("\"\\$`;&|<>()*?[]{}#~!\r\n", c) >= 0:
			return nil, fmt.Errorf("%q at offset %d is not quoted: a shell would not read it as text", c, i)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// CurlRun is what a curl command wrote to its standard output, and when.
type CurlRun struct {
	Out    []byte
	start  time.Time
	writes []timedWrite
}

type timedWrite struct {
	end int // offset in Out just past the write
	at  time.Duration
}

// Write records p and the time it came, since the command started.
func (r *CurlRun) Write(p []byte) (int, error) {
	r.Out = append(r.Out, p...)
	r.writes = append(r.writes, timedWrite{len(r.Out), time.Since(r.start)})
	return len(p), nil
}

// Curl runs the command line, an example's curl command as printed, with
// the curl program in dir, within 30 seconds, and requires it to exit 0.
// Without curl, the test is skipped (failed under CI), as Command does.
func Curl(t testing.TB, dir, line string) *CurlRun {
	t.Helper()
	curl := Command(t, "curl")
	args, err := ShellWords(line)
	require.NoError(t, err, "%s", line)
	require.Equal(t, "curl", args[0], "%s", line)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, curl, args[1:]...)
	cmd.Dir = dir
	// What is tested is the command as printed, not the tester's curl
	// setup: no ~/.curlrc, and no proxy between curl and 127.0.0.1.
	home := t.TempDir()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasSuffix(strings.ToLower(name), "_proxy") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+home, "CURL_HOME="+home, "XDG_CONFIG_HOME="+home)
	run := &CurlRun{start: time.Now()}
	cmd.Stdout = run
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "%s\n%s", line, &stderr)
	return run
}

// At returns when the first occurrence of s in the output had arrived
// whole, since the command started.
func (r *CurlRun) At(t testing.TB, s string) time.Duration {
	t.Helper()
	i := bytes.Index(r.Out, []byte(s))
	require.GreaterOrEqual(t, i, 0, "%q not in %s", s, r.Out)
	for _, w := range r.writes {
		if w.end >= i+len(s) {
			return w.at
		}
	}
	panic("unreachable: the writes hold all of Out")
}

// Response reads the output of curl -i: the status code, the header
// fields and the body.
func (r *CurlRun) Response(t testing.TB) (code int, header http.Header, body string) {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(r.Out))
	tp := textproto.NewReader(br)
	status, err := tp.ReadLine()
	require.NoError(t, err)
	proto, rest, _ := strings.Cut(status, " ")
	require.Equal(t, "HTTP/1.1", proto, "%s", r.Out)
	code, err = strconv.Atoi(rest[:min(3, len(rest))])
	require.NoError(t, err, "%s", r.Out)
	h, err := tp.ReadMIMEHeader()
	require.NoError(t, err, "%s", r.Out)
	b, _ := io.ReadAll(br)
	return code, http.Header(h), string(b)
}

// AssertJSON asserts that body is a JSON document that holds, at each
// path of want (object members' names joined by dots), the value want
// gives there, compared as JSON (2 is 2.0; a path that is not there is
// null).
func AssertJSON(t testing.TB, body string, want map[string]any) {
	t.Helper()
	var doc any
	require.NoError(t, json.Unmarshal([]byte(body), &doc), "%s", body)
	for path, w := range want {
		v := doc
		for name := range strings.SplitSeq(path, ".") {
			m, _ := v.(map[string]any)
			v = m[name]
		}
		wantJSON, err := json.Marshal(w)
		require.NoError(t, err)
		got, err := json.Marshal(v)
		require.NoError(t, err)
		assert.JSONEq(t, string(wantJSON), string(got), "%s in %s", path, body)
	}
}
