package mailhdr

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// readBufSize is the scanner's input buffer: the unit in which bodies are
// copied, and the longest line a delimiter may be.
const readBufSize = 64 << 10

// maxBoundaryLen bounds a usable boundary: a delimiter line must fit in a
// line of RFC 5322 (998 octets); RFC 2046 itself allows 70.
const maxBoundaryLen = maxLineLen - 2

type scanState uint8

const (
	inHeader scanState = iota // reading an entity's header block
	inBody                    // passing a body through, watching for delimiters
)

type fieldClass uint8

const (
	fieldNone  fieldClass = iota // no field begun yet
	fieldOther                   // streamed through as read
	fieldCT                      // Content-Type, held until complete
	fieldCTE                     // Content-Transfer-Encoding, held
)

// header is what the scanner knows of the header block it is reading.
type header struct {
	start      int64 // input offset of the block
	size       int   // octets read
	lines      int
	field      fieldClass
	fieldStart int64
	ctSeen     bool
	ct         ctInfo
	cteSeen    bool
	cte        string // lower-case, white space trimmed
}

// scanner is the streaming rewriter: it reads a message line by line,
// copies every octet to out except the Content-Type fields it rewrites,
// and tracks the MIME structure with a stack of open multiparts and
// encapsulated messages. Memory is bounded by the input buffer, one held
// field and the stack; body octets are copied in buffer-sized runs.
type scanner struct {
	src stickyErr
	br  *bufio.Reader
	out io.Writer
	fr  *fieldRewriter
	lim limits
	rep Report
	log reportBuilder // lists problems in rep

	st    stack
	path  []int
	state scanState
	h     header
	// atLineStart: the next input octet starts a line. False inside a
	// line longer than the buffer, which is passed on in pieces, and
	// after a last line that the end of the input cut off (finish reads
	// a header cut off so).
	atLineStart bool
	off         int64  // input offset of the next octet
	nl          string // the last line ending seen in a header
	field       []byte // the held field
	scratch     []byte // output of the held field
	err         error  // sticky write error

	rewriteSigned bool // Options.RewriteSigned: examine signed parts too
}

func newScanner(src io.Reader, out io.Writer, o *Options) *scanner {
	s := &scanner{
		src:           stickyErr{r: src},
		out:           out,
		fr:            newFieldRewriter(o),
		lim:           o.limits(),
		rewriteSigned: o.RewriteSigned,
		atLineStart:   true,
		nl:            "\r\n",
	}
	s.br = bufio.NewReaderSize(&s.src, readBufSize)
	s.log = reportBuilder{rep: &s.rep, lim: s.lim}
	s.startHeader()
	return s
}

// stickyErr reads from r and, once r has returned an error, returns that
// error for ever after. bufio.Reader hands a read error out once, and a
// step that meets it with octets still to process (a line the error cut)
// processes them and leaves the error to the next read; an io.Reader need
// not repeat its error, and one that went on with io.EOF would have its
// error lost, the message taken as complete and a cut field rewritten.
type stickyErr struct {
	r   io.Reader
	err error
}

func (s *stickyErr) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.err = err
	return n, err
}

// step processes a bounded piece of input: one line or buffer of body,
// or one header line. It returns io.EOF after the end of the input has
// been processed, and any read or write error.
func (s *scanner) step() error {
	if s.err != nil {
		// No caller steps again after an error; a step that did would
		// read no more input (TestStepErrors).
		return s.err
	}
	var err error
	if s.state == inHeader {
		err = s.stepHeader()
	} else {
		err = s.stepBody()
	}
	if s.err != nil {
		return s.err
	}
	switch {
	case err == io.EOF:
		s.finish()
		if s.err != nil {
			return s.err
		}
	case err != nil:
		// A read error ends the message where it stands: a field still
		// held (it might have gone on) goes out as it was read, so the
		// output has every octet of the input read so far.
		s.passField()
	}
	return err
}

// passField writes out the held field as it was read, unrewritten.
func (s *scanner) passField() {
	s.write(s.field)
	s.field = s.field[:0]
	s.h.field = fieldNone
}

// emit writes b, then consumes it from the input; b may alias the input
// buffer.
func (s *scanner) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	if s.err == nil {
		_, s.err = s.out.Write(b)
	}
	s.consume(len(b))
}

func (s *scanner) consume(n int) {
	s.br.Discard(n) // n octets are buffered: Discard cannot fail
	s.off += int64(n)
}

func (s *scanner) write(b []byte) {
	if s.err == nil && len(b) > 0 {
		_, s.err = s.out.Write(b)
	}
}

func (s *scanner) problem(k Kind, path []int, off int64, detail string, err error) {
	s.log.add(Problem{Path: path, Kind: k, Offset: off, Detail: detail, Err: err})
}

// buffered returns the buffered input, reading until at least n octets
// are there or the input ends.
func (s *scanner) buffered(n int) ([]byte, error) {
	var err error
	if s.br.Buffered() < n {
		_, err = s.br.Peek(n)
	}
	buf, _ := s.br.Peek(s.br.Buffered())
	if len(buf) >= n {
		err = nil
	}
	return buf, err
}

