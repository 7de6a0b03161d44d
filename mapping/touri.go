package mapping

import "strings"

// ToURI maps a Content-Type field value to a URI (draft §2.1-2.4, SPEC
// rules C and K).
//
//   - A native Content-Type becomes a ContentType: URI (K3):
//     "text/plain; charset=us-ascii" gives
//     `ContentType:text/plain?charset="us-ascii"`. Type and subtype are
//     lower-cased; type, subtype, names and values are percent-encoded with
//     the ComponentSafe set, so nothing is lost.
//   - A subtype in the uri. tree (any top-level type) gives back the URI it
//     wraps (K1): the subtype after "uri." is decoded once, parameters
//     become query items and URI-fragment the fragment; decoded text is
//     re-encoded where the URI context requires it (Repair).
//   - A URI-body parameter gives that URI, with the media type as a
//     MIME-type query item in the parameter's place (K2). NoControlled
//     refuses this.
//   - A uri. subtype wrapping a ContentType: URI collapses to that URI's
//     canonical form (K6).
//
// Values are delimited with '"' (with StrictURI, %22). The input is a field
// value without a "Content-Type:" prefix or folding; Lenient accepts the
// unquoted values common in mail. Errors are *Error values; see the Kind
// constants. The result never holds a control character, white space, a
// non-ASCII octet, or a '"' other than the value delimiters.
func ToURI(contentType string, opts ...Option) (string, error) {
	return toURI(contentType, optionsOf(opts), 0)
}

func toURI(in string, f Option, depth int) (string, error) {
	if depth > MaxCollapseDepth {
		return "", newError(KindNested, in, 0, "label wrapped deeper than %d layers at offset %d", MaxCollapseDepth, 0)
	}
	// Every buffer is a local threaded through the calls below and never
	// stored through a pointer, so that all of them stay on the stack and
	// the result string is the call's one allocation.
	var obuf [256]byte
	out := outputBuffer(obuf[:0], len(in))
	// The common shapes map in one pass (direct.go); the rest, errors
	// included, rule by rule.
	if out, ok := toURIDirect(out, in, f); ok {
		return string(out), nil // an ASCII input: nothing for refuseInput
	}
	u, err := toURIGeneral(out, in, f, depth)
	if err == nil {
		// At every depth: a collapse (K6) maps Content-Types of its own.
		if err = refuseInput(in); err != nil {
			u = ""
		}
	}
	return u, err
}

// toURIGeneral is toURI for any input, rule by rule. out is the empty
// output buffer.
func toURIGeneral(out []byte, in string, f Option, depth int) (string, error) {
	var pbuf [8]rawParam
	var sc ctScan
	params, err := sc.parse(in, f&Lenient != 0, pbuf[:0])
	if err != nil {
		return "", err
	}
	m := uriMapper{sc: &sc, d: delimiter(f)}
	collapse := false
	switch {
	case hasURIPrefix(sc.sub()):
		var t1, t2 [128]byte // scratch for decoded text
		out, collapse, err = m.fromURISubtype(out, t1[:0], t2[:0], params)
		if err == nil {
			out = m.fragment(out, t1[:0], t2[:0], params)
		}
	case sc.bodyIdx >= 0:
		if f&NoControlled != 0 {
			p := params[sc.bodyIdx]
			return "", newError(KindReservedParam, in, p.nameLo, "URI-body at offset %d asks for a controlled mapping, refused by NoControlled", p.nameLo)
		}
		var t1, t2 [128]byte
		out, err = m.fromURIBody(out, t1[:0], t2[:0], params)
		if err == nil {
			out = m.fragment(out, t1[:0], t2[:0], params)
		}
	default:
		// Native values are encoded straight from the input; scratch is
		// needed only for a fragment or a quoted-pair, and comes from the
		// heap then.
		out = m.native(out, nil, params)
		out = m.fragment(out, nil, nil, params)
	}
	if err != nil {
		return "", err
	}
	if !collapse {
		return string(out), nil
	}
	// K6: the uri. subtype wrapped a ContentType: URI.
	wrapped := string(out)
	ct, cerr := toContentType(wrapped, f, depth+1)
	if cerr != nil {
		return "", noteWrapped(cerr, wrapped)
	}
	u, uerr := toURI(ct, f, depth+1)
	if uerr != nil {
		return "", noteWrapped(uerr, ct)
	}
	return u, nil
}

// uriMapper holds what building the URI of one scanned Content-Type reads.
// Its methods take the output and scratch buffers as arguments and return
// the output (see toURI).
type uriMapper struct {
	sc *ctScan
	d  string // value delimiter (K5)
	// quoted is the text between the quotes of a URI-body value that
	// holds quoted-pairs, whose unquoted form base reads: error offsets
	// are mapped back through it.
	quoted string
}

// k0 mode: K1 (uri. subtype) or K2 (URI-body).
const (
	modeSubtype = iota
	modeURIBody
)

// itemSep returns the separator before query item n (0-based).
func itemSep(n int) byte {
	if n == 0 {
		return '?'
	}
	return '&'
}

