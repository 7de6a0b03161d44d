package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchLines is the input of BenchmarkRun: n lines, each line.
func benchLines(line string, n int) string {
	return strings.Repeat(line+"\n", n)
}

// BenchmarkRun measures the command on 10,000 lines read from memory and
// written to files, as from a pipe into files: lines that map, lines that
// fail with standard output and standard error on different files, and
// on one file (2>&1), where each failure costs two writes. The baseline,
// cat, copies the same input to the same file with io.Copy. ns/line is
// the cost of one line.
func BenchmarkRun(b *testing.B) {
	const n = 10_000
	good := benchLines("image/tiff; application=faxbw", n)
	bad := benchLines(`text/plain; a="x\"`, n) // an unterminated quoted-string
	dir := b.TempDir()
	open := func(name string) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return f
	}
	out, errs := open("out"), open("errs")
	// rewind empties the files between iterations, so that they stay small.
	rewind := func() {
		for _, f := range []*os.File{out, errs} {
			if err := f.Truncate(0); err != nil {
				b.Fatal(err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name, input string
		stderr      *os.File
		code        int
	}{
		{"cat", good, nil, exitOK},
		{"mapped", good, errs, exitOK},
		{"failing-apart", bad, errs, exitFailed},
		{"failing-together", bad, out, exitFailed},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.input)))
			b.ReportAllocs()
			for b.Loop() {
				rewind()
				if c.stderr == nil {
					if _, err := io.Copy(out, strings.NewReader(c.input)); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if code := run(nil, strings.NewReader(c.input), out, c.stderr); code != c.code {
					b.Fatalf("exit status %d, want %d", code, c.code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/line")
		})
	}
}
