package middleware

import (
	"fmt"
	"hash/maphash"
	"math"
	"net/http"
	"strings"

	"github.com/cturi/cturi/mapping"
)

// rewriter is Options compiled once by a constructor and shared, read-only,
// by every request.
type rewriter struct {
	request, response Mode
	policy            Policy
	opts              []mapping.Option
	schemes           []string
	maxLen            int
	forms             bool
	maxForm           int64
	// maxFormDefault: Options.MaxFormBytes was not set, so a body an
	// http.MaxBytesReader limits has that limit alone, as in net/http.
	maxFormDefault bool
	onError        func(*http.Request, error)
	freshWriters   bool
	// caches holds, per Mode other than Leave, the mappings that mode
	// made (cache.go).
	caches [Leave]labelCache
}

// newRewriter checks and compiles o. A Mode, Policy or scheme name outside
// the documented ones is a programming error, reported by a panic when the
// middleware is built (as http.ServeMux does for a bad pattern), never per
// request.
func newRewriter(o Options) *rewriter {
	for _, m := range [...]Mode{o.Request, o.Response} {
		if m > Leave {
			panic(fmt.Sprintf("middleware: invalid Mode %d", m))
		}
	}
	if o.Unmappable > PassThrough {
		panic(fmt.Sprintf("middleware: invalid Policy %d", o.Unmappable))
	}
	for _, s := range o.Schemes {
		if !isScheme(s) {
			panic(fmt.Sprintf("middleware: Options.Schemes: %q is not a URI scheme (RFC 3986 §3.1)", s))
		}
	}
	rw := &rewriter{
		request:  o.Request,
		response: o.Response,
		policy:   o.Unmappable,
		opts:     append([]mapping.Option(nil), o.Mapping...),
		maxLen:   o.MaxLabelLen,
		forms:    o.DecodeForms,
		maxForm:  o.MaxFormBytes,
		onError:  o.OnError,

		freshWriters: o.FreshWriters,
	}
	switch {
	case rw.maxForm == 0:
		rw.maxForm, rw.maxFormDefault = DefaultMaxFormBytes, true
	case rw.maxForm < 0: // as a negative MaxLabelLen
		rw.maxForm = math.MaxInt64
	}
	if len(o.Schemes) > 0 {
		rw.schemes = append([]string(nil), o.Schemes...)
	}
	if rw.maxLen == 0 {
		rw.maxLen = DefaultMaxLabelLen
	}
	for i := range rw.caches {
		rw.caches[i].seed = maphash.MakeSeed()
	}
	return rw
}

// mapLabel returns the label mode m makes of in. It returns in itself when
// nothing changes; for ToContentType and ToURI a label already in the
// target syntax is recognised by mapping.Detect alone, without parsing or
// allocating. Every label it returns is a valid header field value.
// unparsable reports a URI label mapped to a Content-Type that browsers
// cannot parse (browserParses), or a Content-Type they parse that
// Canonical made into one they cannot, which a response must not send
// without nosniff. A label mapped before is found in the mode's cache, with
// unparsable, at the cost of a hash and a comparison.
func (rw *rewriter) mapLabel(in string, m Mode) (out string, unparsable bool, err error) {
	switch m {
	case Leave:
		return in, false, nil
	case ToContentType:
		if mapping.Detect(in) == mapping.DirectionToURI {
			return in, false, nil
		}
	case ToURI:
		if mapping.Detect(in) == mapping.DirectionToContentType {
			return in, false, nil
		}
	}
	if rw.maxLen > 0 && len(in) > rw.maxLen {
		// The numbers tell an operator which way to move MaxLabelLen.
		return in, false, fmt.Errorf("%w (%d octets; MaxLabelLen is %d)", ErrLabelTooLong, len(in), rw.maxLen)
	}
	if len(in) > maxCachedLabel {
		return rw.mapFresh(in, m)
	}
	c := &rw.caches[m]
	h := c.hash(in)
	if e := c.get(h, in); e != nil {
		return e.out, e.unparsable, nil
	}
	out, unparsable, err = rw.mapFresh(in, m)
	if err == nil {
		c.put(h, in, out, unparsable)
	}
	return out, unparsable, err
}

