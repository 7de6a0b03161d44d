//go:build !race

package mailhdr

const raceEnabled = false
