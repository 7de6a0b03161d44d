package relay

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

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
	require.Equal(t, []string{"message from first@example.com: not delivered: the client abandoned the message (RSET, EHLO or a closed connection)"}, logs)

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
		"message from first@example.com: not delivered: the client abandoned the message (RSET, EHLO or a closed connection)",
		`message from second@example.com: delivered to ["c@example.net"]; Content-Type fields rewritten: 0`,
		"message from third@example.com: not delivered: the client abandoned the message (RSET, EHLO or a closed connection)",
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
