package mapping

// ToContentType maps a URI (or IRI) to a Content-Type field value (draft
// §3.1-3.3, SPEC rules U and R).
//
//   - A ContentType: URI gives back the Content-Type it encodes (R1): the
//     body is decoded once into type/subtype, each query item becomes a
//     parameter with its name and value decoded once, and a fragment
//     becomes URI-fragment. Decoded control characters (other than HTAB in
//     a value), invalid UTF-8 and anything that would add parameters are
//     errors, never header bytes.
//   - A URI of any other scheme with one MIME-type query item gets
//     that media type, and the URI without query and fragment goes into a
//     URI-body parameter in the item's place (R2, draft §3.3).
//     NoControlled refuses this.
//   - Any other URI becomes application/uri.<URI>, with the URI's query
//     items as parameters and its fragment as URI-fragment (R2, draft
//     §3.1). The URI text gains one level of encoding (ENC_C), so its body,
//     query items and fragment come back byte for byte (SPEC N1: the
//     scheme is lower-cased and values get '"' delimiters).
//   - A ContentType: URI wrapping a uri. subtype collapses to the URI it
//     wraps (R3).
//
// Outer white space is ignored and an IRI is first converted to a URI
// (RFC 3987 §3.1). The result is `type/subtype` followed by `; name="value"`
// for each parameter: lower-case type and subtype (of a uri. subtype only
// the "uri." prefix, since the URI it carries keeps its case), values
// always quoted, '"' and '\' backslash-escaped, no control character but
// HTAB. Errors are *Error values; see the Kind constants.
func ToContentType(uri string, opts ...Option) (string, error) {
	return toContentType(uri, optionsOf(opts), 0)
}

func toContentType(in string, f Option, depth int) (string, error) {
	if depth > MaxCollapseDepth {
		return "", newError(KindNested, in, 0, "label wrapped deeper than %d layers at offset %d", MaxCollapseDepth, 0)
	}
	// Buffers stay on the stack as in toURI.
	var obuf [256]byte
	out := outputBuffer(obuf[:0], len(in))
	// The common shapes map in one pass (direct.go); the rest, errors
	// included, rule by rule.
	if out, ok := toContentTypeDirect(out, in, f); ok {
		return string(out), nil // an ASCII output: nothing for refuseOutput
	}
	c, err := toContentTypeGeneral(out, in, f, depth)
	if err == nil {
		// At every depth: a collapse (R3, K6) produces Content-Types of
		// its own, whose characters may be encoded twice in the caller's
		// label; each is checked, against the label it was decoded from.
		if err = refuseOutput(in, c); err != nil {
			c = ""
		}
	}
	return c, err
}

// toContentTypeGeneral is toContentType for any input, rule by rule. out
// is the empty output buffer.
func toContentTypeGeneral(out []byte, in string, f Option, depth int) (string, error) {
	var ibuf [8]uriItem
	var t [128]byte
	var sc uriScan
	items, err := sc.parse(in, ibuf[:0])
	if err != nil {
		return "", err
	}
	m := ctMapper{sc: &sc}
	collapse := false
	if sc.contentType {
		out, collapse, err = m.decodeCodec(out, items)
	} else {
		out, err = m.levelCodec(out, t[:0], items, f)
	}
	if err != nil {
		return "", err
	}
	if sc.hasFrag {
		out = append(out, "; URI-fragment=\""...)
		out = appendEscape(out, sc.frag(), setEncC)
		out = append(out, '"')
	}
	if !collapse {
		return string(out), nil
	}
	// R3: the ContentType: URI wrapped a uri. Content-Type.
	wrapped := string(out)
	u, uerr := toURI(wrapped, f&NoControlled, depth+1)
	if uerr != nil {
		return "", noteWrapped(uerr, wrapped)
	}
	c, cerr := toContentType(u, f, depth+1)
	if cerr != nil {
		return "", noteWrapped(cerr, u)
	}
	return c, nil
}

// ctMapper holds what building the Content-Type of one scanned URI reads;
// buffers are passed and returned as in uriMapper.
type ctMapper struct {
	sc *uriScan
}

// decodedErr reports an error about octet k of dec(src), where src starts
// at offset at of the scanned text.
func (m *ctMapper) decodedErr(k Kind, at int, src string, decoded int, format string, args ...any) *Error {
	return m.sc.errAt(k, at+sourceOffset(src, decoded), format, args...)
}

