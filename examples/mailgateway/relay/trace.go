package relay

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// DefaultMaxHops is the number of Received fields at which Backend
// refuses a message as caught in a routing loop, when Backend.MaxHops is
// 0: RFC 5321 §6.3 has servers that count Received fields use "a large
// rejection threshold, normally at least 100".
const DefaultMaxHops = 100

// MaxTraceBytes bounds how much of a message's header Backend reads, and
// holds, to count its Received fields before it delivers the message:
// they are counted in the first MaxTraceBytes octets of the header. Each
// hop puts its own at the top, so a loop is seen there.
const MaxTraceBytes = 256 << 10

// foldWidth is the width a Received field is folded to (RFC 5322 §2.1.1's
// 78 characters); tabWidth is what the tab that starts each continuation
// line is counted as, so that the field fits in 78 columns however a tab
// is shown. Each word of the field is at most foldWidth-tabWidth long.
const (
	foldWidth = 78
	tabWidth  = 8
	maxWord   = foldWidth - tabWidth
)

// lineTooLong is the reply to a message with a line longer than the
// server takes (RFC 5321 §4.5.3.1.6 allows 1000 octets; go-smtp's
// MaxLineLength is 2000 by default): permanent, as X.6.0, a problem with
// the message's content (RFC 3463).
var lineTooLong = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "message has a line longer than the server accepts"}

// routingLoop is the reply to a message with too many Received fields:
// permanent, so that the sender does not send it again (RFC 3463 X.4.6).
var routingLoop = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 4, 6}, Message: "routing loop detected: too many Received fields"}

// countHops reads the header of a message from r as far as its end (the
// empty line, or a line that is neither a field nor a continuation of
// one), its first maxBytes octets, or its limit-th Received field,
// whichever comes first, and returns the number of Received fields it
// read and the whole message again: what it read, then the rest of r. A
// read error other than io.EOF is returned by that reader where it
// occurred. continued says the message starts with a continuation line,
// so has no header as mailhdr reads it: a field put before it must be
// followed by an empty line, or the line would continue that field and
// the body's first lines would become header fields.
func countHops(r io.Reader, maxBytes, limit int) (hops int, continued bool, msg io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	// The header read is held until the message is handed on: at most
	// maxBytes and one line of br, not the twice as much a doubling
	// buffer would reach past maxBytes/2.
	headCap := maxBytes + br.Size()
	var head []byte
	atStart := true  // at the start of a line
	inField := false // a field has started: a continuation line may follow
	for len(head) < maxBytes && hops < limit {
		line, err := br.ReadSlice('\n')
		if atStart && len(line) > 0 {
			name, isField := fieldName(line)
			isContinuation := line[0] == ' ' || line[0] == '\t'
			switch {
			case isField:
				inField = true
				if strings.EqualFold(name, "Received") {
					hops++
				}
			case !inField || !isContinuation:
				// The empty line, or the body of a message whose
				// header has no such line (a continuation line with
				// no field before it included, as mailhdr reads it):
				// the header has ended.
				continued = len(head) == 0 && isContinuation
				head = appendCapped(head, line, headCap)
				return hops, continued, io.MultiReader(bytes.NewReader(head), restOf(br, err))
			}
		}
		head = appendCapped(head, line, headCap)
		atStart = len(line) > 0 && line[len(line)-1] == '\n'
		if ended(err) {
			return hops, continued, io.MultiReader(bytes.NewReader(head), errReader{err})
		}
	}
	return hops, continued, io.MultiReader(bytes.NewReader(head), br)
}

// appendCapped appends p to b, growing b as append does (doubling, from
// 1 KiB) but to a capacity of at most limit, which len(b)+len(p) must not
// exceed.
func appendCapped(b, p []byte, limit int) []byte {
	if n := len(b) + len(p); n > cap(b) {
		// Not slices.Grow: append's growth of a large slice would
		// overshoot limit.
		nb := make([]byte, len(b), min(max(2*cap(b), n, 1024), limit))
		b = nb[:copy(nb, b)]
	}
	return append(b, p...)
}

// restOf is what follows the octets a ReadSlice of br returned with err:
// the rest of br, or, after an error (io.EOF included), that error again.
// br returns an error once, and its source need not repeat it: one that
// then ends, or goes on, would make a message cut off in a line that
// ends the header look whole.
func restOf(br *bufio.Reader, err error) io.Reader {
	if !ended(err) {
		return br
	}
	return errReader{err}
}

