package mapping

// The Content-Type scanner (SPEC C1-C3): one linear pass that checks each
// octet, follows the C2 grammar, and records where the type, subtype,
// parameters and special parameters lie in the caller's string, without
// copying it. ParseContentType and the mapping both read its result.

// rawParam locates one parameter in the scanned input.
type rawParam struct {
	nameLo, nameHi int
	valLo, valHi   int  // without the quotes of a quoted-string
	escaped        bool // the value is a quoted-string holding a quoted-pair
	// safeName, safeValue: every octet of the name's or value's text in
	// the input is one ENC_U keeps, so K3 copies that text as it is. Never
	// set for an escaped value, whose text still holds the backslashes.
	safeName, safeValue bool
}

// ctScan is the result of scanning a Content-Type: offsets into s, so that
// the mapping reads the caller's string without copying it. The parameters
// are a separate slice, never stored here: escape analysis does not tell
// fields apart, and s flows into error values, so a slice kept beside it
// would move the caller's stack buffer to the heap.
type ctScan struct {
	s               string
	typLo, typHi    int
	subLo, subHi    int
	bodyIdx, frgIdx int // index in the parameters of URI-body / URI-fragment, or -1
	// safeType, safeSub: lower-case octets that ENC_U keeps (K3 copies them).
	safeType, safeSub bool
}

func (sc *ctScan) typ() string { return sc.s[sc.typLo:sc.typHi] }
func (sc *ctScan) sub() string { return sc.s[sc.subLo:sc.subHi] }

// value returns a parameter's value with quoted-pairs resolved.
func (sc *ctScan) value(p rawParam) string {
	v := sc.s[p.valLo:p.valHi]
	if !p.escaped {
		return v
	}
	return string(appendUnquoted(make([]byte, 0, len(v)), v))
}

// appendValue appends a parameter's value with quoted-pairs resolved.
func (sc *ctScan) appendValue(b []byte, p rawParam) []byte {
	if !p.escaped {
		// Its callers pass escaped values only, today. A value without
		// quoted-pairs is copied as it is: an unquoted Lenient value may
		// hold a backslash that appendUnquoted would take for one.
		return append(b, sc.s[p.valLo:p.valHi]...)
	}
	return appendUnquoted(b, sc.s[p.valLo:p.valHi])
}

// appendUnquoted resolves the quoted-pairs of the inside of a quoted-string.
func appendUnquoted(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b = append(b, v[i])
	}
	return b
}

// parse scans s per C1-C3 into sc, appending the parameters to params and
// returning them. It reports the first error in rule order: a control
// character anywhere (C1) comes before any grammar error (C2, C3).
//
// The grammar scan checks for control characters only where the grammar
// lets them through (quoted-strings and comments): anywhere else one stops
// a run and fails the grammar. So the input is scanned once, and only a
// failed scan looks for the first control character again.
func (sc *ctScan) parse(s string, lenient bool, params []rawParam) ([]rawParam, *Error) {
	params, err := sc.scan(s, lenient, params)
	if err != nil && err.Kind != KindCTL {
		for i := 0; i < len(s); i++ {
			if c := s[i]; isCTLExceptHTAB(c) {
				return nil, newError(KindCTL, s, i, "control character 0x%02X at offset %d would land in a header", c, i)
			}
		}
	}
	return params, err
}

// isCTLExceptHTAB reports whether c is a control character other than
// HTAB, which C1 and R1.4 allow (SPEC R0.2's CTL includes it).
func isCTLExceptHTAB(c byte) bool { return c < 0x20 && c != '\t' || c == 0x7F }

