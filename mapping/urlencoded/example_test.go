package urlencoded_test

import (
	"errors"
	"fmt"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/mapping/urlencoded"
)

func ExampleDecode() {
	d, err := urlencoded.Decode("url=http://example.org/Ragnar%C3%B6k/;lang=de;debug")
	if err != nil {
		panic(err)
	}
	for _, p := range d {
		fmt.Printf("%q %q %v\n", p.Name, p.Value, p.Defined)
	}
	_, err = urlencoded.Decode("Chevron3=Bo%F6tes")
	fmt.Println(errors.Is(err, urlencoded.ErrBadUTF8), err)
	// Output:
	// "url" "http://example.org/Ragnarök/" true
	// "lang" "de" true
	// "debug" "" false
	// true urlencoded: invalid UTF-8 at offset 11
}

func ExampleDecodeLegacy() {
	d, _ := urlencoded.DecodeLegacy("url=http%3A%2F%2Fexample.org%2F&q=a+b;c")
	fmt.Println(d.Values())
	// Output: map[q:[a b;c] url:[http://example.org/]]
}

func ExampleDataSet_Encode() {
	d := urlencoded.DataSet{
		{Name: "a b", Value: "c+d", Defined: true},
		{Name: "img"},
		{Name: "Lookup", Value: "\x00,⌣,€", Defined: true},
	}
	s, _ := d.Encode()
	fmt.Println(s)
	// Output: a+b=c%2Bd;img;Lookup=%00,⌣,€
}

func ExampleFilter() {
	d, _ := urlencoded.Decode("a=1;b;a=2;=3;d,;f")
	got, _ := urlencoded.Filter(d, "e,,a,%64%2C")
	s, _ := got.Encode()
	fmt.Println(s)
	_, err := urlencoded.Filter(d, "value-of(a)")
	fmt.Println(err)
	// Output:
	// a=1;a=2;=3;d,
	// urlencoded: fragment identifier "value-of(a)" has a '(' at offset 8, reserved for future versions
}

func ExampleFromValues() {
	d := urlencoded.FromValues(map[string][]string{"b": {"2"}, "a": {"1", "x y"}})
	s, _ := d.Encode()
	fmt.Println(s)
	// Output: a=1;a=x+y;b=2
}

// Seed 001, case C: "4 ÷ 3" in windows-1252, opaque or decoded to UTF-8.
func ExampleEscapeCharset() {
	text := []byte{0x34, 0x20, 0xF7, 0x20, 0x33}
	opaque, _ := urlencoded.EscapeCharset(text, "windows-1252", urlencoded.Opaque, mapping.Unreserved)
	decoded, _ := urlencoded.EscapeCharset(text, "windows-1252", urlencoded.Decoded, mapping.Unreserved)
	fmt.Println(opaque)
	fmt.Println(decoded)
	// Output:
	// 4%20%F7%203
	// 4%20%C3%B7%203
}
