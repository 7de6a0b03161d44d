// Package relay is the SMTP side of the mailgateway example: a go-smtp
// Backend that rewrites the Content-Type fields of every message it
// receives with package mailhdr, streaming, and hands the rewritten
// message on to a Deliver function: the next SMTP hop, a folder, or a
// writer.
//
// As RFC 5321 §4.4 requires of an SMTP server that receives a message,
// for relay or for delivery, the Backend puts a Received field of its
// own at the top of each message before it hands it on, whatever the
// Deliver; and, as §6.3 has servers detect loops, it counts the Received
// fields a message arrives with and refuses one with too many (554
// 5.4.6). The rewrite itself (mailhdr.NewReader) changes nothing but
// Content-Type fields: what Deliver reads is the Received field, then
// the rewritten message. (A message whose first line is a continuation
// line has no header as mailhdr reads it: an empty line after the
// Received field keeps it all body, as the line would otherwise continue
// the Received field and make the lines after it header fields.)
//
// Envelope addresses are taken only as local@domain with a dot-atom local
// part of ASCII (and the null sender), so that each is handed on, and
// written into a trace field, as the client meant it; others get 553. A
// message with a CR or LF that is not part of a CRLF gets 554 5.6.0, and
// nothing of it after that octet is handed on (RFC 5321 §2.3.8; see
// clientReader).
//
// A server that shuts down calls Drain, so that its sessions with no
// message under way are answered 421 and closed rather than waited for.
package relay

import (
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
)

// Deliver hands on one message, read from msg, for the envelope sender
// from and recipients to. From a Backend, msg is the Backend's Received
// field, then the rewritten message. A Backend calls its Deliver from
// each session's goroutine, so calls for different sessions run
// concurrently; the Delivers this package makes are safe for that.
type Deliver func(from string, to []string, msg io.Reader) error

// Backend is a go-smtp Backend that rewrites and delivers each message.
type Backend struct {
	// Options control the rewrite.
	Options mailhdr.Options
	// Deliver hands on each message: the Backend's Received field, then
	// the rewritten message.
	Deliver Deliver
	// Logf, if not nil, is told, one line each, about each problem the
	// rewrite reports (then the number of those past Options.MaxProblems
	// or MaxReportBytes, which are only counted; the message is delivered
	// all the same, with the fields it could not rewrite left as they
	// were), and about what became of each message: delivered (to whom,
	// and how many fields were rewritten), or refused or failed, and why.
	// Every line starts "message from SENDER: ". Like Deliver, it is
	// called from several sessions at once.
	Logf func(format string, args ...any)
	// MaxHops is the number of Received fields at which a message is
	// refused, as caught in a routing loop, with 554 5.4.6 (permanent,
	// so that the sender does not try again), before anything of it is
	// delivered. They are counted in the first MaxTraceBytes of the
	// header. 0 or less means DefaultMaxHops.
	MaxHops int
	// Now, if not nil, gives the time written in the Received field;
	// time.Now otherwise.
	Now func() time.Time

	drain drainState
}

func (b *Backend) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Backend) maxHops() int {
	if b.MaxHops > 0 {
		return b.MaxHops
	}
	return DefaultMaxHops
}

// NewSession implements smtp.Backend. c may be nil (a session used
// without a connection): its Received field then names no client.
func (b *Backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s := &session{b: b, conn: c, resets: make(chan struct{})}
	b.opened(s)
	return s, nil
}

