package urlencoded

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
)

// DefaultMaxPairs is the number of pairs a Decoder with MaxPairs 0 accepts,
// the limit net/url applies to url.ParseQuery by default.
const DefaultMaxPairs = 10000

// Decoder decodes data sets with limits and options. The zero value is
// ready to use and is what Decode and DecodeLegacy use.
type Decoder struct {
	// MaxPairs is the most pairs a data set may have; more give a *Error
	// of kind KindTooManyPairs whose Offset is where the first pair over
	// the limit starts. 0 means DefaultMaxPairs and a negative value means
	// no limit. The limit bounds the size of the result, which is
	// otherwise up to 40 bytes a pair for an input of one byte a pair
	// (";;;;").
	MaxPairs int

	// LegacyCharset names the charset of the octets DecodeLegacy decodes,
	// as the WHATWG Encoding Standard names and labels charsets
	// ("windows-1252", "latin1", "shift_jis", ...): a form is submitted
	// in the charset of its page. "" means UTF-8. The octets of each name
	// and value, once percent-decoded, are converted to UTF-8 (seed 001
	// case C.2); octets that are not valid in the charset give
	// KindUndecodable, except that for UTF-8 (named or "") they give
	// KindBadUTF8, as with Decode. The conversion is x/text's, which
	// leaves some octets WHATWG decodes undefined (see the package
	// documentation). The charset must be ASCII-compatible (not UTF-16,
	// not "replacement"), otherwise decoding fails with
	// KindUnknownCharset. Each converted name or value is a string of its
	// own. Decode ignores LegacyCharset: the
	// application/www-form-urlencoded format is UTF-8 only (seed 002 §11).
	LegacyCharset string
}

// Decode decodes s as application/www-form-urlencoded with the decoding
// algorithm of seed 002 §4, using the zero Decoder. See Decoder.Decode.
func Decode(s string) (DataSet, error) { return Decoder{}.Decode(s) }

// DecodeLegacy decodes s as application/x-www-form-urlencoded, using the
// zero Decoder. See Decoder.DecodeLegacy.
func DecodeLegacy(s string) (DataSet, error) { return Decoder{}.DecodeLegacy(s) }

// Decode decodes s, a query string (without '?') or a request body in the
// application/www-form-urlencoded format, as seed 002 §4 says:
//
//   - "" is the empty data set (nil);
//   - s is split at every ';' and every '&', and each part at its first
//     '=' into name and value; a part without '=' is a name with an
//     undefined value, so "a;;b" is three pairs, the middle one ("",
//     undefined);
//   - in names and values each %HH triplet (either case) becomes its
//     octet and '+' becomes a space; a '%' that does not start a triplet
//     is kept, as the draft's "highly robust" decoder does (§5);
//   - the octets must then be valid UTF-8 (RFC 3629), otherwise the error
//     is a *Error of kind KindBadUTF8 whose Offset is the input offset of
//     the first octet or triplet of the invalid sequence. Nothing is
//     replaced or dropped. A leading U+FEFF is part of the first name
//     (§11).
//
// Decode also reads the legacy application/x-www-form-urlencoded format
// as long as it is UTF-8 (seed 002 §8), except that it keeps its empty
// sequences ("a&&b" gives three pairs) and treats ';' as a separator.
//
// Names and values may hold any character the format allows, U+0000, CR
// and LF included (§5); check them before writing them into a header.
//
// The result shares memory with s and, when something needed decoding,
// with one buffer of at most len(s) bytes: Decode allocates the result
// slice and that buffer, nothing else.
func (dc Decoder) Decode(s string) (DataSet, error) {
	return dc.decode(s, &classModern, nil)
}

// DecodeLegacy decodes s as application/x-www-form-urlencoded as browsers
// send it (the application/x-www-form-urlencoded parser of the WHATWG URL
// Standard): like Decode, except that only '&' separates pairs (';' is
// data) and empty sequences are skipped, so "a&&b" is two pairs. The
// octets must be valid UTF-8, or valid in LegacyCharset when it is set.
//
// Unlike the WHATWG parser and url.ParseQuery, DecodeLegacy keeps a name
// without '=' apart from an empty value: its pair has Defined false. Use
// Values or read Value (which is "") to treat both alike.
func (dc Decoder) DecodeLegacy(s string) (DataSet, error) {
	cs, err := legacyCharset(dc.LegacyCharset)
	if err != nil {
		return nil, err
	}
	return dc.decode(s, &classLegacy, cs)
}

// Octet classes for the scanning loop: one table load per octet tells
// whether the octet needs a second look.
const (
	clSep  = 1 << iota // separates pairs
	clEq               // '=': separates name and value
	clPct              // '%': may start a triplet
	clPlus             // '+': a space
	clHigh             // >= 0x80: needs the UTF-8 check
)

var classModern, classLegacy = octetClasses(";&"), octetClasses("&")

func octetClasses(seps string) (t [256]uint8) {
	for i := 0; i < len(seps); i++ {
		t[seps[i]] = clSep
	}
	t['='], t['%'], t['+'] = clEq, clPct, clPlus
	for c := 0x80; c < 0x100; c++ {
		t[c] = clHigh
	}
	return t
}

func (dc Decoder) maxPairs() int {
	if dc.MaxPairs == 0 {
		return DefaultMaxPairs
	}
	return dc.MaxPairs
}

