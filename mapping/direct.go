package mapping

import "strings"

// Direct paths.
//
// The general mapping scans a label against every rule first, then
// decodes, checks and re-encodes its parts in further passes, so that each
// rule lives in one place and errors come out in rule order. The functions
// here map the commonest labels in one pass that decodes as it writes.
// Each accepts only a subset of the input that every rule lets through,
// described at the function, and reports ok == false for anything else,
// errors included: the general path then decides. So the direct paths add
// speed, never behaviour; FuzzDirect holds them to the general path and
// FuzzReference holds both to an independent implementation of SPEC.

// Octets the direct paths copy as they are.
var (
	// A ContentType: body: lower-case RCHAR that a URI body holds as it
	// is (R1.2, U7): letters, digits and - . _ ~ ! $ & ' * +.
	tabDirectType = *setRChar.Without("%?ABCDEFGHIJKLMNOPQRSTUVWXYZ").table()
	// A query name: TCHAR that a query name holds as it is (R1.4, U8).
	tabDirectName = *setTChar.Without("%&").table()
	// A value between '"' delimiters: what a query value holds as it is
	// (U8); none of it needs a backslash in a quoted-string (R1.4).
	tabDirectValue = *setQueryValue.table()
)

// Tables of appendDecodedRepair.
var (
	tabBody       = *setBody.table()
	tabQueryValue = *setQueryValue.table()
	tabFragment   = *setFragment.table()
	tabNone       byteTable
	// K0.3, K0.4: '?' and '#' in a decoded base URI are errors or call for
	// the general path's care.
	tabBodyFail = *NewByteSet("?#").table()
)

func init() {
	for c := range 256 {
		tabDirectType[c] = tabDirectType[c] && setBody.Contains(byte(c))
		tabDirectName[c] = tabDirectName[c] && setQueryName.Contains(byte(c))
	}
}

// toURIDirect is ToURI by a direct path: K3 for a native Content-Type,
// K1 or K2 for one that wraps a URI. A URI-body as the first parameter, as
// in the labels ToContentType writes for a MIME-type item (draft §3.3),
// goes to uriDirect at once; one further on is found by nativeDirect.
func toURIDirect(out []byte, in string, f Option) ([]byte, bool) {
	// Types and subtypes are short: plain loops beat IndexByte calls.
	i := 0
	for i < len(in) && in[i] != '/' {
		i++
	}
	if i == len(in) {
		return out, false
	}
	if hasURIPrefix(in[i+1:]) {
		return uriDirect(out, in, f)
	}
	for i < len(in) && in[i] != ';' {
		i++
	}
	if i < len(in) {
		i = skipWSP(in, i+1)
		if len(in)-i > len(foldURIBody) && in[i+len(foldURIBody)] == '=' && asciiEqualFold(in[i:i+len(foldURIBody)], foldURIBody) {
			return uriDirect(out, in, f)
		}
	}
	start := len(out)
	o, ok, uriBody := nativeDirect(out, in, delimiter(f))
	if ok || !uriBody {
		return o, ok
	}
	return uriDirect(o[:start], in, f)
}

// nativeDirect is K3 for a Content-Type without comments, white space only
// around ';', a subtype outside the uri. tree, no URI-body or URI-fragment
// parameter, and values that are tokens or quoted-strings of printable
// ASCII without quoted-pairs: ContentType:type/subtype with each parameter
// as a query item, every part through ENC_U, values between d. uriBody
// reports a URI-body parameter, which calls for uriDirect.
func nativeDirect(out []byte, in string, d string) (_ []byte, ok, uriBody bool) {
	out = append(out, "ContentType:"...)
	out, i, ok := appendRun(out, in, 0, clsRChar, &foldLower)
	if !ok || i == len(in) || in[i] != '/' || hasURIPrefix(in[i+1:]) { // K1 is not direct
		return out, false, false
	}
	out = append(out, '/')
	if out, i, ok = appendRun(out, in, i+1, clsRChar, &foldLower); !ok {
		return out, false, false
	}
	sep := byte('?')
	for {
		i = skipWSP(in, i)
		if i == len(in) {
			return out, true, false
		}
		if in[i] != ';' {
			return out, false, false
		}
		if i = skipWSP(in, i+1); i == len(in) || in[i] == ';' {
			continue // an empty parameter
		}
		name := len(out) + 1
		out = append(out, sep)
		sep = '&'
		if out, i, ok = appendRun(out, in, i, clsTChar, &foldNone); !ok || i == len(in) || in[i] != '=' {
			return out, false, false
		}
		if n := out[name:]; asciiEqualFold(n, foldURIBody) {
			return out, false, true // K2
		} else if asciiEqualFold(n, foldURIFragment) {
			return out, false, false
		}
		out = append(append(out, '='), d...)
		if i++; i < len(in) && in[i] == '"' {
			out, i, _ = appendRun(out, in, i+1, clsQText, &foldNone)
			if i == len(in) || in[i] != '"' {
				return out, false, false // a quoted-pair, a control character, UTF-8: the general path decides
			}
			i++
		} else if out, i, ok = appendRun(out, in, i, clsTChar, &foldNone); !ok {
			return out, false, false
		}
		out = append(out, d...)
	}
}

