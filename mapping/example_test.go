package mapping_test

import (
	"errors"
	"fmt"

	"github.com/cturi/cturi/mapping"
)

// The draft's §2 examples: Content-Types mapped to URIs.
func ExampleToURI() {
	for _, ct := range []string{
		"image/JPEG", // §2.1
		"x-FOO?bar/biZZare#sUb#tYpe",
		`text/plain; charset="us-ascii"; x-mac-type="54455854"; x-mac-creator="4D4F5353"`, // §2.2
		"image/tiff; application=faxbw",
		"application/uri.mailto%3Auser%40host.example", // §2.3
		`application/uri.http%3A%2F%2Fx.test; foo="123"; bar="abcd"`,
		`application/uri.http%3A%2F%2Fa%3Ab%40c.text%2Fx%2Fy; URI-fragment="z%25z"`,
		`application/xml; URI-body="http://xml.example/foo"`, // §2.4
	} {
		uri, err := mapping.ToURI(ct)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(uri)
	}
	// Output:
	// ContentType:image/jpeg
	// ContentType:x-foo%3Fbar/bizzare%23sub%23type
	// ContentType:text/plain?charset="us-ascii"&x-mac-type="54455854"&x-mac-creator="4D4F5353"
	// ContentType:image/tiff?application="faxbw"
	// mailto:user@host.example
	// http://x.test?foo="123"&bar="abcd"
	// http://a:b@c.text/x/y#z%25z
	// http://xml.example/foo?MIME-type="application/xml"
}

// StrictURI writes the value delimiters as %22.
func ExampleToURI_strictURI() {
	uri, _ := mapping.ToURI(`text/plain; charset="us-ascii"`, mapping.StrictURI)
	fmt.Println(uri)
	// Output: ContentType:text/plain?charset=%22us-ascii%22
}

// Lenient accepts the unquoted values mail software writes.
func ExampleToURI_lenient() {
	ct := "multipart/alternative; boundary=----=_NextPart_000_0012"
	_, err := mapping.ToURI(ct)
	fmt.Println(err)
	uri, _ := mapping.ToURI(ct, mapping.Lenient)
	fmt.Println(uri)
	// Output:
	// mapping: expected ';' or the end at offset 36, found '=' (an unquoted parameter value cannot hold it: quote the value, or map with the Lenient option)
	// ContentType:multipart/alternative?boundary="----%3D_NextPart_000_0012"
}

// The draft's §3 examples: URIs mapped to Content-Types.
func ExampleToContentType() {
	for _, uri := range []string{
		"http://example.com/tag42", // §3.1
		`mailto:U@example.net?subject="misc"&body="line1%0D%0Aline2"`,
		"xyz://abc.test/def?h=ijk#lmn",
		"ContentType:model/vnd.example.longish.sub%23type.name", // §3.2
		`ContentType:text/plain?charset="US-ASCII"&x-obscure="value"`,
		`mailto:joe@blow.test?MIME-type="message%2Frfc822"#123`, // §3.3
	} {
		ct, err := mapping.ToContentType(uri)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(ct)
	}
	// Output:
	// application/uri.http%3A%2F%2Fexample.com%2Ftag42
	// application/uri.mailto%3AU%40example.net; subject="misc"; body="line1%250D%250Aline2"
	// application/uri.xyz%3A%2F%2Fabc.test%2Fdef; h="ijk"; URI-fragment="lmn"
	// model/vnd.example.longish.sub#type.name
	// text/plain; charset="US-ASCII"; x-obscure="value"
	// message/rfc822; URI-body="mailto%3Ajoe%40blow.test"; URI-fragment="123"
}

// Decoding never puts control characters into a header (draft §6).
func ExampleToContentType_injection() {
	_, err := mapping.ToContentType("ContentType:text/plain%0D%0AX-Evil:%201")
	fmt.Println(errors.Is(err, mapping.ErrCTL))
	fmt.Println(err)
	// Output:
	// true
	// mapping: decoded control character 0x0D at offset 22 would land in a header
}

