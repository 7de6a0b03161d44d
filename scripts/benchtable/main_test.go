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

// TestMailhdrTable: each message's rates, and the ratios of rewrite and
// walk to go-message's walk and of rewrite to the copy.
func TestMailhdrTable(t *testing.T) {
	r, err := parse(strings.NewReader(`BenchmarkMail/m/rewrite-2 1 10 ns/op 200 MB/s 5 B/op 30 allocs/op 131072 heap-B
BenchmarkMail/m/walk-2 1 10 ns/op 40 MB/s 5 B/op 35 allocs/op
BenchmarkMail/m/gomessage-walk-2 1 10 ns/op 80 MB/s 5 B/op 19 allocs/op
BenchmarkMail/m/copy-2 1 10 ns/op 80000 MB/s 0 B/op 0 allocs/op
`))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, mailhdrTable(&out, r))
	assert.Equal(t, `| message | rewrite | walk | gomessage-walk | copy | rewrite / gomessage-walk | walk / gomessage-walk | rewrite / copy | heap-B |
|---|---|---|---|---|---|---|---|---:|
| m | 200 MB/s, 30 allocs | 40 MB/s, 35 allocs | 80 MB/s, 19 allocs | 80000 MB/s | 2.5x | 0.50x | 0.003 | 131072 |
`, out.String())

	r, err = parse(strings.NewReader("BenchmarkMail/m/rewrite-2 1 10 ns/op 200 MB/s 5 B/op 30 allocs/op 1 heap-B\n"))
	require.NoError(t, err)
	assert.ErrorContains(t, mailhdrTable(&bytes.Buffer{}, r), "no MB/s for Mail/m/walk")
}