type session struct {
	b    *Backend
	conn *smtp.Conn

	// mu guards the envelope, running, resets and loggedOut. For a
	// message sent with BDAT (RFC 3030), go-smtp (v0.25.1) runs Data in
	// a goroutine of its own, and when the client abandons the message
	// (RSET, a new EHLO, a chunk over the size limit, a closed
	// connection) it calls Reset or Logout at once, and reads the next
	// MAIL and RCPT, while that Data may still be running, or may not
	// have begun yet (see Data).
	mu   sync.Mutex
	from string
	to   []string
	// esmtp: the client used a service extension in this transaction,
	// so it greeted with EHLO (go-smtp does not tell which greeting a
	// client used).
	esmtp bool
	// origin: what the Received field tells of the connection, as it
	// was at MAIL (see origin).
	origin origin
	// running holds a channel for each Data under way, closed when it
	// returns, with the reader it was given (see waitData). There may be
	// two: a late one that go-smtp started for an abandoned message, and
	// the next message's.
	running map[chan struct{}]io.Reader
	// resets is closed when Reset or Logout begins, and replaced after
	// a Reset: a Data whose message the client abandoned waits for it
	// (see Data). loggedOut: Logout has closed it for good.
	resets    chan struct{}
	loggedOut bool

	// inMessage: from an accepted MAIL to the next Reset, which go-smtp
	// calls after DATA and for RSET (guarded by b.drain.mu; see Drain).
	inMessage bool
}

// transaction is one message as Data took it from its session: the
// envelope, which Data reads no more from the session, and the Received
// field.
type transaction struct {
	s      *session
	from   string
	to     []string
	esmtp  bool
	origin origin
}

// Mail takes the null reverse-path or a plain address (see badAddress).
func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	if !isReversePath(from) {
		return badAddress(smtp.EnhancedCode{5, 1, 7}, "sender")
	}
	if err := s.messageBegins(); err != nil {
		return err
	}
	o := originOf(s.conn)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.from = from
	s.esmtp = usedExtension(opts)
	s.origin = o
	return nil
}

// Rcpt takes a plain address (see badAddress).
func (s *session) Rcpt(to string, opts *smtp.RcptOptions) error {
	if !isMailbox(to) {
		return badAddress(smtp.EnhancedCode{5, 1, 3}, "recipient")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.to = append(s.to, to)
	s.esmtp = s.esmtp || usedRcptExtension(opts)
	return nil
}

// Data counts the Received fields of the message, refusing it if there
// are too many, then rewrites it as it arrives and delivers it, after a
// Received field of its own.
//
// It takes the envelope and the Received field before it reads the
// message: for BDAT, go-smtp runs it in a goroutine of its own, which it
// does not wait for when the client abandons the message (see session.mu
// and waitData); a chunk of some octets is handed over only once Data
// reads it, so the envelope is still the message's then.
//
// But that goroutine starts Data only once it has the connection's lock,
// which go-smtp holds while it calls Reset: after a first chunk of no
// octets ("BDAT 0"), Data may begin after the Reset that abandoned its
// message, and after the next MAIL and RCPT. Its reader fails at once
// then (go-smtp closed it before Reset), and it takes for its envelope
// nothing, or the next message's: such a Data logs nothing (see failed).
// And since go-smtp takes the result of a BDAT message's Data from a
// field of the connection that the next BDAT message's first chunk
// replaces, a Data whose message was abandoned returns only once a Reset
// or Logout has begun since it began: go-smtp is in Reset then, after the
// next message's reply if there is one, not waiting for a reply. (Only
// the moment between Data's return and go-smtp's taking its result is
// still unguarded: see docs/mail.md.)
func (s *session) Data(r io.Reader) error {
	s.mu.Lock()
	t := &transaction{s: s, from: s.from, to: s.to, esmtp: s.esmtp || chunked(r), origin: s.origin}
	done, resets := make(chan struct{}), s.resets
	if s.running == nil {
		s.running = make(map[chan struct{}]io.Reader)
	}
	s.running[done] = r
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, done)
		s.mu.Unlock()
		close(done)
	}()
	err := t.data(r)
	if err == abandoned && resets != nil {
		<-resets
	}
	return err
}

