// Package servertest holds what the tests of the example servers and the
// integration tests share: starting an example's run function the way
// `go run` does, a log sink its goroutines may write to at once, a
// request body that provokes golang/go#40747 in a reverse proxy, and
// checks that a server closes a connection left idle or with a header
// half sent, that it serves no more connections at once than its cap, and
// that its request log cannot be forged; finding a program a test runs
// (Command); and running, with curl, the commands an example prints for
// its user to try (CurlCommands, Curl).
package servertest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/printable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Start calls run in a goroutine with a context and a standard output of
// its own, requires the first line run prints to be the URL it serves on
// loopback, and returns that URL and a stop function. stop cancels the
// context and asserts that run then returns nil within 10 seconds; a test
// that does not call it (or fails before it does) has it called when the
// test ends, so that no server outlives its test. The rest of what run
// prints is discarded.
func Start(t testing.TB, run func(ctx context.Context, stdout io.Writer) error) (base string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, pw); pw.Close() }()
	stop = sync.OnceFunc(func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop")
		}
	})
	t.Cleanup(stop)
	br := bufio.NewReader(pr)
	first, err := br.ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, br) }()
	base = strings.TrimSpace(first)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, base)
	return base, stop
}

// StartWith is Start with *v set to value until the test ends, for a
// test of a setting such as a timeout; the server is stopped before *v is
// restored.
func StartWith[T any](t testing.TB, v *T, value T, run func(ctx context.Context, stdout io.Writer) error) (base string) {
	t.Helper()
	old := *v
	*v = value
	t.Cleanup(func() { *v = old })
	base, _ = Start(t, run) // stopped at cleanup, before the restore (last first)
	return base
}

// SyncBuffer is an io.Writer whose writes and String may come from
// several goroutines, such as a server's request log.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// HoldLateBodyRead returns a handler that calls next with a copy of a
// request of declared length whose body, once that length has been read,
// waits for delay before each further read; other requests go to next
// as they are. In front of a reverse proxy whose
// backend answers at once, that makes the transport's last read of the
// body (the one that checks nothing follows) come after the proxy has
// sent the response header and net/http has closed the inbound body: the
// race of golang/go#40747, every time.
func HoldLateBodyRead(next http.Handler, delay time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		r2 := r.Clone(r.Context())
		r2.Body = &lateBody{ReadCloser: r.Body, left: r.ContentLength, delay: delay}
		next.ServeHTTP(w, r2)
	})
}

type lateBody struct {
	io.ReadCloser
	left  int64
	delay time.Duration
}

func (b *lateBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		time.Sleep(b.delay)
		return b.ReadCloser.Read(p)
	}
	n, err := b.ReadCloser.Read(p)
	if b.left -= int64(n); b.left == 0 && err == io.EOF {
		err = nil // so that the transport reads once more
	}
	return n, err
}

// ClosesHalfSentHeader dials the server at base (an http:// URL), sends
// the first lines of a request's header but not the empty line that ends
// it, and asserts that the server closes the connection within wait, as
// a ReadHeaderTimeout shorter than wait makes it do: a client that
// trickles in its header must not hold a connection for ever.
func ClosesHalfSentHeader(t testing.TB, base string, wait time.Duration) {
	t.Helper()
	conn := dialAndSend(t, base, "GET / HTTP/1.1\r\nHost: x\r\n")
	assertClosed(t, conn, conn, wait, "the connection with a half-sent header was kept open")
}

