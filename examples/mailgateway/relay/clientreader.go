package relay

import (
	"bytes"
	"errors"
	"io"

	"github.com/emersion/go-smtp"
)

// clientReader is the message as the client sends it; tooLong records
// that reading it failed on a line over the server's MaxLineLength, bare
// that it held a bare CR or LF.
//
// It fails with bareLineEnd at the first CR or LF that is not part of a
// CRLF, before the octet that shows it, so that nothing after it is
// handed on. (It sees the data as go-smtp's server hands it over, which
// drops a CR after a dot at the start of a line, as it drops the dot.)
// RFC 5321 §2.3.8 has an SMTP client send CR and LF only as CRLF, and
// this gateway is one to the next hop: go-smtp's server takes
// a bare CR or LF as data and its client sends a bare CR on as it is, so
// a next hop that took "<CR>.<CR>" for the end of the data would read
// what follows as commands of the gateway's own ("SMTP smuggling"). The
// gateway copies every octet but Content-Type fields, so it refuses such
// a message rather than mend it.
//
// abandoned records that reading it failed with smtp.ErrDataReset, or
// with io.ErrClosedPipe after Logout closed it (see waitData): the client
// gave up on a message it was sending with BDAT; got, that some octet of
// the message had arrived.
//
// With max above 0, it also fails with smtp.ErrTooLongLine (and records
// tooLong) at the first line longer than max octets with its CRLF, before
// the octet that makes it so, as go-smtp's server does for DATA with its
// MaxLineLength: go-smtp lifts that limit for BDAT chunks (RFC 3030),
// and the gateway refuses a message with such a line however it came.
type clientReader struct {
	r         io.Reader
	max       int
	tooLong   bool
	bare      bool
	abandoned bool
	got       bool
	cr        bool // the last octet handed on was a CR
	line      int  // octets handed on since the last LF
}

func (c *clientReader) Read(p []byte) (int, error) {
	if c.bare {
		return 0, bareLineEnd
	}
	if c.tooLong {
		return 0, smtp.ErrTooLongLine
	}
	n, err := c.r.Read(p)
	if errors.Is(err, smtp.ErrTooLongLine) {
		c.tooLong = true
	}
	if errors.Is(err, smtp.ErrDataReset) || errors.Is(err, io.ErrClosedPipe) {
		c.abandoned = true
	}
	if n > 0 {
		c.got = true
	}
	if i, serr := c.scan(p[:n]); i >= 0 {
		if serr == bareLineEnd {
			c.bare = true
		} else {
			c.tooLong = true
		}
		return i, serr
	}
	if err == io.EOF && c.cr {
		c.bare = true
		return n, bareLineEnd
	}
	return n, err
}

// scan returns the index in p of the octet that shows a bare CR or LF
// (the LF itself, or the octet after a CR that is not an LF) with
// bareLineEnd, or of the octet that makes a line longer than c.max octets
// with its CRLF (the one that brings the octets since the last LF, its CR
// included, to c.max, as go-smtp's lineLimitReader counts) with
// smtp.ErrTooLongLine, whichever comes first; or -1. It records in c.cr
// whether p ends with a CR, and in c.line the octets since the last LF.
// It looks for the next CR with bytes.IndexByte and makes sure no LF
// comes before it: two vectorised scans per line, four times as fast as
// a test per octet on lines of 78 octets (BenchmarkClientReader).
func (c *clientReader) scan(p []byte) (int, error) {
	for i := 0; i < len(p); {
		if c.cr {
			if p[i] != '\n' {
				return i, bareLineEnd
			}
			c.cr, c.line = false, 0
			i++
			continue
		}
		rest := p[i:]
		cr := bytes.IndexByte(rest, '\r')
		if cr < 0 {
			cr = len(rest)
		}
		lf := bytes.IndexByte(rest[:cr], '\n')
		seg := cr // the octets of the line in rest, its CR included
		switch {
		case lf >= 0:
			seg = lf
		case cr < len(rest):
			seg = cr + 1
		}
		if c.max > 0 && c.line+seg >= c.max {
			return i + c.max - c.line - 1, smtp.ErrTooLongLine
		}
		if lf >= 0 {
			return i + lf, bareLineEnd
		}
		c.line += seg
		if cr == len(rest) {
			break
		}
		c.cr = true
		i += cr + 1
	}
	return -1, nil
}