// NoControlled refuses the controlled mapping on untrusted input.
func ExampleToContentType_noControlled() {
	_, err := mapping.ToContentType(`https://example.com/?MIME-type="text/html"`, mapping.NoControlled)
	fmt.Println(mapping.KindOf(err))
	// Output: reserved-param
}

func ExampleMap() {
	for _, label := range []string{"image/JPEG", "ContentType:image/jpeg", "urn:ietf:rfc:3986"} {
		out, dir, err := mapping.Map(label)
		fmt.Println(dir, out, err)
	}
	// Output:
	// to-uri ContentType:image/jpeg <nil>
	// to-ct image/jpeg <nil>
	// to-ct application/uri.urn%3Aietf%3Arfc%3A3986 <nil>
}

func ExampleDetect() {
	fmt.Println(mapping.Detect("text/plain"))
	fmt.Println(mapping.Detect("http://example.com/"))
	// Output:
	// to-uri
	// to-ct
}

func ExampleCanonical() {
	for _, label := range []string{
		"Text/Plain; charset=us-ascii (Plain text)",
		"ContentType:text/plain?charset=%22us-ascii%22",
		"application/uri.ContentType%3Atext%2Fplain",
	} {
		ct, _ := mapping.Canonical(label)
		fmt.Println(ct)
	}
	// Output:
	// text/plain; charset="us-ascii"
	// text/plain; charset="us-ascii"
	// text/plain
}

func ExampleParseContentType() {
	ct, err := mapping.ParseContentType(`Multipart/Mixed; boundary="simple boundary"; Foo=1; foo=2`)
	if err != nil {
		panic(err)
	}
	fmt.Println(ct.Type, ct.Subtype)
	for _, p := range ct.Params {
		fmt.Printf("%s=%q\n", p.Name, p.Value)
	}
	fmt.Println(ct)
	// Output:
	// Multipart Mixed
	// boundary="simple boundary"
	// Foo="1"
	// foo="2"
	// multipart/mixed; boundary="simple boundary"; Foo="1"; foo="2"
}

func ExampleParseURI() {
	u, err := mapping.ParseURI(`mailto:joe@blow.test?MIME-type="message%2Frfc822"#123`)
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Scheme, u.Body, u.Fragment)
	for _, it := range u.Query {
		fmt.Println(it.Name, mapping.Unescape(it.Value))
	}
	fmt.Println(u.Format(mapping.StrictURI))
	// Output:
	// mailto joe@blow.test 123
	// MIME-type message/rfc822
	// mailto:joe@blow.test?MIME-type=%22message%2Frfc822%22#123
}

// Seed 001, case A: octets, every one percent-encoded.
func ExampleEscape() {
	gif := "GIF89a\x07\x00\x07\x00\xa2\x00\x00\x00\x00\x00"
	fmt.Println(mapping.Escape(gif, mapping.ByteSet{}))
	fmt.Println(mapping.Escape("a b&c=d", mapping.QueryValueChars))
	// Output:
	// %47%49%46%38%39%61%07%00%07%00%A2%00%00%00%00%00
	// a%20b%26c=d
}

// Seed 001, case B: Unicode text as UTF-8, percent-encoded; the '=' used
// for its reserved purpose stays outside the encoded parts.
func ExampleEscapeText() {
	name, _ := mapping.EscapeText("greeting", mapping.Unreserved)
	value, _ := mapping.EscapeText("今日は", mapping.Unreserved)
	fmt.Println(name + "=" + value)
	_, err := mapping.EscapeText("4 \xf7 3", mapping.Unreserved)
	fmt.Println(err)
	// Output:
	// greeting=%E4%BB%8A%E6%97%A5%E3%81%AF
	// mapping: invalid UTF-8 at offset 2
}

func ExampleUnescape() {
	fmt.Println(mapping.Unescape("caf%C3%A9 %2541 100%"))
	// Output: café %41 100%
}

func ExampleRepair() {
	fmt.Println(mapping.Repair("a b%20c%zz", mapping.FragmentChars))
	// Output: a%20b%20c%25zz
}

