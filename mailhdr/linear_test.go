package mailhdr

import (
	"bufio"
	"math"
	"strings"
	"testing"
	"time"

	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRewriteHeaderLinearCost guards RewriteHeader, and Walk, which calls
// it for every part, against a quadratic path: go-message takes a field
// off a header in time proportional to the fields of the same name, so a
// rewrite that took fields off one at a time cost O(n²) for a header of n
// fields named alike (a message of 10,000 Received fields, or of 10,000
// Content-Type fields, or a header made with 10,000 Header.Add calls).
// The cost per field of a header of 64,000 such fields must stay close to
// that of one of 2,000. The bound is loose (4x; the quadratic path gave
// 10x and more) so that a loaded machine does not fail it; the trials of
// the two sizes alternate and a ratio over the bound is measured again,
// up to three rounds, as in mapping's TestLinearCost. Each trial times
// the rewrites only, not the making of the headers.
func TestRewriteHeaderLinearCost(t *testing.T) {
	switch {
	case raceEnabled:
		// About ten times slower, and the timings are the detector's.
		t.Skip("a timing test; run without -race")
	case testing.Short():
		// CI's runs on emulated CPUs are short: there it took 15 s and
		// timed the emulator. CI runs it natively without -race.
		t.Skip("a timing test; run without -short")
	}
	headerOf := func(field string, n int) string {
		return strings.Repeat(field, n) + "Content-Type: text/plain\r\n\r\n"
	}
	read := func(field string) func(n int) textproto.Header {
		return func(n int) textproto.Header {
			h, err := textproto.ReadHeader(bufio.NewReader(strings.NewReader(headerOf(field, n))))
			require.NoError(t, err)
			return h
		}
	}
	// made fields whose raw bytes do not read back as their value (the
	// white space at either end), which are added back as made.
	made := func(n int) textproto.Header {
		var h textproto.Header
		h.AddRaw([]byte("Content-Type: text/plain\r\n"))
		for range n {
			h.Add("X-Made", " v ")
		}
		return h
	}
	// trial rewrites headers of n fields, about 64,000 fields in all, and
	// returns the time the rewrites took in ns per field.
	trial := func(build func(int) textproto.Header, n int) float64 {
		var total time.Duration
		for range max(1, 64000/n) {
			h := build(n)
			start := time.Now()
			c, err := RewriteHeader(&h, Options{})
			total += time.Since(start)
			require.NoError(t, err)
			require.Positive(t, c)
		}
		return float64(total.Nanoseconds()) / float64(max(n, 64000))
	}
	for _, c := range []struct {
		name  string
		build func(int) textproto.Header
	}{
		{"Received fields", read("Received: x\r\n")},
		{"Content-Type fields", read("Content-Type: text/plain\r\n")},
		{"made fields", made},
	} {
		const small, large = 2000, 64000
		var perSmall, perLarge float64
		for round := 1; round <= 3; round++ {
			perSmall, perLarge = math.Inf(1), math.Inf(1)
			for range 3 {
				perSmall = min(perSmall, trial(c.build, small))
				perLarge = min(perLarge, trial(c.build, large))
			}
			t.Logf("%s, round %d: %.0f ns/field at %d fields, %.0f ns/field at %d", c.name, round, perSmall, small, perLarge, large)
			if perLarge < 4*perSmall {
				break
			}
		}
		assert.Less(t, perLarge, 4*perSmall, "%s: cost per field grows with the header", c.name)
	}
	// Walk rewrites every part's header the same way.
	msg := headerOf("Received: x\r\n", 16000) + "body\r\n"
	e, err := message.Read(strings.NewReader(msg))
	require.NoError(t, err)
	start := time.Now()
	rep, err := Walk(e, Options{}, func([]int, *message.Entity, error) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Rewritten)
	t.Logf("Walk, 16000 Received fields: %v", time.Since(start))
}
