package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	dir, err := os.MkdirTemp("", "mailgateway-test-")
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

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// gateway starts the command (built once for all the tests) with args on
// a free port of 127.0.0.1; it returns the address it listens on, the
// command it says to try, and what it writes to standard output.
func gateway(t *testing.T, args ...string) (addr, try string, stdout *servertest.SyncBuffer) {
	t.Helper()
	_, addr, try, stdout, _ = startGateway(t, args...)
	return addr, try, stdout
}

// startGateway is gateway that also returns the running command and what
// it logs (standard error).
func startGateway(t *testing.T, args ...string) (cmd *exec.Cmd, addr, try string, stdout, logs *servertest.SyncBuffer) {
	t.Helper()
	bin, err := built()
	require.NoError(t, err)

	cmd = exec.Command(bin, append([]string{"-listen", "127.0.0.1:0"}, args...)...)
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
	listening := regexp.MustCompile(`listening on (\S+)`)
	found := make(chan [2]string, 1)
	logs = &servertest.SyncBuffer{}
	go func() {
		var addr string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(logs, sc.Text())
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
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
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
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

// TestInterruptFinishesMessage: interrupted, the gateway takes no new
// connection but lets a message under way finish (for up to 10 seconds),
// and delivers it, before it exits with status 0.
func TestInterruptFinishesMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	dir := t.TempDir()
	cmd, addr, _, _, logs := startGateway(t, "-dir", dir)
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Mail("a@example.com", nil))
	require.NoError(t, c.Rcpt("b@example.net", nil))
	w, err := c.Data() // the gateway has answered 354: the message is under way
	require.NoError(t, err)

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.Eventually(t, func() bool {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			conn.Close()
		}
		return err != nil
	}, 10*time.Second, 10*time.Millisecond, "still taking connections")

	_, err = io.WriteString(w, msg)
	require.NoError(t, err)
	require.NoError(t, w.Close(), "the message under way was not accepted")
	require.NoError(t, c.Quit())
	state, err := cmd.Process.Wait()
	require.NoError(t, err)
	assert.Equal(t, 0, state.ExitCode())
	for _, want := range []string{
		"mailgateway: rewriting Content-Types to uri, delivering to the folder " + dir + "\n",
		"mailgateway: stopping: no new sessions; waiting up to 10s for the messages under way",
		`message from a@example.com: delivered to ["b@example.net"]; Content-Type fields rewritten: `,
	} {
		waitLogged(t, logs, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	delivered, ok := strings.CutPrefix(string(b), returnPath)
	require.True(t, ok, "%q", b)
	rest, hops := untraced(delivered)
	assert.Equal(t, 1, hops, "%q", b)
	assert.Equal(t, rewritten, rest)
}

// TestInterruptCutsOffAfterGrace: a message still under way when -grace
// runs out is cut off, no file is delivered, and the gateway says so and
// exits with status 1.
func TestInterruptCutsOffAfterGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	dir := t.TempDir()
	cmd, addr, _, _, logs := startGateway(t, "-dir", dir, "-grace", "300ms")
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Mail("a@example.com", nil))
	require.NoError(t, c.Rcpt("b@example.net", nil))
	w, err := c.Data()
	require.NoError(t, err)
	_, err = io.WriteString(w, "Subject: never finished\r\n")
	require.NoError(t, err)

	interrupted := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	state, err := cmd.Process.Wait()
	require.NoError(t, err)
	assert.Equal(t, 1, state.ExitCode())
	assert.Less(t, time.Since(interrupted), 5*time.Second, "-grace 300ms, not the default 10s")
	const want = "mailgateway: sessions still open after -grace 300ms, cut off"
	waitLogged(t, logs, want)
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	assert.Empty(t, files)
}

// TestDestinationLogged: the gateway says at start where it delivers.
func TestDestinationLogged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "to uri, delivering to standard output\n"},
		// The next hop is dialled only for a message: none listens here.
		{[]string{"-next", "127.0.0.1:9"}, "to uri, delivering to the next hop 127.0.0.1:9\n"},
		{[]string{"-to", "ct", "-dir", dir}, "to ct, delivering to the folder " + dir + "\n"},
	} {
		_, _, _, _, logs := startGateway(t, tt.args...)
		waitLogged(t, logs, "mailgateway: rewriting Content-Types "+tt.want)
	}
}

