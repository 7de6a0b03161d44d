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

func init() {
	for c := range 256 {
		tabDirectType[c] = tabDirectType[c] && setBody.Contains(byte(c))
		tabDirectName[c] = tabDirectName[c] && setQueryName.Contains(byte(c))
	}
}

// contentTypeDirect is R1 for a ContentType: URI without white space
// around it, without a fragment and with a body that is type "/" subtype
// of literal characters and %HH triplets of RCHAR octets, not in the uri.
// tree; each query item, if any, has a name of literal TCHAR octets other
// than URI-body and URI-fragment, and a value delimited by '"' made of
// literal query characters and triplets of printable ASCII or HTAB. It
// appends the Content-Type to out.
func contentTypeDirect(out []byte, in string) (_ []byte, ok bool) {
	const prefix = "contenttype:"
	if len(in) <= len(prefix) || in[:len(prefix)] != "ContentType:" && !asciiEqualFold(in[:len(prefix)], prefix) {
		return out, false
	}
	start, slash := len(out), -1
	i := len(prefix)
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
// whose decoded octets hold no '?', '#' or '%'. Anything else, errors
// included, gives ok == false and leaves the decision to base, so that the
// rules live in one place.
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
	for i < len(raw) {
		j := span(raw, i, tabBody)
		out = append(out, raw[i:j]...)
		if j == len(raw) {
			break
		}
		var c byte
		switch c, i = decodeAt(raw, j); {
		case tabBody[c]:
			out = append(out, c)
		case c == '%' || c == '?' || c == '#':
			return out[:start], false, false
		default: // REPAIR_BODY
			out = appendPct(out, c)
		}
	}
	if j, _ := badAuthority(out[bodyStart:]); j >= 0 {
		return out[:start], false, false
	}
	return out, asciiEqualFold(scheme, "contenttype"), true
}
