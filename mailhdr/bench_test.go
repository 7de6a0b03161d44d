package mailhdr

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// attachmentMessage returns a message with one text part and one base64
// attachment of about size octets.
func attachmentMessage(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 1024)
	b.WriteString("From: a@example.com\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"----=_Part_0_1\"\r\n\r\n" +
		"------=_Part_0_1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nsee the attachment\r\n" +
		"------=_Part_0_1\r\nContent-Type: application/pdf; name=\"report.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	line := strings.Repeat("JVBERi0xLjQK", 6) + "JVBE\r\n" // 76 octets of base64
	for b.Len() < size {
		b.WriteString(line)
	}
	b.WriteString("------=_Part_0_1--\r\n")
	return b.Bytes()
}

// partsMessage returns a multipart message with n small text parts.
func partsMessage(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: a@example.com\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"=_b\"\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "--=_b\r\nContent-Type: text/plain; charset=us-ascii; name=\"part%d.txt\"\r\n\r\nthis is part %d\r\nof the message\r\n", i, i)
	}
	b.WriteString("--=_b--\r\n")
	return b.Bytes()
}

// copyPartBody is a message.WalkFunc that copies the body of each part
// that is not a multipart, through buf, as a program that reads a message
// does. It asks the part's MultipartReader, not its header, which Walk
// may have rewritten.
func copyPartBody(buf []byte) message.WalkFunc {
	return func(_ []int, part *message.Entity, err error) error {
		if err != nil {
			return err
		}
		if part.MultipartReader() != nil {
			return nil // Walk reads the parts
		}
		_, err = io.CopyBuffer(discard{}, struct{ io.Reader }{part.Body}, buf)
		return err
	}
}

// discard is io.Discard without ReadFrom, so that every copy writes.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// heapSampler reads from r and records the peak heap in use every 64
// reads (runtime.ReadMemStats, HeapInuse).
type heapSampler struct {
	r     io.Reader
	reads int
	peak  uint64
}

func (h *heapSampler) Read(p []byte) (int, error) {
	if h.reads++; h.reads%64 == 1 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapInuse)
	}
	return h.r.Read(p)
}

// BenchmarkMail compares, on the same messages, Rewrite with go-message
// reading the message and copying the body of every part (Read + Walk,
// gomessage-walk), with the same through this package's Walk (walk), and
// with a plain buffered copy (io.CopyBuffer, 64 KiB). Rewrite also
// reports heap-B: the largest growth of HeapInuse during a run (sampled
// every 64 reads of the source) over HeapInuse after a GC just before
// it; the message, in memory before the run, is not counted.
func BenchmarkMail(b *testing.B) {
	msgs := []struct {
		name string
		msg  []byte
	}{
		{"attachment-1MiB", attachmentMessage(1 << 20)},
		{"attachment-64MiB", attachmentMessage(64 << 20)},
		{"parts-10000", partsMessage(10000)},
	}
	for _, m := range msgs {
		b.Run(m.name+"/rewrite", func(b *testing.B) {
			b.SetBytes(int64(len(m.msg)))
			b.ReportAllocs()
			var growth uint64
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.StartTimer()
				src := &heapSampler{r: bytes.NewReader(m.msg)}
				if _, err := Rewrite(discard{}, src, Options{}); err != nil {
					b.Fatal(err)
				}
				growth = max(growth, src.peak-min(src.peak, ms.HeapInuse))
			}
			b.ReportMetric(float64(growth), "heap-B")
		})
		// go-message's Walk, and mailhdr's, which rewrites each header
		// before the same copy sees it.
		for _, w := range []struct {
			name string
			walk func(*message.Entity, message.WalkFunc) error
		}{
			{"walk", func(e *message.Entity, fn message.WalkFunc) error { _, err := Walk(e, Options{}, fn); return err }},
			{"gomessage-walk", (*message.Entity).Walk},
		} {
			b.Run(m.name+"/"+w.name, func(b *testing.B) {
				b.SetBytes(int64(len(m.msg)))
				b.ReportAllocs()
				copyBody := copyPartBody(make([]byte, 64<<10))
				for b.Loop() {
					e, err := message.Read(bytes.NewReader(m.msg))
					if err != nil {
						b.Fatal(err)
					}
					if err := w.walk(e, copyBody); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(m.name+"/copy", func(b *testing.B) {
			b.SetBytes(int64(len(m.msg)))
			b.ReportAllocs()
			buf := make([]byte, 64<<10)
			for b.Loop() {
				if _, err := io.CopyBuffer(discard{}, struct{ io.Reader }{bytes.NewReader(m.msg)}, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRewriteHeader measures rewriteHeader on one part's header as
// go-message reads it, beside its baseline, go-message's reading of the
// same header (read): the difference is what Walk adds to a part of
// BenchmarkMail's parts-10000 (one-field) or to an attachment's part
// (attachment), before the GC that the extra allocations cost.
func BenchmarkRewriteHeader(b *testing.B) {
	headers := []struct{ name, header string }{
		{"one-field", "Content-Type: text/plain; charset=us-ascii; name=\"part1.txt\"\r\n\r\n"},
		{"attachment", "Content-Type: application/pdf; name=\"report.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"},
	}
	for _, hd := range headers {
		for _, rewrite := range []bool{false, true} {
			name := hd.name + "/read"
			if rewrite {
				name = hd.name + "/read+rewrite"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				msg := []byte(hd.header)
				var src bytes.Reader
				br := bufio.NewReader(&src)
				fr := newFieldRewriter(&Options{})
				for b.Loop() {
					src.Reset(msg)
					br.Reset(&src)
					h, err := textproto.ReadHeader(br)
					if err != nil {
						b.Fatal(err)
					}
					if !rewrite {
						continue
					}
					if n, _, err := rewriteHeader(&h, fr); n != 1 || err != nil {
						b.Fatal(n, err)
					}
				}
			})
		}
	}
}
