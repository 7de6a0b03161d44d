package relay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/emersion/go-message/textproto"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzCountHops holds countHops, which reads what an SMTP client sends, to
// its contract on any input:
//   - the message it gives back is the input, octet for octet, however the
//     input arrives;
//   - it counts at most limit Received fields, and within that the number
//     a MIME reader (go-message's textproto) finds in a header that ends
//     within maxBytes;
//   - a Received field put before a message it does not refuse (with the
//     empty line that countHops asks for when the message starts with a
//     continuation line) adds that one field and changes nothing else: the
//     message's own fields stay as they were, and no line of its body
//     becomes a field.
func FuzzCountHops(f *testing.F) {
	for _, s := range []string{
		withReceived(3),
		"Received: a\nReceived: b\n\nReceived: c\n",
		" x\r\nReceived: a\r\n\r\nhi\r\n",
		"\tby trusted.example\r\nBcc: c@example.org\r\n\r\nhi\r\n",
		"Received : a\r\n received: b\r\n\tcontinued\r\n\r\n",
		"X: 1\r\nno colon here\r\nReceived: a\r\n\r\n",
		":x\r\nReceived: a\r\n\r\n",
		"Received: a",
		"",
	} {
		f.Add(s, uint16(100), false)
	}
	const trace = "Received: from a.example by b.example with SMTP;\r\n\tFri, 02 Jan 2026 03:04:05 +0000\r\n"
	f.Fuzz(func(t *testing.T, msg string, limit uint16, oneByte bool) {
		const maxBytes = 1 << 10
		limit = max(limit, 1) // Backend.maxHops is never 0
		var src io.Reader = strings.NewReader(msg)
		if oneByte {
			src = iotest.OneByteReader(src)
		}
		hops, continued, r := countHops(src, maxBytes, int(limit))
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		require.True(t, string(got) == msg, "the message given back differs")
		require.LessOrEqual(t, hops, int(limit))
		if continued {
			require.True(t, msg[0] == ' ' || msg[0] == '\t', "continued, but %q", msg)
		}

		h, body, ok := readHeader(msg)
		if !ok || len(msg)-len(body) > maxBytes {
			return
		}
		assert.Equal(t, min(len(h.Values("Received")), int(limit)), hops, "Received fields")
		if hops == int(limit) {
			return // refused: nothing is put before it
		}

		sep := ""
		if continued {
			sep = "\r\n"
		}
		h2, body2, ok := readHeader(trace + sep + msg)
		require.True(t, ok, "with a Received field on top, the header no longer reads")
		assert.Equal(t, body, body2, "the body")
		fields := h2.Fields()
		require.True(t, fields.Next())
		assert.Equal(t, "Received", fields.Key())
		want := h.Fields()
		for want.Next() {
			require.True(t, fields.Next(), "field %s lost", want.Key())
			raw, _ := fields.Raw()
			wantRaw, _ := want.Raw()
			assert.Equal(t, string(wantRaw), string(raw))
		}
		assert.False(t, fields.Next(), "a field more")
	})
}

// readHeader reads the header of msg with go-message, and returns it and
// the body after it if it reads without error and ends with an empty
// line, or is a message that starts with a continuation line: as mailhdr
// reads one, it has no header and is all body. A header with a line
// that starts with a colon does not count: go-message skips the line and
// reads on, where mailhdr, and countHops, end the header there.
func readHeader(msg string) (textproto.Header, string, bool) {
	if msg != "" && (msg[0] == ' ' || msg[0] == '\t') {
		return textproto.Header{}, msg, true
	}
	br := bufio.NewReader(strings.NewReader(msg))
	h, err := textproto.ReadHeader(br)
	if err != nil {
		return h, "", false
	}
	var rest bytes.Buffer
	_, _ = rest.ReadFrom(br)
	head := msg[:len(msg)-rest.Len()]
	if strings.HasPrefix(head, ":") || strings.Contains(head, "\n:") {
		return h, "", false
	}
	return h, rest.String(), true
}

