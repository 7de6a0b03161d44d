package relay

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkClientReader reads a 1 MiB message of 78-octet CRLF lines
// through clientReader, beside the same copy without it (io.Copy of the
// bare reader): the check for bare CR and LF is the difference, and the
// line limit (which go-smtp lifts for BDAT) the next.
func BenchmarkClientReader(b *testing.B) {
	line := strings.Repeat("x", 76) + "\r\n"
	msg := strings.Repeat(line, (1<<20)/len(line))
	buf := make([]byte, 32<<10)
	for _, bm := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"io.Copy", func(r io.Reader) io.Reader { return r }},
		{"clientReader", func(r io.Reader) io.Reader { return &clientReader{r: r} }},
		// As Data reads a message: with go-smtp's MaxLineLength too.
		{"clientReader+MaxLineLength", func(r io.Reader) io.Reader { return &clientReader{r: r, max: 2000} }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			src := strings.NewReader(msg)
			for b.Loop() {
				src.Reset(msg)
				// onlyReader hides strings.Reader's WriterTo, so that both
				// copies go through buf as the relay's reads do.
				if _, err := io.CopyBuffer(io.Discard, onlyReader{bm.wrap(src)}, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type onlyReader struct{ io.Reader }
