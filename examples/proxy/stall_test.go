package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dial connects to the proxy at base (an http:// URL); the connection is
// closed when the test ends.
func dial(t *testing.T, base string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// A client that sends a request's header and part of its body, then
// nothing, is answered 408 and its connection closed, once a read of the
// body has waited bodyTimeout.
func TestSlowBodyTimesOut(t *testing.T) {
	base := servertest.StartWith(t, &bodyTimeout, 300*time.Millisecond, runExample)

	conn := dial(t, base)
	_, err := io.WriteString(conn, "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nab")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	raw, err := io.ReadAll(conn)
	require.NoError(t, err, "the proxy let the connection wait")
	assert.True(t, strings.HasPrefix(string(raw), "HTTP/1.1 408 "), "%q", raw)
	assert.Contains(t, string(raw), "\r\nConnection: close\r\n")
}

// A request whose body the proxy never reads is answered, and its
// connection closed once the client has sent none of the rest for
// bodyTimeout: the demo backend refuses the label at once, so the
// transport, which sent Expect: 100-continue on, sends no body, nor the
// client, which got no 100 Continue; a backend that is down is never
// sent one. net/http reads what is left of the body after the handler
// returns, to discard it (before the answer when the client expects no
// close), and the proxy, without a ReadTimeout, let it wait on the client
// for ever.
func TestUnreadBodyTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	require.NoError(t, ln.Close())
	for _, c := range []struct {
		name    string
		target  *url.URL
		request string
		status  string
	}{
		{"refused after Expect: 100-continue", nil, "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain; URI-body=x\r\n" +
			"Expect: 100-continue\r\nContent-Length: 10\r\n\r\n", "HTTP/1.1 415 "},
		{"backend down", down, "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n", "HTTP/1.1 502 "},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := servertest.StartWith(t, &bodyTimeout, 300*time.Millisecond, func(ctx context.Context, stdout io.Writer) error {
				return run(ctx, "127.0.0.1:0", c.target, stdout, io.Discard)
			})
			conn := dial(t, base)
			_, err := io.WriteString(conn, c.request)
			require.NoError(t, err)
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
			raw, err := io.ReadAll(conn)
			require.NoError(t, err, "the proxy let the connection wait")
			assert.True(t, strings.HasPrefix(string(raw), c.status), "%q", raw)
			assert.Contains(t, string(raw), "\r\nConnection: close\r\n")
		})
	}
}

// A body that keeps arriving, in parts 100 ms apart, is taken whole
// although it takes 1 s, more than bodyTimeout: the timeout is for each
// read, not for the body.
func TestSteadyBodyIsTakenWhole(t *testing.T) {
	base := servertest.StartWith(t, &bodyTimeout, 300*time.Millisecond, runExample)
	body := make([]byte, 10*1024)
	_, _ = rand.Read(body)

	pr, pw := io.Pipe()
	go func() {
		for part := range slicesOf(body, 1024) {
			time.Sleep(100 * time.Millisecond) // 1 s in all
			if _, err := pw.Write(part); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, err := http.NewRequest(http.MethodPost, base+"/documents", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/octet-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)

	res, err = http.Get(base + res.Header.Get("Location"))
	require.NoError(t, err)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(body, got), "the document is the body sent")
}

// A client that trickles a body, an octet every 50 ms, never waiting
// bodyTimeout, is answered 408 once the reads of its body have waited
// bodyTimeout and a second for each bodyMinRate octets (500) they read:
// here about 0.3 s, where the body takes 5 s. A steady one above the
// rate is taken (TestSteadyBodyIsTakenWhole: 10 KiB a second).
func TestTricklingBodyTimesOut(t *testing.T) {
	base := servertest.StartWith(t, &bodyTimeout, 300*time.Millisecond, runExample)
	conn := dial(t, base)
	const n = 100
	_, err := fmt.Fprintf(conn, "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", n)
	require.NoError(t, err)
	answered := make(chan string, 1)
	go func() { // the status line
		line, _ := bufio.NewReader(conn).ReadString('\n')
		answered <- line
	}()
	start := time.Now()
	var raw string
trickle:
	for range n {
		if _, err := conn.Write([]byte("a")); err != nil {
			break
		}
		select {
		case raw = <-answered:
			break trickle
		case <-time.After(50 * time.Millisecond):
		}
	}
	if raw == "" {
		raw = <-answered
	}
	assert.True(t, strings.HasPrefix(raw, "HTTP/1.1 408 "), "%q after %v", raw, time.Since(start))
	assert.Less(t, time.Since(start), 3*time.Second, "the whole body takes 5 s")
}

// slicesOf yields b in parts of n octets.
func slicesOf(b []byte, n int) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			k := min(n, len(b))
			if !yield(b[:k]) {
				return
			}
			b = b[k:]
		}
	}
}

