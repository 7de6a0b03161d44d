//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClosedPipe: when the reader of standard output goes away (cturi |
// head -1), cturi ends by SIGPIPE, as -h and the README say, not with an
// exit status of its own.
func TestClosedPipe(t *testing.T) {
	for _, args := range []string{"cturi", "cturi mail"} {
		t.Run(args, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "CTURI_TEST_MAIN="+args)
			input := strings.Repeat("text/plain\n", 1<<18) // far more output than a pipe holds
			if args == "cturi mail" {
				input = "Content-Type: text/plain\n\n" + input
			}
			cmd.Stdin = strings.NewReader(input)
			r, w, err := os.Pipe()
			require.NoError(t, err)
			cmd.Stdout = w
			require.NoError(t, cmd.Start())
			w.Close()
			_, err = bufio.NewReader(r).ReadString('\n')
			require.NoError(t, err)
			r.Close()
			err = cmd.Wait()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "%v", err)
			ws := exit.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGPIPE, "%v", err)
		})
	}
}