// native is K3: a ContentType: URI.
func (m *uriMapper) native(out, t []byte, params []rawParam) []byte {
	sc := m.sc
	out = append(out, "ContentType:"...)
	out = appendSafeLower(out, sc.typ(), sc.safeType)
	out = append(out, '/')
	out = appendSafeLower(out, sc.sub(), sc.safeSub)
	n := 0
	for i, p := range params {
		if i == sc.frgIdx {
			continue
		}
		out = append(out, itemSep(n))
		n++
		if p.safeName {
			out = append(out, sc.s[p.nameLo:p.nameHi]...)
		} else {
			out = appendEscape(out, sc.s[p.nameLo:p.nameHi], setEncU)
		}
		out = append(append(out, '='), m.d...)
		if p.safeValue {
			out = append(out, sc.s[p.valLo:p.valHi]...)
		} else if p.escaped {
			t = sc.appendValue(t[:0], p)
			out = appendEscape(out, t, setEncU)
		} else {
			out = appendEscape(out, sc.s[p.valLo:p.valHi], setEncU)
		}
		out = append(out, m.d...)
	}
	return out
}

// fromURISubtype is K1; it reports whether the result must collapse (K6).
func (m *uriMapper) fromURISubtype(out, t1, t2 []byte, params []rawParam) ([]byte, bool, *Error) {
	sc := m.sc
	if sc.bodyIdx >= 0 {
		p := params[sc.bodyIdx]
		return nil, false, newError(KindReservedParam, sc.s, p.nameLo, "URI-body at offset %d cannot go with a uri. subtype", p.nameLo)
	}
	onlyFragment := len(params) == 0 || len(params) == 1 && sc.frgIdx == 0
	out, collapse, err := m.base(out, t1, sc.subLo+4, sc.s[sc.subLo+4:sc.subHi], modeSubtype, onlyFragment)
	if err != nil {
		return nil, false, err
	}
	out, err = m.levelItems(out, t1, t2, params, modeSubtype)
	return out, collapse, err
}

// fromURIBody is K2.
func (m *uriMapper) fromURIBody(out, t1, t2 []byte, params []rawParam) ([]byte, *Error) {
	sc := m.sc
	p := params[sc.bodyIdx]
	raw := sc.s[p.valLo:p.valHi]
	if p.escaped {
		m.quoted = raw
		raw = sc.value(p) // rare: a quoted-pair in a URI-body
	}
	out, _, err := m.base(out, t1, p.valLo, raw, modeURIBody, false)
	m.quoted = ""
	if err != nil {
		return nil, err
	}
	return m.levelItems(out, t1, t2, params, modeURIBody)
}

// base is K0 on dec(raw), where raw starts at offset at of the input (for
// error offsets); it appends the base URI and reports whether its scheme
// is ContentType (which in K1 means the result collapses, K6).
func (m *uriMapper) base(out, t []byte, at int, raw string, mode int, onlyFragment bool) ([]byte, bool, *Error) {
	if o, collapse, ok := baseDirect(out, raw); ok && !(collapse && mode == modeURIBody) {
		return o, collapse, nil
	}
	return m.baseGeneral(out, t, at, raw, mode, onlyFragment)
}

// baseGeneral is base for any input: it decodes raw, checks K0 and
// repairs what it writes in separate passes.
func (m *uriMapper) baseGeneral(out, t []byte, at int, raw string, mode int, onlyFragment bool) ([]byte, bool, *Error) {
	b := appendUnescape(t[:0], raw)
	errAt := func(k Kind, decoded int, format string) *Error {
		off := sourceOffset(raw, decoded)
		if m.quoted != "" {
			off = quotedOffset(m.quoted, off)
		}
		off += at
		return newError(k, m.sc.s, off, format, off)
	}
	// K0.1
	i := 0
	if len(b) > 0 && setAlpha.Contains(b[0]) {
		for i = 1; i < len(b) && setScheme.Contains(b[i]); i++ {
		}
	}
	if i == 0 || i >= len(b) || b[i] != ':' {
		return nil, false, errAt(KindRelativeURI, 0, "decoded URI at offset %d has no scheme: only absolute URIs are mapped")
	}
	scheme, rest := b[:i], b[i+1:]
	// K0.2
	collapse := asciiEqualFold(scheme, "contenttype")
	if collapse && mode == modeURIBody {
		return nil, false, errAt(KindNested, 0, "URI-body at offset %d names a ContentType: URI, which would wrap a Content-Type in itself")
	}
	// K0.3, K0.4
	q := -1
	for j, c := range rest {
		if c == '#' {
			return nil, false, errAt(KindBadURIBody, i+1+j, "'#' in the decoded URI at offset %d: the fragment must come from URI-fragment")
		}
		if c == '?' && q < 0 {
			q = j
		}
	}
	if q >= 0 && (mode == modeURIBody || !onlyFragment || !isOpaque(rest[q+1:])) {
		return nil, false, errAt(KindBadURIBody, i+1+q, "'?' in the decoded URI at offset %d: query items must come from parameters")
	}
	// K0.5
	out = append(appendScheme(out, scheme), ':')
	bodyStart := len(out)
	if q < 0 {
		out = appendRepair(out, rest, setBody)
	} else {
		out = appendRepair(out, rest[:q], setBody)
	}
	if j, want := badAuthority(out[bodyStart:]); want != "" {
		return nil, false, errAt(KindInvalidURI, i+1+repairedOffset(rest, setBody, j), "decoded URI has a malformed authority: expected "+want+" at offset %d")
	}
	if q >= 0 {
		out = append(out, '?')
		out = appendRepair(out, rest[q+1:], setQuery)
	}
	return out, collapse, nil
}

