package mapping

import (
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

var _ = strings.Repeat
