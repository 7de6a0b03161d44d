package relay

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drainServer starts a server for a Backend that writes what it delivers
// into the returned buffer, and returns its address, the Backend and a
// function that drains it and shuts the server down, asserting that the
// shutdown, which waits for every session to close, ends within wait.
func drainServer(t *testing.T) (addr string, be *Backend, delivered *servertest.SyncBuffer, shutdown func(wait time.Duration)) {
	t.Helper()
	delivered = &servertest.SyncBuffer{}
	be = &Backend{Deliver: WriterDeliver(delivered), Now: clock}
	var srv *smtp.Server
	addr = serve(t, be, func(s *smtp.Server) { srv = s })
	return addr, be, delivered, func(wait time.Duration) {
		t.Helper()
		be.Drain()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		assert.NoError(t, srv.Shutdown(ctx), "sessions still open after %v", wait)
	}
}

// requireCode asserts that err is an SMTP reply with code and enhanced
// code enh.
func requireCode(t *testing.T, err error, code int, enh smtp.EnhancedCode) {
	t.Helper()
	se, ok := errors.AsType[*smtp.SMTPError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, code, se.Code, "%v", err)
	assert.Equal(t, enh, se.EnhancedCode, "%v", err)
}

// A session with no message under way is ended at once: its next command
// is answered 421 4.4.2 and the shutdown does not wait for it. (A session
// whose message has just been accepted may still be in it: go-smtp calls
// Reset after it has answered the DATA, and the client may be told first.
// TestDrainAfterMessage has that case.)
func TestDrainEndsIdleSession(t *testing.T) {
	addr, _, _, shutdown := drainServer(t)
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Hello("localhost"))

	shutdown(time.Second)
	requireCode(t, c.Noop(), 421, smtp.EnhancedCode{4, 4, 2})
}

// A message under way when Drain is called is finished and delivered; the
// client's QUIT right after it is answered as usual.
func TestDrainFinishesMessage(t *testing.T) {
	for _, tt := range []struct {
		name  string
		begun func(t *testing.T, c *smtp.Client) io.WriteCloser // up to where Drain comes
	}{
		{"after MAIL", func(t *testing.T, c *smtp.Client) io.WriteCloser {
			require.NoError(t, c.Mail("a@example.com", nil))
			return nil
		}},
		{"in DATA", func(t *testing.T, c *smtp.Client) io.WriteCloser {
			require.NoError(t, c.Mail("a@example.com", nil))
			require.NoError(t, c.Rcpt("b@example.net", nil))
			w, err := c.Data()
			require.NoError(t, err)
			_, err = io.WriteString(w, msg[:10])
			require.NoError(t, err)
			return w
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, be, delivered, shutdown := drainServer(t)
			c, err := smtp.Dial(addr)
			require.NoError(t, err)
			defer c.Close()
			w := tt.begun(t, c)
			be.Drain() // with the message under way (shutdown drains again)
			stopped := make(chan struct{})
			go func() { shutdown(5 * time.Second); close(stopped) }()

			if w == nil {
				require.NoError(t, c.Rcpt("b@example.net", nil))
				w, err = c.Data()
				require.NoError(t, err)
				_, err = io.WriteString(w, msg[:10])
				require.NoError(t, err)
			}
			select {
			case <-stopped:
				t.Fatal("the shutdown did not wait for the message under way")
			case <-time.After(100 * time.Millisecond):
			}
			_, err = io.WriteString(w, msg[10:])
			require.NoError(t, err)
			require.NoError(t, w.Close(), "the message under way is accepted")
			require.NoError(t, c.Quit())
			<-stopped
			assert.True(t, strings.HasSuffix(delivered.String(), "\n"+received+rewritten), "delivered:\n%s", delivered)
		})
	}
}

// After its message, a session that does not QUIT is ended once
// QuitWindow has passed; one that tries another message is refused it
// (421 4.3.2) and ended.
func TestDrainAfterMessage(t *testing.T) {
	for _, tt := range []struct {
		name string
		next func(c *smtp.Client, stopped <-chan struct{}) error
		code smtp.EnhancedCode
	}{
		// The shutdown ends once the server has ended the session, with
		// its 421, which the next command then reads.
		{"silent", func(c *smtp.Client, stopped <-chan struct{}) error { <-stopped; return c.Noop() }, smtp.EnhancedCode{4, 4, 2}},
		{"another message", func(c *smtp.Client, _ <-chan struct{}) error { return c.Mail("a@example.com", nil) }, smtp.EnhancedCode{4, 3, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, be, _, shutdown := drainServer(t)
			c, err := smtp.Dial(addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.Mail("a@example.com", nil))
			be.Drain() // before the message ends (shutdown drains again)
			stopped := make(chan struct{})
			go func() { shutdown(QuitWindow + 5*time.Second); close(stopped) }()
			require.NoError(t, c.Rcpt("b@example.net", nil))
			w, err := c.Data()
			require.NoError(t, err)
			_, err = io.WriteString(w, msg)
			require.NoError(t, err)
			require.NoError(t, w.Close())

			requireCode(t, tt.next(c, stopped), 421, tt.code)
			<-stopped
		})
	}
}

// A session that begins after Drain has its greeting answered, and is
// then ended.
func TestDrainEndsLaterSession(t *testing.T) {
	addr, be, _, _ := drainServer(t)
	be.Drain()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Hello("localhost"))
	requireCode(t, c.Mail("a@example.com", nil), 421, smtp.EnhancedCode{4, 4, 2})
}
