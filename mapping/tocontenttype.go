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
//   - A URI with a MIME-type query item (and no other scheme rules) gets
//     that media type, and the URI without query and fragment goes into a
//     URI-body parameter in the item's place (R2, draft §3.3).
//     NoControlled refuses this.
//   - Any other URI becomes application/uri.<URI>, with the URI's query
//     items as parameters and its fragment as URI-fragment (R2, draft
//     §3.1). The URI text gains one level of encoding (ENC_C), so it comes
//     back byte for byte.
//   - A ContentType: URI wrapping a uri. subtype collapses to the URI it
//     wraps (R3).
//
// Outer white space is ignored and an IRI is first converted to a URI
// (RFC 3987 §3.1). The result is `type/subtype` followed by `; name="value"`
// for each parameter: lower-case type and subtype, values always quoted,
// '"' and '\' backslash-escaped, no control character but HTAB. Errors are
// *Error values; see the Kind constants.
func ToContentType(uri string, opts ...Option) (string, error) {
	return toContentType(uri, optionsOf(opts), 0)
}

func toContentType(in string, f Option, depth int) (string, error) {
	if depth > MaxCollapseDepth {
		return "", newError(KindNested, in, 0, "label wrapped deeper than %d layers at offset %d", MaxCollapseDepth, 0)
	}
	// Buffers stay on the stack as in toURI.
	var ibuf [8]uriItem
	var obuf [256]byte
	var t1, t2 [128]byte
	var sc uriScan
	items, err := sc.parse(in, ibuf[:0])
	if err != nil {
		return "", err
	}
	m := ctMapper{sc: &sc}
	out := outputBuffer(obuf[:0], len(in))
	collapse := false
	if sc.isContentType() {
		out, collapse, err = m.decodeCodec(out, t1[:0], t2[:0], items)
	} else {
		out, err = m.levelCodec(out, t1[:0], items, f)
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
	u, uerr := toURI(string(out), f&NoControlled, depth+1)
	if uerr != nil {
		return "", uerr
	}
	return toContentType(u, f, depth+1)
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
func (m *ctMapper) decodeCodec(out, t1, t2 []byte, items []uriItem) ([]byte, bool, *Error) {
	sc := m.sc
	body := sc.body()
	at := sc.schemeHi + 1
	t := appendUnescape(t1[:0], body)
	for k, c := range t {
		if c < 0x20 || c == 0x7F {
			return nil, false, m.decodedErr(KindCTL, at, body, k, "decoded control character 0x%02X at offset %d would land in a header", c)
		}
	}
	slash, bad := mimeText(t)
	if bad >= 0 {
		return nil, false, m.decodedErr(KindBadMIMEType, at, body, bad, "decoded %q is not a media type (type \"/\" subtype of token characters); offending octet at offset %d", string(t))
	}
	out = appendMediaType(out, t[:slash], t[slash+1:])
	collapse := hasURIPrefix(t[slash+1:])
	for _, it := range items {
		name := sc.s[it.nameLo:it.nameHi]
		n := appendUnescape(t1[:0], name)
		for k, c := range n {
			if c < 0x20 || c == 0x7F {
				return nil, false, m.decodedErr(KindCTL, it.nameLo, name, k, "decoded control character 0x%02X in a parameter name at offset %d would land in a header", c)
			}
			if !setTChar.Contains(c) {
				return nil, false, m.decodedErr(KindBadParamName, it.nameLo, name, k, "decoded parameter name %q is not a token; octet %q at offset %d", string(n), c)
			}
		}
		if asciiEqualFold(n, nameURIBody) || asciiEqualFold(n, nameURIFragment) {
			return nil, false, sc.errAt(KindReservedParam, it.nameLo, "query item %q at offset %d decodes to a special Content-Type parameter", name)
		}
		value := sc.s[it.valLo:it.valHi]
		v := appendUnescape(t2[:0], value)
		high := false
		for k, c := range v {
			if c < 0x20 && c != '\t' || c == 0x7F {
				return nil, false, m.decodedErr(KindCTL, it.valLo, value, k, "decoded control character 0x%02X at offset %d would land in a header", c)
			}
			high = high || c >= 0x80
		}
		if high {
			if k := invalidUTF8(v); k >= 0 {
				return nil, false, m.decodedErr(KindBadUTF8, it.valLo, value, k, "decoded value is not valid UTF-8 at offset %d")
			}
		}
		out = appendCTParam(out, n, v)
	}
	return out, collapse, nil
}

// levelCodec is R2.
func (m *ctMapper) levelCodec(out, t []byte, items []uriItem, f Option) ([]byte, *Error) {
	sc := m.sc
	mi := -1
	for i, it := range items {
		if asciiEqualFold(sc.s[it.nameLo:it.nameHi], nameMIMEType) {
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
			return nil, m.decodedErr(KindBadMIMEType, it.valLo, value, bad, "MIME-type %q is not a media type (type \"/\" subtype of token characters); offending octet at offset %d", string(t))
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
