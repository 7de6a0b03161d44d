package mailhdr

import (
	"bytes"
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

// TestHeaderLimitsAreInclusive: a header block or a held field of exactly
// the limit is read; one octet more passes the entity through (a
// Content-Type complete before the header limit is passed is rewritten).
func TestHeaderLimitsAreInclusive(t *testing.T) {
	const in = "Content-Type: text/plain\r\n\r\nbody\r\n"
	header := len("Content-Type: text/plain\r\n\r\n")
	field := len("Content-Type: text/plain\r\n")
	cases := []struct {
		name      string
		opts      Options
		rewritten int
		problems  []problemAt
	}{
		{"header at the limit", Options{MaxHeaderBytes: header}, 1, nil},
		{"header over the limit at its empty line", Options{MaxHeaderBytes: header - 1}, 1, []problemAt{{"top", KindHeaderTooLarge}}},
		{"header over the limit inside the Content-Type", Options{MaxHeaderBytes: field - 1}, 0, []problemAt{{"top", KindHeaderTooLarge}}},
		{"field at the limit", Options{MaxFieldBytes: field}, 1, nil},
		{"field over the limit", Options{MaxFieldBytes: field - 1}, 0, []problemAt{{"top", KindFieldTooLarge}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := rewriteBytes(t, []byte(in), tc.opts)
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			if tc.rewritten == 0 {
				assert.Equal(t, in, string(out))
			} else {
				assert.Equal(t, "Content-Type: ContentType:text/plain\r\n\r\nbody\r\n", string(out))
			}
		})
	}
}

// TestHeaderLines: which lines are fields, which end the header as
// malformed, and a delimiter at the very end of the input inside a
// part's header.
func TestHeaderLines(t *testing.T) {
	const multipart = "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
	cases := []struct {
		name, in  string
		rewritten int
		problems  []problemAt
	}{
		{"white space before the colon", "Content-Type \t: text/plain\r\n\r\nx\r\n", 1, nil},
		{"lower-case name", "content-type: text/plain\r\n\r\nx\r\n", 1, nil},
		{"a space inside a field name", "Subject: x\r\nX Bad: y\r\nContent-Type: text/plain\r\n\r\nx\r\n", 0, []problemAt{{"top", KindMalformedHeader}}},
		{"DEL in a field name", "X\x7fBad: y\r\nContent-Type: text/plain\r\n\r\nx\r\n", 0, []problemAt{{"top", KindMalformedHeader}}},
		{"an mbox From line first", "From a@b Sat Jan  1 00:00:00 2000\r\nContent-Type: text/plain\r\n\r\nx\r\n", 1, nil},
		{"a From line after a field", "Subject: x\r\nFrom a@b Sat Jan  1 00:00:00 2000\r\nContent-Type: text/plain\r\n\r\nx\r\n", 0, []problemAt{{"top", KindMalformedHeader}}},
		{"a continuation line first", " folded\r\nContent-Type: text/plain\r\n\r\nx\r\n", 0, []problemAt{{"top", KindMalformedHeader}}},
		{"a continuation line first in a part", multipart + "\tfolded\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n", 1, []problemAt{{"1", KindMalformedHeader}}},
		{"a close delimiter without a line ending in a part's header", multipart + "Content-Type: text/plain\r\n--b--", 2, []problemAt{{"1", KindTruncatedHeader}}},
		{"a delimiter right after a delimiter: an empty part", multipart + "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n", 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			if tc.rewritten == 0 {
				assert.Equal(t, tc.in, string(out))
			}
		})
	}
}

// TestFirstFieldCounts: of repeated Content-Type or
// Content-Transfer-Encoding fields, the first gives the structure (as
// go-message's Header.Get reads it); every Content-Type is rewritten.
func TestFirstFieldCounts(t *testing.T) {
	const rfc822 = "Content-Type: message/rfc822\r\n"
	const inner = "\r\nContent-Type: text/plain\r\n\r\nx\r\n"
	cases := []struct {
		name, in  string
		rewritten int
		problems  []problemAt
	}{
		{"the first boundary", "Content-Type: multipart/mixed; boundary=a\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
			"--a\r\nContent-Type: text/plain\r\n\r\nx\r\n--a--\r\n", 3, nil},
		{"the first of two Content-Types", "Content-Type: text/plain\r\nContent-Type: message/rfc822\r\n" + inner, 2, nil},
		{"the first encoding, an identity one", rfc822 + "Content-Transfer-Encoding: 7bit\r\nContent-Transfer-Encoding: base64\r\n" + inner, 2, nil},
		{"the first encoding, base64", rfc822 + "Content-Transfer-Encoding: base64\r\nContent-Transfer-Encoding: 7bit\r\n" + inner, 1, []problemAt{{"top", KindOpaqueMessage}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
		})
	}
}