// peekLine returns the next line with its LF, or, if the line is longer
// than the buffer, the buffer's worth of it with complete false; at the
// end of the input, the unterminated rest with err set.
func (s *scanner) peekLine() (line []byte, complete bool, err error) {
	searched := 0
	for {
		buf, _ := s.br.Peek(s.br.Buffered())
		if i := bytes.IndexByte(buf[searched:], '\n'); i >= 0 {
			return buf[:searched+i+1], true, nil
		}
		searched = len(buf)
		if len(buf) == s.br.Size() {
			return buf, false, nil
		}
		if _, err = s.br.Peek(len(buf) + 1); err != nil {
			buf, _ = s.br.Peek(s.br.Buffered())
			return buf, false, err
		}
	}
}

// lineEnd returns line without its line ending, and the ending.
func lineEnd(line []byte) ([]byte, string) {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		if n > 1 && line[n-2] == '\r' {
			return line[:n-2], "\r\n"
		}
		return line[:n-1], "\n"
	}
	return line, ""
}

// ---- bodies ----

var nlDashDash = []byte("\n--")

func (s *scanner) stepBody() error {
	if s.st.nOpen == 0 {
		// Nothing can end this body: pass the rest of the input through.
		buf, err := s.buffered(1)
		s.emit(buf)
		return err
	}
	if s.atLineStart {
		buf, err := s.buffered(2)
		if len(buf) >= 2 && buf[0] == '-' && buf[1] == '-' {
			return s.stepDashLine()
		}
		if err != nil {
			s.emit(buf)
			return err
		}
	}
	buf, err := s.buffered(1)
	if len(buf) == 0 {
		return err
	}
	// Only a line that starts with "--" can be a delimiter: copy up to the
	// next one, or up to the last line start in the buffer.
	if i := bytes.Index(buf, nlDashDash); i >= 0 {
		s.emit(buf[:i+1])
		s.atLineStart = true
		return nil
	}
	if j := bytes.LastIndexByte(buf, '\n'); j >= 0 {
		s.emit(buf[:j+1])
		s.atLineStart = true
		return nil
	}
	s.emit(buf)
	s.atLineStart = false
	return err
}

// stepDashLine handles a body line that starts with "--".
func (s *scanner) stepDashLine() error {
	line, complete, err := s.peekLine()
	if !complete && err == nil {
		// Longer than the buffer: not a delimiter (see maxBoundaryLen).
		s.emit(line)
		s.atLineStart = false
		return nil
	}
	text, nl := lineEnd(line)
	if d, ok := s.st.match(text); ok {
		s.applyDelimiter(d, len(line), nl)
		return nil
	}
	if b, ok := s.st.innermostBoundary(); ok && looksLikeDelimiter(text, b) {
		s.problem(KindBadDelimiter, s.path, s.off, "text after the delimiter of boundary "+quote(b)+"; kept as body", nil)
	}
	s.emit(line)
	s.atLineStart = complete
	if complete {
		return nil
	}
	return err
}

// looksLikeDelimiter reports whether text starts with "--"+boundary and
// then '-' or white space, which readers such as Go's mime/multipart take
// for the end of a part, but is not a delimiter line.
func looksLikeDelimiter(text []byte, boundary string) bool {
	if len(text) <= 2+len(boundary) || string(text[2:2+len(boundary)]) != boundary {
		return false
	}
	c := text[2+len(boundary)]
	return c == '-' || isWSP(c)
}

// applyDelimiter acts on a delimiter line of n octets (line ending nl)
// at the current offset: it closes the levels inside the multipart it
// belongs to, then begins the next part or, for a close delimiter, the
// epilogue.
func (s *scanner) applyDelimiter(d delimiter, n int, nl string) {
	for s.st.depth() > d.level+1 {
		lv := s.st.pop()
		if lv.multipart {
			s.problem(KindMissingDelimiter, s.path[:lv.pathLen], s.off, "closed by the delimiter of an enclosing multipart", nil)
		}
	}
	buf, _ := s.br.Peek(n)
	s.emit(buf)
	if nl != "" {
		s.nl = nl
	}
	s.atLineStart = true
	lv := s.st.top()
	s.path = s.path[:lv.pathLen]
	if d.close {
		s.st.pop()
		s.state = inBody // the epilogue
		return
	}
	lv.parts++
	s.path = append(s.path, lv.parts)
	if lv.signed && lv.parts == 1 && !s.rewriteSigned {
		// RFC 1847 §2.1: the signature covers this part as it stands,
		// header included; its own delimiters are left to be body text.
		s.problem(KindSigned, s.path, s.off, signedDetail, nil)
		s.state = inBody
		return
	}
	s.startHeader()
}

// finish reports what the end of the input leaves open.
func (s *scanner) finish() {
	if s.state == inHeader {
		if !s.atLineStart {
			// The input ends in the middle of a line: the field held then
			// is cut off and might have gone on (more parameters, a
			// longer value), so, as after a read error, it goes out as
			// it was read rather than rewritten from a part of it.
			s.passField()
			s.problem(KindTruncatedHeader, s.path, s.h.start, "the input ends inside the header", nil)
		} else {
			s.flushField()
		}
	}
	for s.st.depth() > 0 {
		lv := s.st.pop()
		if lv.multipart {
			s.problem(KindMissingDelimiter, s.path[:lv.pathLen], s.off, "the input ends before the close delimiter", nil)
		}
	}
}

// quote returns s, cut to 40 octets, as a Go string literal for a
// Problem's Detail. s may hold any octet (an RFC 2231 boundary decodes to
// control characters too), and problems go to logs and terminals, so
// control characters, invalid UTF-8 and non-printing characters are
// escaped.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
