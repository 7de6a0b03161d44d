package relay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Backend serves every session of its server at once, and calls
// Deliver and Logf from each: several clients sending at the same time
// each get their own message delivered, rewritten, into a file of its own
// (DirDeliver), and Logf hears of every one. Run it with -race.
func TestConcurrentSessions(t *testing.T) {
	const clients, messages = 4, 15
	dir := t.TempDir()
	var logMu sync.Mutex
	var delivered int
	be := &Backend{
		Options: mailhdr.Options{NoControlled: true},
		Deliver: DirDeliver(dir),
		Now:     clock,
		Logf: func(format string, args ...any) {
			if strings.Contains(fmt.Sprintf(format, args...), ": delivered to ") {
				logMu.Lock()
				delivered++
				logMu.Unlock()
			}
		},
	}
	addr := serve(t, be)
	var failed atomic.Int64
	var wg sync.WaitGroup
	for g := range clients {
		wg.Go(func() {
			c, err := smtp.Dial(addr)
			if !assert.NoError(t, err) {
				failed.Add(1)
				return
			}
			defer c.Close()
			for k := range messages {
				m := fmt.Sprintf("Subject: %d-%d\r\nContent-Type: text/x-m%d-%d\r\n\r\nhi\r\n", g, k, g, k)
				if !assert.NoError(t, c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(m))) {
					failed.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, failed.Load())

	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	require.Len(t, files, clients*messages, "each message has a file of its own")
	seen := make(map[string]bool)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		_, subject, ok := strings.Cut(string(b), "\r\nSubject: ")
		require.True(t, ok, f)
		var g, k int
		_, err = fmt.Sscanf(subject, "%d-%d", &g, &k)
		require.NoError(t, err, f)
		assert.Contains(t, string(b), fmt.Sprintf("\r\nContent-Type: ContentType:text/x-m%d-%d\r\n", g, k), f)
		id := fmt.Sprint(g, "-", k)
		assert.False(t, seen[id], "message %s delivered twice", id)
		seen[id] = true
	}
	logMu.Lock()
	defer logMu.Unlock()
	assert.Equal(t, clients*messages, delivered)
}
