package mapping

// ByteSet is a set of ASCII octets (0x00-0x7F). The percent-encoders take a
// ByteSet naming the octets that may stay literal; every other octet is
// written as %HH. An octet >= 0x80 is never a member: URIs are ASCII, so such
// octets are always encoded. A set may hold '%', but the encoders never keep
// a '%' that does not start a %HH triplet, so that an encoding can always be
// undone.
//
// A ByteSet is a handle on an immutable table, cheap to copy; the zero
// value is the empty set. Build sets with NewByteSet, Union and Without.
type ByteSet struct{ t *byteTable }

// byteTable holds one bool per octet, so that a membership test in the
// encoding and scanning loops is a single load.
type byteTable [256]bool

var emptyTable byteTable

// NewByteSet returns the set of the octets in chars. Octets >= 0x80 in chars
// are ignored, since no set can hold them.
func NewByteSet(chars string) ByteSet {
	t := new(byteTable)
	for i := 0; i < len(chars); i++ {
		if c := chars[i]; c < 0x80 {
			t[c] = true
		}
	}
	return ByteSet{t}
}

// byteRange returns the set of octets lo..hi inclusive (ASCII only).
func byteRange(lo, hi byte) ByteSet {
	t := new(byteTable)
	for c := int(lo); c <= int(hi) && c < 0x80; c++ {
		t[c] = true
	}
	return ByteSet{t}
}

// Contains reports whether c is in the set.
func (s ByteSet) Contains(c byte) bool { return s.t != nil && s.t[c] }

// Union returns the octets in s or t.
func (s ByteSet) Union(t ByteSet) ByteSet {
	u := *s.table()
	for c, in := range t.table() {
		u[c] = u[c] || in
	}
	return ByteSet{&u}
}

// intersect returns the octets in both s and t.
func (s ByteSet) intersect(t ByteSet) ByteSet {
	u := *s.table()
	for c, in := range t.table() {
		u[c] = u[c] && in
	}
	return ByteSet{&u}
}

// Without returns s minus the octets in chars.
func (s ByteSet) Without(chars string) ByteSet {
	u := *s.table()
	for i := 0; i < len(chars); i++ {
		u[chars[i]] = false
	}
	return ByteSet{&u}
}

func (s ByteSet) table() *byteTable {
	if s.t == nil {
		return &emptyTable
	}
	return s.t
}

// literal returns the table of the octets the encoders may copy: never '%',
// which must always start a triplet for an encoding to be undone.
func (s ByteSet) literal() *byteTable {
	t := s.table()
	if !t['%'] {
		return t
	}
	u := *t
	u['%'] = false
	return &u
}

// The sets of SPEC.md R0, unexported so that no caller can change what the
// mapping uses. The exported variables below are copies.
var (
	setAlpha      = byteRange('A', 'Z').Union(byteRange('a', 'z'))
	setDigit      = byteRange('0', '9')
	setHex        = setDigit.Union(byteRange('A', 'F')).Union(byteRange('a', 'f'))
	setUnreserved = setAlpha.Union(setDigit).Union(NewByteSet("-._~"))
	setSubDelims  = NewByteSet("!$&'()*+,;=")

	// R0.3 TCHAR: 0x21-0x7E except ( ) < > @ , ; : \ " / [ ] ? =
	setTChar = byteRange(0x21, 0x7E).Without(`()<>@,;:\"/[]?=`)
	// R0.4 RCHAR: TCHAR plus '?'.
	setRChar = setTChar.Union(NewByteSet("?"))
	// R0.5 LCHAR: 0x21-0x7E except ';' and '"'.
	setLChar = byteRange(0x21, 0x7E).Without(`;"`)
	// R0.7 ENC_C keeps every octet that is not troublesome (R0.6), not '"'
	// and not >= 0x80: that is TCHAR minus '%' and '#'.
	setEncC = setTChar.Without("%#")
	// R0.8 ENC_U keeps A-Z a-z 0-9 - . _ ~ ! $ ' * +
	setEncU = setUnreserved.Union(NewByteSet("!$'*+"))

	// R0.9 URI contexts.
	setBody       = setUnreserved.Union(setSubDelims).Union(NewByteSet(":@/[]"))
	setQuery      = setUnreserved.Union(setSubDelims).Union(NewByteSet(":@/?"))
	setFragment   = setQuery
	setQueryName  = setQuery.Without("&=")
	setQueryValue = setQuery.Without("&")

	// U3 scheme characters after the first ALPHA.
	setScheme = setAlpha.Union(setDigit).Union(NewByteSet("+-."))
)