// storeDocument stores a document of n random octets through the proxy
// at base and returns its path.
func storeDocument(t *testing.T, base string, n int) (path string, body []byte) {
	t.Helper()
	body = make([]byte, n)
	_, _ = rand.Read(body)
	res, err := http.Post(base+"/documents", "application/octet-stream", bytes.NewReader(body))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode)
	return res.Header.Get("Location"), body
}

// A client that sends requests and does not read the answers does not
// hold its connection (nor the proxy's to the backend) for ever: once the
// answers fill the buffers between them, a write waits sendTimeout and
// the connection is closed.
func TestUnreadAnswersTimeOut(t *testing.T) {
	base := servertest.StartWith(t, &sendTimeout, 300*time.Millisecond, runExample)
	path, body := storeDocument(t, base, 512*1024)

	conn := dial(t, base)
	const requests = 100 // 50 MiB of answers, more than the buffers hold
	_, err := io.WriteString(conn, strings.Repeat("GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", requests))
	require.NoError(t, err)
	time.Sleep(time.Second) // the proxy is stuck writing by now
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := io.Copy(io.Discard, conn)
	assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the proxy kept the connection open after %d octets", n)
	assert.Less(t, n, int64(requests*len(body)), "every answer was sent")
}

// The send timeout counts only the time a write waits on the client: an
// event stream whose events come further apart than sendTimeout, and an
// answer that a slow client takes longer than sendTimeout to read, in
// parts, arrive whole.
func TestSlowReaderIsServedWhole(t *testing.T) {
	t.Run("events", func(t *testing.T) {
		base := servertest.StartWith(t, &sendTimeout, 200*time.Millisecond, runExample)
		res, err := http.Get(base + "/events") // five events, 300 ms apart
		require.NoError(t, err)
		defer res.Body.Close()
		got, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, 5, strings.Count(string(got), "data: event "), "%q", got)
		assert.Contains(t, string(got), "data: event 5 of 5")
	})
	t.Run("slow reader", func(t *testing.T) {
		// 40 MiB, ten times what the buffers between proxy and client
		// hold, so that the proxy's writes wait on the client.
		block := make([]byte, 1<<20)
		_, _ = rand.Read(block)
		const blocks = 40
		// How long the backend took to send the answer: the proxy, which
		// reads it as it writes to the client, kept it waiting.
		sent := make(chan time.Duration, 1)
		backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "ContentType:application/octet-stream")
			start := time.Now()
			defer func() { sent <- time.Since(start) }()
			for range blocks {
				if _, err := w.Write(block); err != nil {
					return
				}
			}
		}))
		defer backend.Close()
		target, err := url.Parse(backend.URL)
		require.NoError(t, err)
		base := servertest.StartWith(t, &sendTimeout, 2*time.Second, func(ctx context.Context, stdout io.Writer) error {
			return run(ctx, "127.0.0.1:0", target, stdout, io.Discard)
		})

		conn := dial(t, base)
		require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(64*1024))
		_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		defer res.Body.Close()
		// 1 MiB every 100 ms: 4 s for the whole answer, of which the proxy
		// writes for some 3.6 s (the last 4 MiB or so wait in the
		// buffers), nearly twice sendTimeout. A write waits until the
		// kernel has room for it, a third of its send buffer (some 1.3 MiB)
		// read by the client: about 150 ms.
		got, want := sha256.New(), sha256.New()
		var n int64
		start := time.Now()
		for {
			time.Sleep(100 * time.Millisecond)
			k, err := io.CopyN(got, res.Body, int64(len(block)))
			if n += k; err == io.EOF && k < int64(len(block)) {
				break
			}
			require.NoError(t, err, "after %d octets, %v", n, time.Since(start))
			want.Write(block)
		}
		assert.Equal(t, int64(blocks*len(block)), n)
		assert.Equal(t, want.Sum(nil), got.Sum(nil), "the answer is what the backend sent")
		// Otherwise the buffers held most of the answer, and the test
		// would pass with a WriteTimeout of sendTimeout as well.
		d := <-sent
		t.Logf("the backend sent the answer in %v", d)
		assert.Greater(t, d, sendTimeout, "the proxy wrote for longer than sendTimeout")
	})
}