// The Append forms write into a caller's buffer, so that building a URI
// component by component allocates once, or not at all into a reused
// buffer.
func ExampleAppendEscape() {
	buf := []byte("http://example.test/search?q=")
	buf = mapping.AppendEscape(buf, "a&b c", mapping.QueryValueChars)
	buf = append(buf, "&lang="...)
	buf = mapping.AppendEscape(buf, "fr-CA", mapping.QueryValueChars)
	fmt.Println(string(buf))
	// Output: http://example.test/search?q=a%26b%20c&lang=fr-CA
}

func ExampleAppendUnescape() {
	buf := mapping.AppendUnescape([]byte("subject: "), "caf%C3%A9%20au%20lait")
	fmt.Println(string(buf))
	// Output: subject: café au lait
}

func ExampleAppendRepair() {
	buf := mapping.AppendRepair([]byte("#"), "a b%20c%zz", mapping.FragmentChars)
	fmt.Println(string(buf))
	// Output: #a%20b%20c%25zz
}

// KindOf names the failure without a type assertion, for a log line or a
// switch over the kinds.
func ExampleKindOf() {
	_, err := mapping.ToContentType("ContentType:text/plain%0D%0ASet-Cookie:x")
	switch mapping.KindOf(err) {
	case mapping.KindCTL:
		fmt.Println("refused:", mapping.KindOf(err))
	case 0:
		fmt.Println("mapped")
	}
	// Output: refused: ctl
}

func ExampleError() {
	_, err := mapping.ToContentType("ContentType:text/plain%3B%20evil%3D1")
	if e, ok := errors.AsType[*mapping.Error](err); ok {
		fmt.Println(e.Kind, e.Offset)
	}
	fmt.Println(errors.Is(err, mapping.ErrBadMIMEType))
	// Output:
	// bad-mime-type 22
	// true
}

func ExampleNewByteSet() {
	pathSegment := mapping.Unreserved.Union(mapping.NewByteSet("!$&'()*+,;=:@"))
	fmt.Println(mapping.Escape("a/b c:d", pathSegment))
	// Output: a%2Fb%20c:d
}

// Param finds a parameter whatever the case of its name; the value comes
// without its quotes.
func ExampleContentType_Param() {
	ct, err := mapping.ParseContentType(`text/plain; Charset="utf-8"; format=flowed`)
	if err != nil {
		panic(err)
	}
	v, ok := ct.Param("charset")
	fmt.Printf("%q %v\n", v, ok)
	v, ok = ct.Param("delsp")
	fmt.Printf("%q %v\n", v, ok)
	// Output:
	// "utf-8" true
	// "" false
}

// Param finds a query item whatever the case of its name; the value is
// still URI text.
func ExampleURI_Param() {
	u, err := mapping.ParseURI(`mailto:U@example.net?subject="misc"&body="line1%0D%0Aline2"`)
	if err != nil {
		panic(err)
	}
	body, _ := u.Param("Body")
	fmt.Println(body)
	fmt.Printf("%q\n", mapping.Unescape(body))
	// Output:
	// line1%0D%0Aline2
	// "line1\r\nline2"
}

// String writes the canonical form: the scheme lower-cased, every value
// quoted, an empty query dropped.
func ExampleURI_String() {
	u, err := mapping.ParseURI("HTTP://x.test/a?b=1&&c=%22d%22#f")
	if err != nil {
		panic(err)
	}
	fmt.Println(u)
	// Output: http://x.test/a?b="1"&c="d"#f
}

// Without and Union derive a set from the predefined ones.
func ExampleByteSet_Without() {
	noSlash := mapping.BodyChars.Without("/")
	fmt.Println(mapping.Escape("a/b:c", noSlash))
	withSpace := mapping.Unreserved.Union(mapping.NewByteSet(" "))
	fmt.Println(withSpace.Contains(' '), mapping.Unreserved.Contains(' '))
	// Output:
	// a%2Fb:c
	// true false
}
