package relay

import (
	"os"
	"strings"
	"testing"

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
