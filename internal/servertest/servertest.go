// Package servertest holds what the tests of the example servers and the
// integration tests share: starting an example's run function the way
// `go run` does, and a log sink its goroutines may write to at once.
package servertest

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Start calls run in a goroutine with a context and a standard output of
// its own, requires the first line run prints to be the URL it serves on
// loopback, and returns that URL and a stop function. stop cancels the
// context and asserts that run then returns nil within 10 seconds. The
// rest of what run prints is discarded.
func Start(t testing.TB, run func(ctx context.Context, stdout io.Writer) error) (base string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, pw); pw.Close() }()
	br := bufio.NewReader(pr)
	first, err := br.ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, br) }()
	base = strings.TrimSpace(first)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, base)
	return base, func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not stop")
		}
	}
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