// TestSecondInterrupt: interrupted again while it waits for a message
// under way, the gateway ends at once, long before -grace.
func TestSecondInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	cmd, addr, _, _, logs := startGateway(t, "-dir", t.TempDir(), "-grace", "30s")
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Mail("a@example.com", nil))
	require.NoError(t, c.Rcpt("b@example.net", nil))
	_, err = c.Data()
	require.NoError(t, err)

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	waitLogged(t, logs, "mailgateway: stopping: no new sessions; waiting up to 30s")
	interrupted := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	_, err = cmd.Process.Wait()
	require.NoError(t, err)
	assert.Less(t, time.Since(interrupted), 5*time.Second)
}

// TestMappingFlags: the options cturi mail has reach the rewrite: with
// -no-controlled, a Content-Type using the controlled mapping (URI-body)
// is not rewritten, and the log says why; the part a multipart/signed
// signs is not rewritten, unless -rewrite-signed; -strict-uri writes %22
// delimiters; -strict-parsing refuses mail's unquoted values.
func TestMappingFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	const controlled = "Content-Type: application/xml; URI-body=\"http://example.com/ns\"\r\n"
	const signed = "Content-Type: multipart/signed; protocol=\"a/b\"; boundary=s\r\n\r\n--s\r\n" +
		"Content-Type: text/plain\r\n\r\nx\r\n--s\r\nContent-Type: a/b\r\n\r\ny\r\n--s--\r\n"
	const signedField = "--s\r\nContent-Type: text/plain\r\n"
	const unquoted = "Content-Type: text/plain; name=a@b.txt\r\n"
	const spaced = "Content-Type: text/plain; a=\"b c\"\r\n\r\nx\r\n"
	for _, tt := range []struct {
		args   []string
		msg    string
		out    string // in the message delivered exactly when has
		has    bool
		logged string // if not "", in the log exactly when has
	}{
		{nil, controlled + "\r\nx\r\n", controlled, false, "refused by NoControlled"},
		{[]string{"-no-controlled"}, controlled + "\r\nx\r\n", controlled, true, "refused by NoControlled"},
		{nil, signed, signedField, true, "1: signed: the part a multipart/signed signs"},
		{[]string{"-rewrite-signed"}, signed, signedField, false, "1: signed: the part a multipart/signed signs"},
		{nil, spaced, "?a=%22b%20c%22", false, ""},
		{[]string{"-strict-uri"}, spaced, "?a=%22b%20c%22", true, ""},
		{nil, unquoted + "\r\nx\r\n", unquoted, false, "top: mapping: "},
		{[]string{"-strict-parsing"}, unquoted + "\r\nx\r\n", unquoted, true, "top: mapping: "},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tt.args...), " "), func(t *testing.T) {
			_, addr, _, stdout, logs := startGateway(t, tt.args...)
			c, err := smtp.Dial(addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(tt.msg)))
			waitLogged(t, logs, "delivered to")
			// Standard output reaches the test through a pipe of its own,
			// so the log line can come first: wait for the message's last
			// line, which the rewrite leaves as it is.
			last := tt.msg[strings.LastIndex(strings.TrimSuffix(tt.msg, "\r\n"), "\n")+1:]
			assert.Eventually(t, func() bool { return strings.HasSuffix(stdout.String(), last) }, 10*time.Second, 10*time.Millisecond, "%s", stdout)
			assert.Equal(t, tt.has, strings.Contains(stdout.String(), tt.out), "%s", stdout)
			if tt.logged != "" {
				assert.Equal(t, tt.has, strings.Contains(logs.String(), tt.logged), "%s", logs)
			}
		})
	}
}

// TestHostname: -hostname names the gateway in its greeting and in its
// Received field.
func TestHostname(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	addr, _, stdout := gateway(t, "-hostname", "mx-1.example")
	greeting := readGreeting(t, addr)
	assert.True(t, strings.HasPrefix(greeting, "220 mx-1.example "), "%q", greeting)
	require.NoError(t, send(t, addr))
	assert.Eventually(t, func() bool { return strings.Contains(stdout.String(), ") by mx-1.example with ESMTP") }, 10*time.Second, 10*time.Millisecond, "%s", stdout)

	// The longest name a domain may have, 253 octets, in labels of 63.
	long := strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 61)
	addr, _, _ = gateway(t, "-hostname", long, "-grace", "0")
	greeting = readGreeting(t, addr)
	assert.True(t, strings.HasPrefix(greeting, "220 "+long+" "), "%q", greeting)
}