// ended says whether a ReadSlice that returned err has read all there is
// to read: it met an error, io.EOF included, not merely a full buffer.
func ended(err error) bool { return err != nil && err != bufio.ErrBufferFull }

// fieldName returns the name of the header field line starts, if it
// starts one: printable ASCII up to a colon, which RFC 5322's obsolete
// syntax lets white space precede.
func fieldName(line []byte) (string, bool) {
	for i, c := range line {
		switch {
		case c == ':':
			name := strings.TrimRight(string(line[:i]), " \t")
			return name, name != "" && !strings.ContainsAny(name, " \t")
		case c < '!' && c != ' ' && c != '\t', c > '~':
			return "", false
		}
	}
	return "", false
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// received returns the Received field (RFC 5321 §4.4) that the session
// puts at the top of the message it received: receivedField with what
// the connection (t.origin) and the envelope tell.
func (t *transaction) received() string {
	o := t.origin
	protocol := "SMTP"
	switch {
	case o.lmtp:
		protocol = "LMTP"
	case o.tls:
		protocol = "ESMTPS" // STARTTLS is an SMTP extension (RFC 3848)
	case t.esmtp:
		protocol = "ESMTP"
	}
	return receivedField(o.helo, o.tcp, o.by, protocol, t.to, t.s.b.now())
}

// origin is what a Received field tells of the connection a message came
// by. Mail takes it from go-smtp's Conn (originOf), on go-smtp's
// connection goroutine, and Data from the session: Data may run in a
// goroutine of its own (BDAT), and go-smtp v0.25.1 writes the HELO name
// (at EHLO) and the net.Conn (at STARTTLS) with no lock, also while a
// BDAT message's Data runs (after "BDAT 0", which waits for no Data).
type origin struct {
	helo, tcp, by string
	lmtp, tls     bool
}

// originOf reads c (nil: a session used without a connection, which
// tells nothing).
func originOf(c *smtp.Conn) origin {
	var o origin
	if c == nil {
		return o
	}
	if srv := c.Server(); srv != nil {
		o.by, o.lmtp = srv.Domain, srv.LMTP
	}
	_, o.tls = c.TLSConnectionState()
	if nc := c.Conn(); nc != nil {
		o.tcp = addressLiteral(nc.RemoteAddr())
	}
	o.helo = c.Hostname()
	return o
}

// receivedField returns a Received field, folded, ending with CRLF:
//
//	Received: from HELO (TCP) by BY with PROTOCOL
//		for <RECIPIENT>; DATE
//
// Nothing from the client goes into it unchecked: the HELO name is given
// only if it is a domain name or address literal (else "unknown"; an
// address literal only with the TCP address literal after it, as RFC
// 5321's Extended-Domain has it), the recipient only if there is one, and
// it is a plain address; BY only if it is a domain name (else
// "localhost"); none of them when it is longer than a line can hold.
// protocol and tcp (an address literal, or "") come from the server.
func receivedField(helo, tcp, by, protocol string, to []string, now time.Time) string {
	from := "unknown"
	if len(helo) <= maxWord && (isDomain(helo) || (isAddressLiteral(helo) && tcp != "")) {
		from = helo
	}
	if len(by) > maxWord || !isDomain(by) {
		by = "localhost"
	}
	clauses := [][]string{{"from", from}, {"by", by}, {"with", protocol}}
	if tcp != "" {
		clauses[0] = append(clauses[0], "("+tcp+")")
	}
	if len(to) == 1 && isMailbox(to[0]) && len("<"+to[0]+">;") <= maxWord {
		clauses = append(clauses, []string{"for", "<" + to[0] + ">"})
	}
	last := clauses[len(clauses)-1]
	last[len(last)-1] += ";"
	clauses = append(clauses, []string{now.Format(time.RFC1123Z)})
	return fold("Received:", clauses)
}

// fold writes name and clauses as a field folded to foldWidth columns:
// between clauses, and between the words of a clause that does not fit on
// a line of its own. Each word must be at most maxWord long.
func fold(name string, clauses [][]string) string {
	var b strings.Builder
	b.WriteString(name)
	col := len(name)
	put := func(text string) {
		if col+1+len(text) > foldWidth {
			b.WriteString("\r\n\t")
			col = tabWidth
		} else {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(text)
		col += len(text)
	}
	for _, c := range clauses {
		clause := strings.Join(c, " ")
		if col+1+len(clause) <= foldWidth || tabWidth+len(clause) <= foldWidth {
			put(clause)
			continue
		}
		for _, w := range c {
			put(w)
		}
	}
	b.WriteString("\r\n")
	return b.String()
}

// addressLiteral returns the RFC 5321 address literal of a TCP peer's
// address ([192.0.2.1], [IPv6:2001:db8::1]), or "" for another kind of
// address.
func addressLiteral(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return ""
	}
	ip, ok := netip.AddrFromSlice(tcp.IP)
	if !ok {
		return ""
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return "[" + ip.String() + "]"
	}
	return "[IPv6:" + ip.String() + "]"
}

// isAddressLiteral reports whether s is an IPv4 or IPv6 address literal
// (RFC 5321 §4.1.3), as a client may give it in HELO.
func isAddressLiteral(s string) bool {
	inner, ok1 := strings.CutPrefix(s, "[")
	inner, ok2 := strings.CutSuffix(inner, "]")
	if !ok1 || !ok2 {
		return false
	}
	if len(inner) > 5 && strings.EqualFold(inner[:5], "IPv6:") {
		ip, err := netip.ParseAddr(inner[5:])
		return err == nil && ip.Is6() && ip.Zone() == ""
	}
	ip, err := netip.ParseAddr(inner)
	return err == nil && ip.Is4()
}

// isDomain reports whether s is a domain name as RFC 5321 writes one
// (letters, digits and hyphens, in labels of at most 63 that neither start
// nor end with a hyphen), of at most 255 octets (§4.5.3.1.2).
func isDomain(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

// isMailbox reports whether addr is local@domain with a dot-atom local
// part (no quoted string, nothing beyond ASCII) and a domain name or
// address literal, at most 254 octets in all (a path of 256 with its
// angle brackets, RFC 5321 §4.5.3.1.3). The local part may be longer than
// the 64 octets of §4.5.3.1.1, as SRS and VERP senders are, since §4.5.3.1
// has servers take what they can.
func isMailbox(addr string) bool {
	local, domain, ok := strings.Cut(addr, "@")
	if !ok || local == "" || len(addr) > 254 || !(isDomain(domain) || isAddressLiteral(domain)) {
		return false
	}
	for atom := range strings.SplitSeq(local, ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			if c := atom[i]; !isAlnum(c) && !strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", rune(c)) {
				return false
			}
		}
	}
	return true
}