func (t *transaction) data(r io.Reader) error {
	s := t.s
	if len(t.to) == 0 {
		if s.conn != nil {
			// go-smtp calls Data only after an accepted RCPT: this one
			// began after its message's Reset (see Data).
			return abandoned
		}
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "no valid recipients"}
	}
	trace := t.received()
	limit := s.b.maxHops()
	src := &clientReader{r: r, max: s.maxLineLength()}
	hops, continued, r := countHops(src, MaxTraceBytes, limit)
	if src.bare || src.abandoned {
		// A bare CR or LF in the header, or a message the client gave
		// up on before its header ended: refused before anything is
		// handed on (no next hop dialled, no file begun).
		return t.failed(bareLineEnd, src)
	}
	if hops >= limit {
		t.logf("refused: %d Received fields, a routing loop (the limit is %d)", hops, limit)
		return routingLoop
	}
	if continued {
		trace += "\r\n" // the message is all body: keep it so
	}
	// The rewrite reads the message as it goes on, Received field
	// included, so that it reads the header where the next hop will: a
	// first line "From ..." is no mbox envelope line then, but the end of
	// the header.
	rr := mailhdr.NewReader(io.MultiReader(strings.NewReader(trace), r), s.b.Options)
	if err := s.b.Deliver(t.from, t.to, rr); err != nil {
		return t.failed(err, src)
	}
	// A Deliver that stopped reading early must not cut the message: the
	// SMTP reader needs the rest consumed.
	if _, err := io.Copy(io.Discard, rr); err != nil {
		return t.failed(err, src)
	}
	rep := rr.Report()
	for _, p := range rep.Problems {
		t.logf("%v", p)
	}
	if rep.Omitted > 0 {
		t.logf("%d more not listed", rep.Omitted)
	}
	t.logf("delivered to %q; Content-Type fields rewritten: %d", t.to, rep.Rewritten)
	return nil
}

// maxLineLength is the server's MaxLineLength (0 without a server: no
// limit), which clientReader applies to BDAT chunks too.
func (s *session) maxLineLength() int {
	if s.conn == nil || s.conn.Server() == nil {
		return 0
	}
	return s.conn.Server().MaxLineLength
}

// logf tells Backend.Logf, if set, about the message, after
// "message from SENDER: ", where the null sender of a bounce is "<>".
func (t *transaction) logf(format string, args ...any) {
	if t.s.b.Logf != nil {
		sender := printable.Token(t.from)
		if t.from == "" {
			sender = "<>"
		}
		t.s.b.Logf("message from %s: "+format, append([]any{sender}, args...)...)
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
//
// A message with a bare CR or LF (src.bare), or with a line over the
// server's MaxLineLength (src.tooLong: reading it from the client failed
// with smtp.ErrTooLongLine, a plain error, from go-smtp for DATA and from
// clientReader for BDAT), is
// answered 554 5.6.0, since the same message would fail the same way
// every time it was sent again. The error alone does not tell: go-smtp's
// client returns the same one for a next hop's over-long reply, which is
// no fault of the message.
//
// A message the client abandoned (src.abandoned: RSET, a new EHLO,
// STARTTLS or a closed connection while it sent the message with BDAT)
// has no one to answer; it is logged as such if any of it arrived
// (src.got). Of one that failed at the first read, the envelope may be
// another message's (see Data).
func (t *transaction) failed(err error, src *clientReader) error {
	if src.bare {
		t.logf("refused: %s", bareLineEnd.Message)
		return bareLineEnd
	}
	if src.abandoned {
		if src.got {
			t.logf("not delivered: the client abandoned the message (RSET, EHLO, STARTTLS or a closed connection)")
		}
		return abandoned
	}
	if se, ok := errors.AsType[*smtp.SMTPError](err); ok {
		// The size limit, or the next hop's own reply.
		t.logf("not delivered: %s", printable.Text(se.Error()))
		return se
	}
	if src.tooLong {
		t.logf("refused: %s (%s)", lineTooLong.Message, printable.Text(err.Error()))
		return lineTooLong
	}
	t.logf("delivering: %s", printable.Text(err.Error()))
	return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "delivery failed; try again later"}
}

// badAddress is the reply to an envelope address that is not local@domain
// with a dot-atom local part of ASCII and a domain name or address
// literal, at most 254 octets in all: 553, permanent (RFC 3463 X.1.7 for a sender, X.1.3 for a
// recipient). go-smtp hands a session a quoted local part unquoted
// ("a b"@x.example as a b@x.example, "a@b"@x.example as a@b@x.example),
// and its client sends an address on as it is, so such an address would
// reach the next hop as another one, or as none; and the gateway writes
// the sender into a Return-Path field, the recipient into its Received
// field. Such addresses are rare (RFC 5321 §4.1.2 advises against them),
// and the gateway does not offer SMTPUTF8.
func badAddress(code smtp.EnhancedCode, which string) error {
	return &smtp.SMTPError{Code: 553, EnhancedCode: code,
		Message: which + " address not accepted: this gateway takes local@domain with a dot-atom local part of ASCII only"}
}

// bareLineEnd is the reply to a message with a CR or LF that is not part
// of a CRLF: permanent, as X.6.0 (RFC 3463), since the same message would
// fail the same way every time it was sent again.
var bareLineEnd = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "message has a bare CR or LF; lines must end with CRLF (RFC 5321 section 2.3.8)"}