// ClosesIdleConnection dials the server at base (an http:// URL), sends a
// GET of path on a keep-alive connection, requires a 200 answer, and
// asserts that the server then closes the idle connection within wait,
// as an IdleTimeout shorter than wait makes it do.
func ClosesIdleConnection(t testing.TB, base, path string, wait time.Duration) {
	t.Helper()
	conn := dialAndSend(t, base, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	// Then nothing: the server closes the connection.
	assertClosed(t, conn, br, wait, "the idle connection was kept open")
}

// RefusesAddressInUse calls run, an example's run function, with an
// address already in use, and asserts that it returns the listener's
// error, prints nothing (no URL that serves nothing), and leaves no
// goroutine running.
func RefusesAddressInUse(t *testing.T, run func(ctx context.Context, addr string, stdout io.Writer) error) {
	t.Helper()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	var out strings.Builder
	// A run that serves after all is stopped, rather than blocking the
	// test until go test's -timeout: its error then fails the assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = run(ctx, busy.Addr().String(), &out)
	opErr, ok := errors.AsType[*net.OpError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "listen", opErr.Op)
	assert.Empty(t, out.String())
}

// StopsWithUnusedConnection starts run as Start does, opens a connection
// to it on which nothing is sent, as a browser opens one ahead of time,
// and asserts that stopping the server then returns nil within a second
// and closes that connection: http.Server's Shutdown alone waits until
// such a connection is 5 seconds old (golang/go#22682).
func StopsWithUnusedConnection(t testing.TB, run func(ctx context.Context, stdout io.Writer) error) {
	t.Helper()
	base, stop := Start(t, run)
	unused := dialAndSend(t, base, "")
	// Connections are accepted in turn: once another is answered, the
	// server has the unused one.
	answered := dialAndSend(t, base, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	_, err := answered.Read(make([]byte, 1))
	require.NoError(t, err)

	start := time.Now()
	stop()
	assert.Less(t, time.Since(start), time.Second, "the server took that long to stop")
	assertClosed(t, unused, unused, 5*time.Second, "the unused connection was kept open")
}

// LimitsHeader asserts that the server at base (an http:// URL), whose
// MaxHeaderBytes is max, answers a GET of path whose request line and
// header are max octets long (an X-Pad field fills it) as usual, and so
// one of max and the 4 KiB net/http reads past MaxHeaderBytes (its
// "bufio slop"), but one octet more with 431 Request Header Fields Too
// Large.
func LimitsHeader(t testing.TB, base, path string, max int) {
	t.Helper()
	const slack = 4096
	for _, size := range []int{max, max + slack, max + slack + 1} {
		head := "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: "
		req := head + strings.Repeat("p", size-len(head)-len("\r\n\r\n")) + "\r\n\r\n"
		conn := dialAndSend(t, base, req)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err, "a header of %d octets", size)
		res.Body.Close()
		if size <= max+slack {
			assert.Equal(t, http.StatusOK, res.StatusCode, "a header of %d octets", size)
		} else {
			assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, res.StatusCode, "a header of %d octets", size)
		}
	}
}

// dialAndSend connects to the server at base (an http:// URL), closed
// when the test ends, and sends it request.
func dialAndSend(t testing.TB, base, request string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	return conn
}

// assertClosed asserts that reading conn through r meets the end of the
// connection within wait, with nothing more from the server.
func assertClosed(t testing.TB, conn net.Conn, r io.Reader, wait time.Duration, msg string) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(wait)))
	_, err := r.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, msg)
}

// ServesAtMost checks the server at base (an http:// URL), limited to n
// open connections: while n clients hold theirs, one more is not served;
// once one of them closes, it is. Each client sends request, and the
// first octet of an answer shows it is served.
func ServesAtMost(t testing.TB, base, request string, n int) {
	t.Helper()
	served := func(c net.Conn, wait time.Duration) bool {
		t.Helper()
		require.NoError(t, c.SetReadDeadline(time.Now().Add(wait)))
		_, err := c.Read(make([]byte, 1))
		return err == nil
	}
	var held []net.Conn
	for i := range n {
		held = append(held, dialAndSend(t, base, request))
		require.True(t, served(held[i], 5*time.Second), "client %d of %d is served", i+1, n)
	}
	next := dialAndSend(t, base, request)
	assert.False(t, served(next, 300*time.Millisecond), "a client is served while %d others hold their connections", n)
	require.NoError(t, held[0].Close())
	assert.True(t, served(next, 5*time.Second), "the waiting client is served once another is gone")
}

// LogsUserNameQuoted checks that the server at base (an http:// URL),
// logging into log, Go-quotes the user name of a request target in
// absolute form, GET http://USER@host/, which net/url percent-decodes and
// gorilla's LoggingHandler would write as it is: the name holds a CR LF, a
// terminal escape sequence, a C1 CSI, a bidi override and an octet that
// is not UTF-8, and the log must get one line, all of it printable.
func LogsUserNameQuoted(t testing.TB, base string, log *SyncBuffer, path string) {
	t.Helper()
	conn := dialAndSend(t, base, "GET http://%0D%0Aforged%1B%5B2K%C2%9B%E2%80%AE%FF@x"+path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	_, _ = io.Copy(io.Discard, conn)
	require.Eventually(t, func() bool { return strings.HasSuffix(log.String(), "\n") }, 5*time.Second, 10*time.Millisecond)
	line, rest, _ := strings.Cut(log.String(), "\n")
	assert.Empty(t, rest, "one line")
	assert.Contains(t, line, ` - "\r\nforged\x1b[2K\u009b\u202e\xff" [`)
	assert.True(t, printable.Is(line), "%q prints", line)
}

// Command returns the path of the program name (node, python3, curl) a test
// runs. Without it the test is skipped, except under CI (the CI
// environment variable is set, as .ci/run sets it, and installs the
// program), where it fails.
func Command(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; .ci/run installs it", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}
