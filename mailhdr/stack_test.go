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
	s.pushMultipart("warm", "mixed", 0)
	for _, b := range []string{"----=_Part_0_1", "b \t"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() {
			s.pushMultipart(b, "mixed", 0)
			s.pop()
		}), "%q", b)
	}
}

// TestNestedStructure: delimiter lines of nested multiparts sharing a
// boundary, or with boundaries one of whose close delimiters is a
// delimiter of the other, and bad delimiters seen from inside an
// encapsulated message.
func TestNestedStructure(t *testing.T) {
	const text = "Content-Type: text/plain\r\n\r\nx\r\n"
	cases := []struct {
		name, in  string
		rewritten int
		problems  []problemAt
	}{
		{"the same boundary inside: the outer one is open again after the inner closes",
			"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\n" + text +
				"--b--\r\n--b\r\n" + text + "--b--\r\n", 4, nil},
		{"the same boundary inside, closed by the outer close delimiter",
			"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\n" + text +
				"--b--\r\n--b--\r\nepilogue\r\n--b\r\n", 3, nil},
		{"the inner boundary's close delimiter is the outer's delimiter: the inner wins",
			"Content-Type: multipart/mixed; boundary=\"b--\"\r\n\r\n--b--\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n" + text +
				"--b--\r\n--b--\r\n" + text + "--b----\r\n", 4, nil},
		{"the outer boundary's close delimiter is the inner's delimiter: the inner wins",
			"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: multipart/mixed; boundary=\"b--\"\r\n\r\n--b--\r\n" + text +
				"--b----\r\n--b--\r\n", 3, nil},
		{"a bad delimiter inside an encapsulated message",
			"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: message/rfc822\r\n\r\n" + text + "--b--junk\r\n--b--\r\n",
			3, []problemAt{{"1.msg", KindBadDelimiter}}},
		{"an outer delimiter closes an inner multipart",
			"Content-Type: multipart/mixed; boundary=o\r\n\r\n--o\r\nContent-Type: message/rfc822\r\n\r\nContent-Type: multipart/mixed; boundary=i\r\n\r\n--i\r\n" + text +
				"--o--\r\n", 4, []problemAt{{"1.msg", KindMissingDelimiter}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			back, _ := rewriteBytes(t, out, Options{To: ToContentType})
			canon, _ := rewriteBytes(t, []byte(tc.in), Options{To: Canonical})
			assert.Equal(t, string(canon), string(back))
		})
	}
}

// TestInnermostBoundary: the boundary of the innermost open multipart,
// seen through encapsulated messages, and none with no multipart open.
func TestInnermostBoundary(t *testing.T) {
	var s stack
	_, ok := s.innermostBoundary()
	assert.False(t, ok, "empty")
	s.pushMessage(0)
	_, ok = s.innermostBoundary()
	assert.False(t, ok, "a message only")
	s.pushMultipart("outer", "mixed", 1)
	s.pushMessage(2)
	b, ok := s.innermostBoundary()
	assert.True(t, ok)
	assert.Equal(t, "outer", b, "through a message")
	s.pushMultipart("inner", "mixed", 3)
	b, _ = s.innermostBoundary()
	assert.Equal(t, "inner", b)
	s.pop()
	s.pop()
	s.pop()
	_, ok = s.innermostBoundary()
	assert.False(t, ok, "all multiparts closed")
}
