package urlencoded

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The data sets, each written in the legacy format so that url.ParseQuery,
// the baseline measured in the same run, reads the same string.
var benchQueries = []struct{ name, in string }{
	{"small", "q=golang&lang=en&page=2"},
	{"search", "q=hello+world+again&hl=en&num=10&start=20&safe=off&tbm=isch&flag"},
	{"ragnarok", getLegacy},
	{"escaped", "name=J%C3%BCrgen+M%C3%BCller&city=M%C3%BCnchen&msg=Gr%C3%BC%C3%9Fe+%26+Dank%21&x=%7B%22a%22%3A1%7D"},
	{"50pairs", fiftyPairs()},
}

func fiftyPairs() string {
	var b strings.Builder
	for i := range 50 {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "field%d=value+%d", i, i)
	}
	return b.String()
}

var (
	sinkSet    DataSet
	sinkValues url.Values
	sinkString string
)

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchQueries {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sinkSet, _ = Decode(c.in)
			}
		})
	}
}

func BenchmarkDecodeLegacy(b *testing.B) {
	for _, c := range benchQueries {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sinkSet, _ = DecodeLegacy(c.in)
			}
		})
	}
}

// BenchmarkParseQuery is the baseline of the decoders.
func BenchmarkParseQuery(b *testing.B) {
	for _, c := range benchQueries {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sinkValues, _ = url.ParseQuery(c.in)
			}
		})
	}
}

func benchEncode(b *testing.B, encode func(DataSet) (string, error)) {
	for _, c := range benchQueries {
		d, err := DecodeLegacy(c.in)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sinkString, _ = encode(d)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B)       { benchEncode(b, DataSet.Encode) }
func BenchmarkEncodeLegacy(b *testing.B) { benchEncode(b, DataSet.EncodeLegacy) }

// BenchmarkValuesEncode is the baseline of the encoders: url.Values.Encode
// of the same data sets (as maps, which it sorts by name).
func BenchmarkValuesEncode(b *testing.B) {
	for _, c := range benchQueries {
		v, err := url.ParseQuery(c.in)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				sinkString = v.Encode()
			}
		})
	}
}
