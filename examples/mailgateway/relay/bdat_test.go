package relay

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Backend's Deliver and Logf that remember what they were
// given.
type recorder struct {
	mu    sync.Mutex
	calls []string // "from [to ...]" of each Deliver call
	logs  []string
}

func (r *recorder) deliver(from string, to []string, msg io.Reader) error {
	r.mu.Lock()
	r.calls = append(r.calls, fmt.Sprintf("<%s> %q", from, to))
	r.mu.Unlock()
	_, err := io.Copy(io.Discard, msg)
	return err
}

func (r *recorder) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) get() (calls, logs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...), append([]string(nil), r.logs...)
}

// A client that gives up on a message sent with BDAT (RFC 3030), with
// RSET between two chunks or by going away: go-smtp v0.25.1 reads the
// chunks in a goroutine that runs Session.Data, and calls Session.Reset
// (or Logout) at once, without waiting for that Data to return. Data
// then read the envelope while Reset cleared it, or while the next
// MAIL and RCPT set it again (a data race: the abandoned message went to
// Deliver, and into the log, with the null sender or the next message's
// sender), and it handed the abandoned message to Deliver (a next hop
// dialled, a file begun) although it had failed to read it. And since
// that Data finished only after the next transaction had begun, its
// failure could be taken, by go-smtp, as the reply to the next BDAT
// message. Now Data takes the envelope before it reads a chunk, delivers
// nothing whose reading the client abandoned, and Reset and Logout wait
// for it.
func TestBDATAbandoned(t *testing.T) {
	rec := &recorder{}
	be := &Backend{Deliver: rec.deliver, Logf: rec.logf, Now: clock}
	addr := serve(t, be)
	const second = "Subject: second\r\n\r\nbody\r\n"

	rc := dialRaw(t, addr)
	require.True(t, strings.HasPrefix(rc.send("EHLO client.example\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("MAIL FROM:<first@example.com>\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("RCPT TO:<b@example.net>\r\n"), "250"))
	// Half a header: Data is still reading it when RSET comes.
	require.True(t, strings.HasPrefix(rc.send("BDAT 10\r\nSubject: a"), "250"))
	require.True(t, strings.HasPrefix(rc.send("RSET\r\n"), "250"))
	// Reset waited for the abandoned message's Data, which has told its
	// outcome, under its own sender.
	_, logs := rec.get()
	require.Equal(t, []string{"message from first@example.com: not delivered: the client abandoned the message (RSET, EHLO, STARTTLS or a closed connection)"}, logs)

	require.True(t, strings.HasPrefix(rc.send("MAIL FROM:<second@example.com>\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("RCPT TO:<c@example.net>\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("DATA\r\n"), "354"))
	require.True(t, strings.HasPrefix(rc.send(second+".\r\n"), "250"), "the second message")

	// A client that goes away in the middle of a message. (On a
	// connection of its own: a BDAT message after an abandoned one on the
	// same connection meets a data race inside go-smtp v0.25.1, which
	// writes the channel for the new Data's result into a field that the
	// abandoned Data's goroutine read after it returned. waitData makes
	// that read come first, but the race detector sees no ordering.)
	require.True(t, strings.HasPrefix(rc.send("QUIT\r\n"), "221"))
	rc = dialRaw(t, addr)
	require.True(t, strings.HasPrefix(rc.send("EHLO client.example\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("MAIL FROM:<third@example.com>\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("RCPT TO:<d@example.net>\r\n"), "250"))
	require.True(t, strings.HasPrefix(rc.send("BDAT 10\r\nSubject: a"), "250"))
	require.NoError(t, rc.c.Close())
	want := []string{
		"message from first@example.com: not delivered: the client abandoned the message (RSET, EHLO, STARTTLS or a closed connection)",
		`message from second@example.com: delivered to ["c@example.net"]; Content-Type fields rewritten: 0`,
		"message from third@example.com: not delivered: the client abandoned the message (RSET, EHLO, STARTTLS or a closed connection)",
	}
	require.Eventually(t, func() bool { _, logs := rec.get(); return len(logs) >= len(want) }, 5*time.Second, time.Millisecond)
	// Without the fix, Deliver was called for the abandoned messages too,
	// at once after RSET (before the next MAIL was read): give a late
	// call the time to show.
	time.Sleep(50 * time.Millisecond)
	calls, logs := rec.get()
	require.Equal(t, want, logs)
	require.Equal(t, []string{`<second@example.com> ["c@example.net"]`}, calls, "only the second message is delivered")
}

// go-smtp v0.25.1 applies its MaxLineLength (2000 octets) to DATA, and
// lifts it for the chunks of BDAT: a line over 2000 octets came through
// the gateway with BDAT (stored with -dir, handed on with -next), where
// DATA has it refused for good (554 5.6.0), as docs/mail.md says of any
// message with such a line. Now the gateway applies the server's limit
// to BDAT chunks itself, at the same octet as go-smtp does for DATA. (The
// lines come after 8000 octets: go-smtp's limit does reach what it reads
// ahead of a chunk with the BDAT command, and closes the connection with
// "500 5.4.0 Too long line" there.)
func TestBDATLineTooLong(t *testing.T) {
	dir := t.TempDir()
	addr := serve(t, &Backend{Deliver: DirDeliver(dir)})
	short := strings.Repeat(strings.Repeat("y", 78)+"\r\n", 100)
	for _, n := range []int{1998, 1999, 5000} {
		msg := "Subject: long\r\n\r\n" + short + strings.Repeat("x", n) + "\r\n"
		want := "250 "
		if n+2 > 2000 {
			want = "554 5.6.0 "
		}
		for _, cmd := range []string{"DATA", "BDAT"} {
			t.Run(fmt.Sprintf("%s, a line of %d octets and CRLF", cmd, n), func(t *testing.T) {
				before, err := os.ReadDir(dir)
				require.NoError(t, err)
				rc := dialRaw(t, addr)
				for _, l := range []string{"EHLO client.example", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"} {
					require.True(t, strings.HasPrefix(rc.send(l+"\r\n"), "250"), l)
				}
				var got string
				if cmd == "DATA" {
					require.True(t, strings.HasPrefix(rc.send("DATA\r\n"), "354"))
					got = rc.send(msg + ".\r\n")
				} else {
					got = rc.send(fmt.Sprintf("BDAT %d LAST\r\n", len(msg)) + msg)
				}
				assert.True(t, strings.HasPrefix(got, want), "%s", got)
				after, err := os.ReadDir(dir)
				require.NoError(t, err)
				stored := len(after) - len(before)
				if want == "250 " {
					assert.Equal(t, 1, stored)
				} else {
					assert.Zero(t, stored, "nothing stored")
				}
			})
		}
	}
}

// TestClientReaderLineLimit holds clientReader's own line limit to the
// count of go-smtp's lineLimitReader, read whole and octet by octet: with
// max 10, a line of 8 octets and CRLF passes, one of 9 is stopped before
// its CR, and the error stays.
func TestClientReaderLineLimit(t *testing.T) {
	for _, tt := range []struct {
		in, before string // before: what is handed on before the error
		long       bool
	}{
		{"12345678\r\n12345678\r\n", "12345678\r\n12345678\r\n", false},
		{"123456789\r\n", "123456789", true},
		{"12345678\r\n123456789012", "12345678\r\n123456789", true},
		{"\r\n\r\n12345678\r\n", "\r\n\r\n12345678\r\n", false},
		{"a\nbcdefghijklm\r\n", "a", false}, // a bare LF comes first
	} {
		for _, read := range readers {
			c := &clientReader{r: read.wrap(strings.NewReader(tt.in)), max: 10}
			got, err := io.ReadAll(c)
			assert.Equal(t, tt.before, string(got), "%q (%s)", tt.in, read.name)
			if !tt.long {
				if err != nil {
					assert.Equal(t, bareLineEnd, err, "%q", tt.in)
				}
				continue
			}
			assert.Equal(t, smtp.ErrTooLongLine, err, "%q (%s)", tt.in, read.name)
			assert.True(t, c.tooLong)
			n, err := c.Read(make([]byte, 8))
			assert.Zero(t, n)
			assert.Equal(t, smtp.ErrTooLongLine, err, "%q: the error stays", tt.in)
		}
	}
}

// FuzzClientReaderLineLimit holds clientReader with a line limit, on any
// message read in any chunks, to an independent statement of both its
// rules: it hands on the message up to the first octet that shows a bare
// CR or LF, or that brings the octets of a line before its LF (its CR
// included) to max, as go-smtp counts them for DATA, whichever comes
// first, and fails there with that rule's error.
func FuzzClientReaderLineLimit(f *testing.F) {
	f.Add("12345678\r\n123456789\r\n", uint8(10), uint8(0))
	f.Add("a\r\nb\nccccccccccccc", uint8(3), uint8(2))
	f.Add("abc\rdef", uint8(4), uint8(1))
	f.Fuzz(func(t *testing.T, msg string, max, chunk uint8) {
		if max == 0 {
			return
		}
		var r io.Reader = strings.NewReader(msg)
		if chunk > 0 {
			r = &chunkReader{r: r, n: int(chunk)}
		}
		got, err := io.ReadAll(&clientReader{r: r, max: int(max)})
		stop, want := len(msg), error(nil)
		line := 0
		for i := 0; i < len(msg); i++ {
			if msg[i] == '\n' {
				if i == 0 || msg[i-1] != '\r' {
					stop, want = i, bareLineEnd
					break
				}
				line = 0
				continue
			}
			if i > 0 && msg[i-1] == '\r' {
				stop, want = i, bareLineEnd
				break
			}
			if line++; line >= int(max) {
				stop, want = i, smtp.ErrTooLongLine
				break
			}
			if msg[i] == '\r' && i+1 == len(msg) {
				stop, want = i+1, bareLineEnd // the data ends after a CR
			}
		}
		require.Equal(t, want, err)
		require.Equal(t, msg[:stop], string(got))
	})
}

// TestBDATStartedLate: go-smtp v0.25.1 starts the goroutine that runs
// Data at a message's first BDAT, and only a chunk of some octets waits
// for Data to read it. After "BDAT 0" the goroutine may not have called
// Data yet when RSET comes (it needs the connection's lock, which go-smtp
// holds while it calls Reset), so Reset had nothing to wait for; the
// late Data then took the next message's envelope, logged its own
// failure under that message's sender, and returned it while go-smtp
// waited for the next message's result on the same connection: the
// next message, delivered, was answered "451 message abandoned by the
// client", and its sender would send it again. Now a Data whose reading
// the client abandoned returns only once the next Reset or Logout has
// begun, and one that read nothing logs nothing (it cannot tell whose
// message it was). GOMAXPROCS 1 makes go-smtp's goroutine run late
// every time: on two it did three times in four.
func TestBDATStartedLate(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rec := &recorder{}
	slow := func(from string, to []string, msg io.Reader) error {
		err := rec.deliver(from, to, msg)
		time.Sleep(50 * time.Millisecond) // a next hop that takes its time
		return err
	}
	addr := serve(t, &Backend{Deliver: slow, Logf: rec.logf, Now: clock})
	rc := dialRaw(t, addr)
	require.True(t, strings.HasPrefix(rc.send("EHLO client.example\r\n"), "250"))
	const second = "Subject: second\r\n\r\nbody\r\n"
	_, err := io.WriteString(rc.c, "MAIL FROM:<first@example.com>\r\nRCPT TO:<b@example.net>\r\nBDAT 0\r\nRSET\r\n"+
		"MAIL FROM:<second@example.com>\r\nRCPT TO:<c@example.net>\r\n"+
		fmt.Sprintf("BDAT %d LAST\r\n", len(second))+second)
	require.NoError(t, err)
	for _, want := range []string{"250 ", "250 ", "250 2.0.0 Continue", "250 2.0.0 Session reset", "250 ", "250 "} {
		got := rc.reply()
		require.True(t, strings.HasPrefix(got, want), "%s", got)
	}
	got := rc.reply()
	calls, logs := rec.get()
	require.Equal(t, []string{`<second@example.com> ["c@example.net"]`}, calls)
	assert.True(t, strings.HasPrefix(got, "250 "), "the reply to the second message, which was delivered: %s", got)
	require.True(t, strings.HasPrefix(rc.send("QUIT\r\n"), "221"))
	assert.Equal(t, []string{`message from second@example.com: delivered to ["c@example.net"]; Content-Type fields rewritten: 0`}, logs)
}

// TestBDATStartTLS: STARTTLS between two BDAT chunks, on a server with
// TLS. go-smtp v0.25.1 calls Logout for it before it closes the chunks'
// pipe (which it does only in the reset after): Logout waited for the
// Data reading that pipe, which waited for go-smtp's connection
// goroutine, which was in Logout. The connection hung there for good,
// answering nothing after the TLS handshake and ending at no timeout (a
// slot of -max-connections gone with it). Now Logout closes the pipe of
// a Data under way, as go-smtp does before it in every other case.
func TestBDATStartTLS(t *testing.T) {
	rec := &recorder{}
	addr := serve(t, &Backend{Deliver: rec.deliver, Logf: rec.logf, Now: clock}, func(s *smtp.Server) {
		s.TLSConfig = selfSigned(t)
	})
	rc := dialRaw(t, addr)
	for _, l := range []string{"EHLO client.example", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"} {
		require.True(t, strings.HasPrefix(rc.send(l+"\r\n"), "250"), l)
	}
	require.True(t, strings.HasPrefix(rc.send("BDAT 10\r\nSubject: a"), "250"))
	require.True(t, strings.HasPrefix(rc.send("STARTTLS\r\n"), "220"))
	tc := tls.Client(rc.c, &tls.Config{InsecureSkipVerify: true})
	require.NoError(t, tc.Handshake())
	require.NoError(t, tc.SetDeadline(time.Now().Add(5*time.Second)))
	tr := &rawClient{t: t, c: tc, r: bufio.NewReader(tc)}
	got := tr.send("EHLO client.example\r\n")
	require.True(t, strings.HasPrefix(got, "250"), "%s", got)
	require.True(t, strings.HasPrefix(tr.send("QUIT\r\n"), "221"))
	calls, logs := rec.get()
	assert.Empty(t, calls)
	assert.Equal(t, []string{"message from a@example.com: not delivered: the client abandoned the message (RSET, EHLO, STARTTLS or a closed connection)"}, logs)
}

// selfSigned is a TLS configuration with a certificate of its own for
// localhost.
func selfSigned(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// TestBDATConnRace: the Received field's parts that come from go-smtp's
// Conn (the HELO name, the TLS state, the client's address) were read by
// Data, which for BDAT runs in a goroutine of its own, while go-smtp's
// connection goroutine wrote them unlocked: after "BDAT 0" (which waits
// for no Data), an EHLO writes the HELO name and STARTTLS the net.Conn.
// go test -race reported both (Conn.Hostname against handleGreet,
// Conn.TLSConnectionState against handleStartTLS) in six runs of six.
// Now Mail takes them, on the connection goroutine. Only -race sees the
// difference.
func TestBDATConnRace(t *testing.T) {
	rec := &recorder{}
	addr := serve(t, &Backend{Deliver: rec.deliver, Logf: rec.logf, Now: clock}, func(s *smtp.Server) {
		s.TLSConfig = selfSigned(t)
	})
	const open = "EHLO client.example\r\nNOOP\r\nMAIL FROM:<a@example.com>\r\nRCPT TO:<b@example.net>\r\nBDAT 0\r\n"
	for range 40 {
		rc := dialRaw(t, addr)
		_, err := io.WriteString(rc.c, open+"EHLO other.example\r\nQUIT\r\n")
		require.NoError(t, err)
		for range 7 {
			rc.reply()
		}
		rc.c.Close()

		rc = dialRaw(t, addr)
		_, err = io.WriteString(rc.c, open+"STARTTLS\r\n")
		require.NoError(t, err)
		for _, want := range []string{"250", "250", "250", "250", "250", "220"} {
			got := rc.reply()
			require.True(t, strings.HasPrefix(got, want), "%s", got)
		}
		tc := tls.Client(rc.c, &tls.Config{InsecureSkipVerify: true})
		require.NoError(t, tc.Handshake())
		tr := &rawClient{t: t, c: tc, r: bufio.NewReader(tc)}
		require.True(t, strings.HasPrefix(tr.send("QUIT\r\n"), "221"))
		tc.Close()
	}
	calls, logs := rec.get()
	assert.Empty(t, calls)
	assert.Empty(t, logs, "nothing of a message arrived")
}

// TestBDATResetWaits pins what TestBDATAbandoned sees only when go-smtp's
// goroutine is slow: Reset (for RSET) and Logout (for QUIT) return only
// once the abandoned message's Data has, here after a Deliver that takes
// 100 ms to give up. Without the wait, the RSET was answered, and the
// connection closed after QUIT, before Data logged its outcome
// (TestBDATAbandoned passed 29 times in 30 with Reset and Logout waiting
// for nothing).
func TestBDATResetWaits(t *testing.T) {
	for _, end := range []string{"RSET", "QUIT"} {
		t.Run(end, func(t *testing.T) {
			rec := &recorder{}
			slow := func(from string, to []string, msg io.Reader) error {
				err := rec.deliver(from, to, msg)
				time.Sleep(100 * time.Millisecond)
				return err
			}
			addr := serve(t, &Backend{Deliver: slow, Logf: rec.logf, Now: clock})
			rc := dialRaw(t, addr)
			for _, l := range []string{"EHLO client.example", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"} {
				require.True(t, strings.HasPrefix(rc.send(l+"\r\n"), "250"), l)
			}
			require.True(t, strings.HasPrefix(rc.send("BDAT 20\r\nSubject: a\r\n\r\nbody\r\n"), "250"))
			rc.send(end + "\r\n")
			if end == "QUIT" {
				_, err := rc.r.ReadByte() // go-smtp closes the connection after Logout
				require.ErrorIs(t, err, io.EOF)
			}
			_, logs := rec.get()
			assert.Equal(t, []string{"message from a@example.com: not delivered: the client abandoned the message (RSET, EHLO, STARTTLS or a closed connection)"}, logs)
		})
	}
}

// TestMessageSizeBoundary: the server's MaxMessageBytes (the gateway's
// -max-message-bytes, which EHLO advertises as SIZE) is the most octets
// a message sent with BDAT may have; sent with DATA it must have fewer:
// go-smtp v0.25.1's DATA reader fails the read after the limit's last
// octet, before it can see the end of data line. Should go-smtp take a
// message of exactly the limit with DATA, as RFC 1870 has it, this test
// fails: then say so in docs/mail.md and in the flag's usage.
func TestMessageSizeBoundary(t *testing.T) {
	const limit = 100
	addr := serve(t, &Backend{Deliver: WriterDeliver(io.Discard)}, func(s *smtp.Server) { s.MaxMessageBytes = limit })
	for _, tt := range []struct {
		cmd    string
		octets int
		want   string
	}{
		{"DATA", limit - 1, "250 "},
		{"DATA", limit, "552 5.3.4 "},
		{"BDAT", limit, "250 "},
		{"BDAT", limit + 1, "552 5.3.4 "},
	} {
		t.Run(fmt.Sprintf("%s, %d octets", tt.cmd, tt.octets), func(t *testing.T) {
			msg := "Subject: x\r\n\r\n"
			msg += strings.Repeat("a", tt.octets-len(msg)-2) + "\r\n"
			require.Len(t, msg, tt.octets)
			rc := dialRaw(t, addr)
			for _, l := range []string{"EHLO client.example", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"} {
				require.True(t, strings.HasPrefix(rc.send(l+"\r\n"), "250"), l)
			}
			var got string
			if tt.cmd == "DATA" {
				require.True(t, strings.HasPrefix(rc.send("DATA\r\n"), "354"))
				got = rc.send(msg + ".\r\n")
			} else {
				got = rc.send(fmt.Sprintf("BDAT %d LAST\r\n", len(msg)) + msg)
			}
			assert.True(t, strings.HasPrefix(got, tt.want), "%q", got)
		})
	}
}
