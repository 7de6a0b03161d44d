package relay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cturi/cturi/internal/checkedio"
	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/internal/writedeadline"
	"github.com/emersion/go-smtp"
)

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
// Each write of the message to the hop must end within 3 minutes, RFC
// 5321 §4.5.3.2.5's "DATA block" timeout: go-smtp's client times its
// commands (5 minutes) and the reply to the message (12), not the writes
// between them, so a hop that stops reading would otherwise hold the
// session, and its client, for good. The dial times out after 30 s, as
// go-smtp's own Dial.
//
// hostname is the name the gateway gives itself in its EHLO to the hop,
// which the hop records in its Received field; "" means "localhost", as
// for go-smtp's client. It should be the name the gateway greets its own
// clients with (the mailgateway command's -hostname), not an address
// literal: it is sent as it is, and a hostname that is not one line makes
// every delivery fail.
func SMTPDeliver(addr, hostname string) Deliver {
	return func(from string, to []string, msg io.Reader) error {
		nc, err := hopDialer.Dial("tcp", addr)
		if err != nil {
			return err
		}
		c := smtp.NewClient(&writedeadline.Conn{Conn: nc, Timeout: dataBlockTimeout})
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

// hopDialer dials the next hop, as go-smtp's Dial does.
var hopDialer = net.Dialer{Timeout: 30 * time.Second}

// dataBlockTimeout is how long each write to the next hop may take (see
// SMTPDeliver); tests shorten it.
var dataBlockTimeout = 3 * time.Minute

// DirDeliver returns a Deliver that writes each message to a new file
// in dir, named by the time it arrived, the process ID and a counter
// that every DirDeliver of the process shares, with the suffix .eml
// ("20261127T231527.123456789-4242-1.eml"), so that two DirDelivers, or
// two gateways whose process IDs differ, writing into one folder never
// give two messages one name (the rename would replace the first) however
// coarse the clock. Gateways in containers of their own may share a
// process ID (each may be 1): give each its own folder. A file is
// written under a temporary name and renamed when it is complete. dir
// must exist: DirDeliver does not make it (the mailgateway command
// does), and without it every message fails.
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
	return func(from string, _ []string, msg io.Reader) error {
		if !isReversePath(from) {
			return fmt.Errorf("relay: sender %q cannot be written in a Return-Path field", from)
		}
		name := fmt.Sprintf("%s-%d-%d.eml", now().UTC().Format("20060102T150405.000000000"), os.Getpid(), delivered.Add(1))
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

// delivered counts the files every DirDeliver of the process names.
var delivered atomic.Uint64

// now is the clock DirDeliver names files by; tests stop it.
var now = time.Now

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
// ERROR, not accepted" (on a line of its own) then says so. "One at a
// time" holds for the Deliver returned: make one per writer, and share it
// between Backends, as two WriterDelivers on one writer interleave their
// messages.
func WriterDeliver(w io.Writer) Deliver {
	var mu sync.Mutex
	return func(from string, to []string, msg io.Reader) error {
		spool, err := os.CreateTemp("", "mailgateway-*")
		if err != nil {
			return err
		}
		// An open spool needs no name, and Unix lets it go at once: then
		// nothing is left behind however the process ends, killed
		// included (a write to a standard output that nobody reads any
		// more ends it with SIGPIPE). Where an open file keeps its name
		// (Windows), it goes once closed.
		unnamed := os.Remove(spool.Name()) == nil
		defer func() {
			spool.Close()
			if !unnamed {
				os.Remove(spool.Name())
			}
		}()
		_, err = io.Copy(spool, msg)
		if _, serr := spool.Seek(0, io.SeekStart); serr != nil {
			return errors.Join(err, serr)
		}
		mu.Lock()
		defer mu.Unlock()
		// A short count without an error, or a count past the line,
		// which the io.Writer contract forbids, is an error: it would
		// lose part of the line unseen (io.Copy below checks its own
		// writes so).
		if _, lerr := fmt.Fprintf(&checkedio.Writer{W: w}, "=== message from <%s> to %q\n", printable.Token(from), to); lerr != nil {
			return lerr
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
