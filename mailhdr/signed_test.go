package mailhdr

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	message "github.com/emersion/go-message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signedPart returns the octets between the first two delimiter lines of
// boundary in msg: the part a multipart/signed of that boundary signs,
// found by searching the octets, independently of the scanner.
func signedPart(t *testing.T, msg []byte, boundary string) []byte {
	t.Helper()
	delim := []byte("\n--" + boundary + "\r\n")
	i := bytes.Index(msg, delim)
	require.GreaterOrEqual(t, i, 0, "no delimiter --%s", boundary)
	rest := msg[i+len(delim):]
	j := bytes.Index(rest, []byte("\r\n--"+boundary+"\r\n"))
	require.GreaterOrEqual(t, j, 0, "no second delimiter --%s", boundary)
	return rest[:j]
}

// TestSignedPartKept: the part a multipart/signed signs (RFC 1847 §2.1)
// comes out octet for octet, header and nested parts included, whatever
// the target, and is reported once; the parts around it, the
// multipart/signed's own field and its signature part are rewritten.
func TestSignedPartKept(t *testing.T) {
	in := readCorpus(t, "signed.eml")
	signed := signedPart(t, in, "sig")
	require.Contains(t, string(signed), "Content-Type: multipart/mixed; boundary=\"inner\"")

	uri, rep := rewriteBytes(t, in, Options{})
	assert.Equal(t, string(signed), string(signedPart(t, uri, "sig")))
	assert.Equal(t, []problemAt{{"2.1", KindSigned}}, problemsOf(rep))
	assert.ErrorIs(t, rep.Err(), ErrSigned)
	assert.Contains(t, string(uri), "Content-Type: ContentType:multipart/signed?")
	assert.Contains(t, string(uri), "Content-Type: ContentType:application/pgp-signature?name=\"signature.asc\"")
	assert.Equal(t, 4, rep.Rewritten)
	assert.Equal(t, 4, rep.Entities, "the signed part's three header blocks are not examined")

	// Back to Content-Types, and canonical: the signed part is still the
	// original's, so the signature verifies after a round trip.
	for _, to := range []Target{ToContentType, Canonical} {
		back, rep := rewriteBytes(t, uri, Options{To: to})
		assert.Equal(t, string(signed), string(signedPart(t, back, "sig")), to)
		assert.Equal(t, []problemAt{{"2.1", KindSigned}}, problemsOf(rep), to)
		assert.Equal(t, 4, rep.Rewritten, to)
	}
}

// TestRewriteSigned: with Options.RewriteSigned the signed part is
// examined as any other, and its fields rewritten.
func TestRewriteSigned(t *testing.T) {
	in := readCorpus(t, "signed.eml")
	out, rep := rewriteBytes(t, in, Options{RewriteSigned: true})
	assert.True(t, rep.OK(), "%v", rep.Err())
	assert.Equal(t, 7, rep.Rewritten)
	assert.Equal(t, 7, rep.Entities)
	assert.Contains(t, string(signedPart(t, out, "sig")), "Content-Type: ContentType:multipart/mixed?boundary=\"inner\"")
}

// TestSignedStructures: where the signed part is, and what it holds.
func TestSignedStructures(t *testing.T) {
	const sig = "--s\r\nContent-Type: application/pkcs7-signature; name=smime.p7s\r\n\r\nMIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwE=\r\n--s--\r\n"
	signedTop := func(part string) string {
		return "Content-Type: multipart/signed; protocol=\"application/pkcs7-signature\"; micalg=sha-256; boundary=s\r\n\r\n--s\r\n" + part + "\r\n" + sig
	}
	cases := []struct {
		name      string
		msg       string
		rewritten int
		problems  []problemAt
	}{
		{"S/MIME, a single signed part", signedTop("Content-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n"), 2, []problemAt{{"1", KindSigned}}},
		{"a Content-Type that does not parse is not examined", signedTop("Content-Type: text/plain; ;=\r\n\r\nhi\r\n"), 2, []problemAt{{"1", KindSigned}}},
		{"a signed part with no header", signedTop("\r\nhi\r\n"), 2, []problemAt{{"1", KindSigned}}},
		{"a multipart/signed inside a signed part is not examined", signedTop("Content-Type: multipart/signed; protocol=\"a/b\"; boundary=t\r\n\r\n--t\r\nContent-Type: text/plain\r\n\r\nx\r\n--t\r\nContent-Type: a/b\r\n\r\ny\r\n--t--\r\n"), 2, []problemAt{{"1", KindSigned}}},
		{"in a message/rfc822 part", "Content-Type: message/rfc822\r\n\r\n" + signedTop("Content-Type: text/plain\r\n\r\nhi\r\n"), 3, []problemAt{{"msg.1", KindSigned}}},
		{"the type's case does not matter", strings.Replace(signedTop("Content-Type: text/plain\r\n\r\nhi\r\n"), "multipart/signed", "Multipart/SIGNED", 1), 2, []problemAt{{"1", KindSigned}}},
		{"multipart/encrypted is rewritten", strings.Replace(signedTop("Content-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n"), "multipart/signed", "multipart/encrypted", 1), 3, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.msg)
			out, rep := rewriteBytes(t, in, Options{})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			if tc.problems != nil {
				assert.Equal(t, string(signedPart(t, in, "s")), string(signedPart(t, out, "s")))
			}
			// The signed part is found again in the URI-labelled output.
			_, rep = rewriteBytes(t, out, Options{To: ToContentType})
			assert.Equal(t, tc.problems, problemsOf(rep))
			assert.Equal(t, tc.rewritten, rep.Rewritten)
		})
	}
}