// uriDirect is K1 for a uri. subtype and K2 for a URI-body parameter
// (unless f holds NoControlled), for Content-Types that nativeDirect's
// grammar covers, whose wrapped URI baseDirect maps and does not make
// collapse, and whose other parameter names hold no '%' and are not
// special: the base URI, each parameter as a query item (in K2 the
// URI-body's place holds MIME-type), its name and value decoded and
// repaired, and URI-fragment as the fragment.
func uriDirect(out []byte, in string, f Option) (_ []byte, ok bool) {
	t := spanRun(in, 0, clsRChar)
	if t == 0 || t == len(in) || in[t] != '/' {
		return out, false
	}
	s := spanRun(in, t+1, clsRChar)
	if s == t+1 {
		return out, false
	}
	k1 := hasURIPrefix(in[t+1 : s])
	base := ""
	if k1 {
		base = in[t+5 : s]
	} else {
		// The first URI-body gives the base; the pass below refuses a
		// second one (C3).
		for i := s; base == ""; {
			name, value, next, ok := nextParam(in, i)
			if !ok || name == "" || f&NoControlled != 0 {
				return out, false
			}
			if asciiEqualFold(name, foldURIBody) {
				base = value
			}
			i = next
		}
	}
	out, collapse, ok := baseDirect(out, base)
	if !ok || collapse {
		return out, false
	}
	d := delimiter(f)
	frag, hasFrag, hasBody, sep := "", false, false, byte('?')
	for i := s; ; {
		name, value, next, ok := nextParam(in, i)
		if !ok {
			return out, false
		}
		if name == "" {
			break
		}
		i = next
		switch {
		case asciiEqualFold(name, foldURIFragment):
			if hasFrag {
				return out, false
			}
			frag, hasFrag = value, true
			continue
		case !k1 && asciiEqualFold(name, foldURIBody):
			if hasBody {
				return out, false
			}
			hasBody = true
			out = append(append(append(out, sep), nameMIMEType+"="...), d...)
			out = appendEscapeLower(out, in[:t], setEncU)
			out = appendEscapeLower(append(out, '/'), in[t+1:s], setEncU)
		case isSpecialName(name) || strings.IndexByte(name, '%') >= 0:
			return out, false
		default:
			out = appendRepair(append(out, sep), name, setQueryName)
			out = append(append(out, '='), d...)
			if out, ok = appendDecodedRepair(out, value, &tabQueryValue, &tabNone); !ok {
				return out, false
			}
		}
		out = append(out, d...)
		sep = '&'
	}
	if hasFrag {
		if out, ok = appendDecodedRepair(append(out, '#'), frag, &tabFragment, &tabNone); !ok {
			return out, false
		}
	}
	return out, true
}

// nextParam scans the parameter at in[i:] in nativeDirect's grammar: it
// returns its name, its value without quotes and where it ends, or an
// empty name at the end of in; ok is false for anything else.
func nextParam(in string, i int) (name, value string, next int, ok bool) {
	for {
		if i = skipWSP(in, i); i == len(in) {
			return "", "", i, true
		}
		if in[i] != ';' {
			return "", "", i, false
		}
		if i = skipWSP(in, i+1); i < len(in) && in[i] != ';' {
			break
		}
	}
	n := spanRun(in, i, clsTChar)
	if n == i || n == len(in) || in[n] != '=' {
		return "", "", i, false
	}
	name, i = in[i:n], n+1
	if i < len(in) && in[i] == '"' {
		e := spanRun(in, i+1, clsQText)
		if e == len(in) || in[e] != '"' {
			return "", "", i, false
		}
		return name, in[i+1 : e], e + 1, true
	}
	e := spanRun(in, i, clsTChar)
	return name, in[i:e], e, e > i
}