// decodeCodec is R1; it reports whether the result must collapse (R1.6).
// Each of the body, names and values is decoded straight into out in one
// pass that also checks and lower-cases or escapes what it writes.
func (m *ctMapper) decodeCodec(out []byte, items []uriItem) ([]byte, bool, *Error) {
	sc := m.sc
	body := sc.body()
	at := sc.schemeHi + 1
	// R1.1-R1.3: T = dec(body); a control character anywhere is ctl, then
	// T must be a MIME text; type and subtype are lower-cased. Runs of
	// octets that stay as they are move in one copy.
	start := len(out)
	slash, bad := -1, -1
	for i := 0; ; {
		var c byte
		var src int
		if out, c, src, i = decodeStep(out, body, i, tabRCharLower); src < 0 {
			break
		}
		switch {
		case tabRChar[c]:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		case c < 0x20 || c == 0x7F:
			return nil, false, sc.errAt(KindCTL, at+src, "decoded control character 0x%02X at offset %d would land in a header", c)
		case c == '/' && slash < 0 && len(out) > start:
			slash = len(out) - start
		case bad < 0:
			bad = src
		}
		out = append(out, c)
	}
	t := out[start:]
	if bad < 0 && (slash < 0 || slash == len(t)-1) {
		bad = len(body)
	}
	if bad >= 0 {
		return nil, false, sc.errAt(KindBadMIMEType, at+bad, "decoded %s is not a media type (type \"/\" subtype of token characters); offending octet at offset %d", quoteClip(Unescape(body)))
	}
	collapse := hasURIPrefix(t[slash+1:])
	if collapse {
		// R0.13: only the "uri." prefix is lower-cased, and R3 maps the
		// subtype with its original case.
		out = appendUnescape(out[:start+slash+5], body[sourceOffset(body, slash+5):])
	}
	// R1.4.
	for _, it := range items {
		var err *Error
		out = append(out, "; "...)
		if out, err = m.decodedName(out, it); err != nil {
			return nil, false, err
		}
		out = append(out, '=', '"')
		if out, err = m.decodedValue(out, it); err != nil {
			return nil, false, err
		}
		out = append(out, '"')
	}
	return out, collapse, nil
}

// decodedName appends N = dec(name) of a query item (R1.4): a control
// character anywhere is ctl, another non-token octet bad-param-name, and a
// special Content-Type name reserved-param.
func (m *ctMapper) decodedName(out []byte, it uriItem) ([]byte, *Error) {
	sc := m.sc
	name := sc.s[it.nameLo:it.nameHi]
	start, bad := len(out), -1
	for i := 0; ; {
		var c byte
		var src int
		if out, c, src, i = decodeStep(out, name, i, tabTCharPlain); src < 0 {
			break
		}
		if !tabTChar[c] {
			if c < 0x20 || c == 0x7F {
				return nil, sc.errAt(KindCTL, it.nameLo+src, "decoded control character 0x%02X in a parameter name at offset %d would land in a header", c)
			}
			if bad < 0 {
				bad = src
			}
		}
		out = append(out, c)
	}
	if bad >= 0 {
		return nil, sc.errAt(KindBadParamName, it.nameLo+bad, "decoded parameter name %s is not a token; octet %s at offset %d", quoteClip(Unescape(name)), showOctet(Unescape(name[bad:])[0]))
	}
	if n := out[start:]; asciiEqualFold(n, foldURIBody) || asciiEqualFold(n, foldURIFragment) {
		return nil, sc.errAt(KindReservedParam, it.nameLo, "query item %q at offset %d decodes to a special Content-Type parameter", name)
	}
	return out, nil
}