// A client stalled when a read of its body is past its deadline, whether
// or not the read has returned yet (net/http cancels the request as soon
// as the read of the connection fails); not when the proxy has not asked
// for more of the body for a while because the backend takes it slowly.
func TestStalled(t *testing.T) {
	past := time.Now().Add(-time.Millisecond)
	future := time.Now().Add(time.Minute)
	for _, c := range []struct {
		name string
		b    *deadlineBody
		want bool
	}{
		{"read failed at its deadline", &deadlineBody{timedOut: true, deadline: past}, true},
		{"read under way, past its deadline", &deadlineBody{reading: true, deadline: past}, true},
		{"read under way, within its deadline", &deadlineBody{reading: true, deadline: future}, false},
		{"no read under way, the last deadline past", &deadlineBody{deadline: past}, false},
		{"no read yet", &deadlineBody{}, false},
	} {
		assert.Equal(t, c.want, c.b.stalled(), c.name)
	}
}

// streamingBackend starts a backend that reads a request's body, then
// answers with an event stream of parts events 200 ms apart.
func streamingBackend(t *testing.T, parts int) *url.URL {
	t.Helper()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "ContentType:text/event-stream")
		rc := http.NewResponseController(w)
		for i := range parts {
			if i > 0 {
				time.Sleep(200 * time.Millisecond)
			}
			_, _ = io.WriteString(w, "data: part\n\n")
			if rc.Flush() != nil {
				return
			}
		}
	}))
	t.Cleanup(backend.Close)
	target, err := url.Parse(backend.URL)
	require.NoError(t, err)
	return target
}

// postForParts posts body to url and asserts that the answer is parts
// events, whole.
func postForParts(t *testing.T, url, body string, parts int) {
	t.Helper()
	res, err := http.Post(url, "text/plain", strings.NewReader(body))
	require.NoError(t, err)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	require.NoError(t, err, "the answer was cut short")
	assert.Equal(t, strings.Repeat("data: part\n\n", parts), string(got))
}

// Once a request's body is whole, its answer may take longer than
// bodyTimeout: the deadline the last read of the body set does not stay
// on the connection, where net/http's own read, waiting for the client to
// go away, would meet it and cancel the request.
func TestAnswerOutlastsBodyTimeout(t *testing.T) {
	target := streamingBackend(t, 3)
	base := servertest.StartWith(t, &bodyTimeout, 150*time.Millisecond, func(ctx context.Context, stdout io.Writer) error {
		return run(ctx, "127.0.0.1:0", target, stdout, io.Discard)
	})
	postForParts(t, base+"/", "hello", 3)
}

// The same when the transport's last read of the body, which checks that
// nothing follows its declared length, comes once the proxy has sent the
// response header and net/http has closed the inbound body
// (golang/go#40747: servertest.HoldLateBodyRead provokes it every time;
// 20 clients at once met it about once in a hundred requests). That
// read, which fails with http.ErrBodyReadAfterClose, sets no deadline on
// the connection, where net/http's read for a client going away is under
// way.
func TestAnswerOutlastsBodyTimeoutAfterLateRead(t *testing.T) {
	target := streamingBackend(t, 4)
	proxy := httptest.NewServer(bodyDeadlines(servertest.HoldLateBodyRead(newProxy(target, io.Discard), 100*time.Millisecond), 150*time.Millisecond))
	defer proxy.Close()
	postForParts(t, proxy.URL, strings.Repeat("x", 4096), 4)
}
