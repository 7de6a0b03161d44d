package relay

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockingWriter signals on started at its first Write, and takes the
// write only once release is closed.
type blockingWriter struct {
	started, release chan struct{}
	got              strings.Builder
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	if w.got.Len() == 0 {
		close(w.started)
		<-w.release
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
	w := &blockingWriter{started: make(chan struct{}), release: make(chan struct{})}
	msg := "Content-Type: text/plain\r\n\r\nhello\r\n"
	done := make(chan error, 1)
	go func() { done <- WriterDeliver(w)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)) }()

	<-w.started
	entries, err := os.ReadDir(tmp)
	close(w.release)
	require.NoError(t, <-done)
	require.NoError(t, err)
	assert.Empty(t, entries, "files in the temporary folder while the message is written")
	assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\"]\n"+msg, w.got.String())
	entries, err = os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "files in the temporary folder after")
}