// FuzzReceived holds the Received field to its contract whatever the
// client sends as HELO name and recipient: one well-formed field, folded
// within 78 columns, printable ASCII and the folds only, that net/mail
// reads as one field; the client's words appear only whole, each in its
// own clause, or not at all.
func FuzzReceived(f *testing.F) {
	for _, s := range [][2]string{
		{"mail.example.com", "b@example.net"},
		{"[192.0.2.1]", "b@[192.0.2.2]"},
		{"[IPv6:2001:db8::1]", "b@[IPv6:2001:db8::2]"},
		{"evil\rX-Injected: yes", "b@exam\r\nple.net"},
		{strings.Repeat("a", 63) + ".example", `"b; x"@example.net`},
		{"", ""},
	} {
		f.Add(s[0], s[1], "mx.example", uint8(0))
	}
	tcps := []string{"", "[127.0.0.1]", "[IPv6:2001:db8::ffff:1]"}
	protocols := []string{"SMTP", "ESMTP", "ESMTPS", "LMTP"}
	f.Fuzz(func(t *testing.T, helo, rcpt, by string, choice uint8) {
		tcp, protocol := tcps[int(choice)%len(tcps)], protocols[int(choice/4)%len(protocols)]
		to := []string{rcpt}
		if choice&0x80 != 0 {
			to = append(to, "c@example.net")
		}
		field := receivedField(helo, tcp, by, protocol, to, clock())
		for i := 0; i < len(field); i++ {
			c := field[i]
			if c < ' ' || c > '~' {
				require.True(t, c == '\t' && i >= 2 && field[i-2:i] == "\r\n" ||
					c == '\r' && i+1 < len(field) && field[i+1] == '\n' ||
					c == '\n' && field[i-1] == '\r', "octet 0x%02X at %d of %q", c, i, field)
			}
		}
		clauses, rest := checkReceived(t, field+msg)
		assert.Equal(t, msg, rest)
		from, _, _ := strings.Cut(clauses[0], " ")
		assert.Contains(t, []string{"unknown", helo}, from)
		assert.Contains(t, []string{"localhost", by}, clauses[1])
		assert.Equal(t, protocol, clauses[2])
		assert.Contains(t, []string{"", "<" + rcpt + ">"}, clauses[3])
		if len(to) > 1 {
			assert.Empty(t, clauses[3], "a for clause with two recipients")
		}
	})
}

// receivedPattern matches one Received field as the Backend writes it
// (RFC 5321 §4.4's Stamp: from, by, with, an optional for, then the date
// after a semicolon), folded with CRLF and a tab between any two words;
// it gives the from, by, with and for clauses and the date.
var receivedPattern = regexp.MustCompile(strings.ReplaceAll(`^Received:_from_([^ \r\n]+(?:_\(\[(?:IPv6:)?[0-9A-Fa-f.:]+\]\))?)`+
	`_by_([^ \r\n]+)_with_(E?SMTPS?|LMTP)`+
	`(?:_for_(<[^ \r\n>]+>))?;_`+
	`((?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4})\r\n`,
	"_", `(?:\r\n\t| )`)) // _ is a space or a fold

// checkReceived asserts that msg starts with one well-formed Received
// field, folded within 78 columns (a tab counted as 8), and returns its
// clauses: from, by, with, for (empty when there is none), and the rest
// of msg.
func checkReceived(t *testing.T, msg string) (clauses [4]string, rest string) {
	t.Helper()
	m := receivedPattern.FindStringSubmatch(msg)
	require.NotNil(t, m, "no Received field at the top of %q", msg)
	field := m[0]
	for i, line := range strings.Split(strings.TrimSuffix(field, "\r\n"), "\r\n") {
		if i > 0 {
			require.True(t, strings.HasPrefix(line, "\t"), "continuation line %q", line)
			line = strings.Repeat(" ", 8) + line[1:]
		}
		assert.LessOrEqual(t, len(line), 78, "line %q", line)
		assert.NotContains(t, line, "\r")
		assert.NotContains(t, line, "\n")
	}
	date, err := mail.ParseDate(m[5])
	require.NoError(t, err)
	assert.True(t, date.Equal(clock()), "date %v", date)
	// net/mail reads it as one field.
	parsed, err := mail.ReadMessage(strings.NewReader(msg))
	require.NoError(t, err)
	assert.Len(t, parsed.Header["Received"], 1)
	return [4]string{strings.Join(strings.Fields(m[1]), " "), m[2], m[3], m[4]}, msg[len(field):]
}

