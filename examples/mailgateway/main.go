// Command mailgateway is an SMTP relay that rewrites the Content-Type
// fields of every message it receives (package mailhdr: to URI labels by
// default) and hands the message on: to the next SMTP hop given by
// -next, into the folder given by -dir, or else to standard output.
//
//	go run ./examples/mailgateway                      # listen on 127.0.0.1:2525, print messages
//	go run ./examples/mailgateway -to ct -next 127.0.0.1:25
//	curl smtp://127.0.0.1:2525/localhost --mail-from a@example.com --mail-rcpt b@example.net -T mailhdr/testdata/corpus/nested.eml
//
// Whichever way it hands a message on, it first puts a Received field of
// its own at the top, as RFC 5321 §4.4 requires of a server that receives
// a message for relay or delivery; only that field is added (and an
// empty line after it if the message starts with a continuation line, the
// start of its body), and the rewrite changes nothing but Content-Type
// fields; into -dir, the message's final delivery, a Return-Path field
// holding the sender goes above it. A message that arrives
// with -max-hops Received fields or more (100, RFC 5321 §6.3's "normally
// at least 100") is caught in a routing loop: it is refused with 554
// 5.4.6, which the sender does not retry, and not handed on. Envelope
// addresses must be local@domain with a dot-atom local part of ASCII;
// others (a quoted local part, which go-smtp would hand on unquoted,
// unless it is a dot-atom once unquoted) get 553. A message with a CR or
// LF that is not part of a CRLF is refused
// with 554 5.6.0 and nothing of it after that octet is handed on: a next
// hop that took a bare CR for a line end would run the lines after
// "<CR>.<CR>" as commands ("SMTP smuggling"). (go-smtp's server drops a
// CR after a dot that starts a line, and misses the end of the data right
// after CR CR LF; see the limitations in docs/mail.md.)
//
// It holds at most -max-connections sessions open at once (256); a client
// that comes meanwhile is answered 421 4.3.2, a transient failure, and
// disconnected. A client that sends nothing, or takes no reply, for
// -timeout (a minute) is disconnected too (421 4.4.2), and so is one that
// trickles: each command, and each message, may keep the gateway waiting
// for -timeout, plus a second for every -min-rate octets (500) of it that
// have come. A client that sends more than twice -max-message-bytes (and
// 64 KiB) before it waits for a reply, as one may that goes on sending
// past the 552 of a message over the limit, is disconnected after that
// (421 4.4.0). A message looping through
// this gateway alone holds one session a hop, so the cap must be more
// than -max-hops for the loop to be caught (loops running at once that
// fill the cap get the 421, and their senders retry). Interrupted (SIGINT
// or SIGTERM), it takes no new session, answers 421 at once to the
// sessions with no message under way (relay.Backend.Drain), and waits up
// to -grace (10 seconds) for the messages under way, then exits, with
// status 1 if it had to cut some off; a second interrupt ends it at once. It listens on
// 127.0.0.1 by default, takes no authentication and speaks no TLS: put it
// on a trusted path.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/cturi/cturi/internal/connlimit"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
)