func (sc *ctScan) scan(s string, lenient bool, params []rawParam) ([]rawParam, *Error) {
	sc.s = s
	sc.bodyIdx, sc.frgIdx = -1, -1
	lo, hi := trimWSP(s)
	p := ctParser{s: s, i: lo, hi: hi}
	if err := p.cfws(); err != nil {
		return nil, err
	}
	sc.typLo = p.i
	sc.typHi = p.run(clsRChar)
	sc.safeType = p.all&clsSafeLower != 0
	if sc.typHi == sc.typLo {
		return nil, p.syntax("a media type")
	}
	if p.i >= hi || s[p.i] != '/' {
		return nil, p.syntax("'/' after the type")
	}
	p.i++
	sc.subLo = p.i
	sc.subHi = p.run(clsRChar)
	sc.safeSub = p.all&clsSafeLower != 0
	if sc.subHi == sc.subLo {
		return nil, p.syntax("a subtype after '/'")
	}
	if err := p.cfws(); err != nil {
		return nil, err
	}
	valueSet := uint8(clsTChar)
	if lenient {
		valueSet = clsLChar
	}
	unquotedEnd := -1 // where the last unquoted value ended
	for p.i < hi {
		if s[p.i] != ';' {
			err := p.syntax("';' or the end")
			if p.i == unquotedEnd && ctClass[s[p.i]]&clsLChar != 0 {
				// Not lenient, or the octet would have been taken.
				err.msg += " (an unquoted parameter value cannot hold it: quote the value, or map with the Lenient option)"
			}
			return nil, err
		}
		p.i++
		if err := p.cfws(); err != nil {
			return nil, err
		}
		if p.i == hi || s[p.i] == ';' {
			continue // empty parameter
		}
		var rp rawParam
		rp.nameLo = p.i
		rp.nameHi = p.run(clsTChar)
		rp.safeName = p.all&clsSafe != 0
		if rp.nameHi == rp.nameLo {
			return nil, p.syntax("a parameter name")
		}
		if err := p.cfws(); err != nil {
			return nil, err
		}
		if p.i >= hi || s[p.i] != '=' {
			return nil, p.syntax("'=' after the parameter name")
		}
		p.i++
		if err := p.cfws(); err != nil {
			return nil, err
		}
		if p.i < hi && s[p.i] == '"' {
			if err := p.quoted(&rp); err != nil {
				return nil, err
			}
		} else {
			rp.valLo = p.i
			rp.valHi = p.run(valueSet)
			rp.safeValue = p.all&clsSafe != 0
			if rp.valHi == rp.valLo {
				return nil, p.syntax("a parameter value")
			}
			unquotedEnd = rp.valHi
		}
		if err := p.cfws(); err != nil {
			return nil, err
		}
		params = append(grown(params), rp)
	}
	return params, findSpecials(sc, params)
}

// findSpecials applies C3 and records where URI-body and URI-fragment are.
func findSpecials(sc *ctScan, params []rawParam) *Error {
	for i, p := range params {
		name := sc.s[p.nameLo:p.nameHi]
		idx := &sc.bodyIdx
		switch {
		case asciiEqualFold(name, foldURIBody):
		case asciiEqualFold(name, foldURIFragment):
			idx = &sc.frgIdx
		default:
			continue
		}
		if *idx >= 0 {
			return newError(KindDuplicateSpecial, sc.s, p.nameLo, "second %s parameter at offset %d", canonicalName(name), p.nameLo)
		}
		*idx = i
	}
	return nil
}

// trimWSP returns the bounds of s without leading and trailing SP and HTAB.
func trimWSP(s string) (lo, hi int) {
	hi = len(s)
	for lo < hi && (s[lo] == ' ' || s[lo] == '\t') {
		lo++
	}
	for hi > lo && (s[hi-1] == ' ' || s[hi-1] == '\t') {
		hi--
	}
	return lo, hi
}

// ctParser is the cursor of the C2 grammar; every run is the longest
// possible and nothing backtracks, so a scan is linear in the input.
type ctParser struct {
	s     string
	i, hi int
	all   uint8 // see run
}

func (p *ctParser) syntax(want string) *Error {
	if p.i >= p.hi {
		return newError(KindSyntax, p.s, p.i, "expected %s at offset %d, found the end", want, p.i)
	}
	return newError(KindSyntax, p.s, p.i, "expected %s at offset %d, found %s", want, p.i, showOctet(p.s[p.i]))
}

