package mapping

import (
	"bytes"
	"strings"
)

// toURIDirect is ToURI by a direct path: K3 for a native Content-Type,
// K1 or K2 for one that wraps a URI. nativeDirect finds a uri. subtype
// (K1) or a URI-body (K2) as it goes and hands over what it has read.
func toURIDirect(out []byte, in string, f Option) ([]byte, bool) {
	start := len(out)
	o, ok, wrapped := nativeDirect(out, in, delimiter(f))
	if ok || wrapped.typeEnd == 0 {
		return o, ok
	}
	// In K1 what nativeDirect wrote is of no use. In K2 it is kept unless
	// that could make the buffer grow (outputBuffer sized it for one
	// result), which would cost an allocation.
	if wrapped.subEnd == 0 || cap(o)-len(o) < outputRoom(len(in)) {
		return uriDirect(o[:start], in, f, wrapped, nil)
	}
	// K2: the URI goes after what nativeDirect wrote, whose type "/"
	// subtype, up to the '?' of the first parameter, is the MIME-type
	// value, encoded already.
	mime := o[start+len("ContentType:"):]
	q := bytes.IndexByte(mime, '?') // ENC_U wrote any '?' of the subtype as %3F
	if q < 0 {
		return uriDirect(o[:start], in, f, wrapped, nil) // unreachable
	}
	mime, mark := mime[:q], len(o)
	o, ok = uriDirect(o, in, f, wrapped, mime)
	return o[mark:], ok
}

// wrappedLabel is what nativeDirect read of a label that wraps a URI,
// for uriDirect: in K1 where the type ends, in K2 also the subtype and
// where the URI-body parameter is. The zero value means nothing was read.
type wrappedLabel struct {
	// in[:typeEnd] is the type; in K2 in[typeEnd+1:subEnd] is the
	// subtype, and subEnd is 0 in K1.
	typeEnd, subEnd int
	// In K2, nextParam(in, at) scans the URI-body parameter, which ends
	// at end, and value is its value, the base URI.
	at, end int
	value   string
}

// nativeDirect is K3 for a Content-Type without comments, white space only
// around ';', a subtype outside the uri. tree, no URI-body or URI-fragment
// parameter, and values that are tokens or quoted-strings of printable
// ASCII without quoted-pairs: ContentType:type/subtype with each parameter
// as a query item, every part through ENC_U, values between d. At a uri.
// subtype (K1) or a URI-body parameter (K2) it stops, with ok false, and
// reports in wrapped what it has read.
func nativeDirect(out []byte, in string, d string) (_ []byte, ok bool, wrapped wrappedLabel) {
	out = append(out, "ContentType:"...)
	out, i, ok := appendRun(out, in, 0, &runType)
	if !ok || i == len(in) || in[i] != '/' {
		return out, false, wrapped
	}
	typeEnd := i
	if hasURIPrefix(in[i+1:]) { // K1: uriDirect finds where the subtype ends
		return out, false, wrappedLabel{typeEnd: typeEnd}
	}
	out = append(out, '/')
	if out, i, ok = appendRun(out, in, i+1, &runType); !ok {
		return out, false, wrapped
	}
	subEnd := i
	sep, prev := byte('?'), i // prev: where the last parameter ended
	for {
		i = skipWSP(in, i)
		if i == len(in) {
			return out, true, wrapped
		}
		if in[i] != ';' {
			return out, false, wrapped
		}
		if i = skipWSP(in, i+1); i == len(in) || in[i] == ';' {
			continue // an empty parameter
		}
		name := len(out) + 1
		out = append(out, sep)
		sep = '&'
		if out, i, ok = appendRun(out, in, i, &runToken); !ok || i == len(in) || in[i] != '=' {
			return out, false, wrapped
		}
		if n := out[name:]; asciiEqualFold(n, foldURIBody) {
			if v, end, ok := paramValue(in, i+1); ok {
				wrapped = wrappedLabel{typeEnd: typeEnd, subEnd: subEnd, at: prev, end: end, value: v}
			}
			return out, false, wrapped // K2
		} else if asciiEqualFold(n, foldURIFragment) {
			return out, false, wrapped
		}
		out = append(append(out, '='), d...)
		if i++; i < len(in) && in[i] == '"' {
			out, i, _ = appendRun(out, in, i+1, &runQuoted)
			if i == len(in) || in[i] != '"' {
				return out, false, wrapped // a quoted-pair, a control character, UTF-8: the general path decides
			}
			i++
		} else if out, i, ok = appendRun(out, in, i, &runToken); !ok {
			return out, false, wrapped
		}
		out = append(out, d...)
		prev = i
	}
}

