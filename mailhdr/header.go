package mailhdr

import (
	"bytes"
	"strings"
)

// startHeader begins the header block of a new entity at s.path.
func (s *scanner) startHeader() {
	s.state = inHeader
	s.h = header{start: s.off}
	s.field = s.field[:0]
	s.rep.Entities++
}

// stepHeader handles one header line, or one piece of a line longer than
// the input buffer.
func (s *scanner) stepHeader() error {
	line, complete, err := s.peekLine()
	if len(line) == 0 {
		return err
	}
	if !s.atLineStart {
		// A further piece of a long field line, maybe the last one, cut
		// off by the end of the input.
		s.headerPiece(line, complete)
		return nil
	}
	text, nl := lineEnd(line)
	if complete || err != nil {
		if d, ok := s.st.match(text); ok {
			s.flushField()
			if s.h.lines > 0 {
				s.problem(KindTruncatedHeader, s.path, s.off, "a delimiter before the empty line ending the header", nil)
			}
			s.applyDelimiter(d, len(line), nl)
			return nil
		}
	}
	if nl != "" {
		s.nl = nl
	}
	switch {
	case len(text) == 0 && complete:
		s.flushField()
		ok := s.addHeaderBytes(len(line))
		s.emit(line)
		s.atLineStart = true
		if ok {
			s.endHeader()
		}
		return nil
	case isWSP(line[0]):
		if s.h.field == fieldNone {
			if err != nil && !complete {
				s.otherLine(line, false) // cut off: the header is truncated
				return nil
			}
			return s.malformed("a continuation line with no field before it")
		}
	default:
		class, ok := classify(text)
		if !ok {
			if s.off == 0 && bytes.HasPrefix(line, []byte("From ")) {
				// An mbox envelope line before the message: not a field.
				s.otherLine(line, complete)
				return nil
			}
			if err != nil && !complete {
				// Cut off before its colon, maybe the start of a field's
				// name or the CR of the empty line: the header is
				// truncated, not malformed.
				s.otherLine(line, false)
				return nil
			}
			return s.malformed("a line that is not a header field")
		}
		s.flushField()
		s.h.field = class
		s.h.fieldStart = s.off
	}
	s.h.lines++
	s.headerPiece(line, complete)
	return nil
}

// headerPiece takes a line, or a piece of one, of the current field.
func (s *scanner) headerPiece(b []byte, complete bool) {
	s.atLineStart = complete
	if !s.addHeaderBytes(len(b)) {
		s.emit(b)
		return
	}
	switch s.h.field {
	case fieldCT, fieldCTE:
		if len(s.field)+len(b) > s.lim.field {
			s.problem(KindFieldTooLarge, s.path, s.h.fieldStart, "longer than the field limit; the entity is passed through", nil)
			s.write(s.field)
			s.field = s.field[:0]
			s.emit(b)
			s.opaque()
			return
		}
		s.field = append(s.field, b...)
		s.consume(len(b))
	default:
		s.emit(b)
	}
}

// addHeaderBytes counts n more header octets; past the limit it reports,
// writes out the held field, makes the entity opaque and returns false.
func (s *scanner) addHeaderBytes(n int) bool {
	s.h.size += n
	if s.h.size <= s.lim.header {
		return true
	}
	s.problem(KindHeaderTooLarge, s.path, s.h.start, "longer than the header limit; the entity is passed through", nil)
	s.write(s.field)
	s.field = s.field[:0]
	s.h.field = fieldNone
	s.opaque()
	return false
}

// opaque passes the rest of the current entity through unexamined; its
// parent's delimiters still end it.
func (s *scanner) opaque() {
	s.state = inBody
}

// otherLine takes a line of the header that belongs to no field as it
// is: an mbox envelope line, or a last line the end of the input cut off
// before any colon.
func (s *scanner) otherLine(line []byte, complete bool) {
	s.flushField()
	s.h.field = fieldOther
	s.headerPiece(line, complete)
	s.h.field = fieldNone
}

// malformed ends the header at a line that does not belong in it, which
// becomes the first line of the body (left unread).
func (s *scanner) malformed(why string) error {
	s.flushField()
	s.problem(KindMalformedHeader, s.path, s.off, why+"; the header ends there", nil)
	s.endHeader()
	return nil
}

