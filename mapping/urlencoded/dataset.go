package urlencoded

import (
	"net/url"
	"slices"
	"unicode/utf8"
)

// Pair is one (name, value) pair of a data set (seed 002 §3). A value is
// either a string or undefined: Defined is false for a name written without
// '=' ("img" in "img;avail"), which is distinct from an empty value
// ("img=", Defined true, Value ""). When Defined is false, Value must be
// "": the decoders return it so, and the encoders refuse a pair that is
// undefined yet has a value (KindUnencodable), which would be lost.
type Pair struct {
	Name, Value string // decoded text
	Defined     bool   // false for a name without '='
}

// DataSet is an ordered list of pairs. Order is significant and duplicate
// names are kept (seed 002 §7); names and values are compared byte for
// byte, case included. The empty data set is nil.
//
// The format is UTF-8 only: every name and value should be valid UTF-8.
// Validate reports the pairs the encoders cannot represent faithfully.
type DataSet []Pair

// Lookup returns the first pair named name and true, or the zero Pair and
// false when there is none.
func (d DataSet) Lookup(name string) (Pair, bool) {
	for _, p := range d {
		if p.Name == name {
			return p, true
		}
	}
	return Pair{}, false
}

// Validate reports whether every encoder of this package represents d
// faithfully, so that decoding the encoding gives d back (with a Decoder
// whose MaxPairs admits len(d) pairs; Validate sets no limit). It returns a
// *Error of kind KindBadUTF8 for the first name or value that is not valid
// UTF-8 (Input is that string, Offset the first invalid octet, Index the
// pair), and one of kind KindUnencodable when d is the single pair ("",
// undefined), which encodes to "", the encoding of the empty data set
// (seed 002 §3 note), or for the first pair that is undefined but has a
// Value (Input is the value), which no encoding could carry. Otherwise it
// returns nil.
//
// DecodeLegacy cannot give back pairs with an empty name and an undefined
// value at all (application/x-www-form-urlencoded parsers skip empty
// sequences); Validate does not check for them.
func (d DataSet) Validate() error {
	if len(d) == 1 && d[0] == (Pair{}) {
		return newError(KindUnencodable, "", 0, 0,
			`the data set (("", undefined)) has no encoding; it would encode as "", the empty data set`)
	}
	for i, p := range d {
		if off := invalidUTF8(p.Name); off >= 0 {
			return newError(KindBadUTF8, p.Name, off, i, "invalid UTF-8 at offset %d of the name of pair %d", off, i)
		}
		if !p.Defined {
			if p.Value != "" {
				return newError(KindUnencodable, p.Value, 0, i,
					"pair %d is undefined (Defined false) but has the value %q, which its encoding would lose", i, p.Value)
			}
			continue
		}
		if off := invalidUTF8(p.Value); off >= 0 {
			return newError(KindBadUTF8, p.Value, off, i, "invalid UTF-8 at offset %d of the value of pair %d", off, i)
		}
	}
	return nil
}

// Values returns d as a url.Values, for code written against net/url and
// net/http. A map loses information: the order of pairs with different
// names (the order of the values of one name is kept), and the difference
// between an undefined and an empty value (both become "", which is what
// url.ParseQuery makes of a name without '='). Like url.ParseQuery, it
// never returns nil: an empty data set gives an empty map.
func (d DataSet) Values() url.Values {
	v := make(url.Values, len(d))
	for _, p := range d {
		value := p.Value
		if !p.Defined {
			value = ""
		}
		v[p.Name] = append(v[p.Name], value)
	}
	return v
}

// FromValues returns the data set of v: the names in ascending byte order
// (the order url.Values.Encode writes them in, since a map has none), the
// values of each name in slice order, every value defined. A name with no
// values gives no pair. FromValues returns nil for an empty v.
func FromValues(v url.Values) DataSet {
	n := 0
	for _, vs := range v {
		n += len(vs)
	}
	if n == 0 {
		return nil
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	slices.Sort(names)
	d := make(DataSet, 0, n)
	for _, name := range names {
		for _, value := range v[name] {
			d = append(d, Pair{Name: name, Value: value, Defined: true})
		}
	}
	return d
}

// invalidUTF8 returns the offset of the first octet of s that does not
// start a valid UTF-8 sequence, or -1. Pure ASCII costs one pass.
func invalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1 // unreachable: s is invalid, so the loop returns
}
