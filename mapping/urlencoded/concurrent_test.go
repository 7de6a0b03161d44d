package urlencoded

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Decoders, charsets and data sets are shared freely: several goroutines
// decoding in several legacy charsets at once, each first named by one of
// its WHATWG labels in all goroutines at the same time, and encoding and
// filtering one shared DataSet, get what one goroutine gets. Run it with
// -race: a cache of looked-up charsets, or an encoder that sorted or
// rewrote the data set in place, would show here.
func TestConcurrentUse(t *testing.T) {
	charsets := []struct {
		labels []string // the first gives the expected result
		in     string
	}{
		{[]string{"windows-1252", "cp1252", "latin1", "ISO-8859-1", "l1", "us-ascii", "x-cp1252"}, "n=Bo%F6tes&q=a+b"},
		{[]string{"shift_jis", "sjis", "ms_kanji", "csshiftjis", "windows-31j", "x-sjis"}, "n=%83e%83X%83g&x"},
		{[]string{"gbk", "gb2312", "chinese", "x-gbk", "csgb2312", "GBK"}, "n=%81%35%F4%37"},
		{[]string{"iso-2022-jp", "csiso2022jp", "ISO-2022-JP"}, "n=%1B%24B%24%22%1B%28B"},
		{[]string{"koi8-r", "koi8", "koi", "cskoi8r", "koi8_r"}, "n=%FF%80"},
		{[]string{"", "utf-8", "UTF8", "unicode-1-1-utf-8"}, "n=%C3%A9"},
	}
	shared, err := Decode("url=http://example.org/Ragnar%C3%B6k/;lang=de&q=a+b%2Bc;debug;lang=en")
	require.NoError(t, err)
	results := func(label, in string) string {
		ds, err := Decoder{LegacyCharset: label}.DecodeLegacy(in)
		esc, escErr := EscapeCharset([]byte("caf\xe9"), label, DecodeFirst, mapping.Unreserved)
		enc, encErr := shared.Encode()
		uri, uriErr := shared.EncodeURI()
		sel, selErr := shared.Filter("lang,url")
		return fmt.Sprint(ds, err, esc, escErr, enc, encErr, uri, uriErr, sel, selErr,
			shared.Select("q", "debug"), shared.Values(), shared.Validate())
	}
	want := make([]string, len(charsets))
	for i, c := range charsets {
		want[i] = results(c.labels[0], c.in)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for round := range 20 {
				for i, c := range charsets {
					label := c.labels[1+round%(len(c.labels)-1)]
					if !assert.Equal(t, want[i], results(label, c.in), "charset %q", label) {
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
