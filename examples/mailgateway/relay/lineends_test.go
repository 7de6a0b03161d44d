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
	{"smuggling", "Subject: hi\r\n\r\nbody\r.\rMAIL FROM:<ceo@bank.example>\rRCPT TO:<victim@example.net>\rDATA\r\rSubject: smuggled\r\r.\r\nrest\r\n"},
	// (go-smtp's server does not see an end of data right after CR CR LF.)
	{"bare CR before CRLF", "Subject: hi\r\n\r\nbody\r\r\nmore\r\n"},
	{"bare LF", "Subject: hi\r\n\r\nline 1\nline 2\r\n"},
	{"bare LF dot", "Subject: hi\r\n\r\nbody\n.\nMAIL FROM:<ceo@bank.example>\r\n"},
	{"in the header", "Subject: hi\rX: y\r\n\r\nbody\r\n"},
}

// TestBareLineEnds: a message with a bare CR or LF is refused for good
// (554 5.6.0) whichever way it is handed on, and nothing of it after that
// octet reaches the next hop, a folder or standard output.
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
				{"the next hop", SMTPDeliver(hop)},
			} {
				var logged []string
				addr := serve(t, &Backend{Now: clock, Deliver: d.deliver, Logf: func(f string, a ...any) {
					logged = append(logged, f)
				}})
				reply := rawSession(t, addr, []string{"EHLO localhost", "MAIL FROM:<a@example.com>", "RCPT TO:<b@example.net>"}, m.msg)
				assert.True(t, strings.HasPrefix(reply, "554 5.6.0 "), "%s: %s", d.name, reply)
				assert.NotEmpty(t, logged, d.name)
			}
			assert.Contains(t, out.String(), "not accepted")
			assert.NotContains(t, out.String(), "MAIL FROM:<ceo")
			assert.NotContains(t, out.String(), "X: y")
			files, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, files, "a folder gets no file, not even a temporary one")
		})
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, atHop, "the next hop delivered nothing")
}

// TestClientReader holds clientReader to its rule octet by octet, with a
// CR at the end of one read and its LF at the start of the next: CRLF
// passes, a bare CR or LF stops the message before the octet that shows
// it, and the error stays.
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
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			c := &clientReader{r: r}
			got, err := io.ReadAll(c)
			assert.Equal(t, tt.before, string(got), "%q (one byte at a time: %v)", tt.in, oneByte)
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
		f.Add(m.msg, uint8(0))
	}
	f.Add("Subject: hi\r\n\r\nbody\r\n", uint8(1))
	f.Add("a\r", uint8(3))
	f.Fuzz(func(t *testing.T, msg string, chunk uint8) {
		var r io.Reader = strings.NewReader(msg)
		if chunk > 0 {
			r = iotest.HalfReader(&chunkReader{r: r, n: int(chunk)})
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

// chunkReader reads at most n octets at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}
