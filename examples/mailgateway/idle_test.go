package main

import (
	"io"
	"math"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each read gets its own deadline, and once one has timed out every later
// read fails with it at once, even with data waiting: the session is over,
// and go-smtp's discarding of the rest of a message must not extend it.
func TestIdleConn(t *testing.T) {
	// Over TCP, a write returns once its data waits at the other end: no
	// goroutine has to be scheduled for a read to find it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := l.Accept()
	require.NoError(t, err)
	c := &idleConn{Conn: server, timeout: 100 * time.Millisecond}
	defer c.Close()

	_, err = client.Write([]byte("a"))
	require.NoError(t, err)
	time.Sleep(150 * time.Millisecond) // longer than the timeout, but not a read
	buf := make([]byte, 1)
	n, err := c.Read(buf)
	require.NoError(t, err, "the deadline starts with the read")
	assert.Equal(t, 1, n)

	_, err = c.Read(buf)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout())

	// With "b" waiting, a read given a fresh deadline would return it. A
	// read that waited out a timeout first, with the timeout now a minute,
	// would take far longer than any stall of a loaded machine.
	c.timeout = time.Minute
	_, werr := client.Write([]byte("b"))
	require.NoError(t, werr)
	start := time.Now()
	n, err2 := c.Read(buf)
	assert.Zero(t, n, "the waiting octet was read: the expired read was not final")
	assert.Equal(t, err, err2, "the same error")
	assert.Less(t, time.Since(start), 10*time.Second, "at once, not after a timeout")
}

// pair returns the two ends of a loopback TCP connection, the server's
// accepted by l.
func pair(t *testing.T, l net.Listener) (client, server net.Conn) {
	t.Helper()
	client, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { client.Close() })
	server, err = l.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { server.Close() })
	return client, server
}

// A deadline set with SetReadDeadline ends a read under way, and bounds
// the later ones, whose own idle deadline would be far later; clearing it,
// or moving it later, while a read waits does not lift that read's idle
// deadline.
func TestIdleConnSetReadDeadline(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer tcp.Close()
	// reading starts a read of c and returns what it returns.
	reading := func(c *idleConn) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := c.Read(make([]byte, 1))
			done <- err
		}()
		return done
	}
	timedOut := func(done <-chan error, msg string) {
		t.Helper()
		select {
		case err := <-done:
			ne, ok := err.(net.Error)
			require.True(t, ok, "%v", err)
			assert.True(t, ne.Timeout())
		case <-time.After(10 * time.Second):
			t.Fatal(msg)
		}
	}

	_, server := pair(t, tcp)
	c := &idleConn{Conn: server, timeout: time.Minute}
	done := reading(c)
	time.Sleep(50 * time.Millisecond) // the read is waiting, most likely
	require.NoError(t, c.SetReadDeadline(time.Now()))
	timedOut(done, "the read under way went on")

	// Set before the read: the read's own deadline, a minute, does not
	// replace it.
	_, server = pair(t, tcp)
	c = &idleConn{Conn: server, timeout: time.Minute}
	require.NoError(t, c.SetReadDeadline(time.Now().Add(100*time.Millisecond)))
	timedOut(reading(c), "a later read went past the deadline")

	for _, limit := range []time.Time{{}, time.Now().Add(time.Hour)} {
		_, server = pair(t, tcp)
		c = &idleConn{Conn: server, timeout: 200 * time.Millisecond}
		done := reading(c)
		time.Sleep(50 * time.Millisecond) // the read is waiting, most likely
		require.NoError(t, c.SetReadDeadline(limit))
		timedOut(done, "the idle deadline of the read under way was lifted")
	}
}

// drain ends the connections that have no session, those that have sent
// something included, and those accepted after it, at their next read;
// one with a session is left to it (relay.Backend.Drain).
func TestIdleListenerDrain(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newIdleListener(tcp, time.Minute)
	defer l.Close()
	accept := func() (net.Conn, *idleConn) {
		t.Helper()
		client, err := net.Dial("tcp", l.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { client.Close() })
		c, err := l.Accept()
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return client, c.(*idleConn)
	}
	timedOut := func(c *idleConn) bool {
		t.Helper()
		_, err := c.Read(make([]byte, 1))
		ne, ok := err.(net.Error)
		return ok && ne.Timeout()
	}
	// spoke has the client send an octet, which c reads.
	spoke := func(client net.Conn, c *idleConn) {
		t.Helper()
		_, err := client.Write([]byte("E"))
		require.NoError(t, err)
		_, err = c.Read(make([]byte, 1))
		require.NoError(t, err)
	}

	_, silent := accept()
	client, heard := accept() // has sent something, but has no session
	spoke(client, heard)
	client, greeted := accept()
	spoke(client, greeted)
	l.greeted(greeted)
	_, closed := accept()
	require.NoError(t, closed.Close())
	l.greeted(&idleConn{}) // not one of l's: ignored
	assert.Len(t, l.waiting, 2, "the silent one and the one that has sent something")

	l.drain()
	assert.True(t, timedOut(silent), "the silent connection is ended")
	assert.True(t, timedOut(heard), "a connection with no session is ended, though it has sent something")
	_, err = client.Write([]byte("H"))
	require.NoError(t, err)
	n, err := greeted.Read(make([]byte, 1))
	assert.NoError(t, err, "a connection with a session is not ended by the listener")
	assert.Equal(t, 1, n)
	_, later := accept()
	assert.True(t, timedOut(later), "a connection accepted after drain is ended")
	assert.Empty(t, l.waiting)
}

