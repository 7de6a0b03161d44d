package servertest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShellWords: words as a POSIX shell splits them, single quotes
// taken off; what a shell would not read as a word's text when unquoted
// is refused, since the examples' tests run the words, not a shell.
func TestShellWords(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`curl -i http://127.0.0.1:1/xmlenc`, []string{"curl", "-i", "http://127.0.0.1:1/xmlenc"}},
		{"curl \t -N  x \t", []string{"curl", "-N", "x"}},
		{`curl 'http://h/api/map?label=http://www.w3.org/2000/09/xmldsig%23'`, []string{"curl", "http://h/api/map?label=http://www.w3.org/2000/09/xmldsig%23"}},
		{`curl -H 'Content-Type: text/plain; charset=utf-8' -d '{}'`, []string{"curl", "-H", "Content-Type: text/plain; charset=utf-8", "-d", "{}"}},
		{`curl a'b c'd ''`, []string{"curl", "ab cd", ""}},
		{`curl '$HOME \ "x" * # ~'`, []string{"curl", `$HOME \ "x" * # ~`}},
	} {
		got, err := ShellWords(tt.line)
		require.NoError(t, err, "%q", tt.line)
		assert.Equal(t, tt.want, got, "%q", tt.line)
	}
	for _, line := range []string{
		`curl 'open`, `curl $HOME`, `curl "x"`, `curl a\ b`, "curl `id`", `curl a; id`, `curl a && b`,
		`curl a | sh`, `curl a > f`, `curl -d @- < f`, `curl (a)`, `curl *`, `curl a?b`, `curl [a]`,
		`curl {a,b}`, `curl a # b`, `curl ~/x`, `curl !!`, "curl a\r", "curl a\nid",
	} {
		_, err := ShellWords(line)
		assert.Error(t, err, "%q", line)
	}
}

// TestCurlCommands: the commands on lines of their own, indented or not,
// and after "try: " on a log line, in order, without trailing white
// space; curl named in prose is not one.
func TestCurlCommands(t *testing.T) {
	text := "http://127.0.0.1:1\r\n\r\nOpen it, or try:\r\n  curl -i http://127.0.0.1:1/a  \r\n" +
		"curl 'http://127.0.0.1:1/b'\n\tcurl -N x\n" +
		"2026/01/02 03:04:05 gateway: try: curl smtp://127.0.0.1:2/localhost -T f\n" +
		"Try: curl -i http://127.0.0.1:3/\nthe curl commands above; curly\n"
	assert.Equal(t, []string{
		"curl -i http://127.0.0.1:1/a", "curl 'http://127.0.0.1:1/b'", "curl -N x",
		"curl smtp://127.0.0.1:2/localhost -T f", "curl -i http://127.0.0.1:3/",
	}, CurlCommands(text))
}
