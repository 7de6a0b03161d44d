package urlencoded

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cturi/cturi/mapping"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/transform"
)

// Treatment says how EscapeCharset treats text that is already encoded in
// a known charset, the two courses of seed 001 case C.
type Treatment uint8

const (
	// Opaque percent-encodes the octets as they are (case C.1): octets in
	// the keep set stay, every other octet becomes %HH. Whoever decodes
	// the URI component gets the original octets and must know the
	// charset.
	Opaque Treatment = iota + 1

	// DecodeFirst converts the octets to Unicode with the charset and then
	// percent-encodes the text as UTF-8 (case C.2, then case B): characters
	// in the keep set stay, every other character becomes %HH of its UTF-8
	// octets. The component then means the same text whatever charset the
	// data was in.
	DecodeFirst
)

// String returns "opaque" or "decode-first".
func (t Treatment) String() string {
	switch t {
	case Opaque:
		return "opaque"
	case DecodeFirst:
		return "decode-first"
	}
	return fmt.Sprintf("Treatment(%d)", uint8(t))
}

// EscapeCharset percent-encodes text, which is character data encoded in
// charset, for use in a URI component (seed 001 case C). charset is a
// name or label of the WHATWG Encoding Standard, matched without regard to
// case ("utf-8", "windows-1252", "iso-8859-1" (which WHATWG maps to
// windows-1252), "shift_jis", "euc-kr", "gb18030", ...); "" means UTF-8,
// the seed's default when the charset is not known. keep is the set of
// ASCII octets that may stay literal, mapping.Unreserved being the seed's
// "preferred outcome"; '%' and octets >= 0x80 are always encoded.
//
// With Opaque, the octets of text are encoded as they are. With
// DecodeFirst, text is decoded from charset strictly: octets that are not
// valid in it give a *Error of kind KindUndecodable whose Offset is the
// first such octet (a U+FFFD in the result always comes from the charset's
// own encoding of U+FFFD, never from an error). A byte order mark is a
// character like any other, neither read as one nor dropped: under the
// utf-16 label (UTF-16LE, as WHATWG has it), FE FF 00 61 is U+FFFE U+6100,
// and a leading EF BB BF in UTF-8 comes out as %EF%BB%BF. An unknown charset, or the
// WHATWG "replacement" encoding, gives KindUnknownCharset with either
// treatment; a how that is neither gives KindBadArgument.
//
// Example (seed 001, corrected): the octets 34 20 F7 20 33 ("4 ÷ 3" in
// windows-1252) escape to 4%20%F7%203 (Opaque) and to 4%20%C3%B7%203
// (DecodeFirst), since U+00F7 is C3 B7 in UTF-8.
func EscapeCharset(text []byte, charset string, how Treatment, keep mapping.ByteSet) (string, error) {
	cs, err := lookupCharset(charset)
	if err != nil {
		return "", err
	}
	switch how {
	case Opaque:
		return mapping.Escape(string(text), keep), nil
	case DecodeFirst:
		s := string(text)
		if cs == nil {
			if bad := invalidUTF8(s); bad >= 0 {
				return "", newError(KindUndecodable, s, bad, -1, "octets not valid in charset utf-8 at offset %d", bad)
			}
		} else if s, err = transcodeText(cs, s); err != nil {
			return "", err
		}
		return mapping.Escape(s, keep), nil
	}
	return "", newError(KindBadArgument, how.String(), 0, -1, "EscapeCharset: %v is not a Treatment (Opaque or DecodeFirst)", how)
}

// lookupCharset returns the encoding a WHATWG name or label stands for, and
// nil for UTF-8 (and for ""), which needs no conversion.
func lookupCharset(name string) (encoding.Encoding, error) {
	if name == "" {
		return nil, nil
	}
	enc, err := htmlindex.Get(name)
	if err != nil {
		return nil, newError(KindUnknownCharset, name, 0, -1, "unknown charset %s", quoteClip(name))
	}
	switch canonical := charsetName(enc); canonical {
	case "utf-8":
		return nil, nil
	case "replacement":
		return nil, newError(KindUnknownCharset, name, 0, -1,
			"charset %s is a WHATWG replacement encoding, whose data is never decoded", quoteClip(name))
	case "gbk":
		// WHATWG: "The gbk decoder is the gb18030 decoder", so text
		// labelled gbk or gb2312 may hold four-byte sequences, which
		// x/text's GBK decoder refuses. This package only decodes.
		return simplifiedchinese.GB18030, nil
	}
	return enc, nil
}

// legacyCharset is lookupCharset for form data, which must be in an
// ASCII-compatible charset for '&', '=', '%' and '+' to mean what they
// mean.
func legacyCharset(name string) (encoding.Encoding, error) {
	enc, err := lookupCharset(name)
	if err != nil || enc == nil {
		return enc, err
	}
	if n := charsetName(enc); strings.HasPrefix(n, "utf-16") {
		return nil, newError(KindUnknownCharset, name, 0, -1, "charset %s is not ASCII-compatible; form data cannot be in it", quoteClip(name))
	}
	return enc, nil
}

