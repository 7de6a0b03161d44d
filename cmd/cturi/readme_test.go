package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMETranscript runs the shell transcript of the README's CLI
// section, so that the output it shows stays the real output: every
// "$ cturi ..." line is run (arguments in single quotes, "< FILE" relative
// to the repository's root, "2>&1" to show both streams in the order they
// are written) and "$ echo $?" prints the previous exit status. A command
// without 2>&1 must write nothing to standard error.
func TestREADMETranscript(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	section := between(t, string(readme), "<!-- BEGIN cli -->", "<!-- END cli -->")
	var commands int
	for _, block := range strings.Split(section, "```")[1:] {
		if !strings.HasPrefix(block, "\n$ ") {
			continue // the usage line, or text between blocks
		}
		status := -1
		// Each step is a command line and the lines it prints, up to the
		// next command line or the end of the block.
		for _, step := range strings.SplitAfter(block, "\n$ ")[1:] {
			cmd, want, _ := strings.Cut(strings.TrimSuffix(step, "$ "), "\n")
			// A blank line sets the next command apart; cturi never
			// prints one (every value gives a non-empty line).
			if want = strings.TrimRight(want, "\n"); want != "" {
				want += "\n"
			}
			if cmd == "echo $?" {
				require.GreaterOrEqual(t, status, 0, "echo $? before any command")
				assert.Equal(t, want, strconv.Itoa(status)+"\n", "the README shows the real exit status of the command before")
				continue
			}
			commands++
			status = runTranscriptLine(t, root, cmd, want)
		}
	}
	assert.Equal(t, 2, commands, "the README's CLI section shows two commands")
}

// runTranscriptLine runs one "cturi ..." command line of the transcript,
// checks that it prints want, and returns its exit status.
func runTranscriptLine(t *testing.T, root, cmd, want string) int {
	t.Helper()
	words := shellWords(t, cmd)
	require.Equal(t, "cturi", words[0], "%q", cmd)
	var stdin io.Reader = strings.NewReader("")
	var out, errs bytes.Buffer
	stderr := io.Writer(&errs)
	var args []string
	for i := 1; i < len(words); i++ {
		switch words[i] {
		case "<":
			require.Less(t, i+1, len(words), "%q: < without a file", cmd)
			i++
			f, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(words[i])))
			require.NoError(t, err)
			stdin = bytes.NewReader(f)
		case "2>&1":
			stderr = &out
		default:
			args = append(args, words[i])
		}
	}
	code := run(args, stdin, &out, stderr)
	assert.Equal(t, want, out.String(), "the README shows the real output of %q", cmd)
	assert.Empty(t, errs.String(), "%q writes to standard error, which the README does not show", cmd)
	return code
}

// shellWords splits a command line into words as sh does for the subset
// the README uses: blanks separate words, and single quotes quote.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, c := range line {
		switch {
		case c == '\'':
			quoted, inWord = !quoted, true
		case c == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	require.False(t, quoted, "unterminated quote in %q", line)
	if inWord {
		words = append(words, w.String())
	}
	return words
}

func between(t *testing.T, s, begin, end string) string {
	t.Helper()
	_, after, ok := strings.Cut(s, begin)
	require.True(t, ok, "no %q", begin)
	inner, _, ok := strings.Cut(after, end)
	require.True(t, ok, "no %q", end)
	return inner
}