// TestReceived: the Backend puts one Received field at the top of each
// message, well-formed and folded, whatever the client said: a HELO name
// or recipient that is not a plain domain or address is left out, so a
// client cannot put CR, LF or anything else of its own into the header.
func TestReceived(t *testing.T) {
	long := strings.Repeat("a", 63)
	for _, tt := range []struct {
		name  string
		lines []string
		bdat  bool      // the message goes in two BDAT chunks, not DATA
		want  [4]string // from, by, with, for
	}{
		{"EHLO and a parameter", []string{"EHLO mail.example.com", "MAIL FROM:<a@example.com> BODY=8BITMIME", "RCPT TO:<b@example.net>"}, false,
			[4]string{"mail.example.com ([127.0.0.1])", "localhost", "ESMTP", "<b@example.net>"}},
		{"HELO", []string{"HELO mail.example.com", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, false,
			[4]string{"mail.example.com ([127.0.0.1])", "localhost", "SMTP", "<b@example.net>"}},
		// BDAT is a service extension (CHUNKING, RFC 3030) in itself, and
		// go-smtp offers it only after EHLO: no parameter is needed.
		{"EHLO and BDAT, no parameter", []string{"EHLO mail.example.com", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, true,
			[4]string{"mail.example.com ([127.0.0.1])", "localhost", "ESMTP", "<b@example.net>"}},
		{"an address literal", []string{"HELO [192.0.2.1]", "MAIL FROM:<a@example.com>", "RCPT TO:<b@[192.0.2.2]>"}, false,
			[4]string{"[192.0.2.1] ([127.0.0.1])", "localhost", "SMTP", "<b@[192.0.2.2]>"}},
		{"two recipients", []string{"EHLO mail.example.com", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>", "RCPT TO:<c@example.net>"}, false,
			[4]string{"mail.example.com ([127.0.0.1])", "localhost", "SMTP", ""}},
		{"a HELO name with a CR", []string{"HELO evil\rX-Injected: yes", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, false,
			[4]string{"unknown ([127.0.0.1])", "localhost", "SMTP", "<b@example.net>"}},
		{"a HELO name that is no domain", []string{"HELO bad_name;(x)", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, false,
			[4]string{"unknown ([127.0.0.1])", "localhost", "SMTP", "<b@example.net>"}},
		{"a HELO name too long for a line", []string{"HELO " + long + "." + long + ".example", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, false,
			[4]string{"unknown ([127.0.0.1])", "localhost", "SMTP", "<b@example.net>"}},
		{"a recipient too long for a line", []string{"HELO mail.example.com", "MAIL FROM:<a@example.com>", "RCPT TO:<" + long + "@" + long + ".example>"}, false,
			[4]string{"mail.example.com ([127.0.0.1])", "localhost", "SMTP", ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out servertest.SyncBuffer
			addr := serve(t, &Backend{Deliver: WriterDeliver(&out), Now: clock})
			var reply string
			if tt.bdat {
				rc := dialRaw(t, addr)
				for _, l := range tt.lines {
					require.True(t, strings.HasPrefix(rc.send(l+"\r\n"), "250"), l)
				}
				first, last := msg[:10], msg[10:]
				require.True(t, strings.HasPrefix(rc.send(fmt.Sprintf("BDAT %d\r\n", len(first))+first), "250"))
				reply = rc.send(fmt.Sprintf("BDAT %d LAST\r\n", len(last)) + last)
			} else {
				reply = rawSession(t, addr, tt.lines, msg)
			}
			require.True(t, strings.HasPrefix(reply, "250 "), reply)
			_, delivered, _ := strings.Cut(out.String(), "\n")
			clauses, rest := checkReceived(t, delivered)
			assert.Equal(t, tt.want, clauses)
			assert.Equal(t, rewritten, rest, "the message after the Received field is the rewritten one")
		})
	}
}

// TestRelayedReceived: a message relayed to the next hop (SMTPDeliver)
// reaches it with the gateway's Received field at the top, and the
// message, rewritten, after it.
func TestRelayedReceived(t *testing.T) {
	hop, accepted := quitDroppingHop(t)
	addr := serve(t, &Backend{Deliver: SMTPDeliver(hop, ""), Now: clock})
	require.NoError(t, send(t, addr, []string{"b@example.net"}))
	got := <-accepted
	clauses, rest := checkReceived(t, got)
	assert.Equal(t, [4]string{"localhost ([127.0.0.1])", "localhost", "ESMTP", "<b@example.net>"}, clauses)
	assert.Equal(t, rewritten, rest)
	assert.Equal(t, received+rewritten, got)
}

// withReceived returns msg after n Received fields.
func withReceived(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Received: from hop%d.example ([192.0.2.%d])\r\n\tby hop%d.example with ESMTP; Fri, 02 Jan 2026 03:04:05 +0000\r\n", i, i%250, i+1)
	}
	return b.String() + msg
}

// TestHopLimit: a message that arrives with MaxHops Received fields or
// more (DefaultMaxHops, 100, unless set) is refused with 554 5.4.6, a
// permanent failure, so that the sender does not send it again, and
// nothing of it is delivered; one with fewer is delivered.
func TestHopLimit(t *testing.T) {
	for _, tt := range []struct {
		name    string
		maxHops int
		msg     string
		refused bool
	}{
		{"the default limit", 0, withReceived(DefaultMaxHops), true},
		{"one below the default limit", 0, withReceived(DefaultMaxHops - 1), false},
		{"a limit set", 3, withReceived(3), true},
		{"one below a limit set", 3, withReceived(2), false},
		{"counted throughout the header, in any case", 3,
			"Received: from a\r\n\tby b; Fri, 02 Jan 2026 03:04:05 +0000\r\nSubject: x\r\nRECEIVED : from c by d; Fri, 02 Jan 2026 03:04:05 +0000\r\n" +
				"X-Other: y\r\nreceived:from e by f; Fri, 02 Jan 2026 03:04:05 +0000\r\n\r\nhi\r\n", true},
		{"not in the body", 3, "Subject: x\r\n\r\nReceived: a\r\nReceived: b\r\nReceived: c\r\n", false},
		{"nor in a continuation line", 3, "Subject: x\r\n Received: a\r\nX: y\r\n\tReceived: b\r\nReceived: c\r\n\r\nhi\r\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var delivered []string
			var logged []string
			addr := serve(t, &Backend{
				MaxHops: tt.maxHops,
				Deliver: func(_ string, _ []string, r io.Reader) error {
					b, err := io.ReadAll(r)
					delivered = append(delivered, string(b))
					return err
				},
				Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
				Now:  clock,
			})
			c, err := smtp.Dial(addr)
			require.NoError(t, err)
			defer c.Close()
			err = c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(tt.msg))
			if !tt.refused {
				require.NoError(t, err)
				require.Len(t, delivered, 1)
				want := received + strings.Replace(tt.msg, msg, rewritten, 1)
				assert.True(t, want == delivered[0], "delivered with one Received field more: %q", delivered[0])
				return
			}
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 554, se.Code)
			assert.Equal(t, smtp.EnhancedCode{5, 4, 6}, se.EnhancedCode, "routing loop detected (RFC 3463)")
			assert.False(t, se.Temporary())
			assert.Empty(t, delivered, "nothing delivered")
			require.Len(t, logged, 1)
			assert.Contains(t, logged[0], "routing loop")
			// The session goes on: the next message is taken.
			require.NoError(t, c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)))
			assert.Len(t, delivered, 1)
		})
	}
}

