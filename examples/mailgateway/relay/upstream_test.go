package relay

import (
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDotLinesReachTheNextHop sends, dot-stuffed on the wire (RFC 5321
// §4.5.2), messages whose lines SMTP implementations have got wrong, and
// checks that the next hop, behind the gateway's go-smtp server and
// client, delivers each as it was written, with the gateway's Received
// field before it and its Content-Type field rewritten:
//   - a line of one dot, and lines that start with dots, in the body, which
//     a client that does not stuff them ends the data at, or cuts
//     (eventmachine/eventmachine#600);
//   - a first line that starts with a dot, which a reader or writer that
//     does not count the start of the data as the start of a line leaves
//     stuffed or unstuffed (greenmail-mail-test/greenmail#1004,
//     apache/commons-net#398);
//   - a message that ends with an empty line, so that its data ends
//     CRLF CRLF "." CRLF, on which go-smtp's reader once hung
//     (emersion/go-smtp#250).
func TestDotLinesReachTheNextHop(t *testing.T) {
	var mu sync.Mutex
	var atHop []string
	hop := serve(t, &Backend{Now: clock, Deliver: func(_ string, _ []string, r io.Reader) error {
		b, err := io.ReadAll(r)
		mu.Lock()
		atHop = append(atHop, string(b))
		mu.Unlock()
		return err
	}})
	gateway := serve(t, &Backend{Now: clock, Deliver: SMTPDeliver(hop, "")})
	stuff := func(msg string) string {
		lines := strings.SplitAfter(msg, "\r\n")
		for i, l := range lines {
			if strings.HasPrefix(l, ".") {
				lines[i] = "." + l
			}
		}
		return strings.Join(lines, "")
	}
	const ct = "Content-Type: text/plain; charset=us-ascii\r\n"
	const mapped = "Content-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n"
	for _, tt := range []struct{ name, msg, want string }{
		{"dot lines in the body",
			"Subject: x\r\n" + ct + "\r\nline\r\n.\r\n..\r\n.MAIL FROM:<x@example.com>\r\nlast\r\n",
			"Subject: x\r\n" + mapped + "\r\nline\r\n.\r\n..\r\n.MAIL FROM:<x@example.com>\r\nlast\r\n"},
		{"a first line that starts with a dot",
			".x\r\n\r\nbody\r\n",
			".x\r\n\r\nbody\r\n"},
		{"a last line that is empty",
			ct + "\r\nbody\r\n\r\n",
			mapped + "\r\nbody\r\n\r\n"},
		{"a header and no body",
			ct + "\r\n",
			mapped + "\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			atHop = nil
			mu.Unlock()
			reply := rawSession(t, gateway, []string{"EHLO localhost", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, stuff(tt.msg))
			require.True(t, strings.HasPrefix(reply, "250 "), reply)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, atHop, 1)
			hopReceived, rest, ok := strings.Cut(atHop[0], "\r\n\tfor <b@example.net>; ")
			require.True(t, ok, "%q", atHop[0])
			assert.True(t, strings.HasPrefix(hopReceived, "Received: "), "the hop's own Received field: %q", hopReceived)
			_, rest, ok = strings.Cut(rest, "\r\n")
			require.True(t, ok)
			// The gateway's field, "with SMTP": no service extension was used.
			assert.Equal(t, strings.Replace(received, "ESMTP", "SMTP", 1)+tt.want, rest)
		})
	}
}