// decodedValue appends V = dec(value) of a query item, backslash-escaping
// '"' and '\' (R1.4): a control character other than HTAB is ctl, octets
// >= 0x80 must be UTF-8.
func (m *ctMapper) decodedValue(out []byte, it uriItem) ([]byte, *Error) {
	sc := m.sc
	value := sc.s[it.valLo:it.valHi]
	start, high := len(out), false
	for i := 0; ; {
		var c byte
		var src int
		if out, c, src, i = decodeStep(out, value, i, tabValuePlain); src < 0 {
			break
		}
		switch {
		case isCTLExceptHTAB(c):
			return nil, sc.errAt(KindCTL, it.valLo+src, "decoded control character 0x%02X at offset %d would land in a header", c)
		case c == '"' || c == '\\':
			out = append(out, '\\')
		case c >= 0x80:
			high = true
		}
		out = append(out, c)
	}
	// The inserted backslashes stand before ASCII octets only, so the
	// escaped text is valid UTF-8 exactly when the value is.
	if high && invalidUTF8(out[start:]) >= 0 {
		k := invalidUTF8(Unescape(value))
		return nil, sc.errAt(KindBadUTF8, it.valLo+sourceOffset(value, k), "decoded value is not valid UTF-8 at offset %d")
	}
	return out, nil
}

// levelCodec is R2.
func (m *ctMapper) levelCodec(out, t []byte, items []uriItem, f Option) ([]byte, *Error) {
	sc := m.sc
	mi := -1
	for i, it := range items {
		if asciiEqualFold(sc.s[it.nameLo:it.nameHi], foldMIMEType) {
			if mi >= 0 {
				return nil, sc.errAt(KindDuplicateSpecial, it.nameLo, "second MIME-type query item at offset %d")
			}
			mi = i
		}
	}
	if mi < 0 {
		out = append(out, "application/uri."...)
		out = m.appendS(out)
	} else {
		it := items[mi]
		if f&NoControlled != 0 {
			return nil, sc.errAt(KindReservedParam, it.nameLo, "MIME-type at offset %d asks for a controlled mapping, refused by NoControlled")
		}
		value := sc.s[it.valLo:it.valHi]
		t = appendUnescape(t[:0], value)
		for k, c := range t {
			if c < 0x20 || c == 0x7F {
				return nil, m.decodedErr(KindCTL, it.valLo, value, k, "decoded control character 0x%02X in MIME-type at offset %d would land in a header", c)
			}
		}
		slash, bad := mimeText(t)
		if bad >= 0 {
			return nil, m.decodedErr(KindBadMIMEType, it.valLo, value, bad, "MIME-type %s is not a media type (type \"/\" subtype of token characters); offending octet at offset %d", quoteClip(string(t)))
		}
		if hasURIPrefix(t[slash+1:]) {
			return nil, sc.errAt(KindNested, it.valLo, "MIME-type at offset %d names a uri. subtype, which would wrap a URI in itself")
		}
		out = appendLower(out, t)
	}
	for i, it := range items {
		if i == mi {
			out = append(out, "; URI-body=\""...)
			out = m.appendS(out)
			out = append(out, '"')
			continue
		}
		out = append(out, "; "...)
		out = appendEscape(out, sc.s[it.nameLo:it.nameHi], setEncC)
		out = append(out, '=', '"')
		out = appendEscape(out, sc.s[it.valLo:it.valHi], setEncC)
		out = append(out, '"')
	}
	return out, nil
}

// appendS appends ENC_C(S), S = lowercase(scheme) ":" body (R2).
func (m *ctMapper) appendS(out []byte) []byte {
	out = appendEscapeLower(out, m.sc.scheme(), setEncC)
	out = append(out, "%3A"...)
	return appendEscape(out, m.sc.body(), setEncC)
}

// mimeText checks R0.12 (exactly one '/', both sides non-empty runs of
// RCHAR). It returns the index of the '/' and -1, or the index of the
// first offending octet.
func mimeText(t []byte) (slash, bad int) {
	slash = -1
	for i, c := range t {
		switch {
		case c == '/' && slash < 0 && i > 0:
			slash = i
		case !setRChar.Contains(c):
			return -1, i
		}
	}
	if slash < 0 || slash == len(t)-1 {
		return -1, len(t)
	}
	return slash, -1
}

// decodeStep copies the run of octets in plain at s[i:] to out, then
// decodes the octet (or %HH triplet) after the run: it returns out, that
// octet, where it starts in s (src, or -1 at the end of s) and where the
// next step starts.
func decodeStep(out []byte, s string, i int, plain *byteTable) (_ []byte, c byte, src, next int) {
	j := span(s, i, plain)
	out = append(out, s[i:j]...)
	if j == len(s) {
		return out, 0, -1, j
	}
	c, next = decodeAt(s, j)
	return out, c, j, next
}
