// Package relay is the SMTP side of the mailgateway example: a go-smtp
// Backend that rewrites the Content-Type fields of every message it
// receives with package mailhdr, streaming, and hands the rewritten
// message on to a Deliver function: the next SMTP hop, a folder, or a
// writer.
package relay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
)

// Deliver hands on one rewritten message, read from msg, for the envelope
// sender from and recipients to.
type Deliver func(from string, to []string, msg io.Reader) error

// Backend is a go-smtp Backend that rewrites and delivers each message.
type Backend struct {
	// Options control the rewrite.
	Options mailhdr.Options
	// Deliver hands on each rewritten message.
	Deliver Deliver
	// Logf, if not nil, is told about each problem the rewrite reports
	// (one line each, then the number of those past
	// Options.MaxProblems or MaxReportBytes, which are only counted); the
	// message is delivered all the same, with the fields it could not
	// rewrite left as they were.
	Logf func(format string, args ...any)
}

// NewSession implements smtp.Backend.
func (b *Backend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &session{b: b}, nil
}

type session struct {
	b    *Backend
	from string
	to   []string
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

// Data rewrites the message as it arrives and delivers it.
func (s *session) Data(r io.Reader) error {
	if len(s.to) == 0 {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "no valid recipients"}
	}
	rr := mailhdr.NewReader(r, s.b.Options)
	if err := s.b.Deliver(s.from, s.to, rr); err != nil {
		return s.failed(err)
	}
	// A Deliver that stopped reading early must not cut the message: the
	// SMTP reader needs the rest consumed.
	if _, err := io.Copy(io.Discard, rr); err != nil {
		return s.failed(err)
	}
	rep := rr.Report()
	for i := range rep.Problems {
		s.logf("%v", &rep.Problems[i])
	}
	if rep.Omitted > 0 {
		s.logf("%d more problems not listed", rep.Omitted)
	}
	return nil
}

// logf tells Backend.Logf, if set, about the current message, after
// "message from SENDER: ".
func (s *session) logf(format string, args ...any) {
	if s.b.Logf != nil {
		s.b.Logf("message from %s: "+format, append([]any{printable(s.from)}, args...)...)
	}
}

// failed turns a delivery failure into the reply the sender gets. go-smtp
// sends the code of an *smtp.SMTPError returned as it is, and answers 554
// (permanent: the sender bounces the message) to anything else, wrapped
// errors included. So a reply from the next hop, or from reading the
// message (552 for one over the size limit), goes back as it came, and any
// other failure, such as a next hop that cannot be reached or a full disk,
// becomes 451, which has the sender try again later; its detail, which
// may name internal addresses and paths, goes to Logf only.
func (s *session) failed(err error) error {
	if se, ok := errors.AsType[*smtp.SMTPError](err); ok {
		return se
	}
	s.logf("delivering: %v", err)
	return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "delivery failed; try again later"}
}

func (s *session) Reset() {
	s.from, s.to = "", nil
}

func (s *session) Logout() error { return nil }

// SMTPDeliver returns a Deliver that sends each message to the SMTP
// server at addr (host:port), without TLS: a next hop on a trusted
// network, or on 127.0.0.1. The message is delivered once the hop has
// accepted it at the end of DATA; a QUIT that fails after that is not a
// failure.
func SMTPDeliver(addr string) Deliver {
	return func(from string, to []string, msg io.Reader) error {
		c, err := smtp.Dial(addr)
		if err != nil {
			return err
		}
		defer c.Close()
		if err := c.SendMail(from, to, msg); err != nil {
			return err
		}
		// The hop took responsibility for the message with its reply to
		// the end of DATA (RFC 5321 §4.1.1.4). Failing now would have the
		// sender try again and the hop receive the message twice.
		_ = c.Quit()
		return nil
	}
}

// DirDeliver returns a Deliver that writes each message to a new file
// in dir, named by the time it arrived and a counter, with the suffix
// .eml. A file is written under a temporary name and renamed when it is
// complete. dir must exist: DirDeliver does not make it (the mailgateway
// command does), and without it every message fails.
func DirDeliver(dir string) Deliver {
	var n atomic.Uint64
	return func(_ string, _ []string, msg io.Reader) error {
		name := fmt.Sprintf("%s-%d.eml", time.Now().UTC().Format("20060102T150405.000000000"), n.Add(1))
		tmp, err := os.CreateTemp(dir, ".incoming-*")
		if err != nil {
			return err
		}
		_, err = io.Copy(tmp, msg)
		err = errors.Join(err, tmp.Close())
		if err == nil {
			err = os.Rename(tmp.Name(), filepath.Join(dir, name))
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
		return err
	}
}

// WriterDeliver returns a Deliver that writes each message to w, after
// a line "=== message from <from> to ["to1" "to2"]" (the recipients
// Go-quoted, and the sender too if it is not printable ASCII), one
// message at a time. Each message is first spooled to a temporary file,
// so that a sender that stalls part-way holds up no other message. One
// refused part-way (over the size limit, or cut off by the sender) is
// written as far as it came: a line "=== message from <from> cut short:
// ERROR, not accepted" (on a line of its own) then says so.
func WriterDeliver(w io.Writer) Deliver {
	var mu sync.Mutex
	return func(from string, to []string, msg io.Reader) error {
		spool, err := os.CreateTemp("", "mailgateway-*")
		if err != nil {
			return err
		}
		defer os.Remove(spool.Name())
		defer spool.Close()
		_, err = io.Copy(spool, msg)
		if _, serr := spool.Seek(0, io.SeekStart); serr != nil {
			return errors.Join(err, serr)
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := fmt.Fprintf(w, "=== message from <%s> to %q\n", printable(from), to); err != nil {
			return err
		}
		if _, werr := io.Copy(w, spool); err == nil {
			err = werr
		}
		if err != nil {
			_, _ = fmt.Fprintf(w, "\n=== message from <%s> cut short: %v, not accepted\n", printable(from), err)
		}
		return err
	}
}

// printable returns an envelope address for a log line: as it is when it
// is printable ASCII, as addresses are, and Go-quoted otherwise, so that
// a sender cannot put a CR or a terminal escape sequence into a log.
// (go-smtp accepts such octets in a MAIL FROM domain.)
func printable(addr string) string {
	for i := 0; i < len(addr); i++ {
		if addr[i] <= ' ' || addr[i] >= 0x7f {
			return strconv.Quote(addr)
		}
	}
	return addr
}