func charsetName(enc encoding.Encoding) string {
	name, err := htmlindex.Name(enc)
	if err != nil {
		// Unreachable: every encoding lookupCharset returns comes from
		// htmlindex.Get (or is GB18030), which htmlindex names
		// (TestMisbehavingDecoders names one it cannot).
		return "unknown"
	}
	return name
}

// transcodeText is toUTF8 with the error EscapeCharset returns.
func transcodeText(cs encoding.Encoding, s string) (string, error) {
	out, bad := toUTF8(cs, s)
	if bad >= 0 {
		return "", newError(KindUndecodable, s, bad, -1, "octets not valid in charset %s at offset %d", charsetName(cs), bad)
	}
	return out, nil
}

// needsTranscoding reports whether octets in an ASCII-compatible charset
// may mean something other than their ASCII reading: an octet >= 0x80, or
// ESC, which switches ISO-2022-JP to another character set.
func needsTranscoding(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == 0x1B {
			return true
		}
	}
	return false
}

// toUTF8 converts s from enc to UTF-8 and returns the text and -1, or ""
// and the offset of the first octet that is not valid in enc.
//
// golang.org/x/text decoders replace invalid input with U+FFFD and do not
// report it; a result without U+FFFD is therefore correct as it is, and
// only a result with one is decoded again one character at a time, to tell
// an encoded U+FFFD from an error and to find the offset of the error.
func toUTF8(enc encoding.Encoding, s string) (string, int) {
	out, err := enc.NewDecoder().String(s)
	if err == nil && !strings.ContainsRune(out, utf8.RuneError) && utf8.ValidString(out) {
		return fixGB18030(enc, out), -1
	}
	if bad := firstUndecodable(enc, s); bad >= 0 {
		return "", bad
	}
	if err != nil || !utf8.ValidString(out) {
		// x/text's decoders do neither; should one, its output is not
		// passed on, and with no better offset the error is at the start.
		return "", 0
	}
	return fixGB18030(enc, out), -1
}

// fixGB18030 corrects, in text x/text's GB18030 decoder wrote, the one
// character it decodes otherwise than WHATWG: the four-byte sequence
// 81 35 F4 37 (pointer 7457), which WHATWG's "index gb18030 ranges code
// point" makes U+E7C7, as browsers encode that character, and x/text's
// ranges make U+1E3F. Nothing else comes out of x/text's decoder as
// U+1E3F (WHATWG's two-byte A8 BC, which is U+1E3F, it cannot decode;
// TestGB18030Pointer7457 checks every two-byte code), so every U+1E3F it
// writes stands for that sequence.
func fixGB18030(enc encoding.Encoding, s string) string {
	if enc != simplifiedchinese.GB18030 {
		return s
	}
	return strings.ReplaceAll(s, "\u1E3F", "\uE7C7")
}

// firstUndecodable returns the offset of the first octet of s that enc
// cannot decode, or -1. It makes the decoder write one character at a
// time (a U+FFFD needs 3 bytes of room, so 3 bytes hold at most one
// character that could be one), and compares the input behind each U+FFFD
// with enc's encoding of U+FFFD.
func firstUndecodable(enc encoding.Encoding, s string) int {
	replacement, err := enc.NewEncoder().String("\uFFFD")
	if err != nil {
		replacement = ""
	}
	dec := enc.NewDecoder()
	var dst [2 * utf8.UTFMax]byte
	// rooms are the sizes of dst tried in turn when the decoder cannot
	// write its next output: one character that could be U+FFFD, any one
	// character, and two characters a decoder writes together (Big5).
	rooms := [...]int{utf8.RuneLen(utf8.RuneError), utf8.UTFMax, len(dst)}
	src := []byte(s)
	for pos, r := 0, 0; pos < len(src); {
		nDst, nSrc, err := dec.Transform(dst[:rooms[r]], src[pos:], true)
		out := dst[:nDst]
		if !utf8.Valid(out) {
			// x/text's decoders write valid UTF-8 only; the U+FFFD check
			// below would catch most output that is not (bytes.ContainsRune
			// matches any invalid sequence for utf8.RuneError), but not one
			// written for the charset's own encoding of U+FFFD.
			return pos
		}
		if bytes.ContainsRune(out, utf8.RuneError) && string(src[pos:pos+nSrc]) != replacement {
			return pos
		}
		pos += nSrc
		switch {
		case err == nil:
			return -1
		case !errors.Is(err, transform.ErrShortDst):
			return pos
		case nDst == 0 && nSrc == 0:
			if r++; r == len(rooms) {
				return pos // the decoder wants more room than two characters
			}
		default:
			r = 0
		}
	}
	// Reached only for an empty s, which toUTF8 never passes, or a decoder
	// that takes the last octet yet reports ErrShortDst, which x/text's
	// stateless decoders do not.
	return -1
}