func main() {
	// Named as the other examples name theirs: under go run, os.Args[0],
	// which flag's own Usage shows, is a path in the build cache.
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "Usage of mailgateway:")
		flag.PrintDefaults()
	}
	addr := flag.String("addr", "127.0.0.1:2525", "address to listen on") // -addr, as the other examples call it
	to := flag.String("to", "uri", "rewrite Content-Types to: uri, ct or canonical")
	next := flag.String("next", "", "next SMTP hop (host:port) to relay to")
	dir := flag.String("dir", "", "folder to write messages into (made if it does not exist), when there is no -next")
	// go-smtp v0.25.1 refuses a message of exactly this many octets sent
	// with DATA, though it advertises them as SIZE (see docs/mail.md).
	maxBytes := flag.Int64("max-message-bytes", 64<<20, "largest message accepted, in octets, sent with BDAT; sent with DATA, one octet less (at least 1)")
	// go-smtp accepts any number of recipients unless told otherwise, and
	// each one is held in memory until the message ends: a client sending
	// RCPT TO for ever would grow the session without end. 100 is the
	// minimum RFC 5321 §4.5.3.1.8 has servers accept.
	maxRcpt := flag.Int("max-recipients", 100, "most recipients of one message (at least 1)")
	maxHops := flag.Int("max-hops", relay.DefaultMaxHops, "refuse a message with this many Received fields as looping (at least 1)")
	// Each session holds a goroutine and its buffers for up to a minute
	// between commands. A routing loop through this gateway alone holds
	// a session for each hop until -max-hops catches it, so the cap must
	// be above that, or every such loop would be cut short by the 421
	// (refuseBusy) and retried, and never be caught.
	maxConns := flag.Int("max-connections", 256, "most SMTP sessions open at once; others get 421 (more than -max-hops)")
	// A silent client holds its session, one of -max-connections, until
	// this runs out.
	timeout := flag.Duration("timeout", time.Minute, "how long a client may stay silent, or leave a reply untaken, before it is disconnected (more than 0)")
	// A client that sends an octet just within each -timeout would hold
	// its session, one of -max-connections, for as long as it liked: a
	// command or a message (from a reply to the next) must also arrive at
	// this rate after its first -timeout. Postfix's smtpd_min_data_rate
	// is 500 too.
	minRate := flag.Int64("min-rate", 500, "octets a second a client must average over each command or message, past -timeout of waiting (0: no minimum)")
	// The mapping options cturi mail has: mail from outside is untrusted
	// input, for which the draft (§6) and mapping advise NoControlled.
	strictURI := flag.Bool("strict-uri", false, "write query-value delimiters as %22 (strict RFC 3986 URIs)")
	strictParsing := flag.Bool("strict-parsing", false, "refuse the unquoted parameter values mail software writes")
	noControlled := flag.Bool("no-controlled", false, "refuse the controlled mapping (URI-body, MIME-type), for untrusted mail")
	rewriteSigned := flag.Bool("rewrite-signed", false, "rewrite the part a multipart/signed signs too, breaking its signature")
	// Each hop names itself in its Received field ("by NAME") and its
	// greeting: two gateways in a row must not both be localhost.
	hostname := flag.String("hostname", "localhost", "the name the gateway gives itself in its greeting, its Received fields and its EHLO to the -next hop (a domain name)")
	grace := flag.Duration("grace", 10*time.Second, "how long an interrupted gateway waits for the messages under way before it cuts them off and exits with status 1")
	flag.Parse()

	target, err := mailhdr.ParseTarget(*to)
	switch {
	case err != nil:
		usageError(err.Error())
	case *maxBytes < 1: // go-smtp reads 0 as no limit, and fails every BDAT chunk on a negative one
		usageError("-max-message-bytes must be at least 1")
	case *maxRcpt < 1:
		usageError("-max-recipients must be at least 1")
	case *maxHops < 1:
		usageError("-max-hops must be at least 1")
	case *timeout <= 0: // every read would fail at once
		usageError("-timeout must be more than 0")
	case *minRate < 0:
		usageError("-min-rate must be 0 or more")
	case *grace < 0:
		usageError("-grace must be 0 or more")
	case !isHostname(*hostname):
		usageError(fmt.Sprintf("-hostname wants a domain name (letters, digits, hyphens, dots), not %q", *hostname))
	case *maxConns <= *maxHops:
		usageError(fmt.Sprintf("-max-connections must be more than -max-hops (%d)", *maxHops))
	case *next != "" && *dir != "":
		usageError("-next and -dir are two destinations; give one")
	case *next != "" && !isHostPort(*next):
		usageError(fmt.Sprintf("-next wants host:port, not %q", *next))
	case flag.NArg() > 0:
		usageError(fmt.Sprintf("unexpected argument %q", flag.Arg(0)))
	}
	be := &relay.Backend{
		Options: mailhdr.Options{
			To: target, StrictURI: *strictURI, StrictParsing: *strictParsing,
			NoControlled: *noControlled, RewriteSigned: *rewriteSigned,
		},
		Logf:    log.Printf,
		MaxHops: *maxHops,
	}
	destination := "standard output"
	switch {
	case *next != "":
		be.Deliver = relay.SMTPDeliver(*next, *hostname)
		destination = "the next hop " + *next
	case *dir != "":
		destination = "the folder " + *dir
		// The folder is made here, so that -dir /tmp/mail works as
		// docs/mail.md shows it, and a folder that cannot be made stops the
		// gateway at once rather than failing every message with 451.
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			log.Fatal(err)
		}
		be.Deliver = relay.DirDeliver(*dir)
	default:
		be.Deliver = relay.WriterDeliver(os.Stdout)
	}
	if *next != "" || *dir != "" {
		// Standard error is only the log then. Go ends a program by
		// SIGPIPE when it writes to a standard output or error whose
		// reader has gone (a "| tee" that ended), and the gateway logs a
		// message delivered just before it answers 250: its sender,
		// with no reply, would send it again, and it would be delivered
		// twice. Ignored, the signal leaves the log's writes to fail, and
		// the mail goes on. Into standard output, the delivery itself,
		// SIGPIPE still ends the gateway, as for any filter.
		ignoreSIGPIPE()
	}

	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	idle := newIdleListener(connlimit.Listener(l, *maxConns, refuseBusy), *timeout)
	idle.minRate = *minRate
	idle.maxRequest = requestLimit(*maxBytes)
	l = idle
	s := smtp.NewServer(greetedBackend{be, idle})
	s.Domain = *hostname
	s.MaxMessageBytes = *maxBytes
	s.MaxRecipients = *maxRcpt
	log.Printf("mailgateway: rewriting Content-Types to %s, delivering to %s", target, destination)
	log.Printf("mailgateway: listening on %s", l.Addr())
	log.Printf("mailgateway: try: curl smtp://%s/localhost --mail-from a@example.com --mail-rcpt b@example.net -T mailhdr/testdata/corpus/nested.eml", l.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	shutDown := make(chan error, 1)
	go func() {
		<-ctx.Done()
		stop() // a second interrupt ends the gateway at once, as by default
		log.Printf("mailgateway: stopping: no new sessions; waiting up to %v for the messages under way (interrupt again to stop at once)", *grace)
		// Shutdown waits for every session to close: those with no
		// message under way, and those not yet greeted, get 421 now.
		idle.drain()
		be.Drain()
		shut, cancel := context.WithTimeout(context.Background(), *grace)
		defer cancel()
		shutDown <- s.Shutdown(shut)
	}()
	if err := s.Serve(l); err != nil && !errors.Is(err, smtp.ErrServerClosed) {
		log.Fatal(err)
	}
	// Serve returns as soon as Shutdown closes the listener: wait for the
	// messages under way, or the end of the grace period.
	if err := <-shutDown; err != nil {
		// Their senders get no reply and send them again; in -dir, a
		// message cut off leaves a .incoming-* file, which is no .eml.
		log.Printf("mailgateway: sessions still open after -grace %v, cut off: %v", *grace, err)
		os.Exit(1)
	}
}