// appendDecodedRepair appends REPAIR(dec(s)) for the set keep, in one
// pass; ok is false if dec(s) holds an octet of fail. REPAIR keeps a '%'
// that starts a triplet of dec(s): after a decoded '%' it looks at the two
// octets that follow, and leaves the case where one of them is itself
// decoded to the general path.
func appendDecodedRepair(out []byte, s string, keep, fail *byteTable) (_ []byte, ok bool) {
	for i := 0; i < len(s); {
		j := span(s, i, keep)
		out = append(out, s[i:j]...)
		if j == len(s) {
			break
		}
		var c byte
		switch c, i = decodeAt(s, j); {
		case keep[c]:
			out = append(out, c)
		case fail[c]:
			return out, false
		case c == '%' && i+2 <= len(s) && (s[i] == '%' || s[i+1] == '%'):
			return out, false
		case c == '%' && i+2 <= len(s) && tabHex[s[i]] && tabHex[s[i+1]]:
			out = append(out, '%') // the hex digits follow as they are
		default:
			out = appendPct(out, c)
		}
	}
	return out, true
}

// appendRun appends ENC_U of fold applied to the longest run of octets at
// s[i:] whose class has bit, and returns where the run ends; ok is false
// for an empty run. It encodes octet by octet: the runs of a Content-Type
// are short, and one pass beats finding the run and copying it.
func appendRun(out []byte, s string, i int, bit uint8, fold *[256]byte) (_ []byte, end int, ok bool) {
	start := i
	for ; i < len(s); i++ {
		c := s[i]
		cls := ctClass[c]
		if cls&bit == 0 {
			break
		}
		if c = fold[c]; cls&clsSafe != 0 {
			out = append(out, c)
		} else {
			out = appendPct(out, c)
		}
	}
	return out, i, i > start
}

// spanRun returns the end of the longest run of octets at s[i:] whose
// class has bit.
func spanRun(s string, i int, bit uint8) int {
	for i < len(s) && ctClass[s[i]]&bit != 0 { // short runs: no unrolling
		i++
	}
	return i
}