// abandoned is what Data returns for a message the client abandoned.
// No one is waiting for it; should go-smtp take it for the reply to
// another message after all (see Data), it is transient, so that that
// message's sender tries again rather than bounce it.
var abandoned = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "message abandoned by the client; try again later"}

// Reset ends the transaction, once the Data calls under way, if any,
// have returned (see waitData).
func (s *session) Reset() {
	s.waitData(false)
	s.mu.Lock()
	s.from, s.to, s.esmtp = "", nil, false
	s.mu.Unlock()
	s.messageEnds()
}

// Logout forgets the session, once the Data calls under way, if any,
// have returned (see waitData).
func (s *session) Logout() error {
	s.waitData(true)
	s.b.closed(s)
	return nil
}

// waitData lets go on the Data calls that wait for a Reset or Logout
// (see Data), then waits for those under way to return. go-smtp
// (v0.25.1) calls Reset and Logout without waiting for the Data it runs
// for a BDAT message: when the client abandons the message, Data would
// otherwise go on with the envelope cleared, or with the next message's
// (whose MAIL and RCPT go-smtp reads meanwhile), and its failure, which
// go-smtp takes from the connection when Data returns, could become the
// reply to the next BDAT message instead. Data returns promptly then:
// its reader fails with smtp.ErrDataReset, and so does Deliver, which
// reads the message as it hands it on. A Data that begins later is not
// waited for: it waits for the next Reset or Logout.
//
// go-smtp closes the chunks' pipe with smtp.ErrDataReset before it calls
// Reset, and before Logout when it closes the connection, but not before
// the Logout for STARTTLS, which may come between two chunks: it closes
// the pipe in the reset that follows that Logout. So Logout closes the
// pipe of each Data under way itself (its reads fail with
// io.ErrClosedPipe then), lest it wait for a Data that waits for the next
// chunk, which the connection's goroutine, in Logout, never reads.
func (s *session) waitData(logout bool) {
	s.mu.Lock()
	if !s.loggedOut && s.resets != nil {
		close(s.resets)
		if logout {
			s.loggedOut = true // a Data that begins later waits for nothing
		} else {
			s.resets = make(chan struct{})
		}
	}
	running := make([]chan struct{}, 0, len(s.running))
	for done, r := range s.running {
		running = append(running, done)
		if pr, ok := r.(*io.PipeReader); ok && logout {
			_ = pr.CloseWithError(smtp.ErrDataReset)
		}
	}
	s.mu.Unlock()
	for _, done := range running {
		<-done
	}
}