// greetedBackend is the relay's Backend, which tells idle each
// connection that gets a session (go-smtp makes one at the first HELO or
// EHLO): at shutdown, relay.Backend.Drain ends the sessions, and
// idleListener.drain the connections with none.
type greetedBackend struct {
	*relay.Backend
	idle *idleListener
}

func (b greetedBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	// Registered with the relay before it is forgotten by the listener,
	// so that a drain in between finds it in one or the other.
	s, err := b.Backend.NewSession(c)
	b.idle.greeted(c.Conn())
	return s, err
}

// isHostname reports whether s is a domain name of LDH labels (RFC 1123
// §2.1), as go-smtp writes it into the greeting and the gateway into its
// Received fields: nothing else may reach either.
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// isHostPort reports whether s is host:port with a host and a port, as
// -next needs (net.Dial would take ":25", and fail on "host" per message).
func isHostPort(s string) bool {
	host, port, err := net.SplitHostPort(s)
	return err == nil && host != "" && port != ""
}

// refuseBusy answers a client that comes while -max-connections sessions
// are open, and closes its connection, as an MTA that is full does: 421 is
// transient, so the client tries again later. Making it wait instead
// would let routing loops through this gateway, each holding a session a
// hop, fill it up and then wait on each other until the timeouts broke
// them, minutes later.
func refuseBusy(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c, "421 4.3.2 Too many sessions, try again later\r\n")
	c.Close()
}

// usageError reports a bad command line and exits with status 2, as the
// flag package does for a flag it does not know.
func usageError(msg string) {
	fmt.Fprintln(os.Stderr, "mailgateway:", msg)
	flag.Usage()
	os.Exit(2)
}