func skipWSP(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// toContentTypeDirect is ToContentType by a direct path: R1 for a
// ContentType: URI, R2 without MIME-type for any other.
func toContentTypeDirect(out []byte, in string, f Option) ([]byte, bool) {
	const prefix = "contenttype:"
	if len(in) > len(prefix) && (in[:len(prefix)] == "ContentType:" || asciiEqualFold(in[:len(prefix)], prefix)) {
		return contentTypeDirect(out, in[len(prefix):])
	}
	return levelDirect(out, in, f)
}

// contentTypeDirect is R1 for a ContentType: URI without white space
// around it, without a fragment and with a body that is type "/" subtype
// of literal characters and %HH triplets of RCHAR octets, not in the uri.
// tree; each query item, if any, has a name of literal TCHAR octets other
// than URI-body and URI-fragment, and a value delimited by '"' made of
// literal query characters and triplets of printable ASCII or HTAB. It
// appends the Content-Type to out; in is the URI after "ContentType:".
func contentTypeDirect(out []byte, in string) (_ []byte, ok bool) {
	start, slash, i := len(out), -1, 0
	for i < len(in) {
		j := span(in, i, &tabDirectType)
		out = append(out, in[i:j]...)
		if i = j; i == len(in) || in[i] == '?' {
			break
		}
		switch c := in[i]; {
		case 'A' <= c && c <= 'Z':
			out = append(out, c+'a'-'A')
			i++
		case c == '/' && slash < 0 && len(out) > start:
			slash = len(out)
			out = append(out, '/')
			i++
		case c == '%' && isTriplet(in, i):
			d := hexVal[in[i+1]]<<4 | hexVal[in[i+2]]
			if !tabRChar[d] {
				return out, false
			}
			if 'A' <= d && d <= 'Z' {
				d += 'a' - 'A'
			}
			out = append(out, d)
			i += 3
		default:
			return out, false
		}
	}
	if slash < 0 || slash == len(out)-1 || hasURIPrefix(out[slash+1:]) {
		return out, false
	}
	for i++; i < len(in); i++ {
		end := i + strings.IndexByte(in[i:], '&')
		if end < i {
			end = len(in)
		}
		if end > i {
			if out, ok = paramDirect(out, in[i:end]); !ok {
				return out, false
			}
		}
		i = end
	}
	return out, true
}

// levelDirect is R2 for a URI whose scheme is not ContentType, without
// white space around it and with every part valid as it stands (no IRI
// conversion): application/uri. and ENC_C(S), then each query item as a
// parameter with its '"' or %22 delimiters removed and ENC_C applied to
// name and value, then the fragment as URI-fragment. With one MIME-type
// item whose value is a media type of literal characters and triplets
// (draft §3.3), that type comes first and S takes the item's place as
// URI-body, unless f holds NoControlled.
func levelDirect(out []byte, in string, f Option) (_ []byte, ok bool) {
	if len(in) == 0 || !tabAlpha[in[0]] {
		return out, false
	}
	i := span(in, 1, tabScheme)
	if i == len(in) || in[i] != ':' || asciiEqualFold(in[:i], "contenttype") {
		return out, false
	}
	scheme, bodyLo := in[:i], i+1
	for i = bodyLo; i < len(in) && in[i] != '?' && in[i] != '#'; i++ {
	}
	body, query, frag := in[bodyLo:i], "", ""
	if i < len(in) && in[i] == '?' {
		query = in[i+1:]
		if j := strings.IndexByte(query, '#'); j >= 0 {
			query, frag = query[:j], query[j:]
		}
	} else {
		frag = in[i:]
	}
	mt, n := mimeTypeItem(query)
	switch {
	case n == 0:
		out = append(out, "application/uri."...)
		if out, ok = appendS(out, scheme, body); !ok {
			return out, false
		}
	case n == 1 && f&NoControlled == 0:
		if out, ok = appendMIMEType(out, mt); !ok {
			return out, false
		}
	default:
		return out, false
	}
	for query != "" {
		var item string
		item, query, _ = strings.Cut(query, "&")
		switch {
		case item == "":
		case n == 1 && len(item) == len(mt) && item == mt:
			out = append(out, "; URI-body=\""...)
			if out, ok = appendS(out, scheme, body); !ok {
				return out, false
			}
			out = append(out, '"')
		default:
			if out, ok = levelParamDirect(out, item); !ok {
				return out, false
			}
		}
	}
	if frag != "" {
		out = append(out, "; URI-fragment=\""...)
		var stop int
		if out, stop, ok = appendLevel(out, frag, 1, &levelFragment); !ok || stop != len(frag) {
			return out, false
		}
		out = append(out, '"')
	}
	return out, true
}

// mimeTypeItem returns the (first) query item named MIME-type, and how
// many there are.
func mimeTypeItem(query string) (item string, n int) {
	const name = "mime-type="
	for query != "" {
		var it string
		it, query, _ = strings.Cut(query, "&")
		if len(it) >= len(name) && asciiEqualFold(it[:len(name)], name) {
			if n++; n == 1 {
				item = it
			}
		}
	}
	return item, n
}

// appendS appends ENC_C(S), S = lowercase(scheme) ":" body (R2), for a
// body valid as it stands (U7).
func appendS(out []byte, scheme, body string) (_ []byte, ok bool) {
	out = append(appendLower(out, scheme), "%3A"...)
	out, stop, ok := appendLevel(out, body, 0, &levelBody)
	if !ok || stop != len(body) {
		return out, false
	}
	j, _ := badAuthority(body)
	return out, j < 0
}

// appendMIMEType appends the media type that a MIME-type item names
// (R2): its value, delimiters removed, decoded once, must be a media type
// outside the uri. tree; it is written lower-cased.
func appendMIMEType(out []byte, item string) (_ []byte, ok bool) {
	v, ok := itemValue(item[len("mime-type="):])
	if !ok {
		return out, false
	}
	start, slash := len(out), -1
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' {
			if !isTriplet(v, i) {
				return out, false
			}
			c = hexVal[v[i+1]]<<4 | hexVal[v[i+2]]
			i += 2
		} else if !setQueryValue.t[c] {
			return out, false // U8
		}
		switch {
		case tabRChar[c]:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		case c == '/' && slash < 0 && len(out) > start:
			slash = len(out)
		default:
			return out, false
		}
		out = append(out, c)
	}
	if slash < 0 || slash == len(out)-1 || hasURIPrefix(out[slash+1:]) {
		return out, false
	}
	return out, true
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