// uriDirect is K1 for a uri. subtype and K2 for a URI-body parameter
// (unless f holds NoControlled), for Content-Types that nativeDirect's
// grammar covers, whose wrapped URI baseDirect maps and does not make
// collapse, and whose other parameter names hold no '%' and are not
// special: the base URI, each parameter as a query item (in K2 the
// URI-body's place holds MIME-type), its name and value decoded and
// repaired, and URI-fragment as the fragment. mime, if not nil, is the
// MIME-type value (K2) already encoded.
func uriDirect(out []byte, in string, f Option, wrapped wrappedLabel, mime []byte) (_ []byte, ok bool) {
	typeEnd, subEnd := wrapped.typeEnd, wrapped.subEnd
	k1 := subEnd == 0
	var collapse bool
	switch {
	case k1:
		// The base URI is the rest of the subtype, which one pass maps
		// and finds the end of.
		var end int
		out, end, collapse, ok = subtypeBaseDirect(out, in[typeEnd+5:])
		subEnd = typeEnd + 5 + end
	case f&NoControlled != 0:
		return out, false
	default:
		out, collapse, ok = baseDirect(out, wrapped.value)
	}
	if !ok || collapse {
		return out, false
	}
	d := delimiter(f)
	frag, hasFrag, sep := "", false, byte('?')
	for i := subEnd; ; {
		if i == wrapped.at && !k1 {
			out = append(append(append(out, sep), nameMIMEType+"="...), d...)
			if mime != nil {
				out = append(out, mime...)
			} else {
				out = appendEscapeLower(out, in[:typeEnd], setEncU)
				out = appendEscapeLower(append(out, '/'), in[typeEnd+1:subEnd], setEncU)
			}
			out = append(out, d...)
			i, sep = wrapped.end, '&'
			continue
		}
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
		case isSpecialName(name) || strings.IndexByte(name, '%') >= 0:
			return out, false
		default:
			out = appendRepair(append(out, sep), name, setQueryName)
			out = append(append(out, '='), d...)
			if out, _, ok = appendDecodedRepair(out, value, &tabQueryValue, &tabQueryValue, &tabNone, &tabNone); !ok {
				return out, false
			}
		}
		out = append(out, d...)
		sep = '&'
	}
	if hasFrag {
		if out, _, ok = appendDecodedRepair(append(out, '#'), frag, &tabFragment, &tabFragment, &tabNone, &tabNone); !ok {
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
	value, next, ok = paramValue(in, n+1)
	return in[i:n], value, next, ok
}

// paramValue scans the parameter value at in[i:] in nativeDirect's
// grammar, a token or a quoted-string without quoted-pairs: it returns
// the value without quotes and where it ends.
func paramValue(in string, i int) (value string, end int, ok bool) {
	if i < len(in) && in[i] == '"' {
		e := span(in, i+1, tabQText)
		if e == len(in) || in[e] != '"' {
			return "", i, false
		}
		return in[i+1 : e], e + 1, true
	}
	e := span(in, i, tabTChar)
	return in[i:e], e, e > i
}

// appendDecodedRepair appends REPAIR(dec(s[:end])) for the set keep, in
// one pass, where end is the first octet of s in stop, or len(s), and
// returns end; ok is false if dec(s[:end]) holds an octet of fail. plain,
// the octets copied from s as they are, is keep without stop, and no
// octet of stop is a hex digit or '%'.
// REPAIR keeps a '%' that starts a triplet of dec(s): after a decoded '%'
// it looks at the two octets that follow, and leaves the case where one of
// them is itself decoded to the general path.
func appendDecodedRepair(out []byte, s string, plain, keep, fail, stop *byteTable) (_ []byte, end int, ok bool) {
	for i := 0; i < len(s); {
		if plain[s[i]] {
			// Short runs between triplets go octet by octet, long ones in
			// one copy.
			if i+8 <= len(s) && plain[s[i+1]] && plain[s[i+2]] && plain[s[i+3]] {
				j := span(s, i+4, plain)
				out = append(out, s[i:j]...)
				i = j
			} else {
				out = append(out, s[i])
				i++
			}
			continue
		}
		if stop[s[i]] {
			return out, i, true
		}
		var c byte
		switch c, i = decodeAt(s, i); {
		case keep[c]:
			out = append(out, c)
		case fail[c]:
			return out, i, false
		case c == '%' && i+2 <= len(s) && (s[i] == '%' || s[i+1] == '%'):
			return out, i, false
		case c == '%' && i+2 <= len(s) && tabHex[s[i]] && tabHex[s[i+1]]:
			out = append(out, '%') // the hex digits follow as they are
		default:
			out = appendPct(out, c)
		}
	}
	return out, len(s), true
}

// appendRun appends ENC_U of the longest run of octets at s[i:] that run
// holds, each replaced as run says, and returns where the run ends; ok is
// false for an empty run. It encodes octet by octet: the runs of a
// Content-Type are short, and one pass with one lookup per octet beats
// finding the run and copying it.
func appendRun(out []byte, s string, i int, run *runTable) (_ []byte, end int, ok bool) {
	start := i
	for ; i < len(s); i++ {
		switch o := run[s[i]]; o {
		case runEnd:
			return out, i, i > start
		case runEncode:
			out = appendPct(out, s[i])
		default:
			out = append(out, o)
		}
	}
	return out, i, i > start
}

// A runTable drives appendRun: for each octet, runEnd if it ends the run,
// runEncode if ENC_U percent-encodes it, else the octet to write.
type runTable [256]byte

const (
	runEnd    = 0 // no octet of a run is NUL or SOH
	runEncode = 1
)

// newRunTable returns the runTable of the octets whose ctClass has bit,
// folded by fold (which must leave the octets ENC_U encodes alone).
func newRunTable(bit uint8, fold *[256]byte) (t runTable) {
	for c := range t {
		switch cls := ctClass[c]; {
		case cls&bit == 0:
			t[c] = runEnd
		case cls&clsSafe == 0:
			t[c] = runEncode
		default:
			t[c] = fold[c]
		}
	}
	return t
}

// The runs of nativeDirect: type and subtype (R0.4, lower-cased by R0.13),
// parameter names and token values (R0.3), quoted-string contents.
var (
	runType   = newRunTable(clsRChar, &foldLower)
	runToken  = newRunTable(clsTChar, &foldNone)
	runQuoted = newRunTable(clsQText, &foldNone)
)

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

// baseDirect is base for the common case, in one pass that decodes raw as
// it writes: a scheme of literal characters and ':' (or %3A), then a body
// whose decoded octets hold no '?' or '#' (see appendDecodedRepair for
// '%'). Anything else, errors included, gives ok == false.
func baseDirect(out []byte, raw string) (_ []byte, collapse, ok bool) {
	out, _, collapse, ok = appendBaseDirect(out, raw, &tabBody, &tabNone)
	return out, collapse, ok
}

// subtypeBaseDirect is baseDirect for the base URI of a uri. subtype (K1)
// that in starts with and that ends at the first octet of in outside
// RCHAR (R0.4), which it returns.
func subtypeBaseDirect(out []byte, in string) (_ []byte, end int, collapse, ok bool) {
	return appendBaseDirect(out, in, &tabBodyRChar, &tabNotRChar)
}

// appendBaseDirect is baseDirect of raw up to its first octet in stop,
// with plain the octets of BODY that stop does not hold (see
// appendDecodedRepair).
func appendBaseDirect(out []byte, raw string, plain, stop *byteTable) (_ []byte, end int, collapse, ok bool) {
	if len(raw) == 0 || !tabAlpha[raw[0]] {
		return out, 0, false, false
	}
	i := 1
	for i < len(raw) && tabScheme[raw[i]] {
		i++
	}
	if i == len(raw) || stop[raw[i]] {
		return out, 0, false, false
	}
	scheme := raw[:i]
	if c, next := decodeAt(raw, i); c == ':' {
		i = next
	} else {
		return out, 0, false, false
	}
	start := len(out)
	out = append(appendScheme(out, scheme), ':')
	bodyStart := len(out)
	out, end, ok = appendDecodedRepair(out, raw[i:], plain, &tabBody, &tabBodyFail, stop)
	if !ok {
		return out[:start], 0, false, false
	}
	if j, _ := badAuthority(out[bodyStart:]); j >= 0 {
		return out[:start], 0, false, false
	}
	return out, i + end, asciiEqualFold(scheme, "contenttype"), true
}
