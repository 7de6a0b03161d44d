package mailhdr

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTruncatedLongHeaderLine: a header cut off by the end of the input
// is reported however long its last line, also past the input buffer.
func TestTruncatedLongHeaderLine(t *testing.T) {
	cases := []struct {
		name, in string
	}{
		{"short field", "Content-Type: text/plain\r\nX-Long: " + strings.Repeat("a", 100)},
		{"field longer than the buffer", "Content-Type: text/plain\r\nX-Long: " + strings.Repeat("a", readBufSize+100)},
		{"Content-Type longer than the buffer", "Content-Type: text/plain; a=\"" + strings.Repeat("a", readBufSize+100)},
		{"continuation longer than the buffer", "Content-Type: text/plain\r\nX-Long: a\r\n " + strings.Repeat("a", readBufSize+100)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.Contains(t, problemsOf(rep), problemAt{"top", KindTruncatedHeader})
		})
	}
}
