package urlencoded_test

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/mapping/urlencoded"
)

func printSet(d urlencoded.DataSet) {
	for _, p := range d {
		if p.Defined {
			fmt.Printf("%q = %q\n", p.Name, p.Value)
		} else {
			fmt.Printf("%q (undefined)\n", p.Name)
		}
	}
}

func ExampleDecode() {
	d, err := urlencoded.Decode("url=http://example.org/Ragnar%C3%B6k/;lang=de&q=a+b%2Bc;debug")
	if err != nil {
		fmt.Println(err)
		return
	}
	printSet(d)
	// Output:
	// "url" = "http://example.org/Ragnarök/"
	// "lang" = "de"
	// "q" = "a b+c"
	// "debug" (undefined)
}

func ExampleDecode_error() {
	_, err := urlencoded.Decode("Chevron3=Bo%F6tes")
	if e, ok := errors.AsType[*urlencoded.Error](err); ok {
		fmt.Println(e.Kind, e.Offset, errors.Is(err, urlencoded.ErrBadUTF8))
		fmt.Println(err)
	}
	// Output:
	// bad-utf8 11 true
	// urlencoded: invalid UTF-8 at offset 11, in the value of pair 0
}

func ExampleDecodeLegacy() {
	d, err := urlencoded.DecodeLegacy("url=http%3A%2F%2Fexample.org%2F%3Fa%3D1%3Bb&&lang=de")
	if err != nil {
		fmt.Println(err)
		return
	}
	printSet(d)
	// Output:
	// "url" = "http://example.org/?a=1;b"
	// "lang" = "de"
}

// A Decoder with a limit for untrusted input: the error says which pair
// passed it. Decode reads UTF-8 only, whatever LegacyCharset says.
func ExampleDecoder_Decode() {
	dec := urlencoded.Decoder{MaxPairs: 3, LegacyCharset: "windows-1252"}
	d, err := dec.Decode("city=Z%C3%BCrich;tag=a&tag=b")
	if err != nil {
		fmt.Println(err)
		return
	}
	printSet(d)
	_, err = dec.Decode("a;b;c;d")
	if e, ok := errors.AsType[*urlencoded.Error](err); ok {
		fmt.Println(e.Kind, e.Index, e.Offset, errors.Is(err, urlencoded.ErrTooManyPairs))
	}
	// Output:
	// "city" = "Zürich"
	// "tag" = "a"
	// "tag" = "b"
	// too-many-pairs 3 6 true
}

func ExampleDecoder_DecodeLegacy() {
	// A form on a windows-1252 page, limited to 10 pairs.
	dec := urlencoded.Decoder{MaxPairs: 10, LegacyCharset: "windows-1252"}
	d, err := dec.DecodeLegacy("price=%8010&name=Bo%F6tes")
	if err != nil {
		fmt.Println(err)
		return
	}
	printSet(d)

	// A charset form data cannot be in.
	_, err = urlencoded.Decoder{LegacyCharset: "utf-16"}.DecodeLegacy("a=b")
	fmt.Println(err, errors.Is(err, urlencoded.ErrUnknownCharset))
	// Output:
	// "price" = "€10"
	// "name" = "Boötes"
	// urlencoded: charset "utf-16" is not ASCII-compatible; form data cannot be in it true
}

func ExampleDataSet_Encode() {
	d := urlencoded.DataSet{
		{Name: "q", Value: "a+b c", Defined: true},
		{Name: "url", Value: "http://example.org/Ragnarök/", Defined: true},
		{Name: "raw"},
	}
	s, err := d.Encode()
	fmt.Println(s, err)
	_, err = urlencoded.DataSet{{Name: ""}}.Encode()
	fmt.Println(errors.Is(err, urlencoded.ErrUnencodable))
	// Output:
	// q=a%2Bb+c;url=http://example.org/Ragnarök/;raw <nil>
	// true
}

