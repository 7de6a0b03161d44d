package mapping

import "encoding/binary"

// SPEC's CTL set (R0.2) is ASCII's. Decoding can also produce, from an
// ASCII label, the UTF-8 of a C1 control character (U+0080-U+009F, the
// Unicode controls beyond ASCII's: NEL, CSI...) or of a line or paragraph
// separator (U+2028, U+2029), which some header readers take for a line
// break (Python's str.splitlines splits at U+0085, U+2028 and U+2029) and
// terminals for escape sequences. So that nothing decoded from a URI can
// break or escape a header line, the mapping functions (ToURI,
// ToContentType, Map, Canonical) refuse them with KindCTL too: in every
// Content-Type they produce, and in every Content-Type they map to a URI,
// whose mapping back would produce them (SPEC N4), the ones a collapse
// (K6, R3) maps on the way included. The check runs after each otherwise
// successful mapping step, so any error of that step comes first, and only
// after the general paths: the direct paths map ASCII Content-Types only
// (FuzzDirect holds them to it). An error found in a collapse step names
// that step's label, as any error of a collapse does. ParseContentType and
// ParseURI only parse, and accept them.

// unicodeCTL returns the offset in s of the first UTF-8 encoded
// U+0080-U+009F, U+2028 or U+2029, and that rune, or -1. Their lead
// octets (0xC2, 0xE2) are never continuation octets, so a match is a
// character even where s is not valid UTF-8 elsewhere.
func unicodeCTL(s string) (int, rune) {
	if !hasHighOctet(s) {
		return -1, 0
	}
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case 0xC2:
			if c := s[i+1]; c >= 0x80 && c <= 0x9F {
				return i, rune(c)
			}
		case 0xE2:
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				return i, 0x2000 | rune(s[i+2]&0x3F)
			}
		}
	}
	return -1, 0
}

// hasHighOctet reports whether s holds an octet >= 0x80. Labels are ASCII
// as a rule, and this runs after every mapping the general paths make,
// over the whole label, so it tests 32 octets at a time, then 8, then one.
func hasHighOctet(s string) bool {
	const highs = 0x8080808080808080
	i := 0
	for ; i+32 <= len(s); i += 32 {
		b := []byte(s[i : i+32])
		if (binary.LittleEndian.Uint64(b)|binary.LittleEndian.Uint64(b[8:])|
			binary.LittleEndian.Uint64(b[16:])|binary.LittleEndian.Uint64(b[24:]))&highs != 0 {
			return true
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&highs != 0 {
			return true
		}
	}
	var c byte
	for ; i < len(s); i++ {
		c |= s[i]
	}
	return c >= 0x80
}

// sourceUnicodeCTL returns the offset in in, a URI, of what decodes to the
// first character unicodeCTL finds in a Content-Type mapped from it in one
// step: the character written as it is (an IRI) or percent-encoded, the
// first in dec(in). It returns 0 if there is none, which one step that
// produced one cannot have (a collapse's characters are checked in its own
// steps).
func sourceUnicodeCTL(in string) int {
	k, _ := unicodeCTL(Unescape(in))
	return sourceOffset(in, k)
}

// errUnicodeCTL is the KindCTL error for r at offset off of in.
func errUnicodeCTL(in string, off int, r rune) error {
	return newError(KindCTL, in, off, "control character U+%04X at offset %d would land in a header", r, off)
}

// refuseInput is the check for a mapping of the Content-Type in.
func refuseInput(in string) error {
	if i, r := unicodeCTL(in); i >= 0 {
		return errUnicodeCTL(in, i, r)
	}
	return nil
}

// refuseOutput is the check for a mapping from the URI in to the
// Content-Type out.
func refuseOutput(in, out string) error {
	if i, r := unicodeCTL(out); i >= 0 {
		return errUnicodeCTL(in, sourceUnicodeCTL(in), r)
	}
	return nil
}
