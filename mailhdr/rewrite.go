package mailhdr

import (
	"bufio"
	"bytes"
	"io"
	"slices"

	"github.com/cturi/cturi/internal/checkedio"
)

// Rewrite copies the message read from src to dst, rewriting every
// Content-Type field, of the message and of every part it can reach, as
// opts.To says. Every other octet is copied unchanged: the other fields,
// their order, folding and case, line endings (CRLF, LF or mixed, each
// line keeps its own), preambles, epilogues, bodies and delimiters.
//
// Rewrite descends into multiparts, Options.MaxDepth levels deep, and
// into message/rfc822 and message/global parts whose
// Content-Transfer-Encoding is 7bit, 8bit, binary (in any case, with any
// comments around it) or absent; other parts' bodies are copied as they
// are, and encoded messages, message/partial, message/external-body,
// text/rfc822-headers and message/global-headers, whose bodies hold
// message headers, are reported (KindOpaqueMessage). The part a
// multipart/signed signs, and the parts in it, are copied unexamined and
// reported (KindSigned), unless Options.RewriteSigned. A
// multipart's boundary is read from whichever form of its Content-Type is
// a Content-Type: the field's value, or its mapping when the value is a
// URI label; it is read as Go's mime.ParseMediaType reads it, RFC 2231
// forms (boundary*0=, boundary*=) included. A field is rewritten only if
// its rewritten form gives its body the same structure
// (KindStructureChange).
//
// Malformed input is copied, never refused: the Report lists each
// Content-Type that was not rewritten and each part of the message that
// was passed through unexamined, and why. The error is a read or write
// error, or one wrapping ErrUnknownTarget for an Options.To that names
// no Target (then nothing is read or written). After a read or write
// error the Report covers the input read so far, and after a read error
// dst has the output of that input, as a Reader returns it (a
// Content-Type field still being read, which might have gone on, as it
// was read). A dst that takes fewer octets than it is given without an
// error fails the rewrite with io.ErrShortWrite, as io.Copy would.
//
// Memory does not depend on the size of the message: bodies are copied
// through a 64 KiB buffer, and only Content-Type and
// Content-Transfer-Encoding fields are held (up to Options.MaxFieldBytes).
// Time is linear in the size of the input, whatever its nesting.
//
// Rewrite panics if dst or src is nil, before it reads or writes
// anything.
func Rewrite(dst io.Writer, src io.Reader, opts Options) (Report, error) {
	switch {
	case dst == nil:
		panic("mailhdr: Rewrite: nil dst")
	case src == nil:
		panic("mailhdr: Rewrite: nil src")
	}
	if err := opts.check(); err != nil {
		return Report{}, err
	}
	bw := bufio.NewWriterSize(&checkedio.Writer{W: dst}, readBufSize)
	s := newScanner(src, bw, &opts)
	for {
		err := s.step()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A read error: dst gets what was read before it, as a
			// Reader returns it (after a write error Flush fails too).
			bw.Flush()
			return s.rep, err
		}
	}
	return s.rep, bw.Flush()
}

// Reader is the rewritten message read from a source message: reading it
// returns what Rewrite would write. It plugs a rewrite into a pipeline
// that takes an io.Reader, such as go-smtp's Session.Data or
// http.Request.Body. Make one with NewReader: the zero Reader has no
// source, and its methods panic. A Reader is not safe for concurrent
// use: call Report from the goroutine that reads, or once it has done.
type Reader struct {
	s   *scanner
	buf bytes.Buffer // output the scanner wrote and Read has not returned
	err error        // error to return once buf is drained
}

// NewReader returns a Reader of the message read from src, rewritten as
// opts says. If opts.To is not a Target, Read returns an error wrapping
// ErrUnknownTarget without reading src. NewReader panics if src is nil.
func NewReader(src io.Reader, opts Options) *Reader {
	if src == nil {
		panic("mailhdr: NewReader: nil src")
	}
	r := &Reader{err: opts.check()}
	r.s = newScanner(src, &r.buf, &opts)
	return r
}

// Read reads rewritten octets into p. It returns io.EOF after the whole
// rewritten message, and a read error of the source as it meets it.
func (r *Reader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.buf.Cap() > 2*readBufSize {
			// Emptied after a large rewritten field: not kept for
			// the rest of the message (see flushField).
			r.buf = bytes.Buffer{}
		}
		r.advance()
	}
	return r.buf.Read(p)
}

// advance runs the scanner one step.
func (r *Reader) advance() {
	if err := r.s.step(); err != nil {
		r.err = err
	}
}

// WriteTo writes the rest of the rewritten message to w without an
// intermediate copy; io.Copy uses it. After an error writing to w, every
// later Read or WriteTo returns that error, since the octets w did not
// take are lost, unless the error came writing output that an earlier
// Read left buffered: a Read then goes on from the first octet w did not
// take.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	cw := &checkedio.Writer{W: w}
	if _, err := r.buf.WriteTo(cw); err != nil {
		return cw.N, err
	}
	if r.err != nil {
		if r.err == io.EOF {
			return cw.N, nil
		}
		return cw.N, r.err
	}
	bw := bufio.NewWriterSize(cw, readBufSize)
	r.s.out = bw
	defer func() { r.s.out = &r.buf }()
	for {
		err := r.s.step()
		if err == nil {
			continue
		}
		r.err = err
		if ferr := bw.Flush(); ferr != nil {
			r.err = ferr
			return cw.N, ferr
		}
		if err == io.EOF {
			return cw.N, nil
		}
		return cw.N, err
	}
}

// Report returns what the rewrite did so far; it is complete once Read
// has returned io.EOF, or WriteTo (which io.Copy calls) has returned.
// The Report is the caller's: its Problems, and their Paths, are copies,
// so that a caller who appends to them, sorts them or edits one, and the
// Reader listing more problems later, never change one another's.
func (r *Reader) Report() Report {
	rep := r.s.rep
	rep.Problems = cloneProblems(rep.Problems)
	return rep
}

// cloneProblems returns a copy of ps whose Paths are copies too, all in
// one array, each with no spare capacity (an append reallocates instead
// of writing into the next Path). It allocates only when there are
// problems, which is rare for mail that maps.
func cloneProblems(ps []Problem) []Problem {
	if len(ps) == 0 {
		return ps[:0:0] // nil stays nil; no capacity to append into
	}
	ps = slices.Clone(ps)
	n := 0
	for _, p := range ps {
		n += len(p.Path)
	}
	paths := make(Path, n)
	for i, p := range ps {
		if p.Path == nil {
			continue // nil stays nil, as Path{} stays empty
		}
		k := copy(paths, p.Path)
		ps[i].Path, paths = paths[:k:k], paths[k:]
	}
	return ps
}
