package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecipientLimit: the gateway bounds the recipients of one message
// (-max-recipients, 100 by default, RFC 5321 §4.5.3.1.8's minimum): without
// a limit, a client sending RCPT TO for ever grows the session's memory
// without end, 2 KB a line.
func TestRecipientLimit(t *testing.T) {
	needsCommand(t)
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
	needsCommand(t)
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

// TestSilentClientDropped: a client that sends nothing for -timeout is
// disconnected, and its session freed: with room for two, two more
// clients are greeted with 220 after it.
func TestSilentClientDropped(t *testing.T) {
	needsCommand(t)
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
// client that sends its data steadily, above -min-rate (750 octets a
// second here, 500 by default), for longer than -timeout gets its message
// through.
func TestSlowClientNotCutOff(t *testing.T) {
	needsCommand(t)
	addr, _, stdout := gateway(t, "-timeout", "2s")
	// By hand: go-smtp's client buffers the data until it is closed.
	nc, c := openData(t, addr)
	defer nc.Close()
	require.NoError(t, c.PrintfLine("Subject: slow\r\nContent-Type: text/plain\r\n"))
	// 2.4 s in all, never silent for more than 0.2 s, 150 octets a line:
	// a stall of the test of up to 1.8 s between two lines still passes.
	for i := range 12 {
		time.Sleep(200 * time.Millisecond)
		require.NoError(t, c.PrintfLine("line %d %s", i, strings.Repeat("x", 140)))
	}
	require.NoError(t, c.PrintfLine("."))
	_, msg, err := c.ReadResponse(250)
	require.NoError(t, err, "the message is accepted: %s", msg)
	require.Eventually(t, func() bool { return strings.Contains(stdout.String(), "line 11") }, 10*time.Second, 10*time.Millisecond)
}

// TestTricklingClientDropped: a client that sends a command an octet at a
// time, never silent for -timeout, is disconnected once it has kept the
// gateway waiting -timeout plus a second for each -min-rate octets it
// sent (421 4.4.2), not when its command ends: here about 1 s, where the
// command would take 13 s. Without -min-rate it would hold its session,
// one of -max-connections, for 2000 octets times -timeout a command.
// (go-smtp takes what came of the line for a command before it answers
// the 421: NOOP gets its 250 first.)
func TestTricklingClientDropped(t *testing.T) {
	needsCommand(t)
	addr, _, _ := gateway(t, "-timeout", "1s")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	greeting, err := r.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(greeting, "220 "), greeting)
	closed := make(chan string, 1)
	go func() { // everything the gateway sends until it closes the connection
		rest, _ := io.ReadAll(r)
		closed <- string(rest)
	}()
	start := time.Now()
	cmd := "NOOP " + strings.Repeat("x", 60) + "\r\n"
	var replies string
trickle:
	for i := range len(cmd) {
		if _, err := c.Write([]byte{cmd[i]}); err != nil {
			break
		}
		select {
		case replies = <-closed:
			break trickle
		case <-time.After(200 * time.Millisecond):
		}
	}
	if replies == "" {
		replies = <-closed
	}
	assert.Less(t, time.Since(start), 6*time.Second, "closed only when the 13 s command ended: %q", replies)
	assert.Contains(t, replies, "421 4.4.2 ")
}

// TestReadPastRefusedMessageBounded: go-smtp reads the rest of a message
// over -max-message-bytes to its end, to discard it; the gateway reads at
// most twice the limit and 64 KiB of it (from the 354 on, the end of data
// line included). A message that ends there gets its 552 and the session
// goes on; one octet more, and the client is disconnected, where before
// the gateway read on for as long as the client sent (256 MiB for a limit
// of 1000 octets, in 1.6 s).
func TestReadPastRefusedMessageBounded(t *testing.T) {
	needsCommand(t)
	const maxMessage = 1000
	bound := int(requestLimit(maxMessage)) // 67,536 octets
	addr, _, _ := gateway(t, "-max-message-bytes", fmt.Sprint(maxMessage))
	for _, tt := range []struct {
		name   string
		octets int
		closed bool
	}{
		{"at the bound: 552, and the session goes on", bound, false},
		{"one octet over: disconnected", bound + 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			nc, c := openData(t, addr)
			defer nc.Close()
			require.NoError(t, nc.SetDeadline(time.Now().Add(10*time.Second)))
			// Lines of 100 octets, and a last one of what is left, then
			// the end of data line: tt.octets in all.
			body := tt.octets - len(".\r\n")
			data := strings.Repeat(strings.Repeat("y", 98)+"\r\n", body/100-1) +
				strings.Repeat("y", 100+body%100-2) + "\r\n.\r\n"
			require.Len(t, data, tt.octets)
			_, err := io.WriteString(nc, data)
			require.NoError(t, err)
			if tt.closed {
				rest, err := io.ReadAll(nc)
				var ne net.Error
				require.False(t, errors.As(err, &ne) && ne.Timeout(), "still open after 10 s: %q", rest)
				return
			}
			_, msg, err := c.ReadResponse(552)
			require.NoError(t, err, msg)
			require.NoError(t, c.PrintfLine("NOOP"))
			_, _, err = c.ReadResponse(250)
			require.NoError(t, err, "the session goes on")
		})
	}
}

// openData connects to the gateway at addr and takes a session by hand as
// far as DATA's 354, so that a test can send the data as it likes.
func openData(t *testing.T, addr string) (net.Conn, *textproto.Conn) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
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
	return nc, c
}