// countingReader counts the octets read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestCountHopsBounded: counting Received fields reads at most
// MaxTraceBytes of the header (and a buffer's worth more) before the
// message is delivered, however long the header or its lines, and stops
// at the limit; the message it gives back is the message read, octet for
// octet.
func TestCountHopsBounded(t *testing.T) {
	for _, tt := range []struct {
		name     string
		msg      string
		limit    int
		wantHops int
	}{
		{"a long header", strings.Repeat("X-Filler: 0123456789\r\n", 100_000) + "Received: x\r\n\r\nhi\r\n", 100, 0},
		{"one long line", "Received: " + strings.Repeat("x", 10<<20) + "\r\n\r\nhi\r\n", 100, 1},
		{"no line ending", strings.Repeat("x", 10<<20), 100, 0},
		{"many Received fields", strings.Repeat("Received: x\r\n", 100_000) + "\r\nhi\r\n", 100, 100},
		{"a short message", withReceived(3), 100, 3},
		{"LF line endings", "Received: a\nReceived: b\n\nReceived: c\n", 100, 2},
		// mailhdr ends the header at a continuation line with no field
		// before it: what follows is the body.
		{"a first line that is a continuation", " x\r\nReceived: a\r\nReceived: b\r\n\r\nhi\r\n", 100, 0},
		{"a first line that is a continuation, LF", "\tx\nReceived: a\n\nhi\n", 100, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &countingReader{r: strings.NewReader(tt.msg)}
			hops, _, r := countHops(src, MaxTraceBytes, tt.limit)
			assert.Equal(t, tt.wantHops, hops)
			assert.LessOrEqual(t, src.n, MaxTraceBytes+4096, "read before delivery")
			all, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.True(t, string(all) == tt.msg, "the message given back differs")
		})
	}
	// A read error reaches the reader of the message, after what was read.
	boom := errors.New("connection reset")
	hops, _, r := countHops(io.MultiReader(strings.NewReader("Received: x\r\nSubj"), iotest.ErrReader(boom)), MaxTraceBytes, 100)
	assert.Equal(t, 1, hops)
	got, err := io.ReadAll(r)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, "Received: x\r\nSubj", string(got))
}

