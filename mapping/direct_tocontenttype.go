package mapping

import "strings"

// toContentTypeDirect is ToContentType by a direct path: R1 for a
// ContentType: URI, R2 for any other (with or without one MIME-type item;
// see levelDirect).
func toContentTypeDirect(out []byte, in string, f Option) ([]byte, bool) {
	const prefix = "contenttype:"
	if len(in) > len(prefix) && (in[:len(prefix)] == "ContentType:" || asciiEqualFold(in[:len(prefix)], prefix)) {
		return decodeDirect(out, in[len(prefix):])
	}
	return levelDirect(out, in, f)
}

// decodeDirect is R1 (decodeCodec's direct path, as levelDirect is
// levelCodec's) for a ContentType: URI without white space around it,
// without a fragment and with a body that is type "/" subtype
// of literal characters and %HH triplets of RCHAR octets, not in the uri.
// tree; each query item, if any, has a name of literal TCHAR octets other
// than URI-body and URI-fragment, and a value delimited by '"' made of
// literal query characters and triplets of printable ASCII or HTAB. It
// appends the Content-Type to out; in is the URI after "ContentType:".
func decodeDirect(out []byte, in string) (_ []byte, ok bool) {
	start, slash, i := len(out), -1, 0
	for i < len(in) {
		j := span(in, i, &tabDirectType)
		out = append(out, in[i:j]...)
		if i = j; i == len(in) || in[i] == '?' {
			break
		}
		switch c := in[i]; {
		case 'A' <= c && c <= 'Z':
			out = append(out, foldLower[c])
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
			out = append(out, foldLower[d])
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
			if out, ok = decodedParamDirect(out, in[i:end]); !ok {
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
	// The body ends at the first '?' or '#'; IndexByte finds each with
	// wide loads, where an octet loop is the slowest part of this path.
	rest := in[bodyLo:]
	if j := strings.IndexByte(rest, '#'); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		rest = rest[:j]
	}
	i = bodyLo + len(rest)
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
		item, query = cutByte(query, '&')
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
		it, query = cutByte(query, '&')
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
		} else if !tabQueryValue[c] {
			return out, false // U8
		}
		switch {
		case tabRChar[c]:
			// Not foldLower[c]: that lookup made this loop about 85
			// instructions dearer on the §3.3 example.
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
// '%' that does not start a triplet. It writes octet by octet: the parts
// of a URI label are short, and one pass beats copying runs.
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

// cutByte is strings.Cut for a one-octet separator. strings.Cut goes
// through strings.Index, which is not inlined: about 90 more instructions
// per call on the §3.1 mailto example.
func cutByte(s string, sep byte) (before, after string) {
	if i := strings.IndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// decodedParamDirect appends `; name="value"` for one query item of
// decodeDirect.
func decodedParamDirect(out []byte, item string) (_ []byte, ok bool) {
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
		j := span(v, i, &tabQueryValue)
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
