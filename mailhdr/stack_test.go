package mailhdr

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBoundaryWithTrailingWhiteSpace: a boundary that ends in white
// space (RFC 2046 forbids it, but it is written) is matched as readers
// such as Go's mime/multipart match it: "--" boundary, then transport
// padding; white space alone after "--" and the boundary without it is
// not a delimiter.
func TestBoundaryWithTrailingWhiteSpace(t *testing.T) {
	cases := []struct {
		name, boundary, delim, close string
		rewritten                    int
		problems                     []problemAt
	}{
		{"space", "b ", "--b \r\n", "--b --\r\n", 2, nil},
		{"space and padding", "b ", "--b \t \r\n", "--b -- \r\n", 2, nil},
		{"tab", "b\t", "--b\t\r\n", "--b\t--\r\n", 2, nil},
		{"only white space", " ", "-- \r\n", "-- --\r\n", 2, nil},
		{"without the space", "b ", "--b\r\n", "--b--\r\n", 1, []problemAt{{"top", KindMissingDelimiter}}},
		{"padding is not part of the boundary", "b", "--b \r\n", "--b --\r\n", 2, []problemAt{{"1", KindBadDelimiter}, {"top", KindMissingDelimiter}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := "Content-Type: multipart/mixed; boundary=\"" + tc.boundary + "\"\r\n\r\n" +
				tc.delim + "Content-Type: text/plain\r\n\r\nx\r\n" + tc.close + "epilogue\r\n"
			out, rep := rewriteBytes(t, []byte(in), Options{})
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.True(t, strings.HasSuffix(string(out), "x\r\n"+tc.close+"epilogue\r\n"))
		})
	}
}

// TestStackPushPopAllocations: opening and closing a multipart costs no
// allocation once the stack has room, whatever the boundary's trailing
// white space (its key is a substring of it).
func TestStackPushPopAllocations(t *testing.T) {
	var s stack
	s.pushMultipart("warm", false, 0)
	for _, b := range []string{"----=_Part_0_1", "b \t"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() {
			s.pushMultipart(b, false, 0)
			s.pop()
		}), "%q", b)
	}
}