// TestReceivedBeforeContinuation: a message whose first line is a
// continuation has, as mailhdr reads it, no header: the body starts
// there. The gateway's Received field must not take that line as a
// continuation of its own, which would make the lines after it header
// fields for every hop after the gateway.
func TestReceivedBeforeContinuation(t *testing.T) {
	for _, m := range []string{
		"\tby trusted.example; Fri, 02 Jan 2026 03:04:05 +0000\r\nBcc: c@example.org\r\nContent-Type: text/html\r\n\r\nhi\r\n",
		" x\nContent-Type: text/html\n\nhi\n",
	} {
		delivered := relayOne(t, m)
		require.True(t, strings.HasPrefix(delivered, received), "%q", delivered)
		parsed, err := mail.ReadMessage(strings.NewReader(delivered))
		require.NoError(t, err)
		assert.Equal(t, mail.Header{"Received": {strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(received, "\r\n\t", " "), "Received: "), "\r\n")}}, parsed.Header,
			"only the gateway's Received field is a header field")
		body, err := io.ReadAll(parsed.Body)
		require.NoError(t, err)
		assert.Equal(t, strings.ReplaceAll(m, "\r\n", "\n"), strings.ReplaceAll(string(body), "\r\n", "\n"), "the message as it came is the body")
	}
}

// TestFromLineIsBody: a message whose first line is "From ..." has, once
// the Received field is on top, no other header field for the next hop:
// that line ends the header there. The rewrite reads it the same way, so
// it leaves the Content-Type line after it alone (mailhdr would take the
// line for an mbox envelope line at the very start of its input, and
// rewrite the field after it).
func TestFromLineIsBody(t *testing.T) {
	const m = "From a@example.com Fri Jan  2 03:04:05 2026\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n"
	assert.Equal(t, received+m, relayOne(t, m))
}

// relayOne sends m from a@example.com to b@example.net through a Backend
// that writes to a buffer, and returns the message as delivered (without
// the line WriterDeliver puts before it).
func relayOne(t *testing.T, m string) string {
	t.Helper()
	var out servertest.SyncBuffer
	addr := serve(t, &Backend{Deliver: WriterDeliver(&out), Now: clock})
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	require.NoError(t, c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(m)))
	c.Close()
	_, delivered, _ := strings.Cut(out.String(), "\n")
	return delivered
}

