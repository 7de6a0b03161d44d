package integration

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/require"
)

// FuzzMailRewrite fuzzes package mailhdr's scanner with arbitrary input:
// it never panics; a message in which nothing was rewritten comes out
// octet for octet (so never shorter); and a rewrite to URI labels and
// back changes nothing outside Content-Type fields, each of which comes
// back as the canonical form of the original (SPEC N2, N4), unless that
// form cannot be folded into RFC 5322's 998-octet lines (the original's
// line was over the limit), when the URI label stays and is reported.
func FuzzMailRewrite(f *testing.F) {
	for _, msg := range mailCorpus(f) {
		f.Add(msg)
	}
	f.Add([]byte{})
	f.Add([]byte("Content-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: message/rfc822\n\nContent-Type: multipart/digest; boundary=a--\n\n--a--\n\nContent-Type: text/plain\n--a----\n--a--"))
	// Fields whose value starts past the first line's 78 columns, and a
	// URI label with white space inside it (not folding).
	pad := strings.Repeat(" ", 90)
	f.Add([]byte("Content-Type:" + pad + "TEXT/plain; charset=us-ascii\r\n\r\nx"))
	f.Add([]byte("Content-Type:" + pad[:75] + "application/uri.a%3Ab\r\n\r\nx"))
	f.Add([]byte("Content-Type: ContentType:text/plain?name=%22a b%22\r\n\r\nx"))
	// A Content-Type on a line over 998 octets: as a URI label it folds,
	// but it cannot come back.
	f.Add([]byte("Content-Type: 0/" + strings.Repeat("x", 1000)))
	f.Add([]byte("Content-Type: a/b; p=" + strings.Repeat("x", 990) + " ; q=r\n\nbody"))
	// Boundaries in RFC 2231 form, and one declared with trailing white
	// space.
	f.Add([]byte("Content-Type: multipart/mixed; boundary*0=\"a\"; boundary*1*=%62\r\n\r\n--ab\r\nContent-Type: text/plain\r\n\r\nx\r\n--ab--\r\n"))
	f.Add([]byte("Content-Type: multipart/mixed; boundary*=utf-8''a%20\n\n--a \nContent-Type: image/png\n\n--a --\n"))
	// Multiparts whose field maps to another structure (SPEC K1, N2, K6),
	// and one whose boundary Go reads with a backslash the mapping drops.
	for _, top := range []struct{ ct, b string }{
		{`multipart/uri.a%3Ab; boundary=x`, "x"},
		{`multipart/mixed; URI-body="a:b"; boundary="x y"`, "x y"},
	} {
		f.Add([]byte("Content-Type: " + top.ct + "\n\n--" + top.b + "\nContent-Type: text/plain\n\nhi\n--" + top.b + "--\n"))
	}
	f.Add([]byte("Content-Type: multipart/mixed; boundary=\"a\\b\"\n\n--a\\b\nContent-Type: text/plain\n\n--a\\b--\n"))
	f.Add([]byte("Content-Type: text/uri.ContentType%3Amultipart%2Fmixed; boundary=q\n\n--q\nContent-Type: text/plain\n\n--q--\n"))
	opts := mailhdr.Options{MaxDepth: 20, MaxHeaderBytes: 4096, MaxFieldBytes: 1024}
	f.Fuzz(func(t *testing.T, in []byte) {
		var uri, back bytes.Buffer
		o := opts
		rep, err := mailhdr.Rewrite(&uri, bytes.NewReader(in), o)
		require.NoError(t, err)
		if rep.Rewritten == 0 {
			require.Equal(t, string(in), uri.String())
		}
		// The limits bound what is read; percent-encoding can make a
		// rewritten field over three times longer, so the way back reads
		// with limits four times as large (see Options.MaxFieldBytes).
		o.To = mailhdr.ToContentType
		o.MaxHeaderBytes, o.MaxFieldBytes = 4*opts.MaxHeaderBytes, 4*opts.MaxFieldBytes
		repBack, err := mailhdr.Rewrite(&back, bytes.NewReader(uri.Bytes()), o)
		require.NoError(t, err)
		// The way back finds the structure the way there found: a label
		// is rewritten only if it keeps it. (Past a limit of the way
		// there, the way back, with larger limits, may see more.)
		if !hasProblem(rep, mailhdr.KindHeaderTooLarge) && !hasProblem(rep, mailhdr.KindFieldTooLarge) && !hasProblem(rep, mailhdr.KindTooDeep) {
			require.Equal(t, rep.Entities, repBack.Entities, "entities there and back")
		}
		for _, d := range diffContentTypes(t, in, back.Bytes()) {
			var want string
			var err error
			if d.aIsURI() {
				want, err = mapping.ToContentType(d.uriA)
			} else {
				want, err = mapping.Canonical(d.a, mapping.Lenient)
			}
			require.NoError(t, err, d.a)
			if !foldsWithinLimit(d.prefix, want) {
				require.True(t, hasProblem(repBack, mailhdr.KindLineTooLong), "%+v", repBack)
				got, err := mapping.ToContentType(d.uriB)
				require.NoError(t, err, d.uriB)
				require.Equal(t, want, got)
				continue
			}
			require.Equal(t, want, d.b)
		}
	})
}
