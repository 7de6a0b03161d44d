package urlencoded

import (
	"strings"
	"unicode/utf8"
)

// DefaultMaxPairs is the number of pairs a decoder accepts by default, the
// same bound net/url puts on url.ParseQuery.
const DefaultMaxPairs = 10000

// DecodeOptions configure a decoder. The zero value decodes
// application/www-form-urlencoded with DefaultMaxPairs.
type DecodeOptions struct {
	// MaxPairs bounds the number of pairs: 0 means DefaultMaxPairs, a
	// negative value no bound.
	MaxPairs int
	// Legacy decodes application/x-www-form-urlencoded as browsers send
	// it: only '&' separates pairs (';' is data) and empty pairs are
	// skipped.
	Legacy bool
}

// Decode decodes s as application/www-form-urlencoded (§4): the input is
// split at every ';' and '&' into pairs, each pair at its first '=' into
// name and value (no '=': the value is undefined), each %HH becomes its
// octet and each '+' a space, and the octets must be valid UTF-8. An empty
// string is the empty data set; "a;;b" has an empty, undefined pair in the
// middle. A '%' that does not start a %HH triplet, literal control
// characters and literal non-ASCII are accepted, as §5 shows.
//
// The error is an *Error: ErrBadUTF8 with the offset of the octet (or the
// triplet that produced it) where the UTF-8 goes wrong, or ErrTooManyPairs.
// A successful result never differs from what §4 yields.
func Decode(s string) (DataSet, error) { return DecodeOptions{}.Decode(s) }

// DecodeLegacy decodes s as application/x-www-form-urlencoded as browsers
// send it (the WHATWG URL standard's parser, with errors instead of
// replacement characters): pairs are separated by '&' only, empty pairs
// are skipped, and a name without '=' has an undefined value here too (the
// WHATWG parser reads it as the empty value; Values maps undefined to "").
func DecodeLegacy(s string) (DataSet, error) { return DecodeOptions{Legacy: true}.Decode(s) }

// Decode decodes s as configured by o; see Decode and DecodeLegacy.
func (o DecodeOptions) Decode(s string) (DataSet, error) {
	if s == "" {
		return nil, nil
	}
	max := o.MaxPairs
	if max == 0 {
		max = DefaultMaxPairs
	}
	// Count first, so that the result is the one allocation for pairs.
	n := 1 + strings.Count(s, "&")
	if !o.Legacy {
		n += strings.Count(s, ";")
	}
	if max > 0 && n > max {
		// Legacy skips empty pairs: count exactly before refusing.
		if !o.Legacy || countNonEmpty(s) > max {
			return nil, newError(ErrTooManyPairs, -1, "more than %d pairs", max)
		}
	}
	d := make(DataSet, 0, n)
	for i := 0; i <= len(s); {
		end := i + indexSep(s[i:], o.Legacy)
		if end < i {
			end = len(s)
		}
		if end > i || !o.Legacy {
			p, err := decodePair(s, i, end)
			if err != nil {
				return nil, err
			}
			d = append(d, p)
		}
		i = end + 1
	}
	return d, nil
}

func countNonEmpty(s string) int {
	n := 0
	for _, part := range strings.Split(s, "&") {
		if part != "" {
			n++
		}
	}
	return n
}

// indexSep returns the index of the first separator in s, or -1.
func indexSep(s string, legacy bool) int {
	if legacy {
		return strings.IndexByte(s, '&')
	}
	return strings.IndexAny(s, ";&")
}

// decodePair decodes the pair s[lo:hi].
func decodePair(s string, lo, hi int) (Pair, error) {
	eq := strings.IndexByte(s[lo:hi], '=')
	if eq < 0 {
		name, err := decodeComponent(s, lo, hi)
		return Pair{Name: name}, err
	}
	name, err := decodeComponent(s, lo, lo+eq)
	if err != nil {
		return Pair{}, err
	}
	value, err := decodeComponent(s, lo+eq+1, hi)
	return Pair{Name: name, Value: value, Defined: true}, err
}

// decodeComponent applies §4 steps 5 and 6 to s[lo:hi]: %HH and '+' are
// decoded, and the octets must be UTF-8. When nothing needs decoding the
// result is a substring of s, so no allocation.
func decodeComponent(s string, lo, hi int) (string, error) {
	c := s[lo:hi]
	if strings.IndexByte(c, '+') < 0 && strings.IndexByte(c, '%') < 0 {
		if utf8.ValidString(c) {
			return c, nil
		}
		return "", badUTF8(s, lo, hi)
	}
	b := make([]byte, 0, len(c))
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch == '+':
			b = append(b, ' ')
		case ch == '%' && i+2 < len(c) && isHex(c[i+1]) && isHex(c[i+2]):
			b = append(b, unhex(c[i+1])<<4|unhex(c[i+2]))
			i += 2
		default:
			b = append(b, ch)
		}
	}
	if !utf8.Valid(b) {
		return "", badUTF8(s, lo, hi)
	}
	return string(b), nil
}

// badUTF8 locates the first octet of s[lo:hi] (after decoding) that breaks
// UTF-8 and reports it at the offset of the octet or triplet in s.
func badUTF8(s string, lo, hi int) *Error {
	var b []byte
	var src []int // src[k]: where decoded octet k starts in s
	for i := lo; i < hi; i++ {
		src = append(src, i)
		if c := s[i]; c == '%' && i+2 < hi && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		} else if c == '+' {
			b = append(b, ' ')
		} else {
			b = append(b, c)
		}
	}
	k := 0
	for k < len(b) {
		r, n := utf8.DecodeRune(b[k:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		k += n
	}
	return newError(ErrBadUTF8, src[k], "invalid UTF-8 at offset %d", src[k])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
