package relay

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listingWriter lists the folder dir at its first Write, then takes every
// write into got.
type listingWriter struct {
	dir     string
	listed  bool
	entries []os.DirEntry
	err     error
	got     strings.Builder
}

func (w *listingWriter) Write(p []byte) (int, error) {
	if !w.listed {
		w.listed = true
		w.entries, w.err = os.ReadDir(w.dir)
	}
	return w.got.Write(p)
}

// TestWriterDeliverSpoolHasNoName: while WriterDeliver writes a message
// out, its spool file has no name in the temporary folder, so that a
// process killed then (by SIGPIPE, when nobody reads its standard output
// any more) leaves no file behind.
func TestWriterDeliverSpoolHasNoName(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	w := &listingWriter{dir: tmp}
	msg := "Content-Type: text/plain\r\n\r\nhello\r\n"
	require.NoError(t, WriterDeliver(w)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)))
	require.True(t, w.listed, "WriterDeliver wrote nothing")
	require.NoError(t, w.err)
	assert.Empty(t, w.entries, "files in the temporary folder while the message is written")
	assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\"]\n"+msg, w.got.String())
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "files in the temporary folder after")
}

// stallingHop is a next hop that answers up to DATA, then reads nothing
// of the message until release is closed (refusingHop's session, with a
// Data of its own).
type stallingHop struct {
	refusingHop
	release <-chan struct{}
}

func (h stallingHop) NewSession(*smtp.Conn) (smtp.Session, error) { return h, nil }
func (h stallingHop) Data(io.Reader) error {
	<-h.release
	return nil
}

// endlessBody is a message of a header and then lines without end.
type endlessBody struct{ header string }

func (b *endlessBody) Read(p []byte) (int, error) {
	n := copy(p, b.header)
	b.header = b.header[n:]
	const line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\r\n"
	for n < len(p) {
		n += copy(p[n:], line)
	}
	return n, nil
}

// TestSMTPDeliverHopStopsReading: a next hop that stops reading the
// message fails the delivery once a write to it has waited for
// dataBlockTimeout, instead of holding the session for good (the
// loopback's buffers fill after some megabytes).
func TestSMTPDeliverHopStopsReading(t *testing.T) {
	defer func(d time.Duration) { dataBlockTimeout = d }(dataBlockTimeout)
	dataBlockTimeout = 200 * time.Millisecond
	release := make(chan struct{})
	hop := serve(t, stallingHop{release: release})
	t.Cleanup(func() { close(release) }) // before serve's Close

	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- SMTPDeliver(hop, "")("a@example.com", []string{"b@example.net"}, &endlessBody{header: "Content-Type: text/plain\r\n\r\n"})
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
		t.Logf("failed after %v: %v", time.Since(start), err)
	case <-time.After(20 * time.Second):
		t.Fatal("SMTPDeliver still writing to a hop that stopped reading, after 20 s")
	}
}
