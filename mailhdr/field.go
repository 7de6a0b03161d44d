package mailhdr

import (
	"bytes"
	"slices"
	"strings"

	"github.com/cturi/cturi/mapping"
)

// fieldRewriter maps the value of Content-Type fields and formats the
// rewritten field. It is not safe for concurrent use.
type fieldRewriter struct {
	to      Target
	opts    []mapping.Option
	scratch []byte
}

func newFieldRewriter(o *Options) *fieldRewriter {
	return &fieldRewriter{to: o.To, opts: o.mappingOptions()}
}

// ctInfo is what the scanner needs to know of a Content-Type.
type ctInfo struct {
	known bool // the value parsed (as a Content-Type or via its URI)
	// typ and sub are the type and subtype in lower case: substrings of
	// the label where it has no upper case, so that most fields cost no
	// allocation here.
	typ, sub    string
	boundary    string
	hasBoundary bool
}

// fieldOutcome says what rewrite did with one field.
type fieldOutcome struct {
	rewritten bool
	ct        ctInfo
	kind      Kind // 0, KindMapping, KindLineTooLong or KindStructureChange
	err       error
	// unparsed: kind is KindMapping only because the field, which was not
	// to be rewritten, does not parse, so its entity's body cannot be
	// examined.
	unparsed bool
}

// problem returns the kind, detail and cause of the Problem the outcome
// calls for, or kind 0 if none. streaming says whether the scanner reads
// the entity's body after the field (Rewrite, NewReader), so that the
// detail can say it passes the body through unexamined; for
// RewriteHeader and Walk, go-message reads the body.
func (oc *fieldOutcome) problem(streaming bool) (Kind, string, error) {
	switch {
	case oc.kind == KindMapping && oc.unparsed:
		return KindMapping, "Content-Type does not parse; the body is passed through", oc.err
	case oc.kind == KindMapping && !oc.ct.known && streaming:
		return KindMapping, "Content-Type not rewritten; the body is passed through", oc.err
	case oc.kind == KindMapping:
		return KindMapping, "Content-Type not rewritten", oc.err
	case oc.kind == KindLineTooLong:
		return KindLineTooLong, "the rewritten Content-Type does not fold into 998-octet lines; not rewritten", nil
	case oc.kind == KindStructureChange:
		return KindStructureChange, "the rewritten Content-Type would make its body read as another structure; not rewritten", nil
	}
	return 0, "", nil
}

// rewrite appends the Content-Type field raw (name, colon, value with its
// folding and its final line ending, if any) to dst, rewritten to the
// target if it maps and is not in the target form already, unchanged
// otherwise. defaultNL is the line ending to fold with when raw has none.
func (fr *fieldRewriter) rewrite(dst, raw []byte, defaultNL string) ([]byte, fieldOutcome) {
	var out fieldOutcome
	colon := bytes.IndexByte(raw, ':')
	if colon < 0 {
		// Unreachable: the scanner holds only lines classify took for
		// fields, and every go-message field has a colon (ReadHeader
		// refuses a line without one, AddRaw panics, Raw formats
		// "Key: value"). Kept so that no value is made a field without a
		// name (TestRewriteField).
		return append(dst, raw...), out
	}
	j := colon + 1
	for j < len(raw) && isWSP(raw[j]) {
		j++
	}
	prefix := raw[:j]

	var value string
	var isURI bool
	value, isURI, fr.scratch = readLabel(fr.scratch, raw[j:])

	var mapped, ctText string
	var err error
	rewrite := false
	switch fr.to {
	case ToURI:
		if isURI {
			ctText, err = mapping.ToContentType(value, fr.opts...)
		} else {
			ctText = value
			mapped, err = mapping.ToURI(value, fr.opts...)
			rewrite = err == nil
		}
	case ToContentType:
		if isURI {
			mapped, err = mapping.ToContentType(value, fr.opts...)
			ctText, rewrite = mapped, err == nil
		} else {
			ctText = value
		}
	default: // Canonical
		mapped, err = mapping.Canonical(value, fr.opts...)
		rewrite = err == nil && mapped != value
		if !isURI {
			ctText = value
		} else if err == nil {
			ctText = mapped
		}
	}
	if err != nil {
		out.kind, out.err = KindMapping, err
	}
	var perr error
	out.ct, perr = structureOf(ctText)
	if err == nil && perr != nil {
		// A Content-Type left as it is (going to Content-Types): the
		// body cannot be examined without its structure.
		out.kind, out.err, out.unparsed = KindMapping, perr, true
	}

	if !rewrite {
		return append(dst, raw...), out
	}
	if !isURI && !fr.keepsStructure(out.ct, mapped) {
		out.kind, out.err, out.unparsed = KindStructureChange, nil, false
		return append(dst, raw...), out
	}
	nl, final := lineEndings(raw, defaultNL)
	// Room for the field, with a fold every 64 octets or so, at once:
	// appending to a nil dst (RewriteHeader) would grow it twice.
	dst = slices.Grow(dst, len(prefix)+len(mapped)+len(final)+(len(mapped)/64+1)*(len(nl)+1))
	dst, ok := appendFolded(dst, prefix, mapped, !isURI && fr.to == ToURI, nl, final)
	if !ok {
		out.kind, out.err = KindLineTooLong, nil
		return append(dst, raw...), out
	}
	out.rewritten = true
	return dst, out
}

