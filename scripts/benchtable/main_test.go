package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want float64
	}{
		{"odd count", "BenchmarkX-2 1 3 ns/op\nBenchmarkX-2 1 1 ns/op\nBenchmarkX-2 1 2 ns/op\n", 2},
		{"even count", "BenchmarkX-2 1 4 ns/op\nBenchmarkX-2 1 1 ns/op\nBenchmarkX-2 1 2 ns/op\nBenchmarkX-2 1 8 ns/op\n", 3},
		{"no GOMAXPROCS suffix", "BenchmarkX 1 5 ns/op\n", 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parse(strings.NewReader(tt.in))
			require.NoError(t, err)
			got, err := r.median("X", "ns/op")
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	_, err := parse(strings.NewReader("BenchmarkX-2 1 5 ns/op 7\n"))
	assert.ErrorContains(t, err, "odd benchmark line")
	_, err = parse(strings.NewReader("BenchmarkX-2 1 five ns/op\n"))
	assert.Error(t, err)
	r, err := parse(strings.NewReader("BenchmarkX-2 1 5 ns/op\n"))
	require.NoError(t, err)
	_, err = r.median("X", "allocs/op")
	assert.ErrorContains(t, err, "no allocs/op for X")
}

// TestMiddlewareTable: medians over the rounds, in the order the
// benchmarks ran, each over the bare handler's median.
func TestMiddlewareTable(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, "testdata"))
	assert.Equal(t, `middleware.txt (3 rounds)

| benchmark | ns/op | allocs | over bare |
| --- | ---: | ---: | --- |
| bare | 22 | 0 |  |
| rewrite-request | 600 | 3 | +578 ns |
| Detect | 11 | 0 |  |

`, out.String())
}

// TestMissingBenchmark: a table whose baseline did not run is an error,
// not a row of zeros.
func TestMissingBenchmark(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/middleware.txt", []byte("BenchmarkMiddleware/x-2 1 5 ns/op 0 allocs/op\n"), 0o644))
	var out bytes.Buffer
	err := run(&out, dir)
	assert.ErrorContains(t, err, "no ns/op for Middleware/bare")
	assert.Empty(t, out.String())
}

// TestNoOutput: a folder without benchmark output is an error.
func TestNoOutput(t *testing.T) {
	err := run(&bytes.Buffer{}, t.TempDir())
	assert.ErrorContains(t, err, "no benchmark output")
}