// readGreeting connects to addr and returns the server's first line.
func readGreeting(t *testing.T, addr string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	greeting, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	return greeting
}

// TestRecipientLimit: the gateway bounds the recipients of one message
// (-max-recipients, 100 by default, RFC 5321 §4.5.3.1.8's minimum): without
// a limit, a client sending RCPT TO for ever grows the session's memory
// without end, 2 KB a line.
func TestRecipientLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	for _, tt := range []struct {
		args []string
		max  int
	}{{nil, 100}, {[]string{"-max-recipients", "3"}, 3}} {
		addr, _, _ := gateway(t, tt.args...)
		c, err := smtp.Dial(addr)
		require.NoError(t, err)
		require.NoError(t, c.Mail("a@example.com", nil))
		for i := range tt.max {
			require.NoError(t, c.Rcpt(fmt.Sprintf("b%d@example.net", i), nil), "recipient %d", i+1)
		}
		err = c.Rcpt("one-too-many@example.net", nil)
		var se *smtp.SMTPError
		require.True(t, errors.As(err, &se), "recipient %d accepted: %v", tt.max+1, err)
		assert.Equal(t, 452, se.Code)
		c.Close()
	}
}

// TestConnectionLimit: a client that holds its SMTP sessions open holds
// at most -max-connections of them; a client that comes meanwhile is
// answered 421 and disconnected at once, and once a session closes the
// next client is greeted.
func TestConnectionLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	addr, _, _ := gateway(t, "-max-connections", "2", "-max-hops", "1")
	greeting := func() (string, net.Conn) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		line, err := bufio.NewReader(c).ReadString('\n')
		require.NoError(t, err)
		return line, c
	}
	line, first := greeting()
	require.True(t, strings.HasPrefix(line, "220 "), "%q", line)
	line, _ = greeting()
	require.True(t, strings.HasPrefix(line, "220 "), "%q", line)
	for range 3 {
		line, c := greeting()
		assert.Equal(t, "421 4.3.2 Too many sessions, try again later\r\n", line)
		_, err := c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "the connection is closed")
	}
	require.NoError(t, first.Close())
	require.Eventually(t, func() bool {
		line, _ := greeting()
		return strings.HasPrefix(line, "220 ")
	}, 5*time.Second, 50*time.Millisecond, "a client is greeted once a session closes")
}

// TestConcurrentLoops: messages looping through one gateway at once hold
// a session a hop each and can together fill -max-connections; the
// gateway then refuses the next hop with 421 rather than let the loops
// wait on each other, so every sender gets an answer (554 for a loop that
// fitted, a transient failure for one that did not, which it retries),
// and a new client is greeted as soon as the loops are over.
func TestConcurrentLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	const loops = 3
	toA := newCountingProxy(t)
	addr, _, _ := gateway(t, "-next", toA.addr, "-max-hops", "5", "-max-connections", "8")
	toA.to(addr)
	answers := make(chan error, loops)
	for range loops {
		go func() {
			c, err := smtp.Dial(addr)
			if err != nil {
				answers <- err
				return
			}
			defer c.Close()
			answers <- c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
		}()
	}
	for range loops {
		select {
		case err := <-answers:
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.True(t, se.Code == 554 || se.Temporary(), "%v", se)
		case <-time.After(20 * time.Second):
			t.Fatal("a looping message got no answer: the loops wait on each other")
		}
	}
	c, err := smtp.Dial(addr)
	require.NoError(t, err, "a client after the loops")
	c.Close()
}

// TestSaysWhatToTry: like the other examples, the gateway says how to try
// it: a curl command that sends a message of the repository to the address
// it listens on.
func TestSaysWhatToTry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	addr, try, _ := gateway(t)
	require.NotEmpty(t, addr, "no address")
	require.NotEmpty(t, try, "nothing to try")
	assert.Contains(t, try, "smtp://"+addr+" ")
	file := regexp.MustCompile(`-T (\S+)`).FindStringSubmatch(try)
	require.NotNil(t, file, "%s", try)
	assert.FileExists(t, filepath.Join("..", "..", file[1]), "the file it sends, from the repository's root")
}

