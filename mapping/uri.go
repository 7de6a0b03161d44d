package mapping

import "strings"

// QueryItem is one name=value item of a URI query, as URI text: still
// percent-encoded, with the value's delimiters ('"' or %22) removed. Use
// Unescape to decode either.
type QueryItem struct {
	Name  string // URI text, as written
	Value string // URI text, delimiters removed
}

// URI is a parsed URI type label (SPEC U1-U9).
//
// A query that cannot be read as name=value items (SPEC R0.15: some item
// has no '=' or an empty name) is opaque: it stays part of Body, after a
// '?', and Query is empty. An empty query and empty items are dropped.
type URI struct {
	Scheme      string      // as written; see Format for the canonical case
	Body        string      // everything between "scheme:" and the query or fragment
	Query       []QueryItem // in order, duplicates kept
	Fragment    string      // URI text after '#'
	HasFragment bool        // a '#' was present (the fragment may be empty)
}

// ParseURI parses an absolute URI or IRI as SPEC U1-U9 define it. An IRI is
// first converted to a URI (RFC 3987 §3.1: each octet >= 0x80 of valid
// UTF-8 becomes %HH; invalid UTF-8 is KindInvalidURI); outer white space is
// stripped. A missing scheme is KindRelativeURI; an octet that RFC 3986 does
// not allow where it stands, a malformed %-sequence or a misquoted value is
// KindInvalidURI; ContentType:// is KindReserved; a query item named
// URI-body or URI-fragment is KindReservedParam.
func ParseURI(s string) (URI, error) {
	var ibuf [8]uriItem
	var sc uriScan
	items, err := sc.parse(s, ibuf[:0])
	if err != nil {
		return URI{}, err
	}
	u := URI{
		Scheme:      sc.s[sc.lo:sc.schemeHi],
		Body:        sc.s[sc.schemeHi+1 : sc.bodyHi],
		HasFragment: sc.hasFrag,
	}
	if sc.hasFrag {
		u.Fragment = sc.s[sc.fragLo:sc.hi]
	}
	if len(items) > 0 {
		u.Query = make([]QueryItem, len(items))
		for i, it := range items {
			u.Query[i] = QueryItem{Name: sc.s[it.nameLo:it.nameHi], Value: sc.s[it.valLo:it.valHi]}
		}
	}
	return u, nil
}

// String is Format with no options.
func (u URI) String() string { return u.Format() }

// Format writes u canonically (SPEC R0.13, K4, K5): the scheme lower-cased,
// or spelled ContentType; the body as it is; each query item as
// name="value" joined with '&' (with StrictURI the delimiters are %22); and
// the fragment after '#' when HasFragment. Format does not validate; the
// fields of a URI from ParseURI always give a valid URI.
func (u URI) Format(opts ...Option) string {
	d := delimiter(optionsOf(opts))
	n := len(u.Scheme) + 1 + len(u.Body) + 1 + len(u.Fragment)
	for _, it := range u.Query {
		n += 2 + len(it.Name) + len(it.Value) + 2*len(d)
	}
	b := make([]byte, 0, n)
	b = appendScheme(b, u.Scheme)
	b = append(append(b, ':'), u.Body...)
	for i, it := range u.Query {
		b = append(b, "?&"[min(i, 1)])
		b = append(append(append(append(append(b, it.Name...), '='), d...), it.Value...), d...)
	}
	if u.HasFragment {
		b = append(append(b, '#'), u.Fragment...)
	}
	return string(b)
}

// Param returns the value of the first query item whose name equals name
// ignoring ASCII case.
func (u URI) Param(name string) (value string, ok bool) {
	for _, it := range u.Query {
		if strings.EqualFold(it.Name, name) {
			return it.Value, true
		}
	}
	return "", false
}

func delimiter(f Option) string {
	if f&StrictURI != 0 {
		return "%22"
	}
	return `"`
}

// appendScheme writes a scheme per R0.13.
func appendScheme[T bytesOrString](b []byte, scheme T) []byte {
	if asciiEqualFold(scheme, "contenttype") {
		return append(b, "ContentType"...)
	}
	return appendLower(b, scheme)
}

