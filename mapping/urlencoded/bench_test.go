package urlencoded

import (
	"fmt"
	"net/url"
	"testing"
)

// Data sets for the benchmarks, each as this package's canonical encoding
// and as the legacy encoding net/url reads and writes, decoded and encoded
// in the same run as url.ParseQuery and url.Values.Encode.
func benchSets() []struct {
	name string
	d    DataSet
} {
	large := DataSet{}
	for i := 0; i < 100; i++ {
		large = append(large, Pair{fmt.Sprintf("field%d", i), fmt.Sprintf("value %d/ü", i), true})
	}
	return []struct {
		name string
		d    DataSet
	}{
		{"section8", DataSet{{"url", "http://example.org/Ragnarök/", true}, {"lang", "de", true}}},
		{"search", DataSet{{"q", "content type to uri", true}, {"page", "2", true}, {"sort", "date", true}}},
		{"100fields", large},
	}
}

var (
	sinkSet  DataSet
	sinkVals url.Values
	sinkStr  string
)

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchSets() {
		enc, _ := c.d.Encode()
		legacy := c.d.Values().Encode()
		b.Run(c.name+"/Decode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				sinkSet, _ = Decode(enc)
			}
		})
		b.Run(c.name+"/DecodeLegacy", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(legacy)))
			for b.Loop() {
				sinkSet, _ = DecodeLegacy(legacy)
			}
		})
		b.Run(c.name+"/url.ParseQuery", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(legacy)))
			for b.Loop() {
				sinkVals, _ = url.ParseQuery(legacy)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range benchSets() {
		v := c.d.Values()
		b.Run(c.name+"/Encode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkStr, _ = c.d.Encode()
			}
		})
		b.Run(c.name+"/url.Values.Encode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkStr = v.Encode()
			}
		})
	}
}