// levelParamDirect appends `; name="value"` for one query item of
// levelDirect.
func levelParamDirect(out []byte, item string) (_ []byte, ok bool) {
	eq := strings.IndexByte(item, '=')
	if eq <= 0 || isSpecialName(item[:eq]) {
		return out, false
	}
	v, ok := itemValue(item[eq+1:])
	if !ok {
		return out, false
	}
	out = append(out, "; "...)
	var n int
	if out, n, ok = appendLevel(out, item[:eq], 0, &levelName); !ok || n != eq {
		return out, false
	}
	out = append(out, '=', '"')
	if out, n, ok = appendLevel(out, v, 0, &levelValue); !ok || n != len(v) {
		return out, false
	}
	return append(out, '"'), true
}

// Classes of an octet of URI text that R2 copies with one more level of
// encoding (ENC_C), per part of the URI.
const (
	levelKeep   = iota // valid in the part, kept by ENC_C
	levelEncode        // valid in the part, %HH by ENC_C
	levelPct           // '%': valid when it starts a triplet; becomes %25
	levelStop          // not valid in the part: its end, or a case for the general path
)

var (
	levelBody     = levelClasses(setBody)
	levelName     = levelClasses(setQueryName)
	levelValue    = levelClasses(setQueryValue)
	levelFragment = levelClasses(setFragment)
)

func levelClasses(valid ByteSet) (t [256]uint8) {
	for c := range t {
		switch b := byte(c); {
		case b == '%':
			t[c] = levelPct
		case !valid.Contains(b):
			t[c] = levelStop
		case setEncC.Contains(b):
			t[c] = levelKeep
		default:
			t[c] = levelEncode
		}
	}
	return t
}

// appendLevel appends ENC_C of the URI text at s[i:] up to the first octet
// that class stops at, and returns where it stopped; ok is false for a
// '%' that does not start a triplet.
func appendLevel(out []byte, s string, i int, class *[256]uint8) (_ []byte, stop int, ok bool) {
	for ; i < len(s); i++ {
		switch c := s[i]; class[c] {
		case levelKeep:
			out = append(out, c)
		case levelEncode:
			out = appendPct(out, c)
		case levelPct:
			if !isTriplet(s, i) {
				return out, i, false
			}
			out = append(out, "%25"...) // the hex digits follow as levelKeep
		default:
			return out, i, true
		}
	}
	return out, i, true
}

// paramDirect appends `; name="value"` for one query item of
// contentTypeDirect.
func paramDirect(out []byte, item string) (_ []byte, ok bool) {
	eq := strings.IndexByte(item, '=')
	if eq <= 0 || span(item, 0, &tabDirectName) != eq {
		return out, false
	}
	if name := item[:eq]; asciiEqualFold(name, foldURIBody) || asciiEqualFold(name, foldURIFragment) {
		return out, false
	}
	v := item[eq+1:]
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return out, false
	}
	v = v[1 : len(v)-1]
	out = append(append(append(out, "; "...), item[:eq]...), '=', '"')
	for i := 0; i < len(v); {
		j := span(v, i, &tabDirectValue)
		out = append(out, v[i:j]...)
		if j == len(v) {
			break
		}
		if !isTriplet(v, j) {
			return out, false
		}
		switch d := hexVal[v[j+1]]<<4 | hexVal[v[j+2]]; {
		case d == '"' || d == '\\':
			out = append(out, '\\', d)
		case d >= 0x20 && d < 0x7F || d == '\t':
			out = append(out, d)
		default: // a control character or UTF-8: the general path checks
			return out, false
		}
		i = j + 3
	}
	return append(out, '"'), true
}

// baseDirect is base for the common case, in one pass that decodes raw as
// it writes: a scheme of literal characters and ':' (or %3A), then a body
// whose decoded octets hold no '?' or '#' (see appendDecodedRepair for
// '%'). Anything else, errors included, gives ok == false.
func baseDirect(out []byte, raw string) (_ []byte, collapse, ok bool) {
	if len(raw) == 0 || !tabAlpha[raw[0]] {
		return out, false, false
	}
	i := 1
	for i < len(raw) && tabScheme[raw[i]] {
		i++
	}
	if i == len(raw) {
		return out, false, false
	}
	scheme := raw[:i]
	if c, next := decodeAt(raw, i); c == ':' {
		i = next
	} else {
		return out, false, false
	}
	start := len(out)
	out = append(appendScheme(out, scheme), ':')
	bodyStart := len(out)
	if out, ok = appendDecodedRepair(out, raw[i:], &tabBody, &tabBodyFail); !ok {
		return out[:start], false, false
	}
	if j, _ := badAuthority(out[bodyStart:]); j >= 0 {
		return out[:start], false, false
	}
	return out, asciiEqualFold(scheme, "contenttype"), true
}
