package mailhdr

import "strings"

// Line lengths of RFC 5322 §2.1.1, excluding the line ending: a line
// SHOULD be at most 78 octets and MUST be at most 998.
const (
	foldWidth  = 78
	maxLineLen = 998
)

// appendFolded appends prefix and value to dst, folding value so that
// lines stay within foldWidth where the value allows it, with nl as the
// folding line ending, then appends final (the field's own line ending,
// possibly empty). prefix is the start of the field's first line (name,
// colon and the white space after it).
//
// A Content-Type is folded only at a single SP between two other octets,
// so that unfolding (RFC 5322 §2.2.3), even the lossy kind that trims
// white space around line breaks and joins with one SP, gives the value
// back. A URI holds no white space, so it is folded by inserting
// white space, preferably before '?', '&' or '#' and never inside a %HH
// triplet; RFC 3986 Appendix C tells readers to remove white space a
// line break brought into a URI, and this package does.
//
// A value that cannot start on the prefix's line (a run without white
// space too long to follow the prefix, or white space after the colon
// that fills most of the line) starts on the next line instead, after a
// fold, which unfolding turns into white space before the value.
//
// appendFolded returns false, and dst unchanged, if some line would be
// longer than maxLineLen.
func appendFolded(dst, prefix []byte, value string, uri bool, nl, final string) ([]byte, bool) {
	start := len(dst)
	dst = append(dst, prefix...)
	dst, ok := appendFoldedValue(dst, len(prefix), value, uri, nl)
	if !ok && len(prefix) <= maxLineLen {
		dst = append(dst[:start], prefix...)
		dst = append(dst, nl...)
		dst = append(dst, ' ')
		dst, ok = appendFoldedValue(dst, 1, value, uri, nl)
	}
	if !ok {
		return dst[:start], false
	}
	return append(dst, final...), true
}

// appendFoldedValue appends value, folded, to dst, whose last line is col
// octets long.
func appendFoldedValue(dst []byte, col int, value string, uri bool, nl string) ([]byte, bool) {
	if uri {
		return appendFoldedURI(dst, col, value, nl)
	}
	return appendFoldedText(dst, col, value, nl)
}

func isWSP(c byte) bool { return c == ' ' || c == '\t' }

// appendFoldedText folds a Content-Type at its single SPs, preferring
// those outside quoted-strings (between parameters); col is the column
// the value starts at.
func appendFoldedText(dst []byte, col int, v string, nl string) ([]byte, bool) {
	if col+len(v) <= foldWidth {
		return append(dst, v...), col+len(v) <= maxLineLen
	}
	quoted := quotedMask(v)
	isBreak := func(i int) bool {
		return v[i] == ' ' && !isWSP(v[i-1]) && !isWSP(v[i+1])
	}
	pos := 0
	for {
		avail := foldWidth - col
		if len(v)-pos <= avail {
			dst = append(dst, v[pos:]...)
			return dst, col+len(v)-pos <= maxLineLen
		}
		// The last break in the window, outside quotes if there is one,
		// else the first break after the window, else none.
		end, inside := -1, -1
		for i := min(pos+avail, len(v)-2); i > pos; i-- {
			if isBreak(i) {
				if !quoted[i] {
					end = i
					break
				}
				if inside < 0 {
					inside = i
				}
			}
		}
		if end < 0 {
			end = inside
		}
		if end < 0 {
			// The window is empty (avail <= 0) when the prefix fills the
			// first line; a break needs an octet before it.
			for i := max(pos+avail+1, pos+1); i < len(v)-1; i++ {
				if isBreak(i) {
					end = i
					break
				}
			}
		}
		if end < 0 {
			end = len(v)
		}
		if col+end-pos > maxLineLen {
			return dst, false
		}
		dst = append(dst, v[pos:end]...)
		if end == len(v) {
			return dst, true
		}
		dst = append(dst, nl...)
		col, pos = 0, end // the next line starts with the SP at end
	}
}

// quotedMask marks the octets of v inside quoted-strings.
func quotedMask(v string) []bool {
	m := make([]bool, len(v))
	in := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case in && c == '\\':
			m[i] = true
			if i+1 < len(v) {
				i++
				m[i] = true
			}
			continue
		case c == '"':
			in = !in
			m[i] = true
			continue
		}
		m[i] = in
	}
	return m
}

// appendFoldedURI folds a URI by inserting folding white space.
func appendFoldedURI(dst []byte, col int, v string, nl string) ([]byte, bool) {
	const minChunk = 8 // progress on a first line with a very long prefix
	// The first line holds at least the scheme and its ':', so that a
	// reader that does not drop white space from URIs still sees a URI,
	// unless the scheme is too long for a line: every URI folds. After a
	// long prefix the field's first line may pass foldWidth to keep a
	// scheme of up to foldWidth octets whole; a value that starts on a
	// continuation line (col 1, after its SP) has foldWidth-1 octets there.
	first := strings.IndexByte(v, ':') + 1
	if first > min(foldWidth, maxLineLen-col) || col == 1 && col+first > foldWidth {
		first = 0
	}
	for {
		// A URI of at most minChunk octets is not worth a line of its
		// own after a long prefix; it goes on the prefix's line.
		avail := max(foldWidth-col, minChunk, first)
		if len(v) <= avail {
			dst = append(dst, v...)
			return dst, col+len(v) <= maxLineLen
		}
		p := max(uriBreak(v, avail), first)
		if col+p > maxLineLen {
			return dst, false
		}
		dst = append(dst, v[:p]...)
		dst = append(dst, nl...)
		dst = append(dst, ' ')
		col, first = 1, 0
		v = v[p:]
	}
}

// uriBreak returns where to break v, at most avail octets in, with
// avail < len(v): before the last '?', '&' or '#' in the second half of
// the window, else at the end of the window moved back out of a %HH
// triplet.
func uriBreak(v string, avail int) int {
	for p := avail; p > avail/2; p-- {
		if c := v[p]; c == '?' || c == '&' || c == '#' {
			return p
		}
	}
	p := avail
	if v[p-1] == '%' {
		p--
	} else if p >= 2 && v[p-2] == '%' {
		p -= 2
	}
	return max(p, 1)
}
