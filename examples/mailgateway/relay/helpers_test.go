package relay

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/require"
)

// Helpers shared by the tests of this package: an SMTP server on
// loopback, go-smtp's client, and a raw client for what that client
// would refuse to send.

const msg = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n"
const rewritten = "Subject: x\r\nContent-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n\r\nhi\r\n"

// clock is the Backend.Now of the tests; received is the Received field
// a Backend with it puts on a message that go-smtp's client sends to one
// recipient, b@example.net.
func clock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

const received = "Received: from localhost ([127.0.0.1]) by localhost with ESMTP\r\n" +
	"\tfor <b@example.net>; Fri, 02 Jan 2026 03:04:05 +0000\r\n"

// serve starts an SMTP server for be on 127.0.0.1, set up by configure,
// and returns its address.
func serve(t *testing.T, be smtp.Backend, configure ...func(*smtp.Server)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	for _, c := range configure {
		c(s)
	}
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

func send(t *testing.T, addr string, to []string) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	return c.SendMail("a@example.com", to, strings.NewReader(msg))
}

// rawClient speaks SMTP to a server line by line, so that a test can
// send what go-smtp's client would refuse to.
type rawClient struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

// dialRaw connects to addr and reads the greeting.
func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	rc := &rawClient{t: t, c: c, r: bufio.NewReader(c)}
	rc.reply()
	return rc
}

// reply reads one reply, all its lines.
func (rc *rawClient) reply() string {
	rc.t.Helper()
	var all strings.Builder
	for {
		line, err := rc.r.ReadString('\n')
		require.NoError(rc.t, err)
		all.WriteString(line)
		if len(line) < 4 || line[3] != '-' {
			return all.String()
		}
	}
}

// send writes text, then reads the reply.
func (rc *rawClient) send(text string) string {
	rc.t.Helper()
	_, err := io.WriteString(rc.c, text)
	require.NoError(rc.t, err)
	return rc.reply()
}

// rawSession sends lines, each of which must succeed, then DATA and msg,
// and returns the reply to the message.
func rawSession(t *testing.T, addr string, lines []string, msg string) string {
	t.Helper()
	rc := dialRaw(t, addr)
	for _, l := range append(lines, "DATA") {
		got := rc.send(l + "\r\n")
		require.True(t, strings.HasPrefix(got, "2") || strings.HasPrefix(got, "354"), "%s: %s", l, got)
	}
	return rc.send(msg + ".\r\n")
}