// mapFresh is mapLabel without the cache, for a label in the syntax m
// maps from and within the length limit. Only a result that passed every
// check is returned without an error, so only such a result is cached.
func (rw *rewriter) mapFresh(in string, m Mode) (out string, unparsable bool, err error) {
	switch m {
	case ToContentType:
		out, err = mapping.ToContentType(in, rw.opts...)
	case ToURI:
		out, err = mapping.ToURI(in, rw.opts...)
	default:
		out, err = mapping.Canonical(in, rw.opts...)
	}
	if err != nil {
		return in, false, err
	}
	if rw.schemes != nil {
		if err := rw.checkScheme(in, out, m); err != nil {
			return in, false, err
		}
	}
	if !keepsMultipart(in, out, m) {
		return in, false, ErrStructureChange
	}
	// Unreachable while mapping keeps SPEC §S (no control character but
	// HTAB in a Content-Type, only printable ASCII in a URI); checked
	// anyway, since a header value is where a slip would do harm.
	if !validHeaderValue(out) {
		return in, false, ErrInvalidHeaderValue
	}
	// A Content-Type made from a URI label counts, and so does one that
	// Canonical made unparsable from a label the browser parses: a uri.
	// subtype wrapping a ContentType: URI collapses to the Content-Type in
	// it (SPEC K6). One the browser could not parse as the handler wrote
	// it either is the handler's own.
	unparsable = m != ToURI && !browserParses(out) &&
		(mapping.Detect(in) == mapping.DirectionToContentType || browserParses(in))
	return out, unparsable, nil
}

// checkScheme checks the scheme of the URI form of a mapped label against
// Options.Schemes. The URI form is out for ToURI, the input for a URI
// label of another scheme than ContentType (mapping keeps the scheme), and
// otherwise the URI the produced Content-Type maps to, which names the
// scheme of a URI it wraps (application/uri.<URI>, URI-body).
func (rw *rewriter) checkScheme(in, out string, m Mode) error {
	u := out
	if m != ToURI {
		if s := uriScheme(in); s != "" && !strings.EqualFold(s, "ContentType") {
			u = in
		} else {
			var err error
			if u, err = mapping.ToURI(out, rw.opts...); err != nil {
				return err // unreachable by SPEC N4; reported rather than ignored
			}
		}
	}
	s := uriScheme(u)
	if strings.EqualFold(s, "ContentType") {
		return nil
	}
	for _, allowed := range rw.schemes {
		if strings.EqualFold(s, allowed) {
			return nil
		}
	}
	// A scheme is ASCII letters, digits and "+-.", safe to quote in a
	// log or a 415 body; a long one is cut.
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fmt.Errorf("%w: %q", ErrSchemeNotAllowed, s)
}

// uriScheme returns the scheme of a label that starts with one (after
// leading white space, as mapping.Detect reads it), or "".
func uriScheme(s string) string {
	s = strings.TrimLeft(s, " \t")
	i := strings.IndexByte(s, ':')
	if i < 0 || !isScheme(s[:i]) {
		return ""
	}
	return s[:i]
}

// isScheme reports whether s is an RFC 3986 scheme: ALPHA *( ALPHA / DIGIT
// / "+" / "-" / "." ).
func isScheme(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// validHeaderValue reports whether s may be a header field value: no
// control character but HTAB (RFC 9110 §5.5; the check net/http and its
// HTTP/2 server apply, httpguts.ValidHeaderFieldValue). Octets >= 0x80
// (obs-text, UTF-8 in a quoted value) are allowed. It runs on every label
// the middleware emits, so it tests eight octets at a time and looks at
// single octets only in a word that holds a control character or HTAB.
func validHeaderValue(s string) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		del := x ^ (ones * 0x7F)
		// Some octet < 0x20, or some octet == 0x7F (a zero in del).
		if ((x-ones*0x20)&^x|(del-ones)&^del)&highs != 0 && !validOctets(s[i:i+8]) {
			return false
		}
	}
	return validOctets(s[i:])
}

func validOctets(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7F {
			return false
		}
	}
	return true
}

// report wraps err for side and calls the OnError hook.
func (rw *rewriter) report(r *http.Request, side Side, label string, err error) *Error {
	e := &Error{Side: side, Label: label, Err: err}
	if rw.onError != nil {
		rw.onError(r, e)
	}
	return e
}