// keepsStructure reports whether mapped, the rewritten value of a
// Content-Type field of structure before, gives its body the same
// reading. A single part of a subtype other than uri. needs no mapping
// back: the mapping keeps its type and subtype.
func (fr *fieldRewriter) keepsStructure(before ctInfo, mapped string) bool {
	if staysSinglePart(before) {
		return true
	}
	return before.reading() == fr.structureOfOutput(mapped).reading()
}

// staysSinglePart reports whether a rewrite leaves a Content-Type of
// structure c a single part (not multipart, not an encapsulated
// message): c is one, and the mapping keeps its type and subtype, as it
// does for every subtype but a uri. one (SPEC K2, K3; R1, R2 on the way
// back).
func staysSinglePart(c ctInfo) bool {
	return c.known && !c.multipart() && !c.encapsulates() && !strings.HasPrefix(c.sub, "uri.")
}

// structureOfOutput returns the structure a reader finds in mapped, the
// rewritten value of a Content-Type field; a URI label (ToURI) stands for
// the Content-Type it maps to. The mapping does not always keep the
// structure (SPEC N2), and a field is rewritten only where it does: the
// top-level type of a uri. subtype becomes application (multipart/uri.a%3Ab;
// boundary=x comes back as application/uri.a%3Ab; boundary="x"), the
// parameters of a uri. or URI-body Content-Type are percent-encoded once
// more, or decoded (boundary="x y" comes back as boundary="x%2520y", and
// boundary=a%41 as boundary="aA"), a uri. subtype wrapping a ContentType:
// URI becomes the wrapped type (K6), so a text part can come back as a
// multipart or the other way round, and a quoted boundary whose backslash
// Go keeps loses it. The reverse mapping takes no options: a reader of
// the output is not bound by this rewriter's.
func (fr *fieldRewriter) structureOfOutput(mapped string) ctInfo {
	if fr.to == ToURI {
		ct, err := mapping.ToContentType(mapped)
		if err != nil {
			// Unreachable by SPEC N4 (FuzzKeepsStructure checks that
			// every rewritten value maps back); refused rather than
			// guessed, as a structure no reader finds.
			return ctInfo{}
		}
		mapped = ct
	}
	info, _ := structureOf(mapped)
	return info
}

// bodyReading is how the scanner reads a body: the zero value for one it
// passes through (a single part, a multipart without a usable boundary,
// a Content-Type that does not parse), or as an encapsulated message, or
// as a multipart with this boundary, digest or not (which gives parts
// without a Content-Type their default type, RFC 2046 §5.1.5).
type bodyReading struct {
	message, multipart, digest bool
	boundary                   string
}

func (c ctInfo) reading() bodyReading {
	switch {
	case !c.known:
		// Unreachable from keepsStructure, whose values parse on both
		// sides (FuzzKeepsStructure), and the same as the default for the
		// zero ctInfo an unknown value is; it says that known decides.
	case c.multipart():
		if c.usableBoundary() {
			return bodyReading{multipart: true, digest: c.sub == "digest", boundary: c.boundary}
		}
	case c.encapsulates():
		return bodyReading{message: true}
	}
	return bodyReading{}
}

func (c ctInfo) multipart() bool { return c.typ == "multipart" }

// is reports whether c is of type typ and subtype sub, both lower case.
func (c ctInfo) is(typ, sub string) bool { return c.typ == typ && c.sub == sub }