// decoding holds the state of one Decode call.
type decoding struct {
	in string
	// buf receives the decoded form of the names and values that have
	// one; each is a substring of buf.String(). Strings taken from a
	// strings.Builder stay valid as it grows, and buf never grows: it is
	// sized once for the rest of the input, which decoding cannot
	// lengthen.
	buf     strings.Builder
	charset encoding.Encoding // nil: UTF-8
}

func (dc Decoder) decode(s string, class *[256]uint8, cs encoding.Encoding) (DataSet, error) {
	if s == "" {
		return nil, nil
	}
	legacy := class == &classLegacy
	limit := dc.maxPairs()
	n := strings.Count(s, "&") + 1
	if !legacy {
		n += strings.Count(s, ";")
	}
	if limit > 0 && n > limit {
		n = limit
	}
	d := make(DataSet, 0, n)
	st := decoding{in: s, charset: cs}
	for pos := 0; ; {
		start, eq := pos, -1
		var nameCl, cl uint8
		i := pos
		for ; i < len(s); i++ {
			c := class[s[i]]
			if c == 0 {
				continue
			}
			if c&clSep != 0 {
				break
			}
			if c == clEq && eq < 0 {
				eq, nameCl, cl = i, cl, 0
				continue
			}
			cl |= c
		}
		if i > start || !legacy {
			if len(d) == limit {
				return nil, newError(KindTooManyPairs, s, start, len(d),
					"more pairs than the limit of %d: pair %d, the first over it, starts at offset %d", limit, len(d), start)
			}
			var p Pair
			var err error
			if eq < 0 {
				p.Name, err = st.text(start, i, cl, len(d), "name")
			} else {
				p.Name, err = st.text(start, eq, nameCl, len(d), "name")
				if err == nil {
					p.Value, err = st.text(eq+1, i, cl, len(d), "value")
					p.Defined = true
				}
			}
			if err != nil {
				return nil, err
			}
			d = append(d, p)
		}
		if i == len(s) {
			if len(d) == 0 {
				return nil, nil // only empty sequences (legacy)
			}
			return d, nil
		}
		pos = i + 1
	}
}

// text returns the decoded form of st.in[lo:hi], a name or value whose
// octets have the classes cl, or the error of pair index.
func (st *decoding) text(lo, hi int, cl uint8, index int, what string) (string, error) {
	raw := st.in[lo:hi]
	if st.charset != nil {
		return st.transcode(lo, hi, cl, index, what)
	}
	out := raw
	if cl&(clPct|clPlus) != 0 {
		if st.buf.Cap() == 0 {
			st.buf.Grow(len(st.in) - lo)
		}
		mark := st.buf.Len()
		if !appendDecoded(&st.buf, raw) {
			return st.buf.String()[mark:], nil // pure ASCII
		}
		out = st.buf.String()[mark:]
	} else if cl&clHigh == 0 {
		return raw, nil
	}
	if bad := invalidUTF8(out); bad >= 0 {
		off := lo + rawOffset(raw, bad)
		return "", newError(KindBadUTF8, st.in, off, index,
			"invalid UTF-8 at offset %d, in the %s of pair %d", off, what, index)
	}
	return out, nil
}

// transcode is text for a legacy charset: percent-decode, then convert to
// UTF-8.
func (st *decoding) transcode(lo, hi int, cl uint8, index int, what string) (string, error) {
	raw := st.in[lo:hi]
	octets := raw
	if cl&(clPct|clPlus) != 0 {
		var b strings.Builder
		b.Grow(len(raw))
		appendDecoded(&b, raw)
		octets = b.String()
	}
	if !needsTranscoding(octets) {
		return octets, nil
	}
	out, bad := toUTF8(st.charset, octets)
	if bad >= 0 {
		off := lo + rawOffset(raw, bad)
		return "", newError(KindUndecodable, st.in, off, index,
			"octets not valid in charset %s at offset %d, in the %s of pair %d", charsetName(st.charset), off, what, index)
	}
	return out, nil
}

// appendDecoded writes s to b with each %HH triplet replaced by its octet
// and each '+' by a space (seed 002 §4 step 5), and reports whether it
// wrote an octet >= 0x80.
func appendDecoded(b *strings.Builder, s string) (high bool) {
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteString(s[start:i])
			b.WriteByte(' ')
			start = i + 1
		case c == '%' && i+2 < len(s):
			hi, lo := hexValue[s[i+1]], hexValue[s[i+2]]
			if hi|lo > 0xF {
				continue // not a triplet: the '%' is data
			}
			b.WriteString(s[start:i])
			o := hi<<4 | lo
			b.WriteByte(o)
			high = high || o >= utf8.RuneSelf
			i += 2
			start = i + 1
		case c >= utf8.RuneSelf:
			high = true
		}
	}
	b.WriteString(s[start:])
	return high
}

// rawOffset returns the offset in raw of the octet or triplet that decodes
// to octet n of its decoded form.
func rawOffset(raw string, n int) int {
	i := 0
	for ; i < len(raw) && n > 0; n-- {
		if raw[i] == '%' && isTriplet(raw, i) {
			i += 3
		} else {
			i++
		}
	}
	return i
}

// isTriplet reports whether s[i:] starts with '%' and two hex digits.
func isTriplet(s string, i int) bool {
	return i+2 < len(s) && s[i] == '%' && hexValue[s[i+1]]|hexValue[s[i+2]] <= 0xF
}

// hexValue maps a hex digit (either case) to its value and every other
// octet to 0xFF.
var hexValue = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'A' <= c && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0xFF
		}
	}
	return t
}()