// TestUsageErrors: a bad command line stops the gateway before it
// listens, with status 2 (as the flag package exits for an unknown flag),
// what is wrong, and the usage.
func TestUsageErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin, err := built()
	require.NoError(t, err)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-to", "auto"}, `mailgateway: mailhdr: unknown target "auto"`},
		{[]string{"-max-recipients", "0"}, "mailgateway: -max-recipients must be at least 1"},
		{[]string{"-max-hops", "0"}, "mailgateway: -max-hops must be at least 1"},
		{[]string{"-max-connections", "100"}, "mailgateway: -max-connections must be more than -max-hops (100)"},
		{[]string{"-max-connections", "3", "-max-hops", "3"}, "mailgateway: -max-connections must be more than -max-hops (3)"},
		{[]string{"-timeout", "0"}, "mailgateway: -timeout must be more than 0"},
		{[]string{"-max-message-bytes", "0"}, "mailgateway: -max-message-bytes must be at least 1"},
		{[]string{"-max-message-bytes", "-5"}, "mailgateway: -max-message-bytes must be at least 1"},
		{[]string{"127.0.0.1:2526"}, `mailgateway: unexpected argument "127.0.0.1:2526"`},
		{[]string{"-next", "127.0.0.1:25", "-dir", "/tmp/mail"}, "mailgateway: -next and -dir are two destinations; give one"},
		{[]string{"-next", "nohost"}, `mailgateway: -next wants host:port, not "nohost"`},
		{[]string{"-next", ":25"}, `mailgateway: -next wants host:port, not ":25"`},
		{[]string{"-hostname", "mx1.example\r\n250 x"}, `mailgateway: -hostname wants a domain name (letters, digits, hyphens, dots), not "mx1.example\r\n250 x"`},
		{[]string{"-hostname", ""}, `-hostname wants a domain name`},
		{[]string{"-hostname", "a..b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", "-a.b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", "a-.b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", strings.Repeat("a", 64) + ".b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 62)}, `-hostname wants a domain name`}, // 254 octets
		{[]string{"-grace", "-1s"}, "mailgateway: -grace must be 0 or more"},
		{[]string{"-grace", "-1ns"}, "mailgateway: -grace must be 0 or more"},
		{[]string{"-next", "127.0.0.1:"}, `mailgateway: -next wants host:port, not "127.0.0.1:"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			// A port of its own, and a deadline, in case the command
			// does start: it is then killed, and the status is not 2.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"-listen", "127.0.0.1:0"}, tt.args...)...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", out)
			assert.Equal(t, 2, exit.ExitCode(), "%s", out)
			assert.Contains(t, string(out), tt.want)
			assert.Contains(t, string(out), "Usage of mailgateway:")
			assert.NotContains(t, string(out), "listening on")
		})
	}
}

// TestDefaults: the gateway listens on the loopback interface unless
// told otherwise, and drops a silent client after a minute.
func TestDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	bin, err := built()
	require.NoError(t, err)
	out, err := exec.Command(bin, "-h").CombinedOutput()
	require.NoError(t, err, "%s", out) // -h is no error
	assert.Contains(t, string(out), `-listen string
    	address to listen on (default "127.0.0.1:2525")`)
	assert.Contains(t, string(out), `(more than 0) (default 1m0s)`)
}

// TestSilentClientDropped: a client that sends nothing for -timeout is
// disconnected, and its session freed: with room for two, two more
// clients are greeted with 220 after it.
func TestSilentClientDropped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	addr, _, _ := gateway(t, "-timeout", "500ms", "-max-connections", "2", "-max-hops", "1")
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
	r := bufio.NewReader(c)
	greeting, err := r.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(greeting, "220"), greeting)
	for err == nil { // until the gateway closes the connection
		_, err = r.ReadString('\n')
	}
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "still open after 20 s: %v", err)
	assert.GreaterOrEqual(t, time.Since(start), 500*time.Millisecond, "closed for silence, not at once")
	// The gateway closes the connection, then gives its room back: the
	// room may come a moment after the client sees the end.
	var held []*smtp.Client
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	require.Eventually(t, func() bool {
		for len(held) < 2 {
			c, err := smtp.Dial(addr) // reads the greeting: a 421 fails it
			if err != nil {
				return false
			}
			held = append(held, c)
		}
		return true
	}, 10*time.Second, 20*time.Millisecond, "two sessions after the silent one")
}

// TestSlowClientNotCutOff: -timeout limits silence, not a message: a
// client that sends its data steadily for longer than -timeout gets its
// message through.
func TestSlowClientNotCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	addr, _, stdout := gateway(t, "-timeout", "2s")
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer nc.Close()
	// By hand: go-smtp's client buffers the data until it is closed.
	c := textproto.NewConn(nc)
	_, _, err = c.ReadResponse(220)
	require.NoError(t, err)
	for _, cmd := range []struct {
		line string
		code int
	}{{"HELO x", 250}, {"MAIL FROM:<a@example.com>", 250}, {"RCPT TO:<b@example.net>", 250}, {"DATA", 354}} {
		require.NoError(t, c.PrintfLine("%s", cmd.line))
		_, _, err = c.ReadResponse(cmd.code)
		require.NoError(t, err, cmd.line)
	}
	require.NoError(t, c.PrintfLine("Subject: slow\r\nContent-Type: text/plain\r\n"))
	// 2.4 s in all, never silent for more than 0.2 s: a stall of the test
	// of up to 1.8 s between two lines still passes.
	for i := range 12 {
		time.Sleep(200 * time.Millisecond)
		require.NoError(t, c.PrintfLine("line %d", i))
	}
	require.NoError(t, c.PrintfLine("."))
	_, msg, err := c.ReadResponse(250)
	require.NoError(t, err, "the message is accepted: %s", msg)
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), "line 11") }, 10*time.Second, 10*time.Millisecond)
}

// countingProxy forwards each connection it accepts on 127.0.0.1 to the
// address given to its to, and counts them.
type countingProxy struct {
	addr  string
	conns atomic.Int64
	to    func(addr string)
}

func newCountingProxy(t *testing.T) *countingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	p := &countingProxy{addr: l.Addr().String()}
	var target string
	set := make(chan struct{})
	p.to = func(addr string) { target = addr; close(set) }
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.conns.Add(1)
			go func() {
				defer c.Close()
				<-set
				next, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer next.Close()
				done := make(chan struct{}, 2)
				go func() { io.Copy(next, c); done <- struct{}{} }()
				go func() { io.Copy(c, next); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	return p
}

// TestRoutingLoop: gateways whose next hops lead back to them (two
// pointed at each other, or one at itself) no longer pass a message round
// without end: each hop adds a Received field, the one that receives the
// message with -max-hops of them (100 by default) refuses it with 554
// 5.4.6, and that permanent reply goes back hop by hop to the sender,
// which does not send it again. The loop takes one connection a hop.
func TestRoutingLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command")
	}
	for _, tt := range []struct {
		name string
		args []string
		max  int
	}{
		{"two gateways pointed at each other", nil, relay.DefaultMaxHops},
		{"two gateways pointed at each other, -max-hops 5", []string{"-max-hops", "5"}, 5},
		{"a gateway pointed at itself", nil, relay.DefaultMaxHops},
	} {
		t.Run(tt.name, func(t *testing.T) {
			toA := newCountingProxy(t)
			proxies := []*countingProxy{toA}
			var addrA string
			if strings.HasPrefix(tt.name, "two") {
				toB := newCountingProxy(t)
				proxies = append(proxies, toB)
				addrA, _, _ = gateway(t, append([]string{"-next", toB.addr}, tt.args...)...)
				addrB, _, _ := gateway(t, append([]string{"-next", toA.addr}, tt.args...)...)
				toB.to(addrB)
			} else {
				addrA, _, _ = gateway(t, append([]string{"-next", toA.addr}, tt.args...)...)
			}
			toA.to(addrA)
			connections := func() int {
				n := 0
				for _, p := range proxies {
					n += int(p.conns.Load())
				}
				return n
			}

			c, err := smtp.Dial(addrA)
			require.NoError(t, err)
			defer c.Close()
			sent := make(chan error, 1)
			go func() { sent <- c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)) }()
			select {
			case err = <-sent:
			case <-time.After(30 * time.Second):
				t.Fatalf("still looping after 30 s, %d connections", connections())
			}
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 554, se.Code)
			assert.Equal(t, smtp.EnhancedCode{5, 4, 6}, se.EnhancedCode)
			assert.False(t, se.Temporary(), "the sender would try again")
			// The message went round with 1, 2, ... Received fields, and
			// was refused with max.
			assert.Equal(t, tt.max, connections(), "connections between the gateways")
			time.Sleep(200 * time.Millisecond)
			assert.Equal(t, tt.max, connections(), "still connecting after the sender's failure")
		})
	}
}
