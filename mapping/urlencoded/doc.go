// Package urlencoded encodes and decodes data sets of name-value pairs as
// application/www-form-urlencoded (draft-hoehrmann-urlencoded-00, the
// project's seed 002) and as the legacy application/x-www-form-urlencoded
// it replaces (RFC 1866 §8.2.1 as the WHATWG URL Standard §5 defines it
// today), and percent-encodes text held in a legacy charset (seed 001,
// "creating URI components from arbitrary data", case C).
//
// The cturi mapping says Content-Type parameters travel in a URI query "in
// much the same way that HTML form fields are", but the mapping itself
// never uses form semantics (it keeps '+' and ';' as data). This package
// is for applications that read or write such queries, or any name-value
// data, as forms.
//
// # Data sets
//
// A DataSet is an ordered list of Pairs; duplicates and order are kept and
// a value may be undefined (a name without '='), which is not the same as
// empty. Values and FromValues convert to and from url.Values, which loses
// order and undefinedness.
//
// # Encoding and decoding
//
// DataSet.Encode is the canonical encoder of seed 002 §3 ('+' for space,
// ';' between pairs, non-ASCII text literal as in an IRI query), with the
// draft's one defect fixed: '+' is escaped too. EncodeURI is the same with
// non-ASCII escaped, for URIs; EncodeLegacy writes the legacy format.
//
//	urlencoded.DataSet{{Name: "q", Value: "a+b c", Defined: true}, {Name: "raw"}}.Encode()
//	    // "q=a%2Bb+c;raw", nil
//
// The encoders refuse, with an error, what the format cannot carry: names
// or values that are not UTF-8, a pair that is undefined yet has a value,
// and the data set (("", undefined)); EncodeLegacy also refuses any
// ("", undefined) pair, which legacy parsers skip.
//
// Decode is the decoder of seed 002 §4 (';' and '&' separate pairs, %HH
// and '+' are decoded, the result must be UTF-8); DecodeLegacy reads the
// legacy format ('&' only). Both reject what they cannot decode
// faithfully rather than repair it. A Decoder sets limits (MaxPairs) and
// the charset of legacy form data.
//
// DataSet.Filter applies the fragment identifier of seed 002 §6, a
// comma-separated list of names that selects pairs, in time linear in the
// fragment and the data set, and memory bounded by the data set and the
// longest name, however many names the fragment lists; EncodeFragment
// writes one.
//
// # Charsets
//
// EscapeCharset percent-encodes text given as octets in a WHATWG-named
// charset either opaquely (case C.1) or decoded to Unicode and encoded as
// UTF-8 (case C.2), using golang.org/x/text. The seed's own examples have
// two mistakes, corrected here: the octets of "greeting" are
// 67 72 65 65 74 69 6E 67, and U+00F7 '÷' is %C3%B7 in UTF-8. The
// charsets are x/text's, which differ from WHATWG's in places: its
// single-byte charsets leave undefined the octets 0x80-0x9F their code
// page assigns nothing to, which is all 32 of them in ISO-8859-2 to -16
// and, for instance, 0x81, 0x8D, 0x8F, 0x90 and 0x9D in windows-1252
// (KindUndecodable, where WHATWG gives the C1 control of the same
// number), its GB18030 leaves the two-byte user-defined areas (AA A1,
// FE FE, ...) undefined, where WHATWG gives private-use characters, and
// also 174 two-byte codes outside them that WHATWG's index maps to
// characters (A2 AB, A6 D9, D7 FA, FE 51, ...), its Shift_JIS leaves the
// user-defined area F0 40-F9 FC undefined, where WHATWG gives U+E000-E757,
// and its ISO-2022-JP reads ESC ( J as ASCII and accepts SO, SI and
// back-to-back escape sequences, which WHATWG treats as errors. As in
// WHATWG, gbk and gb2312 text is decoded with the gb18030 decoder, and
// its four-byte 81 35 F4 37 is U+E7C7 (x/text's ranges make it U+1E3F;
// this package corrects it).
//
// # Errors and security
//
// Every error is a *Error with a Kind, the input, a byte offset and the
// index of the pair concerned; it unwraps to a sentinel (ErrBadUTF8,
// ErrTooManyPairs, ErrReservedFragment, ErrUnencodable, ErrUnknownCharset,
// ErrUndecodable, ErrBadArgument), and its message starts "urlencoded: ". Decoding costs
// time linear in the input and, for UTF-8, allocates only the result slice
// and one buffer of at most the input's size; the number of pairs is
// limited (DefaultMaxPairs). Decoded names and values may hold any Unicode
// character, including U+0000, CR and LF, which the format allows (seed 002
// §5): check them before putting them into a header.
package urlencoded
