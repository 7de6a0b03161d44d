package relay

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/emersion/go-message/textproto"
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