// classify tells whether text starts a field (RFC 5322 §3.6.8: a name of
// printable ASCII other than ':', then ':'; white space before the colon
// is tolerated, as obsolete syntax allows) and which class it is.
func classify(text []byte) (fieldClass, bool) {
	colon := bytes.IndexByte(text, ':')
	if colon <= 0 {
		return fieldNone, false
	}
	name := trimRightWSP(text[:colon])
	if len(name) == 0 {
		// Only white space before the colon: a continuation line, which
		// stepHeader takes as one before it classifies a line, so that
		// this is unreachable from it; classify refuses it on its own
		// (TestClassify).
		return fieldNone, false
	}
	for _, c := range name {
		if c < 33 || c > 126 {
			return fieldNone, false
		}
	}
	switch {
	case equalFold(name, "Content-Type"):
		return fieldCT, true
	case equalFold(name, "Content-Transfer-Encoding"):
		return fieldCTE, true
	}
	return fieldOther, true
}

func equalFold(b []byte, s string) bool {
	return len(b) == len(s) && strings.EqualFold(string(b), s)
}

// flushField writes out the held field, rewritten if it is a Content-Type,
// and records what the structure needs from it.
func (s *scanner) flushField() {
	switch s.h.field {
	case fieldCT:
		var oc fieldOutcome
		s.scratch, oc = s.fr.rewrite(s.scratch[:0], s.field, s.nl)
		s.write(s.scratch)
		if oc.rewritten {
			s.rep.Rewritten++
		}
		if k, detail, err := oc.problem(true); k != 0 {
			s.problem(k, s.path, s.h.fieldStart, detail, err)
		}
		if !s.h.ctSeen {
			s.h.ctSeen, s.h.ct = true, oc.ct
		}
	case fieldCTE:
		s.write(s.field)
		if !s.h.cteSeen {
			var v []byte
			if i := bytes.IndexByte(s.field, ':'); i >= 0 {
				v = unfold(nil, s.field[i+1:], false)
			}
			s.h.cteSeen, s.h.cte = true, mechanism(v)
		}
	}
	s.field = s.field[:0]
	s.h.field = fieldNone
	// Do not keep a large field's buffers for the message: the held
	// field's, the rewritten field's (which a URI label makes up to
	// three times as long) and the unfolded label's.
	s.field = dropLarge(s.field)
	s.scratch = dropLarge(s.scratch)
	s.fr.scratch = dropLarge(s.fr.scratch)
}

// dropLarge returns b, or nil if its capacity is over 128 KiB, more than
// a field of the default MaxFieldBytes needs.
func dropLarge(b []byte) []byte {
	if cap(b) > 2*readBufSize {
		return nil
	}
	return b
}

// endHeader decides, from the header just read, how to read the body.
func (s *scanner) endHeader() {
	s.state = inBody
	ct := s.h.ct
	if !s.h.ctSeen {
		if t := s.st.top(); t != nil && t.multipart && t.digest && len(s.path) == t.pathLen+1 {
			ct = ctInfo{known: true, typ: "message", sub: "rfc822"} // RFC 2046 §5.1.5
		}
	}
	if !ct.known {
		return
	}
	switch {
	case ct.multipart():
		if !ct.usableBoundary() {
			s.problem(KindNoBoundary, s.path, s.h.start, "multipart without a usable boundary; body passed through", nil)
			return
		}
		if !s.mayDescend() {
			return
		}
		// structureOf copied the boundary of a long label.
		s.st.pushMultipart(ct.boundary, ct.sub, len(s.path))
	case ct.encapsulates():
		// RFC 2046 §5.2.1, RFC 6532 §3.5: only identity encodings can be
		// read as they stand; an encoded message passes through.
		switch s.h.cte {
		case "", "7bit", "8bit", "binary":
		default:
			s.problem(KindOpaqueMessage, s.path, s.h.start, "encoded message (Content-Transfer-Encoding other than 7bit, 8bit or binary); passed through unexamined", nil)
			return
		}
		if !s.mayDescend() {
			return
		}
		s.st.pushMessage(len(s.path))
		s.path = append(s.path, 0)
		s.startHeader()
	case ct.is("message", "partial"):
		s.problem(KindOpaqueMessage, s.path, s.h.start, "message/partial, a fragment of a message; passed through unexamined", nil)
	case ct.is("message", "external-body"):
		s.problem(KindOpaqueMessage, s.path, s.h.start, "message/external-body, whose body starts with the external body's header; passed through unexamined", nil)
	case ct.is("text", "rfc822-headers") || ct.is("message", "global-headers"):
		s.problem(KindOpaqueMessage, s.path, s.h.start, ct.typ+"/"+ct.sub+", a message header without its body; passed through unexamined", nil)
	}
}

func (s *scanner) mayDescend() bool {
	if s.st.depth() < s.lim.depth {
		return true
	}
	s.problem(KindTooDeep, s.path, s.h.start, "nested deeper than the depth limit; passed through", nil)
	return false
}