// usableBoundary reports whether a multipart's boundary can be used: it
// is there, not empty, and short enough for its delimiter line.
func (c ctInfo) usableBoundary() bool {
	return c.hasBoundary && c.boundary != "" && len(c.boundary) <= maxBoundaryLen
}

// encapsulates reports whether the body is a message (RFC 2046 §5.2.1,
// RFC 6532 §3.5).
func (c ctInfo) encapsulates() bool {
	return c.is("message", "rfc822") || c.is("message", "global")
}

// structureOf parses a Content-Type for the scanner, leniently (mail's
// unquoted values) or else strictly (Lenient takes an unquoted value to
// run on where the grammar has a comment begin: a=b(c d)); a value that
// parses neither way gives the zero ctInfo (unknown) and the lenient
// parse error.
func structureOf(ct string) (ctInfo, error) {
	p, err := mapping.ParseContentType(ct, mapping.Lenient)
	if err != nil {
		var serr error
		if p, serr = mapping.ParseContentType(ct); serr != nil {
			return ctInfo{}, err
		}
	}
	info := ctInfo{known: true, typ: strings.ToLower(p.Type), sub: strings.ToLower(p.Subtype)}
	info.boundary, info.hasBoundary = boundaryOf(ct, p)
	if len(ct) > maxSharedLabel {
		// The boundary stays on the scanner's stack while its multipart
		// is open, as deep as MaxDepth: a substring of a long label would
		// keep all of it (up to MaxFieldBytes) alive.
		info.boundary = strings.Clone(info.boundary)
	}
	return info, nil
}

// maxSharedLabel is the longest label a boundary taken from it may share
// memory with. A boundary is at most 70 octets (RFC 2046 §5.1.1); a label
// of ordinary size costs no copy.
const maxSharedLabel = 1024

// readLabel returns the label a Content-Type field's value v holds (its
// raw bytes from the colon and the white space after it on, folding and
// final line ending included), and whether it is a URI label. scratch is
// a buffer to reuse, returned grown.
func readLabel(scratch, v []byte) (label string, isURI bool, _ []byte) {
	scratch = unfold(scratch[:0], v, false)
	label = string(trimWSP(scratch))
	if i := bytes.IndexByte(v, '\n'); i >= 0 && i < len(v)-1 {
		// Folded. RFC 3986 Appendix C: white space that breaks a URI
		// across lines is not part of it, even inside its scheme. Other
		// white space is, and makes the URI invalid, which the mapping
		// reports. No Content-Type reads as a URI without that white
		// space, since a ':' before its '/' makes it invalid anyway.
		scratch = unfold(scratch[:0], v, true)
		if u := string(trimWSP(scratch)); mapping.Detect(u) == mapping.DirectionToContentType {
			return u, true, scratch
		}
	}
	return label, mapping.Detect(label) == mapping.DirectionToContentType, scratch
}

// unfold appends v to dst without its line endings (LF and a CR before
// it), which undoes folding (RFC 5322 §2.2.3) and drops the field's final
// line ending. With tight, the white space on either side of each line
// ending goes too, as RFC 3986 Appendix C has readers drop the white space
// added to break a long URI across lines.
func unfold(dst, v []byte, tight bool) []byte {
	for {
		i := bytes.IndexByte(v, '\n')
		if i < 0 {
			return append(dst, v...)
		}
		seg := v[:i]
		if len(seg) > 0 && seg[len(seg)-1] == '\r' {
			seg = seg[:len(seg)-1]
		}
		v = v[i+1:]
		if tight {
			seg = bytes.TrimRight(seg, " \t")
			v = bytes.TrimLeft(v, " \t")
		}
		dst = append(dst, seg...)
	}
}

func trimWSP(b []byte) []byte {
	for len(b) > 0 && isWSP(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isWSP(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// lineEndings returns the line ending of the field's first line (the one
// to fold with; defaultNL if the field has none) and its final one (empty
// if the field is cut off by the end of the input).
func lineEndings(raw []byte, defaultNL string) (nl, final string) {
	nl = defaultNL
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		nl = "\n"
		if i > 0 && raw[i-1] == '\r' {
			nl = "\r\n"
		}
	}
	if n := len(raw); n > 0 && raw[n-1] == '\n' {
		final = "\n"
		if n > 1 && raw[n-2] == '\r' {
			final = "\r\n"
		}
	}
	return nl, final
}