// levelItems is K1.3 (and K2's items): names and values are decoded once
// and repaired for their query context.
func (m *uriMapper) levelItems(out, t1, t2 []byte, params []rawParam, mode int) ([]byte, *Error) {
	sc := m.sc
	n := 0
	for i, p := range params {
		if i == sc.frgIdx {
			continue
		}
		out = append(out, itemSep(n))
		n++
		if mode == modeURIBody && i == sc.bodyIdx {
			out = append(out, nameMIMEType...)
			out = append(append(out, '='), m.d...)
			out = appendEscapeLower(out, sc.typ(), setEncU)
			out = append(out, '/')
			out = appendEscapeLower(out, sc.sub(), setEncU)
			out = append(out, m.d...)
			continue
		}
		name := sc.s[p.nameLo:p.nameHi]
		if strings.IndexByte(name, '%') < 0 {
			// dec(name) is name: repair it straight from the input.
			if isSpecialName(name) {
				return nil, errSpecialName(sc.s, p.nameLo, name)
			}
			out = appendRepair(out, name, setQueryName)
		} else {
			t1 = appendUnescape(t1[:0], name)
			if isSpecialName(t1) {
				return nil, errSpecialName(sc.s, p.nameLo, name)
			}
			out = appendRepair(out, t1, setQueryName)
		}
		out = append(append(out, '='), m.d...)
		if v := sc.s[p.valLo:p.valHi]; !p.escaped && strings.IndexByte(v, '%') < 0 {
			out = appendRepair(out, v, setQueryValue)
		} else {
			t1 = m.decodedValue(t1, t2, p)
			out = appendRepair(out, t1, setQueryValue)
		}
		out = append(out, m.d...)
	}
	return out, nil
}

func errSpecialName(in string, off int, name string) *Error {
	return newError(KindReservedParam, in, off, "parameter %q at offset %d is a special name where it has no meaning", name, off)
}

// decodedValue returns dec(value) of a parameter, in t (t2 is scratch for
// resolving quoted-pairs).
func (m *uriMapper) decodedValue(t, t2 []byte, p rawParam) []byte {
	if p.escaped {
		return appendUnescape(t[:0], m.sc.appendValue(t2[:0], p))
	}
	return appendUnescape(t[:0], m.sc.s[p.valLo:p.valHi])
}

// fragment is the last part of K4.
func (m *uriMapper) fragment(out, t1, t2 []byte, params []rawParam) []byte {
	if m.sc.frgIdx < 0 {
		return out
	}
	out = append(out, '#')
	return appendRepair(out, m.decodedValue(t1, t2, params[m.sc.frgIdx]), setFragment)
}

// sourceOffset maps offset k of dec(src) back to the offset in src where
// the octet (or its %HH triplet) that produced it starts.
func sourceOffset(src string, k int) int {
	i := 0
	for ; i < len(src) && k > 0; k-- {
		if isTriplet(src, i) {
			i += 3
		} else {
			i++
		}
	}
	return i
}

// repairedOffset maps offset j of REPAIR_X(s), X being allowed, back to
// the offset in s of the octet, or the %HH triplet kept as it is, that
// REPAIR wrote there.
func repairedOffset[T bytesOrString](s T, allowed ByteSet, j int) int {
	tab := allowed.literal()
	i := 0
	for w := 0; i < len(s); i += w {
		w = 1
		if !tab[s[i]] && s[i] == '%' && isTriplet(s, i) {
			w = 3 // copied as it is
		}
		n := w
		if !tab[s[i]] && w == 1 {
			n = 3 // written as %HH
		}
		if j < n {
			return i
		}
		j -= n
	}
	return i
}

// quotedOffset maps offset k of the unquoted form of q, the inside of a
// quoted-string, back to the offset in q where the octet, or the
// quoted-pair that stands for it, starts.
func quotedOffset(q string, k int) int {
	i := 0
	for ; i < len(q) && k > 0; k-- {
		if q[i] == '\\' && i+1 < len(q) {
			i++
		}
		i++
	}
	return i
}

// appendSafeLower appends ENC_U(lowercase(s)); safe says the scan found s
// lower-case and safe already, so it is copied.
func appendSafeLower(out []byte, s string, safe bool) []byte {
	if safe {
		return append(out, s...)
	}
	return appendEscapeLower(out, s, setEncU)
}
