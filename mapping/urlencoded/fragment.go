package urlencoded

import (
	"strings"
	"unicode/utf8"
)

// Filter applies a fragment identifier to d (§6): fragment, the text after
// '#', is a comma-separated list of names, each percent-encoded as RFC 3986
// or RFC 3987 require ("%2C" is a comma inside a name, and '+' is not a
// space here). The result holds the pairs of d whose name is in the list,
// in their original order; the order of the names is insignificant.
//
// A fragment identifier holding '(' or ')' is reserved for future versions
// of the format and has undefined semantics, which it would be wrong to
// ignore: that is ErrReservedFragment. A name that is not UTF-8 once
// decoded is ErrBadUTF8.
func Filter(d DataSet, fragment string) (DataSet, error) {
	if i := strings.IndexAny(fragment, "()"); i >= 0 {
		return nil, newError(ErrReservedFragment, i, "fragment identifier %q has a %q at offset %d, reserved for future versions", fragment, fragment[i], i)
	}
	names := make(map[string]bool)
	for lo := 0; lo <= len(fragment); {
		hi := lo + strings.IndexByte(fragment[lo:], ',')
		if hi < lo {
			hi = len(fragment)
		}
		name := pctDecode(fragment[lo:hi])
		if !utf8.ValidString(name) {
			return nil, newError(ErrBadUTF8, lo, "name at offset %d of the fragment identifier is not UTF-8", lo)
		}
		names[name] = true
		lo = hi + 1
	}
	var out DataSet
	for _, p := range d {
		if names[p.Name] {
			out = append(out, p)
		}
	}
	return out, nil
}

// pctDecode decodes %HH triplets only.
func pctDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		} else {
			b = append(b, s[i])
		}
	}
	return string(b)
}
