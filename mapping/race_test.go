//go:build race

package mapping

// raceEnabled: under the race detector, slices.Grow allocates the
// zeroed slice it appends on the heap, which adds half again to what a
// large input allocates (TestLargeInputMemory).
const raceEnabled = true
