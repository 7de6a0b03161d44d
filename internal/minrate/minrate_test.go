package minrate

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAllowance(t *testing.T) {
	for _, tt := range []struct {
		n, rate int64
		want    time.Duration
	}{
		{0, 500, 0},
		{499, 500, 998 * time.Millisecond},
		{500, 500, time.Second},
		{1500, 500, 3 * time.Second},
		{1 << 40, 0, 0},
		{1 << 40, -1, 0},
		{math.MaxInt64, 1, 100 * 365 * 24 * time.Hour},
	} {
		assert.Equal(t, tt.want, Allowance(tt.n, tt.rate), "%d octets at %d a second", tt.n, tt.rate)
	}
}

func TestWait(t *testing.T) {
	const timeout = time.Minute
	for _, tt := range []struct {
		name   string
		waited time.Duration
		got    int64
		rate   int64
		want   time.Duration
	}{
		{"first read", 0, 0, 500, timeout},
		{"no minimum", time.Hour, 0, 0, timeout},
		{"kept up: the whole timeout", 10 * time.Second, 500 * 10, 500, timeout},
		{"behind: what the budget leaves", 50 * time.Second, 500, 500, 11 * time.Second},
		{"budget spent", 2 * time.Minute, 500, 500, -59 * time.Second},
		{"a century earned does not overflow", 0, math.MaxInt64, 1, timeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Wait(timeout, tt.waited, tt.got, tt.rate))
		})
	}
}
