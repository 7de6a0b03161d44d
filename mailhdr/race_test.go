//go:build race

package mailhdr

// raceEnabled: the race detector slows streaming tests down about tenfold.
const raceEnabled = true
