package mailhdr

import "strings"

// level is one open container on the scanner's stack: a multipart whose
// delimiters end its parts, or a message/rfc822 or message/global part
// whose body is the encapsulated message.
type level struct {
	multipart bool
	digest    bool   // multipart/digest: parts default to message/rfc822
	signed    bool   // multipart/signed: its signature covers part 1
	boundary  string // multipart only, as declared
	// prevSame is the index+1 of the next open multipart further out with
	// the same boundary key, 0 if none: a chain through the stack, so that
	// pushing and popping a boundary stay O(1).
	prevSame int
	// innerMultipart is the index+1 of the innermost multipart at or
	// below this level, 0 if none.
	innerMultipart int
	// pathLen is the length of the path of the entity this level belongs
	// to; its children are numbered at path[pathLen].
	pathLen int
	parts   int // parts begun so far (multipart)
}

// stack holds the open levels and indexes the open boundaries, so that a
// line is matched against every open multipart with one map look-up
// whatever the depth, and an outer delimiter closes the inner levels in
// time proportional to their number (each level is popped once).
//
// A boundary is indexed by its key, the boundary without trailing white
// space: RFC 2046 forbids a boundary ending in white space, but one is
// sometimes declared, and its delimiter lines then end in white space,
// which a delimiter line may have as transport padding anyway.
type stack struct {
	levels []level
	open   map[string]int // boundary key -> index+1 of its innermost level
	nOpen  int            // open multiparts
}

// boundaryKey returns the key a boundary is indexed by: a substring of
// it, so that pushing and popping a multipart allocate nothing.
func boundaryKey(boundary string) string {
	return strings.TrimRight(boundary, " \t")
}

func (s *stack) depth() int { return len(s.levels) }

// pushMultipart opens a multipart of the lower-case subtype sub.
func (s *stack) pushMultipart(boundary, sub string, pathLen int) {
	if s.open == nil {
		s.open = make(map[string]int)
	}
	idx := len(s.levels) + 1
	key := boundaryKey(boundary)
	s.levels = append(s.levels, level{
		multipart:      true,
		digest:         sub == "digest",
		signed:         sub == "signed",
		boundary:       boundary,
		prevSame:       s.open[key],
		innerMultipart: idx,
		pathLen:        pathLen,
	})
	s.open[key] = idx
	s.nOpen++
}

func (s *stack) pushMessage(pathLen int) {
	inner := 0
	if n := len(s.levels); n > 0 {
		inner = s.levels[n-1].innerMultipart
	}
	s.levels = append(s.levels, level{innerMultipart: inner, pathLen: pathLen})
}

// pop removes the innermost level and returns it.
func (s *stack) pop() level {
	n := len(s.levels)
	lv := s.levels[n-1]
	s.levels = s.levels[:n-1]
	if lv.multipart {
		if key := boundaryKey(lv.boundary); lv.prevSame == 0 {
			delete(s.open, key)
		} else {
			s.open[key] = lv.prevSame
		}
		s.nOpen--
	}
	return lv
}

// top returns the innermost level, or nil.
func (s *stack) top() *level {
	if len(s.levels) == 0 {
		return nil
	}
	return &s.levels[len(s.levels)-1]
}

// innermostBoundary returns the boundary of the innermost open multipart.
func (s *stack) innermostBoundary() (string, bool) {
	t := s.top()
	if t == nil || t.innerMultipart == 0 {
		// No multipart open. The scanner asks only with one open
		// (stepBody checks nOpen), and every level above an open multipart
		// has it as innerMultipart, so it gets true; the method keeps its
		// contract for any stack (TestInnermostBoundary).
		return "", false
	}
	return s.levels[t.innerMultipart-1].boundary, true
}

// delimiter is a delimiter line matched against the stack.
type delimiter struct {
	level int  // index of the multipart it belongs to
	close bool // a close delimiter ("--" boundary "--")
}

// match reports whether line (without its line ending) is a delimiter or
// close delimiter line (RFC 2046 §5.1.1: "--" boundary, optional "--" for
// a close delimiter, optional trailing white space) of an open multipart.
// The boundary is the one declared, trailing white space included. If
// two open multiparts match, as "--a--" does for boundaries "a--" and
// "a", the innermost wins; of open multiparts whose boundaries differ
// only in trailing white space, only the innermost is tried.
func (s *stack) match(line []byte) (delimiter, bool) {
	if s.nOpen == 0 || len(line) < 3 || line[0] != '-' || line[1] != '-' {
		return delimiter{}, false
	}
	rest := line[2:]
	b := trimRightWSP(rest)
	best, close := 0, false
	if i, ok := s.open[string(b)]; ok && hasPrefix(rest, s.levels[i-1].boundary) {
		best = i
	}
	if n := len(b); n > 2 && b[n-1] == '-' && b[n-2] == '-' {
		c := b[:n-2]
		if i, ok := s.open[string(trimRightWSP(c))]; ok && i > best && string(c) == s.levels[i-1].boundary {
			best, close = i, true
		}
	}
	if best == 0 {
		return delimiter{}, false
	}
	return delimiter{level: best - 1, close: close}, true
}

func trimRightWSP(b []byte) []byte {
	for len(b) > 0 && isWSP(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// hasPrefix reports whether b starts with p.
func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}
