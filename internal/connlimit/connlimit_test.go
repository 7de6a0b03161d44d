package connlimit

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve accepts from l until it fails, handing each connection on.
func serve(l net.Listener) (<-chan net.Conn, <-chan error) {
	conns, done := make(chan net.Conn, 16), make(chan error, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				done <- err
				return
			}
			conns <- c
		}
	}()
	return conns, done
}

func listen(t *testing.T, n int) net.Listener {
	t.Helper()
	return listenWith(t, n, nil)
}

// listenRefusing is listen with a refuse function that answers "busy\n",
// closes the connection and then signals on refused.
func listenRefusing(t *testing.T, n int) (l net.Listener, refused <-chan struct{}) {
	t.Helper()
	r := make(chan struct{}, 16)
	return listenWith(t, n, func(c net.Conn) {
		_, _ = io.WriteString(c, "busy\n")
		c.Close()
		r <- struct{}{}
	}), r
}

func listenWith(t *testing.T, n int, refuse func(net.Conn)) net.Listener {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := Listener(inner, n, refuse)
	t.Cleanup(func() { l.Close() })
	return l
}

func dial(t *testing.T, l net.Listener) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func accepted(t *testing.T, conns <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-conns:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no connection accepted")
		return nil
	}
}

func noneAccepted(t *testing.T, conns <-chan net.Conn) {
	t.Helper()
	select {
	case <-conns:
		t.Fatal("a connection was accepted past the limit")
	case <-time.After(200 * time.Millisecond):
	}
}

// TestLimit: with two connections open, a third client waits; it is
// accepted once one of them closes, however many times it is closed.
func TestLimit(t *testing.T) {
	l := listen(t, 2)
	conns, _ := serve(l)
	dial(t, l)
	dial(t, l)
	first := accepted(t, conns)
	second := accepted(t, conns)
	client := dial(t, l)
	noneAccepted(t, conns)

	require.NoError(t, first.Close())
	third := accepted(t, conns)
	// The third connection is the waiting client's: what it sends arrives.
	_, err := client.Write([]byte("x"))
	require.NoError(t, err)
	b := make([]byte, 1)
	require.NoError(t, third.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = io.ReadFull(third, b)
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))

	// A second Close gives back no second token.
	assert.Error(t, first.Close())
	dial(t, l)
	noneAccepted(t, conns)
	require.NoError(t, second.Close())
	accepted(t, conns)
}

// TestCloseEndsWaitingAccept: an Accept waiting for room ends when the
// listener closes, with net.ErrClosed; connections already accepted stay
// open.
func TestCloseEndsWaitingAccept(t *testing.T) {
	l := listen(t, 1)
	conns, done := serve(l)
	client := dial(t, l)
	c := accepted(t, conns)
	time.Sleep(50 * time.Millisecond) // let serve wait for room
	require.NoError(t, l.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, net.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Accept did not end")
	}
	_, err := client.Write([]byte("y"))
	require.NoError(t, err)
	b := make([]byte, 1)
	_, err = io.ReadFull(c, b)
	require.NoError(t, err)
	assert.NotPanics(t, func() { l.Close() }, "a second Close of the wrapper")
}

// failingListener fails its first Accept, then hands out one end of a
// pipe.
type failingListener struct {
	net.Listener
	calls int
}

func (f *failingListener) Accept() (net.Conn, error) {
	if f.calls++; f.calls == 1 {
		return nil, errors.New("accept: too many open files")
	}
	c, _ := net.Pipe()
	return c, nil
}

// TestFailedAcceptGivesRoomBack: a failed Accept holds no room, so at the
// limit of one the next Accept still succeeds.
func TestFailedAcceptGivesRoomBack(t *testing.T) {
	l := Listener(&failingListener{}, 1, nil)
	_, err := l.Accept()
	require.Error(t, err)
	c, err := l.Accept()
	require.NoError(t, err)
	c.Close()
}

// TestCloseWrite: a TCP connection keeps CloseWrite through the wrapper,
// so that net/http half-closes before closing; the client then reads the
// end of the stream.
func TestCloseWrite(t *testing.T) {
	l := listen(t, 1)
	conns, _ := serve(l)
	client := dial(t, l)
	c := accepted(t, conns)
	cw, ok := c.(interface{ CloseWrite() error })
	require.True(t, ok)
	require.NoError(t, cw.CloseWrite())
	require.NoError(t, client.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err := client.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF)

	p, _ := net.Pipe()
	assert.ErrorIs(t, (&conn{Conn: p}).CloseWrite(), errors.ErrUnsupported)
}

func TestBadLimit(t *testing.T) {
	assert.Panics(t, func() { Listener(&failingListener{}, 0, nil) })
}

// TestRefuse: with a refuse function, a client that comes while the
// listener is full is accepted, refused and closed at once, and Accept
// goes on to the next; once there is room again, clients are accepted.
func TestRefuse(t *testing.T) {
	l, refused := listenRefusing(t, 1)
	conns, _ := serve(l)
	dial(t, l)
	first := accepted(t, conns)
	for range 3 {
		c := dial(t, l)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		got, err := io.ReadAll(c)
		require.NoError(t, err, "the refused connection is closed")
		assert.Equal(t, "busy\n", string(got))
		<-refused
	}
	noneAccepted(t, conns)
	require.NoError(t, first.Close())
	// serve's Accept is waiting in the listener with no room taken: the
	// next client is accepted, since room was made meanwhile, not refused.
	dial(t, l)
	accepted(t, conns)
	assert.Empty(t, refused)
}

// A connection accepted, with refuse set, on room made while Accept
// waited gives its room back when closed: the next client is served,
// not refused.
func TestRefuseRoomMadeWhileWaiting(t *testing.T) {
	l, refused := listenRefusing(t, 1)
	conns, _ := serve(l)
	dial(t, l)
	first := accepted(t, conns)
	noneAccepted(t, conns) // serve's Accept now waits in inner.Accept
	require.NoError(t, first.Close())
	dial(t, l)
	second := accepted(t, conns) // room taken after inner.Accept returned
	require.NoError(t, second.Close())
	dial(t, l)
	accepted(t, conns)
	assert.Empty(t, refused, "a client was refused although no connection was open")
}
