package urlencoded

import "strings"

// Encode returns the canonical encoding of d, the application/www-form-
// urlencoded algorithm of seed 002 §3, which is an RFC 3987 iquery:
//
//   - in each name and value, space becomes '+', and '%', ';', '&', '=',
//     '+' and every character that cannot occur in an iquery (controls,
//     '"' '#' '<' '>' '[' '\' ']' '^' '`' '{' '|' '}', C1 controls,
//     noncharacters, ...) become %HH of their UTF-8 octets, upper-case;
//     other characters, non-ASCII ones included, stay literal;
//   - a pair is name=value, or the name alone when the value is undefined;
//   - pairs are joined with ';'.
//
// Unlike §3 step 2 of the draft, Encode escapes '+' as %2B: the draft's
// escape set omits it, so ("a+b", "1") would be written a+b=1, which §4
// decodes as ("a b", "1").
//
// Encode does not normalise (no Unicode or newline normalisation, seed 002
// §5). It refuses what the format cannot carry rather than altering it:
// a name or value that is not valid UTF-8 is an *Error of kind
// KindBadUTF8, and the one data set the format cannot represent, the
// single pair ("", undefined), which would encode as "" like the empty
// data set, is KindUnencodable, as is a pair that is undefined yet has a
// Value, which would be lost (Validate says the same without encoding).
// For every d Encode accepts, decoding d.Encode() with a Decoder whose
// MaxPairs admits len(d) pairs gives d, pair for pair (an empty d, nil or
// not, decodes as nil); Decode itself, whose limit is DefaultMaxPairs,
// refuses a d of more pairs with KindTooManyPairs, while Encode has no
// limit.
func (d DataSet) Encode() (string, error) {
	if err := d.Validate(); err != nil {
		return "", err
	}
	return d.encode(escCanonical, ';'), nil
}

// EncodeURI is Encode for a URI rather than an IRI: it also writes every
// non-ASCII character as %HH of its UTF-8 octets, which is the RFC 3987
// §3.1 mapping of the canonical form to a URI (the GET request of seed 002
// §8). The result is ASCII and decodes to the same data set (within the
// decoder's MaxPairs, as for Encode).
//
// It refuses what Encode refuses.
func (d DataSet) EncodeURI() (string, error) {
	if err := d.Validate(); err != nil {
		return "", err
	}
	return d.encode(escURI, ';'), nil
}

// EncodeLegacy returns d in the legacy application/x-www-form-urlencoded
// format as browsers send it (the serializer of the WHATWG URL Standard,
// with UTF-8): space becomes '+', the octets of everything but A-Z a-z 0-9
// '*' '-' '.' '_' become %HH, and pairs are joined with '&'.
//
// The legacy format has no undefined values: EncodeLegacy writes such a
// pair as the name alone, which DecodeLegacy reads back as undefined and
// url.ParseQuery as an empty value. A pair with an empty name and an
// undefined value would become an empty sequence, which legacy parsers
// (DecodeLegacy included) skip, so it is KindUnencodable here, besides
// what Encode refuses.
func (d DataSet) EncodeLegacy() (string, error) {
	if err := d.Validate(); err != nil {
		return "", err
	}
	for i, p := range d {
		if p.Name == "" && !p.Defined {
			return "", newError(KindUnencodable, "", 0, i,
				`pair %d ("", undefined) has no legacy encoding: it would be an empty sequence, which legacy parsers skip`, i)
		}
	}
	return d.encode(escLegacy, '&'), nil
}

func (d DataSet) encode(e *escaper, sep byte) string {
	if len(d) == 0 {
		return ""
	}
	n := len(d) - 1
	for _, p := range d {
		n += e.len(p.Name)
		if p.Defined {
			n += 1 + e.len(p.Value)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range d {
		if i > 0 {
			b.WriteByte(sep)
		}
		e.write(&b, p.Name)
		if p.Defined {
			b.WriteByte('=')
			e.write(&b, p.Value)
		}
	}
	return b.String()
}