// uriItem locates one query item in the scanned text.
type uriItem struct {
	nameLo, nameHi int
	valLo, valHi   int // without delimiters
}

// uriScan is the result of scanning a URI: offsets into s, which is the
// caller's string unless U1 had to convert an IRI. The query items are a
// separate slice, for the reason given at ctScan.
type uriScan struct {
	in        string // the caller's input, for error offsets
	s         string // the text after U1
	converted bool
	lo, hi    int // bounds after U2
	schemeHi  int // s[lo:schemeHi] is the scheme, s[schemeHi] is ':'
	bodyHi    int // body is s[schemeHi+1:bodyHi], opaque query included
	fragLo    int // fragment is s[fragLo:hi] when hasFrag
	hasFrag   bool
	// contentType: the scheme is ContentType (in any case).
	contentType bool
}

func (sc *uriScan) scheme() string { return sc.s[sc.lo:sc.schemeHi] }
func (sc *uriScan) body() string   { return sc.s[sc.schemeHi+1 : sc.bodyHi] }
func (sc *uriScan) frag() string   { return sc.s[sc.fragLo:sc.hi] }

// errAt builds an error at offset off of s, reported at the corresponding
// offset of the caller's input.
func (sc *uriScan) errAt(k Kind, off int, format string, args ...any) *Error {
	in := sc.inputOffset(off)
	return newError(k, sc.in, in, format, append(args, in)...)
}

// inputOffset maps an offset in the converted text back to the caller's
// input: each octet >= 0x80 of the input became three octets.
func (sc *uriScan) inputOffset(off int) int {
	if !sc.converted {
		return off
	}
	conv := 0
	for i := 0; i < len(sc.in); i++ {
		w := 1
		if sc.in[i] >= 0x80 {
			w = 3
		}
		if conv+w > off {
			return i
		}
		conv += w
	}
	return len(sc.in)
}

// Octet classes of the fused scan in parse.
const (
	uOK      = iota // valid in the body, the query and the fragment
	uPct            // '%'
	uQuery          // '?'
	uHash           // '#'
	uBracket        // '[' or ']': valid in the body only
	uOther          // any other octet of 0x21-0x7E: valid nowhere
	uCTL            // 0x00-0x20 or 0x7F: never in a URI (U4)
	uHigh           // >= 0x80: an IRI (U1)
)

var uriClass = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case b >= 0x80:
			t[c] = uHigh
		case b <= 0x20 || b == 0x7F:
			t[c] = uCTL
		case b == '%':
			t[c] = uPct
		case b == '?':
			t[c] = uQuery
		case b == '#':
			t[c] = uHash
		case b == '[' || b == ']':
			t[c] = uBracket
		case setBody.Contains(b) && setQuery.Contains(b):
			t[c] = uOK
		default:
			t[c] = uOther
		}
	}
	return t
}()

// uriQueryClass is uriClass for the query, where the scan looks only for
// its end, control characters and octets >= 0x80: U8 checks the rest item
// by item, so the scan does not stop at every '"' and '%'.
var uriQueryClass = func() (t [256]uint8) {
	t = uriClass
	for c := range t {
		if t[c] != uHash && t[c] != uCTL && t[c] != uHigh {
			t[c] = uOK
		}
	}
	return t
}()

// errIRI tells parse that the input holds octets >= 0x80 and must go
// through U1 before any other rule applies.
var errIRI = &Error{}

// parse applies U1-U9 and reports the first failing rule in their order,
// appending the query items to items and returning them.
func (sc *uriScan) parse(in string, items []uriItem) ([]uriItem, *Error) {
	sc.in, sc.s = in, in
	items, err := sc.scan(items)
	if err != errIRI {
		return items, err
	}
	// U1: an IRI. Convert it, then scan the URI (which has no octet >= 0x80).
	i := 0
	for in[i] < 0x80 {
		i++
	}
	if j := invalidUTF8(in[i:]); j >= 0 {
		return nil, newError(KindInvalidURI, in, i+j, "invalid UTF-8 at offset %d", i+j)
	}
	high := 0
	for k := i; k < len(in); k++ {
		high += int(in[k] >> 7)
	}
	b := make([]byte, 0, len(in)+2*high)
	b = append(b, in[:i]...)
	for k := i; k < len(in); k++ {
		if in[k] >= 0x80 {
			b = appendPct(b, in[k])
		} else {
			b = append(b, in[k])
		}
	}
	sc.s = string(b)
	sc.converted = true
	return sc.scan(items)
}

