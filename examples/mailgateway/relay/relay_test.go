package relay

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const msg = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n"
const rewritten = "Subject: x\r\nContent-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n\r\nhi\r\n"

func serve(t *testing.T, be *Backend) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

func send(t *testing.T, addr string, to []string) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	return c.SendMail("a@example.com", to, strings.NewReader(msg))
}

func TestDirDeliver(t *testing.T) {
	dir := t.TempDir()
	addr := serve(t, &Backend{Deliver: DirDeliver(dir)})
	require.NoError(t, send(t, addr, []string{"b@example.net"}))
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, rewritten, string(b))
	left, _ := filepath.Glob(filepath.Join(dir, ".incoming-*"))
	assert.Empty(t, left)
}

func TestWriterDeliverAndLog(t *testing.T) {
	var out bytes.Buffer
	var logged []string
	addr := serve(t, &Backend{
		Options: mailhdr.Options{To: mailhdr.Canonical},
		Deliver: WriterDeliver(&out),
		Logf:    func(f string, a ...any) { logged = append(logged, f) },
	})
	require.NoError(t, send(t, addr, []string{"b@example.net", "c@example.net"}))
	assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\" \"c@example.net\"]\n"+
		strings.Replace(msg, "charset=us-ascii", `charset="us-ascii"`, 1), out.String())
	assert.Empty(t, logged)
}

// TestDeliverReadingPart: a Deliver that stops reading early still lets
// the SMTP exchange finish.
func TestDeliverReadingPart(t *testing.T) {
	var head []byte
	addr := serve(t, &Backend{Deliver: func(_ string, _ []string, r io.Reader) error {
		head = make([]byte, 4)
		_, err := io.ReadFull(r, head)
		return err
	}})
	require.NoError(t, send(t, addr, []string{"b@example.net"}))
	assert.Equal(t, "Subj", string(head))
}

func TestSMTPDeliverFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	l.Close()
	addr := serve(t, &Backend{Deliver: SMTPDeliver(dead)})
	err = send(t, addr, []string{"b@example.net"})
	require.Error(t, err)
	var se *smtp.SMTPError
	require.ErrorAs(t, err, &se)
}
