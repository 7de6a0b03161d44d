// Package checkedio holds a writer that holds another to the io.Writer
// contract, as io.Copy does its destination.
//
// bufio.Writer trusts the counts its writer returns: it writes a slice
// longer than its buffer straight to that writer, writes the rest again
// after a short count without an error (for ever, if the writer takes
// nothing), and slices past the end of its data after a count larger than
// it was given. bytes.Buffer.WriteTo panics on such a count. A Writer
// between them and a writer from outside the module turns such counts
// into errors, so that output is neither lost unseen nor a loop or a
// panic.
package checkedio

import (
	"errors"
	"io"
)

// ErrInvalidWrite is the error for a writer that claims to have written
// fewer than no octets, or more than it was given (io.Copy's error for
// the same has the same text).
var ErrInvalidWrite = errors.New("invalid write result")

// Writer writes to W and counts the octets W takes in N.
type Writer struct {
	W io.Writer
	N int64
}

// Write writes p to W. A short count without an error becomes
// io.ErrShortWrite, and a count out of range becomes no octets and
// ErrInvalidWrite (or W's own error, if it returned one).
func (c *Writer) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	switch {
	case n < 0 || n > len(p):
		n = 0
		if err == nil {
			err = ErrInvalidWrite
		}
	case n < len(p) && err == nil:
		err = io.ErrShortWrite
	}
	c.N += int64(n)
	return n, err
}
