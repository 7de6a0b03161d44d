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
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
)

// Deliver hands on one message, read from msg, for the envelope sender
// from and recipients to. From a Backend, msg is the Backend's Received
// field, then the rewritten message.
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
	// Every line starts "message from SENDER: ".
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
	t := &transaction{s: s, from: s.from, to: s.to, esmtp: s.esmtp, origin: s.origin}
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
	long      bool // this reader found a line over max
	cr        bool // the last octet handed on was a CR
	line      int  // octets handed on since the last LF
}

func (c *clientReader) Read(p []byte) (int, error) {
	if c.bare {
		return 0, bareLineEnd
	}
	if c.long {
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
			c.long, c.tooLong = true, true
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

// SMTPDeliver returns a Deliver that sends each message to the SMTP
// server at addr (host:port), without TLS: a next hop on a trusted
// network, or on 127.0.0.1. The message is delivered once the hop has
// accepted it at the end of DATA; a QUIT that fails after that is not a
// failure. The hop is met only then, with the recipients the client gave,
// in one transaction: the first recipient it refuses fails the message,
// with the hop's reply. (Passing each RCPT on as it comes would give the
// client a reply for each, but turn a routing loop into a chain of open
// connections before any Received field could be counted.)
//
// hostname is the name the gateway gives itself in its EHLO to the hop,
// which the hop records in its Received field; "" means "localhost", as
// for go-smtp's client. It should be the name the gateway greets its own
// clients with (the mailgateway command's -hostname), not an address
// literal: it is sent as it is, and a hostname that is not one line makes
// every delivery fail.
func SMTPDeliver(addr, hostname string) Deliver {
	return func(from string, to []string, msg io.Reader) error {
		c, err := smtp.Dial(addr)
		if err != nil {
			return err
		}
		defer c.Close()
		if hostname != "" {
			if err := c.Hello(hostname); err != nil {
				return err
			}
		}
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
//
// A folder is the message's final delivery, so, as RFC 5321 §4.4 has the
// delivering server do, each file starts with a Return-Path field that
// holds the envelope sender: "Return-Path: <a@example.com>", or
// "Return-Path: <>" for the null sender of a bounce. A sender that is not
// local@domain with a dot-atom local part of ASCII and a domain name or
// address literal (which a Backend refuses at MAIL FROM) is an error, and
// no file is written.
//
// The message is on disk before DirDeliver returns, and so before the
// sender is told 250: the file is synced before it is renamed, and the
// folder after, since a server that has accepted a message must not lose
// it if the host then crashes (RFC 5321 §6.1). (On Windows the folder is
// not synced: NTFS journals the rename.)
func DirDeliver(dir string) Deliver {
	var n atomic.Uint64
	return func(from string, _ []string, msg io.Reader) error {
		if !isReversePath(from) {
			return fmt.Errorf("relay: sender %q cannot be written in a Return-Path field", from)
		}
		name := fmt.Sprintf("%s-%d.eml", time.Now().UTC().Format("20060102T150405.000000000"), n.Add(1))
		tmp, err := os.CreateTemp(dir, ".incoming-*")
		if err != nil {
			return err
		}
		_, err = io.WriteString(tmp, "Return-Path: <"+from+">\r\n")
		if err == nil {
			_, err = io.Copy(tmp, msg)
		}
		if err == nil {
			err = syncFile(tmp)
		}
		err = errors.Join(err, tmp.Close())
		if err == nil {
			err = os.Rename(tmp.Name(), filepath.Join(dir, name))
		}
		if err != nil {
			os.Remove(tmp.Name())
			return err
		}
		// If the folder cannot be synced, the file is complete under its
		// name but may not survive a crash: the sender is told to try
		// again, and may deliver it twice rather than never.
		return syncDir(dir)
	}
}

// syncFile flushes f to stable storage, and openDir opens a folder to
// sync it; tests replace them to watch the calls, or fail them.
var (
	syncFile = (*os.File).Sync
	openDir  = os.Open
)

// syncDir flushes the folder dir, and so the names in it, to stable
// storage. Windows cannot sync a folder (FlushFileBuffers refuses a
// folder handle) and needs not: NTFS logs the rename in its journal.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := openDir(dir)
	if err != nil {
		return err
	}
	return errors.Join(syncFile(d), d.Close())
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
		if _, err := fmt.Fprintf(w, "=== message from <%s> to %q\n", printable.Token(from), to); err != nil {
			return err
		}
		if _, werr := io.Copy(w, spool); err == nil {
			err = werr
		}
		if err != nil {
			_, _ = fmt.Fprintf(w, "\n=== message from <%s> cut short: %v, not accepted\n", printable.Token(from), err)
		}
		return err
	}
}