// Tables for the scanning loops (see ByteSet).
var (
	tabTChar  = setTChar.t
	tabRChar  = setRChar.t
	tabLChar  = setLChar.t
	tabAlpha  = setAlpha.t
	tabScheme = setScheme.t
	// Octets that R1 copies from a ContentType: body unchanged: RCHAR
	// but not '%' (which may start a triplet) or an upper-case letter.
	tabRCharLower = setRChar.Without("%ABCDEFGHIJKLMNOPQRSTUVWXYZ").t
	// The same for parameter names (TCHAR) and values (any octet but
	// '%', '"', '\\', control characters and octets >= 0x80).
	tabTCharPlain = setTChar.Without("%").t
	tabValuePlain = byteRange(0x20, 0x7E).Without(`%"\\`).t
	tabHex        = setHex.t
	// Octets a quoted-string or a comment copies without a second look:
	// not the delimiters, not '\\', not a control character but HTAB, and
	// not >= 0x80 (which needs the UTF-8 check).
	tabQText = byteRange(0x20, 0x7E).Union(NewByteSet("\t")).Without(`"\\`).t
	tabCText = byteRange(0x20, 0x7E).Union(NewByteSet("\t")).Without(`()\\`).t
)

// Bits of ctClass, the octet classes of the Content-Type scanner. One
// lookup per octet answers both "does the run go on" and "does this octet
// need percent-encoding in a URI", so the scan also tells the encoder which
// names and values it may copy as they are.
const (
	clsRChar     = 1 << iota // R0.4
	clsTChar                 // R0.3
	clsLChar                 // R0.5
	clsQText                 // quoted-string octets needing no second look
	clsCText                 // comment octets needing no second look
	clsSafe                  // ENC_U keeps it (R0.8)
	clsSafeLower             // ENC_U keeps it and it is not an upper-case letter
)

var ctClass = func() (t [256]uint8) {
	for c := range t {
		for _, m := range []struct {
			tab *byteTable
			bit uint8
		}{
			{tabRChar, clsRChar}, {tabTChar, clsTChar}, {tabLChar, clsLChar},
			{tabQText, clsQText}, {tabCText, clsCText}, {setEncU.t, clsSafe},
		} {
			if m.tab[c] {
				t[c] |= m.bit
			}
		}
		if setEncU.t[c] && !('A' <= c && c <= 'Z') {
			t[c] |= clsSafeLower
		}
	}
	return t
}()

// Exported copies of the sets, for callers that percent-encode their own
// URI components (seed 001, cases A and B).
var (
	// Unreserved is RFC 3986 §2.3: A-Z a-z 0-9 - . _ ~. Escaping with it is the
	// safest encoding of Unicode text for any URI component (seed 001 case B:
	// unreserved characters stay, everything else, non-ASCII included,
	// becomes %HH of its UTF-8 octets).
	Unreserved = setUnreserved

	// ComponentSafe is the ENC_U set of SPEC R0.8: Unreserved plus
	// ! $ ' * +. Text escaped with it is valid in every URI component and
	// holds no URI delimiter (no : / ? # [ ] @ & = ; , and no % but the
	// first octet of each %HH triplet).
	ComponentSafe = setEncU

	// TokenSafe is the ENC_C set of SPEC R0.7: the RFC 2045 token characters
	// except % and #. Text escaped with it is a valid MIME token.
	TokenSafe = setEncC

	// BodyChars is the BODY context of SPEC R0.9 (the part of a URI before
	// '?'): unreserved, sub-delims, and : @ / [ ].
	BodyChars = setBody

	// QueryChars is the QUERY context of SPEC R0.9: unreserved, sub-delims,
	// and : @ / ?.
	QueryChars = setQuery

	// FragmentChars is the FRAG context of SPEC R0.9; it equals QueryChars.
	FragmentChars = setFragment

	// QueryNameChars is the QNAME context of SPEC R0.9: QueryChars without
	// & and =.
	QueryNameChars = setQueryName

	// QueryValueChars is the QVALUE context of SPEC R0.9: QueryChars
	// without &.
	QueryValueChars = setQueryValue
)

// span returns the index of the first octet of s at or after i that is
// not in tab, or len(s).
func span[T bytesOrString](s T, i int, tab *byteTable) int {
	for ; i+4 <= len(s); i += 4 { // four at a time, as in skipURIOK
		w := s[i : i+4]
		if !(tab[w[0]] && tab[w[1]] && tab[w[2]] && tab[w[3]]) {
			break
		}
	}
	for i < len(s) && tab[s[i]] {
		i++
	}
	return i
}