// TestWalkSigned: Walk leaves the signed part's headers, and those of
// the parts in it, as go-message read them, and reports the part once.
func TestWalkSigned(t *testing.T) {
	for _, tc := range []struct {
		opts                Options
		rewritten, entities int
		problems            []problemAt
	}{
		{Options{}, 4, 4, []problemAt{{"2.1", KindSigned}}},
		{Options{RewriteSigned: true}, 7, 7, nil},
	} {
		e, err := message.Read(bytes.NewReader(readCorpus(t, "signed.eml")))
		require.NoError(t, err)
		var labels []string
		rep, err := Walk(e, tc.opts, func(path []int, part *message.Entity, err error) error {
			labels = append(labels, part.Header.Get("Content-Type"))
			return err
		})
		require.NoError(t, err)
		assert.Equal(t, tc.problems, problemsOf(rep))
		assert.Equal(t, tc.rewritten, rep.Rewritten)
		assert.Equal(t, tc.entities, rep.Entities)
		require.Len(t, labels, 7)
		for i, l := range labels {
			signedPart := i >= 3 && i <= 5
			assert.Equal(t, signedPart && !tc.opts.RewriteSigned, !strings.HasPrefix(l, "ContentType:"), "part %d: %s", i, l)
		}
	}
}

// TestWalkSignedEdges: Walk with a multipart/signed of one part before a
// sibling (the signed part's path is longer than the sibling's), and
// with a signed part go-message reports an error for, which fn still
// gets; the problem has no offset, as Walk's have none.
func TestWalkSignedEdges(t *testing.T) {
	const msg = "Content-Type: multipart/mixed; boundary=o\r\n\r\n" +
		"--o\r\nContent-Type: multipart/signed; protocol=\"a/b\"; boundary=s\r\n\r\n" +
		"--s\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: x-unknown\r\n\r\nx\r\n--s--\r\n" +
		"--o\r\nContent-Type: text/plain\r\n\r\ny\r\n--o--\r\n"
	e, err := message.Read(strings.NewReader(msg))
	require.NoError(t, err)
	errs := map[string]error{}
	var labels []string
	rep, err := Walk(e, Options{}, func(path []int, part *message.Entity, err error) error {
		errs[onePlus(path).String()] = err
		labels = append(labels, part.Header.Get("Content-Type"))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`ContentType:multipart/mixed?boundary="o"`,
		`ContentType:multipart/signed?protocol="a%2Fb"&boundary="s"`,
		"text/plain",
		"ContentType:text/plain",
	}, labels)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, "1.1", rep.Problems[0].Path.String())
	assert.Equal(t, KindSigned, rep.Problems[0].Kind)
	assert.Equal(t, int64(-1), rep.Problems[0].Offset)
	assert.True(t, message.IsUnknownEncoding(errs["1.1"]), "go-message's error for the signed part reaches fn: %v", errs)
}

// TestSignedReport: a signed part's problem counts like any other in
// Report.OK and Err, listed or only counted.
func TestSignedReport(t *testing.T) {
	in := readCorpus(t, "signed.eml")
	_, rep := rewriteBytes(t, in, Options{MaxReportBytes: 1})
	assert.Empty(t, rep.Problems)
	assert.Equal(t, 1, rep.Omitted)
	assert.False(t, rep.OK())
	assert.EqualError(t, rep.Err(), "mailhdr: 1 more not listed")

	two := Report{Problems: []Problem{{Kind: KindSigned}, {Path: Path{2}, Kind: KindTooDeep}}}
	assert.ErrorIs(t, two.Err(), ErrSigned)
	assert.ErrorIs(t, two.Err(), ErrTooDeep)
	assert.EqualError(t, Report{Problems: []Problem{{Kind: KindSigned}}}.Err(), "mailhdr: top: signed")
}