// run advances over the longest run of octets in set and returns the end.
// It also sets p.all to the AND of the classes of the octets it passed.
func (p *ctParser) run(set uint8) int {
	p.i, p.all = classRun(p.s[:p.hi], p.i, set)
	return p.i
}

// classRun returns the end of the longest run of octets at s[i:] whose
// class has bit set, and the AND of their classes.
func classRun(s string, i int, set uint8) (end int, all uint8) {
	all = 0xFF
	// Four octets at a time while all four are in set: the AND of their
	// classes has the set's bit exactly then.
	for ; i+4 <= len(s); i += 4 {
		w := s[i : i+4]
		c := ctClass[w[0]] & ctClass[w[1]] & ctClass[w[2]] & ctClass[w[3]]
		if c&set == 0 {
			break
		}
		all &= c
	}
	for i < len(s) {
		c := ctClass[s[i]]
		if c&set == 0 {
			break
		}
		all &= c
		i++
	}
	return i, all
}

// cfws skips white space and comments. Comments nest; a quoted-pair stands
// for its octet. The nesting depth is a counter, so any depth is linear.
func (p *ctParser) cfws() *Error {
	if p.i < p.hi && cfwsStart[p.s[p.i]] {
		return p.cfwsSlow()
	}
	return nil // the common case, kept small enough to inline
}

var cfwsStart = NewByteSet(" \t(").t

func (p *ctParser) cfwsSlow() *Error {
	for p.i < p.hi {
		switch p.s[p.i] {
		case ' ', '\t':
			p.i++
			continue
		case '(':
		default:
			return nil
		}
		start, depth, high := p.i, 0, false
		for p.i < p.hi {
			p.run(clsCText)
			if p.i == p.hi {
				break
			}
			c := p.s[p.i]
			p.i++
			switch {
			case c == '(':
				depth++
			case c == ')':
				depth--
			case c == '\\':
				if p.i == p.hi {
					break
				}
				c = p.s[p.i]
				p.i++
				fallthrough
			default:
				if err := p.checkOctet(c, p.i-1); err != nil {
					return err
				}
				high = high || c >= 0x80
			}
			if depth == 0 {
				break
			}
		}
		if depth > 0 {
			p.i = start
			return newError(KindSyntax, p.s, start, "unbalanced comment starting at offset %d", start)
		}
		if high {
			if err := p.utf8(start, p.i); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOctet rejects a control character let through by a quoted-string or
// comment (C1).
func (p *ctParser) checkOctet(c byte, at int) *Error {
	if isCTLExceptHTAB(c) {
		return newError(KindCTL, p.s, at, "control character 0x%02X at offset %d would land in a header", c, at)
	}
	return nil
}

// quoted scans a quoted-string starting at the opening quote.
func (p *ctParser) quoted(rp *rawParam) *Error {
	start := p.i
	p.i++
	rp.valLo = p.i
	high, safe := false, true
	for p.i < p.hi {
		p.run(clsQText)
		safe = safe && p.all&clsSafe != 0
		if p.i == p.hi {
			break
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			rp.valHi = p.i - 1
			rp.safeValue = safe && !rp.escaped && !high
			if high {
				return p.utf8(start, p.i)
			}
			return nil
		case '\\':
			rp.escaped = true
			if p.i == p.hi {
				break
			}
			c = p.s[p.i]
			p.i++
		}
		if err := p.checkOctet(c, p.i-1); err != nil {
			return err
		}
		high = high || c >= 0x80
	}
	p.i = start
	return newError(KindSyntax, p.s, start, "unterminated quoted-string starting at offset %d", start)
}

// utf8 checks that s[lo:hi], a quoted-string or an outermost comment that
// holds octets >= 0x80, is valid UTF-8 (C2).
func (p *ctParser) utf8(lo, hi int) *Error {
	if j := invalidUTF8(p.s[lo:hi]); j >= 0 {
		return newError(KindBadUTF8, p.s, lo+j, "invalid UTF-8 at offset %d", lo+j)
	}
	return nil
}
