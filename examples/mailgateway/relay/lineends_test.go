package relay

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// messages with a CR or LF that is not part of a CRLF, which go-smtp's
// server takes as data. The first is "SMTP smuggling": a next hop that took
// a bare CR for a line end would read "<CR>.<CR>" as the end of the data
// and the lines after it as commands.
var bareLineEnds = []struct{ name, msg string }{
	// Far enough into the body that delivery has begun when it is seen.
	{"late smuggling", "Subject: hi\r\n\r\n" + strings.Repeat("a line of body\r\n", 1000) + "body\r.\rMAIL FROM:<ceo@bank.example>\r\n"},
	{"smuggling", "Subject: hi\r\n\r\nbody\r.\rMAIL FROM:<ceo@bank.example>\rRCPT TO:<victim@example.net>\rDATA\r\rSubject: smuggled\r\r.\r\nrest\r\n"},
	// (go-smtp's server does not see an end of data right after CR CR LF.)
	{"bare CR before CRLF", "Subject: hi\r\n\r\nbody\r\r\nmore\r\n"},
	{"bare LF", "Subject: hi\r\n\r\nline 1\nline 2\r\n"},
	{"bare LF dot", "Subject: hi\r\n\r\nbody\n.\nMAIL FROM:<ceo@bank.example>\r\n"},
	{"in the header", "Subject: hi\rX: y\r\n\r\nbody\r\n"},
}

// TestBareLineEnds: a message with a bare CR or LF is refused for good
// (554 5.6.0) whichever way it is handed on, and nothing of it after that
// octet reaches the next hop, a folder or standard output: one seen while
// the header is read is refused before anything is handed on, and a
// later one cuts the delivery short. The session goes on: a good message
// after it on the same connection is accepted.
func TestBareLineEnds(t *testing.T) {
	var mu sync.Mutex
	var atHop []string // what the next hop delivered
	hop := serve(t, &Backend{Now: clock, Deliver: func(_ string, _ []string, r io.Reader) error {
		b, err := io.ReadAll(r)
		if err == nil {
			mu.Lock()
			atHop = append(atHop, string(b))
			mu.Unlock()
		}
		return err
	}})
	for _, m := range bareLineEnds {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			for _, d := range []struct {
				name    string
				deliver Deliver
			}{
				{"standard output", WriterDeliver(&out)},
				{"a folder", DirDeliver(dir)},
				{"the next hop", SMTPDeliver(hop, "")},
			} {
				var logged []string
				addr := serve(t, &Backend{Now: clock, Deliver: d.deliver, Logf: func(f string, a ...any) {
					logged = append(logged, f)
				}})
				rc := dialRaw(t, addr)
				for _, l := range []string{"EHLO localhost", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>", "DATA"} {
					rc.send(l + "\r\n")
				}
				reply := rc.send(m.msg + ".\r\n")
				assert.True(t, strings.HasPrefix(reply, "554 5.6.0 "), "%s: %s", d.name, reply)
				assert.Equal(t, []string{"message from %s: refused: %s"}, logged, d.name)
				for _, l := range []string{"MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>", "DATA"} {
					rc.send(l + "\r\n")
				}
				reply = rc.send(msg + ".\r\n")
				assert.True(t, strings.HasPrefix(reply, "250 "), "%s, the next message: %s", d.name, reply)
			}
			if strings.HasPrefix(m.name, "late") {
				assert.Contains(t, out.String(), "a line of body")
				assert.Contains(t, out.String(), "not accepted")
			} else {
				assert.Equal(t, 1, strings.Count(out.String(), "=== message from"), "only the good message")
			}
			assert.NotContains(t, out.String(), "MAIL FROM:<ceo")
			assert.NotContains(t, out.String(), "X: y")
			files, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, files, 1, "a folder gets the good message only, and no temporary file")
		})
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, atHop, len(bareLineEnds), "the next hop delivered the good messages only")
	for _, m := range atHop {
		assert.True(t, strings.HasSuffix(m, rewritten), "%q", m)
		assert.NotContains(t, m, "ceo@bank")
	}
}

// TestClientReader holds clientReader to its rule, read whole, octet by
// octet (a CR at the end of one read and its LF at the start of the
// next), and with the last data and io.EOF from one read, as go-smtp's
// reader gives them: CRLF passes, a bare CR or LF stops the message before
// the octet that shows it, and the error stays.
func TestClientReader(t *testing.T) {
	for _, tt := range []struct {
		in, before string // before: what is handed on before the error
		bare       bool
	}{
		{"a\r\nb\r\n", "a\r\nb\r\n", false},
		{"\r\n\r\n", "\r\n\r\n", false},
		{"", "", false},
		{"a\rb\r\n", "a\r", true},
		{"a\nb\r\n", "a", true},
		{"\n", "", true},
		{"a\r\r\n", "a\r", true},
		{"a\r", "a\r", true}, // the data ends after a CR
		{"a\r\n\n", "a\r\n", true},
	} {
		for _, read := range readers {
			c := &clientReader{r: read.wrap(strings.NewReader(tt.in))}
			got, err := io.ReadAll(c)
			assert.Equal(t, tt.before, string(got), "%q (%s)", tt.in, read.name)
			if !tt.bare {
				assert.NoError(t, err, "%q", tt.in)
				continue
			}
			assert.Equal(t, bareLineEnd, err, "%q", tt.in)
			n, err := c.Read(make([]byte, 8))
			assert.Zero(t, n)
			assert.Equal(t, bareLineEnd, err, "%q: the error stays", tt.in)
		}
	}
}

// FuzzClientReader holds clientReader, on any message read in any chunks,
// to an independent statement of its rule: it hands on the message up to
// its first CR or LF that is not part of a CRLF, and fails there with
// bareLineEnd; a message without one comes through whole.
func FuzzClientReader(f *testing.F) {
	for _, m := range bareLineEnds {
		f.Add(m.msg, uint8(0), false)
	}
	f.Add("Subject: hi\r\n\r\nbody\r\n", uint8(1), true)
	f.Add("a\r", uint8(3), true)
	f.Fuzz(func(t *testing.T, msg string, chunk uint8, dataErr bool) {
		var r io.Reader = strings.NewReader(msg)
		if chunk > 0 {
			r = iotest.HalfReader(&chunkReader{r: r, n: int(chunk)})
		}
		if dataErr {
			r = iotest.DataErrReader(r)
		}
		got, err := io.ReadAll(&clientReader{r: r})
		// want: the longest prefix in which every CR is followed by an
		// LF and every LF follows a CR, ending after a CRLF or a CR that
		// the next octet shows to be bare.
		bare := -1 // the index of the octet that shows a bare CR or LF
		for i := 0; i < len(msg) && bare < 0; i++ {
			switch {
			case msg[i] == '\r' && (i+1 == len(msg) || msg[i+1] != '\n'):
				bare = i + 1
			case msg[i] == '\n' && (i == 0 || msg[i-1] != '\r'):
				bare = i
			}
		}
		if bare < 0 {
			require.NoError(t, err)
			require.Equal(t, msg, string(got))
			return
		}
		require.Equal(t, bareLineEnd, err)
		require.Equal(t, msg[:bare], string(got))
	})
}

// readers are the ways TestClientReader reads a message.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"one octet at a time", iotest.OneByteReader},
	{"the last data with io.EOF", iotest.DataErrReader},
	{"one octet at a time, the last with io.EOF", func(r io.Reader) io.Reader { return iotest.DataErrReader(iotest.OneByteReader(r)) }},
}

// chunkReader reads at most n octets at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}
