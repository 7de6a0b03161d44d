package mapping

import "strings"

// Param is one Content-Type parameter. Value is the parameter's value with
// the quoting removed: the octets between the quotes with each quoted-pair
// replaced by the octet it stands for, or the unquoted token.
type Param struct {
	Name  string // as written, case kept
	Value string // unquoted
}

// ContentType is a parsed Content-Type field value: the media type and its
// parameters in their original order, with duplicates and the case of
// every name kept. Comments are not kept.
type ContentType struct {
	Type    string  // as written; String lower-cases it
	Subtype string  // as written; String lower-cases it
	Params  []Param // in order, duplicates kept
}

// ParseContentType parses a Content-Type field value as SPEC C1-C3 define
// it: outer white space is stripped; RFC 2045/822 comments are accepted
// where white space may stand and dropped; a control character other than
// HTAB anywhere is KindCTL; non-ASCII octets are allowed only in
// quoted-strings and comments and must be valid UTF-8 (KindBadUTF8); any
// other deviation from the grammar is KindSyntax; a second URI-body or
// URI-fragment parameter is KindDuplicateSpecial. With Lenient, unquoted
// values may hold the characters mail software puts there (SPEC C2).
//
// The input is a field value only: no "Content-Type:" prefix and no
// folding. Type, subtype and names are returned as written; use String for
// the canonical form.
func ParseContentType(s string, opts ...Option) (ContentType, error) {
	var pbuf [8]rawParam
	var sc ctScan
	params, err := sc.parse(s, optionsOf(opts)&Lenient != 0, pbuf[:0])
	if err != nil {
		return ContentType{}, err
	}
	ct := ContentType{Type: sc.typ(), Subtype: sc.sub()}
	if len(params) > 0 {
		ct.Params = make([]Param, len(params))
		for i, p := range params {
			ct.Params[i] = Param{Name: sc.s[p.nameLo:p.nameHi], Value: sc.value(p)}
		}
	}
	return ct, nil
}

// Param returns the value of the first parameter whose name equals name
// ignoring ASCII case.
func (ct ContentType) Param(name string) (value string, ok bool) {
	for _, p := range ct.Params {
		if strings.EqualFold(p.Name, name) {
			return p.Value, true
		}
	}
	return "", false
}

// String formats ct canonically (SPEC R0.13, R0.14, R4): type and subtype
// lower-cased (a subtype starting "uri." has only that prefix lower-cased),
// each parameter as `; name="value"` with '"' and '\' in the value
// backslash-escaped, URI-body and URI-fragment in their canonical spelling,
// and other names as they are. String does not validate: format only values that
// ParseContentType or this package produced, or check the result with
// ParseContentType, before it goes into a header.
func (ct ContentType) String() string {
	n := len(ct.Type) + 1 + len(ct.Subtype)
	for _, p := range ct.Params {
		n += 5 + len(p.Name) + len(p.Value)
	}
	b := make([]byte, 0, n)
	b = appendMediaType(b, ct.Type, ct.Subtype)
	for _, p := range ct.Params {
		b = appendCTParam(b, canonicalName(p.Name), p.Value)
	}
	return string(b)
}

// canonicalName returns the SPEC spelling of a name that is special in a
// Content-Type (URI-body, URI-fragment), or name. MIME-type is special only
// in a URI; in a Content-Type it is an ordinary parameter (SPEC K3) whose
// spelling a native round trip keeps (N2).
func canonicalName(name string) string {
	switch {
	case asciiEqualFold(name, foldURIBody):
		return nameURIBody
	case asciiEqualFold(name, foldURIFragment):
		return nameURIFragment
	}
	return name
}

// appendMediaType appends type "/" subtype lower-cased per R0.13.
func appendMediaType(b []byte, typ, sub string) []byte {
	b = appendLower(b, typ)
	b = append(b, '/')
	if hasURIPrefix(sub) {
		return append(append(b, "uri."...), sub[4:]...)
	}
	return appendLower(b, sub)
}

// appendCTParam appends `; name="value"` with value quoted per R1.4.
func appendCTParam(b []byte, name, value string) []byte {
	b = append(b, "; "...)
	b = append(b, name...)
	b = append(b, '=', '"')
	start := 0
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			b = append(append(b, value[start:i]...), '\\', c)
			start = i + 1
		}
	}
	b = append(b, value[start:]...)
	return append(b, '"')
}

func appendLower[T bytesOrString](b []byte, s T) []byte {
	n := len(b)
	b = append(b, s...)
	for i := n; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// hasURIPrefix reports whether a subtype is in the "uri." tree.
func hasURIPrefix[T bytesOrString](sub T) bool {
	return len(sub) >= 4 && sub[3] == '.' && sub[0]|0x20 == 'u' && sub[1]|0x20 == 'r' && sub[2]|0x20 == 'i'
}