// isReversePath reports whether from is a sender the gateway takes and
// can write into a Return-Path field: the null sender "" (<>) or a plain
// mailbox (isMailbox).
func isReversePath(from string) bool {
	return from == "" || isMailbox(from)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// usedExtension reports whether MAIL FROM had a service extension's
// parameter (SIZE=, BODY= and the like), which only a client that greeted
// with EHLO may send.
func usedExtension(o *smtp.MailOptions) bool {
	return o != nil && (o.Body != "" || o.Size != 0 || o.RequireTLS || o.UTF8 ||
		o.Return != "" || o.EnvelopeID != "" || o.Auth != nil)
}

// chunked reports whether Data's reader r brings a message sent with
// BDAT, which is a service extension in itself (CHUNKING, RFC 3030), so
// that a client using it greeted with EHLO even if it gave MAIL and RCPT
// no parameter. go-smtp (v0.25.1) does not say which command a message
// came by, but hands Data a BDAT message through an io.Pipe and a DATA
// message through a reader of its own (TestReceived would see a change).
func chunked(r io.Reader) bool {
	_, ok := r.(*io.PipeReader)
	return ok
}

// usedRcptExtension is usedExtension for RCPT TO.
func usedRcptExtension(o *smtp.RcptOptions) bool {
	return o != nil && (len(o.Notify) > 0 || o.OriginalRecipientType != "" || o.OriginalRecipient != "" ||
		!o.RequireRecipientValidSince.IsZero() || o.DeliverBy != nil || o.MTPriority != nil)
}
