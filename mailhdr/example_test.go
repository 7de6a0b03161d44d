package mailhdr_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cturi/cturi/mailhdr"
	"github.com/cturi/cturi/mapping"
	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// exampleMessage has LF line endings, which Rewrite keeps.
const exampleMessage = "From: alice@example.com\n" +
	"Content-Type: multipart/mixed; boundary=\"----=_Part_0\"\n" +
	"\n" +
	"------=_Part_0\n" +
	"Content-Type: text/plain; charset=us-ascii\n" +
	"\n" +
	"Hello.\n" +
	"------=_Part_0--\n"

func ExampleRewrite() {
	rep, err := mailhdr.Rewrite(os.Stdout, strings.NewReader(exampleMessage), mailhdr.Options{To: mailhdr.ToURI})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Rewritten, "fields rewritten, problems:", rep.Err())
	// Output:
	// From: alice@example.com
	// Content-Type: ContentType:multipart/mixed?boundary="----%3D_Part_0"
	//
	// ------=_Part_0
	// Content-Type: ContentType:text/plain?charset="us-ascii"
	//
	// Hello.
	// ------=_Part_0--
	// 2 fields rewritten, problems: <nil>
}

func ExampleRewrite_report() {
	msg := "Content-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text\r\n\r\nno subtype\r\n" // and no close delimiter
	rep, _ := mailhdr.Rewrite(io.Discard, strings.NewReader(msg), mailhdr.Options{})
	for _, p := range rep.Problems {
		fmt.Println(p.Path, p.Kind)
	}
	// Output:
	// 1 mapping
	// top missing-delimiter
}

// The part a multipart/signed signs is left as it is, so that its
// signature still verifies; the fields outside it are rewritten (a URI
// label longer than a line folded where it has no white space, which
// readers of URIs drop).
func ExampleRewrite_signed() {
	msg := "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=s\n" +
		"\n" +
		"--s\n" +
		"Content-Type: text/plain; charset=us-ascii\n" +
		"\n" +
		"Signed text.\n" +
		"--s\n" +
		"Content-Type: application/pgp-signature\n" +
		"\n" +
		"-----BEGIN PGP SIGNATURE-----\n" +
		"--s--\n"
	rep, err := mailhdr.Rewrite(os.Stdout, strings.NewReader(msg), mailhdr.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Err())
	// Output:
	// Content-Type: ContentType:multipart/signed?protocol="application%2Fpgp-signatu
	//  re"&boundary="s"
	//
	// --s
	// Content-Type: text/plain; charset=us-ascii
	//
	// Signed text.
	// --s
	// Content-Type: ContentType:application/pgp-signature
	//
	// -----BEGIN PGP SIGNATURE-----
	// --s--
	// mailhdr: 1: signed: the part a multipart/signed signs, header included; passed through unexamined
}

func ExampleNewReader() {
	labelled := "Content-Type: ContentType:text/plain?charset=\"utf-8\"\r\n\r\nhi\r\n"
	r := mailhdr.NewReader(strings.NewReader(labelled), mailhdr.Options{To: mailhdr.ToContentType})
	b, err := io.ReadAll(r)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", b)
	fmt.Println(r.Report().Rewritten)
	// Output:
	// "Content-Type: text/plain; charset=\"utf-8\"\r\n\r\nhi\r\n"
	// 1
}

func ExampleRewriteHeader() {
	var h textproto.Header
	h.Add("Subject", "report")
	h.Add("Content-Type", "application/pdf; name=report.pdf")
	h.Add("From", "alice@example.com") // Add puts a field on top
	n, err := mailhdr.RewriteHeader(&h, mailhdr.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(n)
	for f := h.Fields(); f.Next(); {
		fmt.Printf("%s: %s\n", f.Key(), f.Value())
	}
	// Output:
	// 1
	// From: alice@example.com
	// Content-Type: ContentType:application/pdf?name="report.pdf"
	// Subject: report
}

func ExampleWalk() {
	e, err := message.Read(strings.NewReader(exampleMessage))
	if err != nil {
		panic(err)
	}
	rep, err := mailhdr.Walk(e, mailhdr.Options{}, func(path []int, part *message.Entity, err error) error {
		fmt.Println(path, part.Header.Get("Content-Type"))
		return err
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Rewritten)
	// Output:
	// [] ContentType:multipart/mixed?boundary="----%3D_Part_0"
	// [0] ContentType:text/plain?charset="us-ascii"
	// 2
}

// fn sees each header rewritten, so it asks the part, not its
// Content-Type, whether it is a multipart before it reads the body.
func ExampleWalk_bodies() {
	e, err := message.Read(strings.NewReader(exampleMessage))
	if err != nil {
		panic(err)
	}
	_, err = mailhdr.Walk(e, mailhdr.Options{To: mailhdr.ToURI}, func(path []int, part *message.Entity, err error) error {
		if err != nil || part.MultipartReader() != nil {
			return err // Walk goes on into the parts
		}
		body, err := io.ReadAll(part.Body)
		fmt.Printf("%v %q %s", path, part.Header.Get("Content-Type"), body)
		return err
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// [0] "ContentType:text/plain?charset=\"us-ascii\"" Hello.
}

func ExampleParseTarget() {
	t, err := mailhdr.ParseTarget("canonical")
	fmt.Println(t == mailhdr.Canonical, err)
	// Output: true <nil>
}

// Err joins the problems, so errors.Is finds a kind and errors.As the
// mapping error behind it.
func ExampleReport_Err() {
	msg := "Content-Type: multipart/mixed; boundary=b\n\n" +
		"--b\nContent-Type: text/plain; charset=\"\\\"\n\nhi\n--b--\n"
	rep, _ := mailhdr.Rewrite(io.Discard, strings.NewReader(msg), mailhdr.Options{})
	err := rep.Err()
	fmt.Println(rep.OK(), errors.Is(err, mailhdr.ErrMapping), errors.Is(err, mailhdr.ErrNoBoundary))
	if me, ok := errors.AsType[*mapping.Error](err); ok {
		fmt.Println(me.Kind)
	}
	// Output:
	// false true false
	// syntax
}

// A URI label longer than a line is folded where it has no white space;
// Label reads it back as the URI it is, where go-message's Get keeps the
// white space of the fold.
func ExampleLabel() {
	var out strings.Builder
	msg := "Content-Type: application/uri.http%3A%2F%2Fexample.com%2Fvocabularies%2F" +
		"2026%2Fmail-labels%2Fa-rather-long-type-name\r\n\r\nbody\r\n"
	if _, err := mailhdr.Rewrite(&out, strings.NewReader(msg), mailhdr.Options{}); err != nil {
		panic(err)
	}
	e, err := message.Read(strings.NewReader(out.String()))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", e.Header.Get("Content-Type"))
	label, err := mailhdr.Label(&e.Header.Header)
	if err != nil {
		panic(err)
	}
	fmt.Println(label)
	fmt.Println(mapping.ToContentType(label))
	// Output:
	// "http://example.com/vocabularies/2026/mail-labels/a-rather-long-t ype-name"
	// http://example.com/vocabularies/2026/mail-labels/a-rather-long-type-name
	// application/uri.http%3A%2F%2Fexample.com%2Fvocabularies%2F2026%2Fmail-labels%2Fa-rather-long-type-name <nil>
}
