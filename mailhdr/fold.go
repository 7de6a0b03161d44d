package mailhdr

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
// appendFolded returns false, and dst unchanged, if some line would be
// longer than maxLineLen.
func appendFolded(dst, prefix []byte, value string, uri bool, nl, final string) ([]byte, bool) {
	start := len(dst)
	dst = append(dst, prefix...)
	var ok bool
	if uri {
		dst, ok = appendFoldedURI(dst, len(prefix), value, nl)
	} else {
		dst, ok = appendFoldedText(dst, len(prefix), value, nl)
	}
	if !ok {
		return dst[:start], false
	}
	return append(dst, final...), true
}

func isWSP(c byte) bool { return c == ' ' || c == '\t' }

// appendFoldedText folds a Content-Type at its single SPs; col is the
// column the value starts at.
func appendFoldedText(dst []byte, col int, v string, nl string) ([]byte, bool) {
	if col+len(v) <= foldWidth {
		return append(dst, v...), col+len(v) <= maxLineLen
	}
	word := 0 // start of the current unbroken run
	first := true
	emit := func(end int) bool {
		w := v[word:end]
		if first {
			first = false
		} else if col+1+len(w) > foldWidth {
			dst = append(dst, nl...)
			col = 0
		}
		if word > 0 {
			dst = append(dst, ' ')
			col++
		}
		dst = append(dst, w...)
		col += len(w)
		return col <= maxLineLen
	}
	for i := 1; i+1 < len(v); i++ {
		if v[i] == ' ' && !isWSP(v[i-1]) && !isWSP(v[i+1]) {
			if !emit(i) {
				return dst, false
			}
			word = i + 1
		}
	}
	return dst, emit(len(v))
}

// appendFoldedURI folds a URI by inserting folding white space.
func appendFoldedURI(dst []byte, col int, v string, nl string) ([]byte, bool) {
	const minChunk = 8 // progress on a first line with a very long prefix
	for {
		avail := foldWidth - col
		if len(v) <= avail {
			dst = append(dst, v...)
			return dst, col+len(v) <= maxLineLen
		}
		avail = max(avail, minChunk)
		p := uriBreak(v, avail)
		if col+p > maxLineLen {
			return dst, false
		}
		dst = append(dst, v[:p]...)
		dst = append(dst, nl...)
		dst = append(dst, ' ')
		col = 1
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
