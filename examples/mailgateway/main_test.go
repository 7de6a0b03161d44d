package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

const (
	msg       = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n"
	rewritten = "Subject: x\r\nContent-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n\r\nhi\r\n"
)

// receivedField matches a Received field as the gateway writes it, for a
// message that go-smtp's client sends to b@example.net on 127.0.0.1.
var receivedField = regexp.MustCompile(`^Received: from localhost \(\[127\.0\.0\.1\]\) by localhost with ESMTP\r\n` +
	`\tfor <b@example\.net>; (?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}\r\n`)

// returnPath is the first line of a message the gateway writes into -dir
// from a@example.com.
const returnPath = "Return-Path: <a@example.com>\r\n"

// untraced returns msg without the Received fields at its top, and how
// many there were.
func untraced(msg string) (string, int) {
	n := 0
	for {
		m := receivedField.FindString(msg)
		if m == "" {
			return msg, n
		}
		msg, n = msg[len(m):], n+1
	}
}

// binDir holds the command, built once for the package's tests by
// built; TestMain removes it.
var binDir string

var built = sync.OnceValues(func() (string, error) {
	// Under GOTMPDIR when it is set, as t.TempDir and the go command's
	// own binaries are: a TMPDIR mounted noexec is why a user sets it.
	dir, err := os.MkdirTemp(os.Getenv("GOTMPDIR"), "mailgateway-test-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "mailgateway")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return bin, nil
})

// TestMain removes the built command, and fails the tests when a
// goroutine that one of them started is still running after the last.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
		os.Exit(code)
	}))
}

// needsCommand skips t under -short: it builds and runs the command.
func needsCommand(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
}

// gateway starts the command (built once for all the tests) with args on
// a free port of 127.0.0.1; it returns the address it listens on, the
// command it says to try, and what it writes to standard output.
func gateway(t *testing.T, args ...string) (addr, try string, stdout *servertest.SyncBuffer) {
	t.Helper()
	_, addr, try, stdout, _ = startGateway(t, args...)
	return addr, try, stdout
}

// listeningLine is the gateway's log line that says where it listens.
var listeningLine = regexp.MustCompile(`listening on (\S+)`)

// startGateway is gateway that also returns the running command and what
// it logs (standard error).
func startGateway(t *testing.T, args ...string) (cmd *exec.Cmd, addr, try string, stdout, logs *servertest.SyncBuffer) {
	t.Helper()
	bin, err := built()
	require.NoError(t, err)

	cmd = exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdout = &servertest.SyncBuffer{}
	cmd.Stdout = stdout
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// It says where it listens, then what to try.
	found := make(chan [2]string, 1)
	logs = &servertest.SyncBuffer{}
	go func() {
		var addr string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(logs, sc.Text())
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				addr = m[1]
			} else if _, try, ok := strings.Cut(sc.Text(), "try: "); ok && addr != "" {
				found <- [2]string{addr, try}
			}
		}
	}()
	select {
	case got := <-found:
		addr, try = got[0], got[1]
	case <-time.After(30 * time.Second):
		t.Fatal("the gateway did not say where it listens and what to try")
	}
	return cmd, addr, try, stdout, logs
}

// waitLogged waits for the gateway to log want: its log reaches the test
// through a pipe.
func waitLogged(t *testing.T, logs *servertest.SyncBuffer, want string) {
	t.Helper()
	assert.Eventually(t, func() bool { return strings.Contains(logs.String(), want) }, 10*time.Second, 10*time.Millisecond, "%q not in %s", want, logs)
}

func send(t *testing.T, addr string) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	return c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
}

// TestGateway: the command delivers each rewritten message, after a
// Received field of its own, to the next hop given by -next, else into
// the folder given by -dir, else to standard output, and refuses one over
// -max-message-bytes with 552.
func TestGateway(t *testing.T) {
	needsCommand(t)
	var hopGot servertest.SyncBuffer
	hop := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		s := smtp.NewServer(&relay.Backend{Options: mailhdr.Options{To: mailhdr.ToURI}, Deliver: relay.WriterDeliver(&hopGot)})
		s.Domain = "localhost"
		go s.Serve(l)
		t.Cleanup(func() { s.Close() })
		return l.Addr().String()
	}
	// readDir returns the one file in dir without its Return-Path field,
	// which must be there: the folder is the final delivery.
	readDir := func(dir string) string {
		files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
		if len(files) != 1 {
			return ""
		}
		b, _ := os.ReadFile(files[0])
		if rest, ok := strings.CutPrefix(string(b), returnPath); ok {
			return rest
		}
		return "no Return-Path: " + string(b)
	}
	header := "=== message from <a@example.com> to [\"b@example.net\"]\n"
	tests := []struct {
		name      string
		args      func(t *testing.T, dir string) []string
		code      int // 0: accepted
		delivered func(stdout, dir string) string
		hops      int // Received fields on the message delivered
	}{
		{"to standard output", func(*testing.T, string) []string { return nil }, 0,
			func(stdout, _ string) string { return stdout }, 1},
		{"into -dir", func(_ *testing.T, dir string) []string { return []string{"-dir", dir} }, 0,
			func(_, dir string) string { return header + readDir(dir) }, 1},
		// As docs/mail.md shows it: -dir /tmp/mail, a folder that need not
		// exist yet.
		{"into a new -dir", func(_ *testing.T, dir string) []string { return []string{"-dir", filepath.Join(dir, "new", "mail")} }, 0,
			func(_, dir string) string { return header + readDir(filepath.Join(dir, "new", "mail")) }, 1},
		// The gateway's Received field, then the hop's.
		{"to -next", func(t *testing.T, dir string) []string { return []string{"-next", hop(t)} }, 0,
			func(string, string) string { return hopGot.String() }, 2},
		// (Into a folder: to standard output, a message refused for its
		// size is already in part written when the limit is reached.)
		{"over -max-message-bytes", func(_ *testing.T, dir string) []string { return []string{"-max-message-bytes", "16", "-dir", dir} }, 552,
			func(_, dir string) string { return readDir(dir) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			addr, _, stdout := gateway(t, tt.args(t, dir)...)
			err := send(t, addr)
			if tt.code != 0 {
				var se *smtp.SMTPError
				require.True(t, errors.As(err, &se), "%v", err)
				assert.Equal(t, tt.code, se.Code)
				assert.Empty(t, tt.delivered(stdout.String(), dir))
				return
			}
			require.NoError(t, err)
			// Standard output reaches the test through a pipe.
			assert.Eventually(t, func() bool {
				got := tt.delivered(stdout.String(), dir)
				rest, hops := untraced(strings.TrimPrefix(got, header))
				return strings.HasPrefix(got, header) && rest == rewritten && hops == tt.hops
			}, 10*time.Second, 10*time.Millisecond, "delivered %q", tt.delivered(stdout.String(), dir))
			if !strings.HasPrefix(tt.name, "into ") {
				assert.Empty(t, readDir(dir), "written into -dir as well")
			}
			if tt.name != "to standard output" {
				assert.Empty(t, stdout.String(), "written to standard output as well")
			}
		})
	}
}