// TestDigestDefault: a part without a Content-Type is message/rfc822
// in a multipart/digest (RFC 2046 §5.1.5) and text/plain elsewhere,
// including in a multipart inside a digest.
func TestDigestDefault(t *testing.T) {
	const part = "--d\r\n\r\nContent-Type: text/plain\r\n\r\nx\r\n--d--\r\n"
	cases := []struct {
		name, in            string
		rewritten, entities int
	}{
		{"multipart/mixed", "Content-Type: multipart/mixed; boundary=d\r\n\r\n" + part, 1, 2},
		{"multipart/digest", "Content-Type: multipart/digest; boundary=d\r\n\r\n" + part, 2, 3},
		{"multipart/mixed in a digest", "Content-Type: multipart/digest; boundary=e\r\n\r\n--e\r\n" +
			"Content-Type: multipart/mixed; boundary=d\r\n\r\n" + part + "--e--\r\n", 2, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.True(t, rep.OK(), "%v", rep.Err())
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			assert.Equal(t, tc.entities, rep.Entities)
		})
	}
}

// TestOpaqueMessages: a part whose body carries a message header that the
// rewriter cannot read as it stands is passed through unchanged and
// reported, so that a caller checking Report.OK does not take its
// Content-Type fields for rewritten.
func TestOpaqueMessages(t *testing.T) {
	const inner = "Content-Type: text/plain\r\n\r\nx\r\n"
	digest := func(part string) string {
		return "Content-Type: multipart/digest; boundary=d\r\n\r\n--d\r\n" + part + "--d--\r\n"
	}
	cases := []struct {
		name, in  string
		rewritten int
		problems  []problemAt
	}{
		{"message/rfc822, base64", "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\nQ29udGVudC1UeXBlOiB0ZXh0L3BsYWluDQoNCng=\r\n", 1, []problemAt{{"top", KindOpaqueMessage}}},
		{"message/global, quoted-printable (RFC 6532 allows it)", "Content-Type: message/global\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + inner, 1, []problemAt{{"top", KindOpaqueMessage}}},
		{"message/partial", "Content-Type: message/partial; id=\"a@b\"; number=1; total=2\r\n\r\n" + inner, 1, []problemAt{{"top", KindOpaqueMessage}}},
		{"message/external-body", "Content-Type: message/external-body; access-type=local-file; name=\"/a\"\r\n\r\n" + inner, 1, []problemAt{{"top", KindOpaqueMessage}}},
		{"text/rfc822-headers (a delivery status notification's)", "Content-Type: text/rfc822-headers\r\n\r\n" + inner, 1, []problemAt{{"top", KindOpaqueMessage}}},
		{"message/global-headers", "Content-Type: message/global-headers\r\n\r\n" + inner, 1, []problemAt{{"top", KindOpaqueMessage}}},
		{"a digest's part, message/rfc822 by default, base64", digest("Content-Transfer-Encoding: base64\r\n\r\nQ29udGVudC1UeXBlOiB0ZXh0L3BsYWluDQoNCng=\r\n"), 1, []problemAt{{"1", KindOpaqueMessage}}},
		{"message/rfc822, 8bit (read)", "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + inner, 2, nil},
		{"a digest's part, message/rfc822 by default (read)", digest("\r\n" + inner), 2, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := rewriteBytes(t, []byte(tc.in), Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			assert.Equal(t, tc.problems == nil, rep.OK())
			if tc.problems != nil {
				assert.ErrorIs(t, rep.Err(), ErrOpaqueMessage)
				// The body is copied as it is: the inner Content-Type, if
				// readable, is still a Content-Type.
				assert.Equal(t, tc.in[strings.Index(tc.in, "\r\n\r\n"):], string(out[bytes.Index(out, []byte("\r\n\r\n")):]))
			}
		})
	}
}

// TestClassify: a line starts a field when a name of printable ASCII but
// ':' comes before its colon, white space between them allowed; a line
// with only white space before its colon starts none.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		text  string
		class fieldClass
		ok    bool
	}{
		{"Content-Type: text/plain", fieldCT, true},
		{"content-transfer-encoding \t: 7bit", fieldCTE, true},
		{"Subject: x", fieldOther, true},
		{"Content-Types: x", fieldOther, true},
		{": no name", fieldNone, false},
		{" : no name", fieldNone, false},
		{"\t \t: no name", fieldNone, false},
		{"X Bad: y", fieldNone, false},
		{"no colon", fieldNone, false},
	} {
		class, ok := classify([]byte(tt.text))
		assert.Equal(t, tt.ok, ok, "%q", tt.text)
		assert.Equal(t, tt.class, class, "%q", tt.text)
	}
}