func ExampleDataSet_EncodeURI() {
	d := urlencoded.DataSet{{Name: "url", Value: "http://example.org/Ragnarök/", Defined: true}, {Name: "lang", Value: "de", Defined: true}}
	s, _ := d.EncodeURI()
	fmt.Println("/t?" + s)
	// Output:
	// /t?url=http://example.org/Ragnar%C3%B6k/;lang=de
}

func ExampleDataSet_EncodeLegacy() {
	d := urlencoded.DataSet{{Name: "url", Value: "http://example.org/Ragnarök/", Defined: true}, {Name: "lang", Value: "de", Defined: true}}
	s, _ := d.EncodeLegacy()
	fmt.Println(s)
	// Output:
	// url=http%3A%2F%2Fexample.org%2FRagnar%C3%B6k%2F&lang=de
}

func ExampleDataSet_Values() {
	d, _ := urlencoded.Decode("b=2;a;b=1")
	v := d.Values()
	fmt.Printf("%q %q\n", v["a"], v["b"])
	// Output:
	// [""] ["2" "1"]
}

func ExampleFromValues() {
	d := urlencoded.FromValues(url.Values{"z": {"1"}, "a": {"x", "y"}})
	s, _ := d.Encode()
	fmt.Println(s)
	// Output:
	// a=x;a=y;z=1
}

func ExampleDataSet_Validate() {
	fmt.Println(urlencoded.DataSet{{Name: ""}}.Validate())
	fmt.Println(urlencoded.DataSet{{Name: "a", Value: "\xff", Defined: true}}.Validate())
	fmt.Println(urlencoded.DataSet{{Name: ""}, {Name: ""}}.Validate())
	// Output:
	// urlencoded: the data set (("", undefined)) has no encoding; it would encode as "", the empty data set
	// urlencoded: invalid UTF-8 at offset 0 of the value of pair 0
	// <nil>
}

func ExampleDataSet_Lookup() {
	d, _ := urlencoded.Decode("lang=de;lang=en;debug")
	p, ok := d.Lookup("lang")
	fmt.Println(p.Value, ok)
	p, ok = d.Lookup("debug")
	fmt.Println(p.Defined, ok)
	// Output:
	// de true
	// false true
}

func ExampleDataSet_Filter() {
	// Seed 002 §6: data:application/www-form-urlencoded,a=1;b;a=2;=3;d,;f#e,,a,%64%2C
	d, _ := urlencoded.Decode("a=1;b;a=2;=3;d,;f")
	sel, err := d.Filter("e,,a,%64%2C")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := sel.Encode()
	fmt.Println(s)
	_, err = d.Filter("value-of(a)")
	fmt.Println(errors.Is(err, urlencoded.ErrReservedFragment))
	// Output:
	// a=1;a=2;=3;d,
	// true
}

func ExampleDataSet_Select() {
	d, _ := urlencoded.Decode("a=1;b=2;c=3;a=4")
	s, _ := d.Select("c", "a").Encode()
	fmt.Println(s)
	// Output:
	// a=1;c=3;a=4
}

func ExampleEncodeFragment() {
	fragment, err := urlencoded.EncodeFragment("e", "", "a", "d,", "größe")
	fmt.Println(fragment, err)
	_, err = urlencoded.EncodeFragment("ok", "\xff")
	fmt.Println(err)
	// Output:
	// e,,a,d%2C,größe <nil>
	// urlencoded: invalid UTF-8 at offset 0 of fragment name 1
}

func ExampleEscapeCharset() {
	// Seed 001 case C: the directory "4 ÷ 3" on a windows-1252 filesystem.
	text := []byte{0x34, 0x20, 0xF7, 0x20, 0x33}
	opaque, _ := urlencoded.EscapeCharset(text, "windows-1252", urlencoded.Opaque, mapping.Unreserved)
	decoded, _ := urlencoded.EscapeCharset(text, "windows-1252", urlencoded.DecodeFirst, mapping.Unreserved)
	fmt.Println(opaque)
	fmt.Println(decoded)
	// Output:
	// 4%20%F7%203
	// 4%20%C3%B7%203
}
