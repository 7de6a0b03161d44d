package integration

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startSMTP serves be on a fresh port of 127.0.0.1 until the test ends.
func startSMTP(t *testing.T, be smtp.Backend) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	s.ReadTimeout = 10 * time.Second
	s.WriteTimeout = 10 * time.Second
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

// smtpForm is what a message looks like after an SMTP hop: every line
// ends in CRLF (the client writes bare LFs as CRLF) and the last line
// has its line ending.
func smtpForm(msg []byte) []byte {
	m := bytes.ReplaceAll(msg, []byte("\r\n"), []byte("\n"))
	m = bytes.ReplaceAll(m, []byte("\n"), []byte("\r\n"))
	if len(m) > 0 && !bytes.HasSuffix(m, []byte("\r\n")) {
		m = append(m, '\r', '\n')
	}
	return m
}

// TestMailSMTPHop sends messages through a real SMTP hop on 127.0.0.1:
// a client sends to the gateway (go-smtp server, relay.Backend rewriting
// to URI labels), which relays to a second go-smtp server; the message
// received there is rewritten back and compared with what was sent.
func TestMailSMTPHop(t *testing.T) {
	received := make(chan []byte, 1)
	sink := &relay.Backend{Deliver: func(_ string, _ []string, msg io.Reader) error {
		b, err := io.ReadAll(msg)
		received <- b
		return err
	}, Options: mailhdr.Options{To: mailhdr.ToURI}} // a no-op on URI labels
	sinkAddr := startSMTP(t, sink)
	gatewayAddr := startSMTP(t, &relay.Backend{
		Options: mailhdr.Options{To: mailhdr.ToURI},
		Deliver: relay.SMTPDeliver(sinkAddr, ""),
		Logf:    t.Logf,
	})

	msgs := mailCorpus(t)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 5 {
		msgs["generated-"+string(rune('a'+i))] = generateMessage(t, r)
	}
	// No header (mailhdr ends it at the first line), so all body: the
	// Received fields must not make its lines fields.
	msgs["continuation-first"] = []byte("\tx\r\nContent-Type: text/plain\r\n\r\nhi\r\n")
	for name, msg := range msgs {
		t.Run(name, func(t *testing.T) {
			c, err := smtp.Dial(gatewayAddr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SendMail("alice@example.com", []string{"bob@example.net"}, bytes.NewReader(msg)))
			require.NoError(t, c.Quit())

			var got []byte
			select {
			case got = <-received:
			case <-time.After(10 * time.Second):
				t.Fatal("no message reached the second server")
			}
			sent := smtpForm(msg)
			// Each of the two hops puts its Received field on top (the
			// first also an empty line after it when the message starts
			// with a continuation line, which would continue it).
			continued := len(sent) > 0 && (sent[0] == ' ' || sent[0] == '\t')
			got = stripReceived(t, got, 2, continued)
			// The gateway rewrites the message with its Received field
			// on top, as the next hop reads it (mbox.eml's first line,
			// "From ...", ends the header then).
			trace := "Received: x\r\n"
			if continued {
				trace += "\r\n"
			}
			wantURI, _ := mailRewrite(t, append([]byte(trace), sent...), mailhdr.ToURI)
			require.True(t, bytes.HasPrefix(wantURI, []byte(trace)))
			wantURI = wantURI[len(trace):]
			assert.Equal(t, string(wantURI), string(got), "the gateway rewrote as Rewrite does, below a Received field")
			checkRoundTrip(t, sent, goMessageReadable[name] || strings.HasPrefix(name, "generated-"))
			back, _ := mailRewrite(t, got, mailhdr.ToContentType)
			for _, d := range diffContentTypes(t, sent, back) {
				sameContentTypeOrURI(t, d)
			}
		})
	}
}

// stripReceived returns msg without the n Received fields the hops put at
// its top, failing t unless they are there, each a field of its own
// (continuation lines start with a tab) and every line CRLF-ended. With
// blank, the first hop also put an empty line after its field, the
// lowest; the later hops found a message that starts with a field.
func stripReceived(t *testing.T, msg []byte, n int, blank bool) []byte {
	t.Helper()
	for i := range n {
		require.True(t, bytes.HasPrefix(msg, []byte("Received: from ")), "Received field %d of %d: %.80q", i+1, n, msg)
		for {
			end := bytes.Index(msg, []byte("\r\n"))
			require.GreaterOrEqual(t, end, 0, "an unended Received field")
			require.NotContains(t, string(msg[:end]), "\n")
			msg = msg[end+2:]
			if len(msg) == 0 || msg[0] != '\t' {
				break
			}
		}
		if blank && i == n-1 {
			require.True(t, bytes.HasPrefix(msg, []byte("\r\n")), "an empty line after the Received field")
			msg = msg[2:]
		}
	}
	return msg
}
