package mapping

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinearCost guards against quadratic paths: the cost per byte of a
// 1 MiB input must stay close to that of a 1 KiB one. The bound is loose
// (4x; BenchmarkSize gives the real figures) so that a loaded machine does
// not fail it, while any quadratic path (a factor near 1000) would. The
// trials of the two sizes alternate, so that a change in the machine's
// load (another package's tests starting beside this one) weighs on both.
func TestLinearCost(t *testing.T) {
	// trial maps in repeatedly, about 2 MiB in all, and returns the time
	// it took in ns per input byte.
	trial := func(f func(string) (string, error), in string) float64 {
		reps := max(1, (2<<20)/len(in))
		start := time.Now()
		for range reps {
			_, _ = f(in)
		}
		return float64(time.Since(start).Nanoseconds()) / float64(reps*len(in))
	}
	// perByte returns the best of three trials of each input, in ns per
	// input byte.
	perByte := func(f func(string) (string, error), small, large string) (float64, float64) {
		for _, in := range []string{small, large} {
			_, err := f(in)
			require.NoError(t, err)
		}
		bestSmall, bestLarge := math.Inf(1), math.Inf(1)
		for range 3 {
			bestSmall = min(bestSmall, trial(f, small))
			bestLarge = min(bestLarge, trial(f, large))
		}
		return bestSmall, bestLarge
	}
	toURI := func(s string) (string, error) { return ToURI(s) }
	toCT := func(s string) (string, error) { return ToContentType(s) }
	for _, c := range []struct {
		name         string
		f            func(string) (string, error)
		small, large string
	}{
		{"ToURI", toURI, largeContentType(1 << 10), largeContentType(1 << 20)},
		{"ToContentType", toCT, largeURI(1 << 10), largeURI(1 << 20)},
		{"ToURI uri.", toURI, "application/uri.x%3Ay" + largeContentType(1 << 10)[10:], "application/uri.x%3Ay" + largeContentType(1 << 20)[10:]},
	} {
		small, large := perByte(c.f, c.small, c.large)
		t.Logf("%s: %.2f ns/byte at 1 KiB, %.2f ns/byte at 1 MiB", c.name, small, large)
		assert.Less(t, large, 4*small, "%s: cost per byte grows with the input", c.name)
	}
}

// TestOneAllocation holds the mapping issue's allocation target: on every
// draft example a call allocates once, its result.
func TestOneAllocation(t *testing.T) {
	for _, c := range benchContentTypes {
		n := testing.AllocsPerRun(50, func() { sink, _ = ToURI(c.in) })
		assert.LessOrEqual(t, n, 1.0, "ToURI(%q)", c.in)
	}
	for _, c := range benchURIs {
		n := testing.AllocsPerRun(50, func() { sink, _ = ToContentType(c.in) })
		assert.LessOrEqual(t, n, 1.0, "ToContentType(%q)", c.in)
	}
}
