package mapping

import "slices"

// Option changes how a label is mapped. Options are flags: pass any number,
// in any order; repeating one has no further effect. No option is the SPEC
// default. A bit that none of the constants below holds has no effect, so
// Option(0) is no option.
type Option uint8

const (
	// StrictURI (SPEC K5) writes the delimiters of query values as %22
	// instead of '"', which RFC 3986 does not allow in a URI.
	// ToContentType reads both forms back to the same Content-Type. The
	// rest of a URI is unchanged: SPEC's BODY context, like net/url, lets
	// '[' and ']' stand anywhere in the body, so a wrapped http://h/[a]
	// comes out as it is, although RFC 3986 allows them only around an IP
	// literal. It affects ToURI and URI.Format only.
	StrictURI Option = 1 << iota

	// Lenient (SPEC C2) accepts unquoted parameter values with the
	// characters mail software puts in them, such as
	// boundary=----=_NextPart_0 or name=a@b.txt: an unquoted value runs up
	// to ';', '"', white space or the end. It affects the parsing of
	// Content-Types (ToURI, ParseContentType) only; the output is as well
	// formed as without it.
	//
	// A '(' in such a value is part of it, so a comment right after a
	// value needs white space before it: "a=b(c)" is the value "b(c)"
	// under Lenient and "b" with a comment without it, and "a=b(c d)",
	// which the default grammar reads as "b" and a comment, is a syntax
	// error under Lenient. SPEC C2 says so; the line of SPEC's security
	// notes (S) that Lenient "only widens" what is accepted does not hold
	// for these labels.
	Lenient

	// NoControlled refuses the controlled mapping of draft §2.4 and §3.3:
	// ToURI fails on a URI-body parameter and ToContentType on a MIME-type
	// query item, both with KindReservedParam. Use it on untrusted input,
	// where an added special parameter would change the meaning of the
	// result in a surprising way (draft §6).
	NoControlled
)

func optionsOf(opts []Option) Option {
	var f Option
	for _, o := range opts {
		f |= o
	}
	return f
}

// MaxCollapseDepth bounds how many wrapping layers (SPEC K6, R3) one call
// unwraps. Every output of this package is unwrapped already, so real
// labels need at most two layers; deeper wrapping is refused with
// KindNested, which keeps the cost of a call linear in its input. (SPEC
// R3 and K6 set no bound, but every layer re-encodes each '%' of the
// layers inside it, so 1 MiB holds about 1000 layers of a label like x:y,
// and unwrapping them all would read 340 times the input.)
const MaxCollapseDepth = 8

// Special names of SPEC R0.14, matched case-insensitively, and their
// canonical spellings.
const (
	nameURIBody     = "URI-body"
	nameURIFragment = "URI-fragment"
	nameMIMEType    = "MIME-type"
	foldURIBody     = "uri-body"
	foldURIFragment = "uri-fragment"
	foldMIMEType    = "mime-type"
)

// asciiEqualFold reports whether s equals lower, a lower-case ASCII
// constant, ignoring ASCII case.
func asciiEqualFold[T bytesOrString](s T, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// bytesOrString lets the scanners run over the caller's string and over
// decoded scratch bytes without copying either.
type bytesOrString interface{ ~string | ~[]byte }

func isSpecialName[T bytesOrString](n T) bool {
	return asciiEqualFold(n, foldURIBody) || asciiEqualFold(n, foldURIFragment) || asciiEqualFold(n, foldMIMEType)
}

// outputBuffer returns buf, or for an input too large for it a buffer sized
// for the typical expansion, so that large inputs do not pay for repeated
// growth.
func outputBuffer(buf []byte, inputLen int) []byte {
	if want := outputRoom(inputLen); want > cap(buf) {
		return make([]byte, 0, want)
	}
	return buf
}

// outputRoom is the room outputBuffer makes for the result of an input of
// inputLen octets: the typical expansion.
func outputRoom(inputLen int) int { return inputLen + inputLen/2 + 32 }

// grown returns s with room for at least one more element, doubling its
// capacity when it is full. append alone grows a large slice by a quarter
// at a time, and so allocates about five times the final size in all for
// an input of many parameters or query items; doubling allocates twice.
func grown[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	return doubled(s)
}

// doubled is the growth of grown, kept out of the scanning loops that
// call it (most inputs never need it).
//
//go:noinline
func doubled[S ~[]E, E any](s S) S { return slices.Grow(s, len(s)+1) }