// scan is parse after U1. U4, U5 and U7 are one pass over the octets after
// the scheme: errors are recorded as they are met and reported afterwards
// in rule order. It returns errIRI on meeting an octet >= 0x80.
func (sc *uriScan) scan(items []uriItem) ([]uriItem, *Error) {
	s := sc.s
	sc.lo, sc.hi = trimWSP(s)
	lo, hi := sc.lo, sc.hi
	// U3.
	i := lo
	if i < hi && tabAlpha[s[i]] {
		for i++; i < hi && tabScheme[s[i]]; i++ {
		}
	}
	if i == lo || i >= hi || s[i] != ':' {
		if hasHighOctet(s) {
			return nil, errIRI
		}
		return nil, sc.errAt(KindRelativeURI, lo, "no scheme at offset %d: only absolute URIs are mapped")
	}
	sc.schemeHi = i
	sc.contentType = asciiEqualFold(s[lo:i], "contenttype")
	// U4, U5, U7.
	const (
		inBody = iota
		inQuery
		inFrag
	)
	region, qLo, qHi := inBody, -1, hi
	bodyErr, fragErr := -1, -1
	sc.bodyHi, sc.fragLo, sc.hasFrag = hi, hi, false
	s = s[:hi] // lets the compiler drop the bounds checks below
	for j := i + 1; j < hi; j++ {
		if region == inQuery {
			j = skipURIOK(s, j, &uriQueryClass)
		} else {
			j = skipURIOK(s, j, &uriClass)
		}
		if j == hi {
			break
		}
		bad := false
		switch uriClass[s[j]] {
		case uPct:
			if isTriplet(s, j) {
				j += 2
				continue
			}
			bad = true
		case uQuery:
			if region == inBody {
				region, sc.bodyHi, qLo = inQuery, j, j+1
			}
		case uHash:
			if region == inFrag {
				bad = true
				break
			}
			if region == inBody {
				sc.bodyHi = j
			}
			region, qHi, sc.fragLo, sc.hasFrag = inFrag, j, j+1, true
		case uBracket:
			bad = region == inFrag
		case uOther:
			bad = true
		case uCTL:
			if hasHighOctet(s[j:]) {
				return nil, errIRI
			}
			return nil, sc.errAt(KindInvalidURI, j, "octet 0x%02X not allowed in a URI at offset %d", s[j])
		case uHigh:
			return nil, errIRI
		}
		if bad {
			if region == inBody && bodyErr < 0 {
				bodyErr = j
			} else if region == inFrag && fragErr < 0 {
				fragErr = j
			} // errors in the query are U8's
		}
	}
	// U6.
	if sc.contentType && strings.HasPrefix(sc.body(), "//") {
		return nil, sc.errAt(KindReserved, sc.schemeHi+1, "ContentType:// at offset %d is reserved for future definition")
	}
	// U7.
	if bodyErr >= 0 {
		return nil, sc.invalid(bodyErr, "the body")
	}
	if j, want := badAuthority(sc.body()); j >= 0 {
		return nil, sc.errAt(KindInvalidURI, sc.schemeHi+1+j, "malformed authority: expected "+want+" at offset %d")
	}
	if fragErr >= 0 {
		return nil, sc.invalid(fragErr, "the fragment")
	}
	if qLo < 0 {
		return items, nil
	}
	return sc.query(qLo, qHi, items)
}

// skipURIOK returns the end of the run of octets at s[j:] that class (one
// of the tables above) marks uOK. uOK is 0, so four octets are tested with
// one OR: URIs are mostly long plain runs.
func skipURIOK(s string, j int, class *[256]uint8) int {
	for ; j+4 <= len(s); j += 4 {
		w := s[j : j+4]
		if class[w[0]]|class[w[1]]|class[w[2]]|class[w[3]] != uOK {
			break
		}
	}
	for j < len(s) && class[s[j]] == uOK {
		j++
	}
	return j
}

