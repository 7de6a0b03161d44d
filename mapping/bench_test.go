package mapping

import (
	"fmt"
	"mime"
	"strings"
	"testing"
)

// The draft's examples (§2.1-2.4 Content-Types, §3.1-3.3 URIs), each mapped
// by this package and, as the baseline measured in the same run, parsed and
// formatted by mime.ParseMediaType + mime.FormatMediaType.
var (
	benchContentTypes = []struct{ name, in string }{
		{"2.1-jpeg", "image/JPEG"},
		{"2.1-odd", "x-FOO?bar/biZZare#sUb#tYpe"},
		{"2.2-4params", `text/plain; charset="us-ascii"; x-mac-type="54455854"; x-mac-creator="4D4F5353"`},
		{"2.2-tiff", "image/tiff; application=faxbw"},
		{"2.3-mailto", "application/uri.mailto%3Auser%40host.example"},
		{"2.3-params", `application/uri.http%3A%2F%2Fx.test; foo="123"; bar="abcd"`},
		{"2.3-fragment", `application/uri.http%3A%2F%2Fa%3Ab%40c.text%2Fx%2Fy; URI-fragment="z%25z"`},
		{"2.4-uri-body", `application/xml; URI-body="http://xml.example/foo"`},
	}
	benchURIs = []struct{ name, in string }{
		{"3.1-http", "http://example.com/tag42"},
		{"3.1-mailto", `mailto:U@example.net?subject="misc"&body="line1%0D%0Aline2"`},
		{"3.1-fragment", "xyz://abc.test/def?h=ijk#lmn"},
		{"3.2-model", "ContentType:model/vnd.example.longish.sub%23type.name"},
		{"3.2-params", `ContentType:text/plain?charset="US-ASCII"&x-obscure="value"`},
		{"3.3-mime-type", `mailto:joe@blow.test?MIME-type="message%2Frfc822"#123`},
	}
)

var sink string

func BenchmarkToURI(b *testing.B) {
	for _, c := range benchContentTypes {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sink, _ = ToURI(c.in)
			}
		})
	}
}

func BenchmarkToContentType(b *testing.B) {
	for _, c := range benchURIs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sink, _ = ToContentType(c.in)
			}
		})
	}
}

// mimeRoundTrip is the baseline: what a Content-Type-only stack does with a
// label, parse it and format it again.
func mimeRoundTrip(s string) string {
	t, p, err := mime.ParseMediaType(s)
	if err != nil {
		return ""
	}
	return mime.FormatMediaType(t, p)
}

func BenchmarkMIMEParseFormat(b *testing.B) {
	all := append(append([]struct{ name, in string }{}, benchContentTypes...), benchURIs...)
	for _, c := range all {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sink = mimeRoundTrip(c.in)
			}
		})
	}
}

// BenchmarkMIMEParseFormatSameLabel is the baseline for the URI examples
// that does real work: mime.ParseMediaType on a URI string fails at once,
// so this parses and formats the Content-Type the URI maps to, which is
// what a Content-Type-only stack does with the same label.
func BenchmarkMIMEParseFormatSameLabel(b *testing.B) {
	for _, c := range benchURIs {
		ct, err := ToContentType(c.in)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sink = mimeRoundTrip(ct)
			}
		})
	}
}

// BenchmarkResultString is the floor under each row of BenchmarkToURI and
// BenchmarkToContentType: copying a result of the same length into a new
// string, the one allocation a mapping that returns a string must make.
// (mime.ParseMediaType refuses x-FOO?bar/biZZare#sUb#tYpe at once; this
// shows that 5x its time is less than that allocation.)
func BenchmarkResultString(b *testing.B) {
	var buf [256]byte
	for _, c := range benchContentTypes {
		out, err := ToURI(c.in)
		if err != nil {
			b.Fatal(err)
		}
		benchResultString(b, c.name, c.in, copy(buf[:], out), &buf)
	}
	for _, c := range benchURIs {
		out, err := ToContentType(c.in)
		if err != nil {
			b.Fatal(err)
		}
		benchResultString(b, c.name, c.in, copy(buf[:], out), &buf)
	}
}

func benchResultString(b *testing.B, name, in string, n int, buf *[256]byte) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(in)))
		for b.Loop() {
			sink = string(buf[:n])
		}
	})
}

// largeContentType returns a Content-Type of about n bytes made of many
// parameters, and largeURI a URI of about n bytes with many query items.
func largeContentType(n int) string {
	var sb strings.Builder
	sb.WriteString("text/plain")
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, `; p%d="value %d (%%) \"quoted\""`, i, i)
	}
	return sb.String()
}

func largeURI(n int) string {
	var sb strings.Builder
	sb.WriteString("http://example.com/path?")
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, `p%d="value%%20%d%%25"&`, i, i)
	}
	return strings.TrimSuffix(sb.String(), "&")
}

var sizes = []struct {
	name string
	n    int
}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}}

// BenchmarkSize shows the cost per byte (MB/s) of a 1 KiB and a 1 MiB
// input: equal throughput means no quadratic path.
func BenchmarkSize(b *testing.B) {
	for _, sz := range sizes {
		ct, uri := largeContentType(sz.n), largeURI(sz.n)
		b.Run("ToURI/"+sz.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(ct)))
			for b.Loop() {
				sink, _ = ToURI(ct)
			}
		})
		b.Run("ToContentType/"+sz.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(uri)))
			for b.Loop() {
				sink, _ = ToContentType(uri)
			}
		})
	}
}
