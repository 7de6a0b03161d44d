// Package faultio has a reader and a writer that fail on purpose, for the
// module's fault-injection tests: a source cut at any offset that reports
// its error in each way an io.Reader may, a writer that fails, takes
// part of a write, or breaks the io.Writer contract, and the ways to read
// a source in other chunks (testing/iotest's among them) as one list.
package faultio

import (
	"bytes"
	"errors"
	"io"
	"testing/iotest"
)

// ErrFault is the error a Reader or Writer made by Mode.Cut or
// WriterMode.After fails with.
var ErrFault = errors.New("fault injected")

// Reader returns Data, in reads of at most Chunk octets (0: as many as
// fit), then fails with Err: for ever; or, with Once, once and then
// io.EOF; or, with Once and Resume, once and then the octets of After, as
// iotest.TimeoutReader goes on after its error. An io.Reader need not
// repeat an error, and a source that ends or goes on after one must not
// make data cut off by it look whole.
type Reader struct {
	Data, After  string
	Chunk        int
	Err          error
	Once, Resume bool

	failed bool
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.Data == "" {
		switch {
		case !r.failed || !r.Once:
			r.failed = true
			return 0, r.Err
		case r.Resume && r.After != "":
			n := copy(p, r.After)
			r.After = r.After[n:]
			return n, nil
		}
		return 0, io.EOF
	}
	if r.Chunk > 0 && len(p) > r.Chunk {
		p = p[:r.Chunk]
	}
	n := copy(p, r.Data)
	r.Data = r.Data[n:]
	return n, nil
}

// A Mode is a way a source reports a read error.
type Mode struct {
	Name         string
	Chunk        int
	Once, Resume bool
}

// Modes are the three ways a source reports a read error: every time it
// is read, once and then io.EOF, and once and then the data after it.
var Modes = []Mode{
	{Name: "repeated"},
	{Name: "once", Once: true},
	{Name: "once, then the rest", Once: true, Resume: true},
}

// Cut returns a Reader that gives data[:n] and then fails with ErrFault
// as m says.
func (m Mode) Cut(data string, n int) *Reader {
	return &Reader{Data: data[:n], After: data[n:], Chunk: m.Chunk, Err: ErrFault, Once: m.Once, Resume: m.Resume}
}

// Writer takes octets until it holds Limit, then fails a write that would
// go past it: with Err, taking nothing, or with Partial what fits; with
// Err nil, it takes what fits and returns that short count without an
// error, which the io.Writer contract forbids; with Over, it takes what
// fits and claims one octet more than it was given. With Once it fails
// only that write, and takes every later one whole.
//
// It panics when it is written to 1000 times after it stopped taking
// octets, so that a loop that never ends fails its test instead of
// hanging it. It has no method that a writer may be asked for (it is no
// io.StringWriter or io.ReaderFrom), so that every write is a Write.
type Writer struct {
	Limit         int
	Err           error
	Partial, Over bool
	Once          bool

	buf    bytes.Buffer
	faults int
}

func (w *Writer) Write(p []byte) (int, error) {
	room := max(w.Limit-w.buf.Len(), 0)
	if len(p) <= room || w.Once && w.faults > 0 {
		return w.buf.Write(p)
	}
	if w.faults++; w.faults > 1000 {
		panic("faultio: written to 1000 times after it stopped taking octets")
	}
	switch {
	case w.Over:
		w.buf.Write(p[:room])
		return len(p) + 1, nil
	case w.Err == nil || w.Partial:
		n, _ := w.buf.Write(p[:room])
		return n, w.Err
	}
	return 0, w.Err
}

// Bytes returns the octets w took.
func (w *Writer) Bytes() []byte { return w.buf.Bytes() }

// String returns the octets w took.
func (w *Writer) String() string { return w.buf.String() }

// Len returns the number of octets w took.
func (w *Writer) Len() int { return w.buf.Len() }

// A WriterMode is a way a Writer fails.
type WriterMode struct {
	Name          string
	Err           error
	Partial, Over bool
}

// WriterModes are the four ways a Writer fails: with ErrFault, with
// ErrFault after taking part of the write, with a short count and no
// error, and with a count past the write and no error.
var WriterModes = []WriterMode{
	{Name: "error", Err: ErrFault},
	{Name: "error after part of a write", Err: ErrFault, Partial: true},
	{Name: "short count, no error"},
	{Name: "count past the write, no error", Over: true},
}

// After returns a Writer that takes limit octets and then fails as m says.
func (m WriterMode) After(limit int) *Writer {
	return &Writer{Limit: limit, Err: m.Err, Partial: m.Partial, Over: m.Over}
}

// A Chunking reads a source in reads other than its own.
type Chunking struct {
	Name string
	Wrap func(io.Reader) io.Reader
}

// Chunkings read a source one octet at a time, half of each read, with
// its last data and io.EOF in one read, both of the first and the third,
// and with a read of no octets and no error before each read.
var Chunkings = []Chunking{
	{"one octet at a time", iotest.OneByteReader},
	{"half of each read", iotest.HalfReader},
	{"the last data with io.EOF", iotest.DataErrReader},
	{"one octet at a time, the last with io.EOF", func(r io.Reader) io.Reader { return iotest.DataErrReader(iotest.OneByteReader(r)) }},
	{"reads of no octets between", EmptyReads},
}

// EmptyReads returns a reader that reads r, each read after one that
// returns no octets and no error, which io.Reader allows.
func EmptyReads(r io.Reader) io.Reader { return &emptyReads{r: r} }

type emptyReads struct {
	r     io.Reader
	empty bool
}

func (e *emptyReads) Read(p []byte) (int, error) {
	if e.empty = !e.empty; e.empty {
		return 0, nil
	}
	return e.r.Read(p)
}