// With minRate, the reads of one request (from a write, the reply to the
// last one, to the next) may wait timeout in all, and a second more for
// every minRate octets: a client that trickles is cut off soon after
// timeout, though it never falls silent for that long, and one that keeps
// up the rate, or whose requests each end in time, is not.
func TestIdleConnMinRate(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer tcp.Close()
	const timeout, every = 400 * time.Millisecond, 50 * time.Millisecond
	for _, tt := range []struct {
		name    string
		minRate int64
		octets  int // each write of the client, every 50 ms
		writes  int
		reply   int // the server writes after this many octets read (0: never)
		cut     bool
	}{
		// 20 octets a second: cut at about 0.5 s (0.4 s + 10 octets' 0.1 s), of 3 s.
		{"trickling: cut", 100, 1, 60, 0, true},
		// 200 octets a second for 1.5 s: 3.4 s allowed.
		{"above the rate: not cut", 100, 10, 30, 0, false},
		// 20 octets a second, but each request of 3 octets ends within
		// about 0.15 s, of the 0.43 s allowed (a margin that a loaded
		// machine's late sleeps do not use up).
		{"trickling short requests: not cut", 100, 1, 21, 3, false},
		{"no minimum: trickling is not cut", 0, 1, 20, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, server := pair(t, tcp)
			c := &idleConn{Conn: server, timeout: timeout, minRate: tt.minRate}
			go func() {
				b := make([]byte, tt.octets)
				for range tt.writes {
					if _, err := client.Write(b); err != nil {
						return
					}
					time.Sleep(every)
				}
			}()
			start, want := time.Now(), tt.octets*tt.writes
			var got int
			var err error
			for got < want && err == nil {
				var n int
				n, err = c.Read(make([]byte, 1))
				got += n
				if tt.reply > 0 && n > 0 && got%tt.reply == 0 {
					_, err = c.Write([]byte("250 ok\r\n"))
				}
			}
			if !tt.cut {
				require.NoError(t, err, "after %d of %d octets, %v", got, want, time.Since(start))
				return
			}
			var ne net.Error
			require.ErrorAs(t, err, &ne, "all %d octets read, in %v", got, time.Since(start))
			assert.True(t, ne.Timeout())
			assert.GreaterOrEqual(t, time.Since(start), timeout, "not before the timeout")
		})
	}
}

// With maxRequest, a request (what the client sends from one write of the
// server to the next) is read up to that many octets: the read after them
// fails, not as a timeout, and so does every later one, even after a
// write.
func TestIdleConnMaxRequest(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer tcp.Close()
	for _, tt := range []struct {
		name     string
		requests []int // octets of each, the server writing after each
		cut      int   // the request cut off, or -1
	}{
		{"at the limit, twice", []int{10, 10}, -1},
		{"one octet over", []int{11}, 0},
		{"at the limit, then one over", []int{10, 11}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, server := pair(t, tcp)
			c := &idleConn{Conn: server, timeout: 10 * time.Second, maxRequest: 10}
			var all []byte
			for _, n := range tt.requests {
				all = append(all, make([]byte, n)...)
			}
			_, err := client.Write(all) // at once: the server's writes mark the requests
			require.NoError(t, err)
			for i, n := range tt.requests {
				got, err := io.ReadFull(c, make([]byte, n))
				if i != tt.cut {
					require.NoError(t, err, "request %d", i)
					_, err = c.Write([]byte("250 ok\r\n"))
					require.NoError(t, err)
					continue
				}
				assert.Equal(t, 10, got, "request %d is read up to the limit", i)
				var tooLarge errRequestTooLarge
				require.ErrorAs(t, err, &tooLarge)
				assert.EqualError(t, err, "mailgateway: the client sent more than 10 octets without waiting for a reply")
				_, werr := c.Write([]byte("552 too large\r\n"))
				require.NoError(t, werr)
				_, err2 := c.Read(make([]byte, 1))
				assert.Equal(t, err, err2, "the connection is done")
				return
			}
		})
	}
}

func TestRequestLimit(t *testing.T) {
	assert.Equal(t, int64(2+64<<10), requestLimit(1))
	assert.Equal(t, int64(128<<20+64<<10), requestLimit(64<<20), "the default -max-message-bytes")
	assert.Equal(t, int64(math.MaxInt64-1), requestLimit((math.MaxInt64-64<<10)/2))
	assert.Equal(t, int64(math.MaxInt64), requestLimit((math.MaxInt64-64<<10)/2+1))
	assert.Equal(t, int64(math.MaxInt64), requestLimit(math.MaxInt64))
}