func (sc *uriScan) invalid(off int, where string) *Error {
	c := sc.s[off]
	if c == '%' {
		return sc.errAt(KindInvalidURI, off, "'%%' not followed by two hex digits in "+where+" at offset %d")
	}
	return sc.errAt(KindInvalidURI, off, "%s not allowed in "+where+" at offset %d", showOctet(c))
}

// query applies U8 and U9 to the query s[lo:hi]. One walk over the
// '&'-separated items finds each item's first '=' and so both the item
// bounds and whether the query is opaque (R0.15); the items are then
// checked in order.
func (sc *uriScan) query(lo, hi int, items []uriItem) ([]uriItem, *Error) {
	s := sc.s
	first, opaque := len(items), false
	for i := lo; i < hi; {
		end := i + strings.IndexByte(s[i:hi], '&')
		if end < i {
			end = hi
		}
		if end > i {
			eq := strings.IndexByte(s[i:end], '=')
			if eq <= 0 {
				opaque = true
				break
			}
			items = append(grown(items), uriItem{nameLo: i, nameHi: i + eq, valLo: i + eq + 1, valHi: end})
		}
		i = end + 1
	}
	if opaque {
		if j := invalidIn(s[lo:hi], setQuery); j >= 0 {
			return nil, sc.invalid(lo+j, "an opaque query")
		}
		sc.bodyHi = hi
		return items[:first], nil
	}
	for k := first; k < len(items); k++ {
		if err := sc.item(&items[k]); err != nil {
			return nil, err
		}
	}
	// U9, after U8 has passed every item.
	for _, it := range items[first:] {
		name := s[it.nameLo:it.nameHi]
		if asciiEqualFold(name, foldURIBody) || asciiEqualFold(name, foldURIFragment) {
			return nil, sc.errAt(KindReservedParam, it.nameLo, "query item %s at offset %d is reserved for Content-Types", canonicalName(name))
		}
	}
	return items, nil // no item at all: the query is absent
}

// item applies U8 to one item, whose name is non-empty and followed by
// '=', and unquotes its value.
func (sc *uriScan) item(it *uriItem) *Error {
	s := sc.s
	if j := invalidIn(s[it.nameLo:it.nameHi], setQueryName); j >= 0 {
		return sc.invalid(it.nameLo+j, "a query name")
	}
	v := s[it.valLo:it.valHi]
	inner, ok := itemValue(v)
	if !ok {
		return sc.errAt(KindInvalidURI, it.valLo, "unbalanced '\"' around the value at offset %d")
	}
	// The delimiters, if any, are as wide at both ends.
	it.valLo += (len(v) - len(inner)) / 2
	it.valHi = it.valLo + len(inner)
	if j := invalidIn(s[it.valLo:it.valHi], setQueryValue); j >= 0 {
		return sc.invalid(it.valLo+j, "a query value")
	}
	return nil
}

// itemValue removes a value's delimiters as U8 does: '"' at both ends,
// or %22 at both ends; ok is false for an unbalanced '"'.
func itemValue(v string) (_ string, ok bool) {
	switch {
	case len(v) > 0 && v[0] == '"':
		if len(v) < 2 || v[len(v)-1] != '"' {
			return v, false
		}
		return v[1 : len(v)-1], true
	case len(v) >= 6 && strings.HasPrefix(v, "%22") && strings.HasSuffix(v, "%22"):
		return v[3 : len(v)-3], true
	}
	return v, true
}

// isOpaque is R0.15: some non-empty '&'-separated item has no '=' or
// starts with '='.
func isOpaque[T bytesOrString](q T) bool {
	start, eq := 0, -1
	for i := 0; i <= len(q); i++ {
		if i == len(q) || q[i] == '&' {
			if i > start && (eq < 0 || eq == start) {
				return true
			}
			start, eq = i+1, -1
		} else if q[i] == '=' && eq < 0 {
			eq = i
		}
	}
	return false
}
