package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptFinishesMessage: interrupted, the gateway takes no new
// connection but lets a message under way finish (for up to 10 seconds),
// and delivers it, before it exits with status 0.
func TestInterruptFinishesMessage(t *testing.T) {
	needsCommand(t)
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

// TestInterruptEndsIdleSessions: interrupted, the gateway answers 421 at
// once to a session between messages and to a connection that has not
// greeted (whether it has sent nothing, a NOOP or half a line), rather
// than wait -grace for them to leave (go-smtp's Shutdown waits for every
// connection), and exits with status 0.
func TestInterruptEndsIdleSessions(t *testing.T) {
	needsCommand(t)
	cmd, addr, _, _, logs := startGateway(t, "-dir", t.TempDir(), "-grace", "30s")
	between, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer between.Close()
	require.NoError(t, between.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)))
	silent, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer silent.Close()
	greeting := make([]byte, 512)
	n, err := silent.Read(greeting)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(greeting[:n]), "220 "), "%q", greeting[:n])
	// Connections that have sent something but have not greeted have no
	// session either: a NOOP (answered before EHLO), and half an EHLO.
	var spoken []net.Conn
	for _, sent := range []string{"NOOP\r\n", "EHL"} {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(line, "220 "), "%q", line)
		_, err = io.WriteString(c, sent)
		require.NoError(t, err)
		if strings.HasSuffix(sent, "\n") {
			line, err = br.ReadString('\n')
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(line, "250 "), "%q", line)
		}
		spoken = append(spoken, c)
	}
	// Time for the gateway to read the half line: a connection it has
	// read from must still count as one with no session.
	time.Sleep(100 * time.Millisecond)

	interrupted := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	state, err := cmd.Process.Wait()
	require.NoError(t, err)
	assert.Equal(t, 0, state.ExitCode())
	assert.Less(t, time.Since(interrupted), 5*time.Second, "-grace is 30s")
	waitLogged(t, logs, "mailgateway: stopping: no new sessions")

	se, ok := errors.AsType[*smtp.SMTPError](between.Noop())
	require.True(t, ok)
	assert.Equal(t, 421, se.Code)
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, _ := io.ReadAll(silent)
	assert.True(t, strings.HasPrefix(string(rest), "421 "), "%q", rest)
	// go-smtp takes the half line for a whole one when the read ends
	// (bufio's ReadLine returns what it has), so "501 Bad command" may
	// come first: the 421 is the last reply.
	for _, c := range spoken {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		rest, _ := io.ReadAll(c)
		replies := strings.Split(strings.TrimSuffix(string(rest), "\r\n"), "\r\n")
		assert.True(t, strings.HasPrefix(replies[len(replies)-1], "421 "), "%q", rest)
	}
}

// TestInterruptCutsOffAfterGrace: a message still under way when -grace
// runs out is cut off, no file is delivered, and the gateway says so and
// exits with status 1.
func TestInterruptCutsOffAfterGrace(t *testing.T) {
	needsCommand(t)
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

// TestSecondInterrupt: interrupted again while it waits for a message
// under way, the gateway ends at once, long before -grace.
func TestSecondInterrupt(t *testing.T) {
	needsCommand(t)
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