// The rest of a header line longer than countHops's buffer does not end
// the header: the Received fields after it are counted, and the message
// comes through whole.
func TestCountHopsAfterLongLine(t *testing.T) {
	m := "X-Long: " + strings.Repeat("a", 5000) + "\r\nReceived: a\r\nReceived: b\r\n\r\nhi\r\n"
	hops, _, r := countHops(strings.NewReader(m), MaxTraceBytes, 100)
	assert.Equal(t, 2, hops)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, m, string(got))
}

// A line whose name holds a control character is no field: it ends the
// header, and a Received line after it is body.
func TestFieldNameWithControl(t *testing.T) {
	_, ok := fieldName([]byte("X\x01Y: 1\r\n"))
	assert.False(t, ok)
	hops, _, _ := countHops(strings.NewReader("X\x01Y: 1\r\nReceived: a\r\n\r\nhi\r\n"), MaxTraceBytes, 100)
	assert.Zero(t, hops)
}

// An address literal given in HELO is written only beside the TCP
// address it came from.
func TestHeloLiteralNeedsTCP(t *testing.T) {
	f := receivedField("[192.0.2.1]", "", "localhost", "SMTP", nil, clock())
	assert.True(t, strings.HasPrefix(f, "Received: from unknown by localhost"), f)
}

// A line of exactly 78 columns is not folded (RFC 5322 §2.1.1).
func TestFoldAt78(t *testing.T) {
	w := strings.Repeat("a", 75)
	assert.Equal(t, "N: "+w+"\r\n", fold("N:", [][]string{{w}}))
	assert.Contains(t, fold("N:", [][]string{{w + "a"}}), "\r\n", "79 columns")
}

// A domain label may not start with a hyphen (RFC 5321 §4.1.2).
func TestHyphenLabel(t *testing.T) {
	assert.False(t, isDomain("-x.example"))
	s, err := (&Backend{}).NewSession(nil)
	require.NoError(t, err)
	var se *smtp.SMTPError
	require.ErrorAs(t, s.Mail("a@-x.example", nil), &se)
	assert.Equal(t, 553, se.Code)
}

// TestAddressLiteral: the TCP peer in a Received field's from clause is an
// RFC 5321 address literal: IPv4 bare, IPv6 tagged "IPv6:", an IPv4 peer
// on an IPv6 socket as IPv4, and never a zone, which the literal has no
// room for; another kind of address gives none.
func TestAddressLiteral(t *testing.T) {
	for _, tt := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IP{192, 0, 2, 1}, Port: 25}, "[192.0.2.1]"}, // 4 octets, as an IPv4 socket gives
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 25}, "[IPv6:2001:db8::1]"},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.1")}, "[192.0.2.1]"},
		{&net.TCPAddr{IP: net.ParseIP("fe80::1"), Zone: "eth0"}, "[IPv6:fe80::1]"},
		{&net.TCPAddr{}, ""},
		{&net.UnixAddr{Name: "/run/smtp.sock", Net: "unix"}, ""},
	} {
		got := addressLiteral(tt.addr)
		assert.Equal(t, tt.want, got, "%v", tt.addr)
		if got != "" {
			assert.True(t, isAddressLiteral(got), "%q is not read back as an address literal", got)
		}
	}
}

// TestAppendCappedStaysUnderLimit: the header countHops holds grows to
// MaxTraceBytes and one line of its reader, not to twice that (a
// bytes.Buffer grew to 512 KiB for a header of 256 KiB), and keeps every
// octet appended.
func TestAppendCappedStaysUnderLimit(t *testing.T) {
	const limit = MaxTraceBytes + 4096
	line := []byte(strings.Repeat("x", 77) + "\r\n")
	var b []byte
	var want bytes.Buffer
	for len(b) < MaxTraceBytes {
		b = appendCapped(b, line, limit)
		want.Write(line)
		require.LessOrEqual(t, cap(b), limit, "capacity at %d octets", len(b))
	}
	assert.Equal(t, want.Bytes(), b)
	long := appendCapped(b, make([]byte, 4000), limit)
	assert.Len(t, long, len(b)+4000, "a last line up to the reader's size fits")
	assert.LessOrEqual(t, cap(long), limit)
}
