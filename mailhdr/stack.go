package mailhdr

// level is one open container on the scanner's stack: a multipart whose
// delimiters end its parts, or a message/rfc822 or message/global part
// whose body is the encapsulated message.
type level struct {
	multipart bool
	digest    bool   // multipart/digest: parts default to message/rfc822
	boundary  string // multipart only
	// prevSame is the index+1 of the next open multipart further out with
	// the same boundary, 0 if none: a chain through the stack, so that
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
type stack struct {
	levels []level
	open   map[string]int // boundary -> index+1 of its innermost level
	nOpen  int            // open multiparts
}

func (s *stack) depth() int { return len(s.levels) }

func (s *stack) pushMultipart(boundary string, digest bool, pathLen int) {
	if s.open == nil {
		s.open = make(map[string]int)
	}
	idx := len(s.levels) + 1
	s.levels = append(s.levels, level{
		multipart:      true,
		digest:         digest,
		boundary:       boundary,
		prevSame:       s.open[boundary],
		innerMultipart: idx,
		pathLen:        pathLen,
	})
	s.open[boundary] = idx
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
		if lv.prevSame == 0 {
			delete(s.open, lv.boundary)
		} else {
			s.open[lv.boundary] = lv.prevSame
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
// close delimiter line (RFC 2046 §5.1.1: "--" boundary, optional
// trailing white space) of an open multipart. If two open multiparts
// match, as "--a--" does for boundaries "a--" and "a", the innermost
// wins.
func (s *stack) match(line []byte) (delimiter, bool) {
	if s.nOpen == 0 || len(line) < 3 || line[0] != '-' || line[1] != '-' {
		return delimiter{}, false
	}
	b := trimRightWSP(line[2:])
	best, close := 0, false
	if i, ok := s.open[string(b)]; ok {
		best = i
	}
	if n := len(b); n > 2 && b[n-1] == '-' && b[n-2] == '-' {
		if i, ok := s.open[string(b[:n-2])]; ok && i > best {
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