// TestSignedIsExact: only multipart/signed itself has a signed part.
func TestSignedIsExact(t *testing.T) {
	for _, sub := range []string{"signedx", "signe", "mixed"} {
		in := "Content-Type: multipart/" + sub + "; boundary=s\r\n\r\n--s\r\nContent-Type: text/plain\r\n\r\nx\r\n--s--\r\n"
		_, rep := rewriteBytes(t, []byte(in), Options{})
		assert.True(t, rep.OK(), "%s: %v", sub, rep.Err())
		assert.Equal(t, 2, rep.Rewritten, sub)
	}
}

// TestIsMultipartSigned: Walk's test for a multipart/signed agrees with
// go-message's own parse (Header.ContentType), which it skips for most
// values, on values that do and do not say multipart/signed, in any case,
// and with runes that strings.ToLower turns into ASCII letters.
func TestIsMultipartSigned(t *testing.T) {
	for _, v := range []string{
		"multipart/signed; protocol=\"a/b\"; boundary=s",
		"Multipart/SIGNED;boundary=s",
		"multipart/signed", // "gned" at the very end
		"Multipart/SIGNED",
		"multipart/mixed; boundary=signed",
		" multipart/signed ",
		"multipart/s\u0130gned; boundary=s",  // U+0130 lowers to "i"
		"multipart/signed\u212A; boundary=s", // U+212A (Kelvin) lowers to "k"
		"multipart/mixed; boundary=s",
		"text/plain; name=signed.txt",
		"multipart/signe",
		"multipart/gned",
		"multipart/signed/x",
		"multipart/signed; boundary=\"",
		"",
	} {
		h := message.Header{}
		h.Set("Content-Type", v)
		mt, _, _ := h.ContentType()
		assert.Equal(t, mt == "multipart/signed", isMultipartSigned(&h), "%q: go-message reads %q", v, mt)
	}
	h := message.Header{}
	assert.False(t, isMultipartSigned(&h), "no Content-Type field")
}

// TestGnedLowersFromASCIIOnly: isMultipartSigned looks for "gned" in any
// ASCII case before it parses, which is exact only while no rune but
// those letters lowers to one of them; a new Unicode version could add
// one, as U+0130 lowers to "i" and U+212A to "k".
func TestGnedLowersFromASCIIOnly(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); strings.ContainsRune("gned", l) {
			assert.Contains(t, "gnedGNED", string(r), "U+%04X lowers to %q", r, l)
		}
	}
	assert.Equal(t, "multipart/signed", strings.ToLower("multipart/s\u0130gned"),
		"the reason the test leaves out the i")
}

// TestIsMultipartSignedSkipsParse: a value without "gned" in any case,
// including ones with only some of its letters, is told apart without
// go-message's parse, which allocates: no allocation at all.
func TestIsMultipartSignedSkipsParse(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts under the race detector")
	}
	for _, v := range []string{
		"text/plain; charset=us-ascii",
		"text/plain; name=planned.txt", // "ned"
		"text/plain; name=gne.txt",     // "gne"
		"multipart/signe; boundary=b",
	} {
		h := message.Header{}
		h.Set("Content-Type", v)
		require.False(t, isMultipartSigned(&h), "%q", v)
		assert.Zero(t, testing.AllocsPerRun(100, func() { isMultipartSigned(&h) }), "%q", v)
	}
}

// TestContainsFoldASCII: the "gned" prefilter finds its letters anywhere
// in the value, at either end included, in any ASCII case, and only the
// whole of them.
func TestContainsFoldASCII(t *testing.T) {
	cases := []struct {
		s    string
		want bool
	}{
		{"gned", true},
		{"GNED", true},
		{"gNeD; x", true},          // at the start
		{"multipart/signed", true}, // at the end
		{"multipart/SIGNED", true}, // at the end, upper case
		{"text/plain; a=gned; b", true},
		{"gne", false},
		{"multipart/signe", false},
		{"multipart/gne d", false},
		{"ned", false},
		{"", false},
		{"text/plain; charset=us-ascii", false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, containsFoldASCII(tc.s, "gned"), "%q", tc.s)
	}
}
