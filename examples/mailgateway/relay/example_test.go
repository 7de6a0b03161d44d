package relay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cturi/cturi/examples/mailgateway/relay"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
)

// noCR drops the CRs of SMTP's CRLF line endings from what it writes to
// w, so that the examples' output compares line by line.
type noCR struct{ w io.Writer }

func (n noCR) Write(p []byte) (int, error) {
	if _, err := n.w.Write(bytes.ReplaceAll(p, []byte("\r"), nil)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// clock stands for time.Now, so that the examples' Received fields say
// the same each time.
func clock() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// serve starts an SMTP server for be on 127.0.0.1 and returns its address
// and a function that stops it.
func serve(be smtp.Backend) (addr string, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	go s.Serve(l)
	return l.Addr().String(), func() { s.Close() }
}

// A gateway that rewrites Content-Types to URI labels and prints each
// message, and a go-smtp client sending it two: the second has a label
// that does not map, which is logged and left as it was. The gateway puts
// its Received field at the top of each (go-smtp's client says EHLO
// localhost, then MAIL FROM with BODY=8BITMIME: with ESMTP).
func ExampleBackend() {
	addr, stop := serve(&relay.Backend{
		Options: mailhdr.Options{To: mailhdr.ToURI},
		Deliver: relay.WriterDeliver(noCR{os.Stdout}),
		Logf: func(format string, args ...any) {
			fmt.Printf("log: "+format+"\n", args...)
		},
		Now: clock, // time.Now if not set
	})
	defer stop()

	c, err := smtp.Dial(addr)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	for _, msg := range []string{
		"Subject: one\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n",
		"Subject: two\r\nContent-Type: text\r\n\r\nhi\r\n",
	} {
		if err := c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)); err != nil {
			panic(err)
		}
	}
	if err := c.Quit(); err != nil {
		panic(err)
	}
	// Output:
	// === message from <a@example.com> to ["b@example.net"]
	// Received: from localhost ([127.0.0.1]) by localhost with ESMTP
	// 	for <b@example.net>; Fri, 02 Jan 2026 03:04:05 +0000
	// Subject: one
	// Content-Type: ContentType:text/plain?charset="us-ascii"
	//
	// hi
	// log: message from a@example.com: delivered to ["b@example.net"]; Content-Type fields rewritten: 1
	// === message from <a@example.com> to ["b@example.net"]
	// Received: from localhost ([127.0.0.1]) by localhost with ESMTP
	// 	for <b@example.net>; Fri, 02 Jan 2026 03:04:05 +0000
	// Subject: two
	// Content-Type: text
	//
	// hi
	// log: message from a@example.com: mailhdr: top: mapping: Content-Type not rewritten; the body is passed through: mapping: expected '/' after the type at offset 4, found the end
	// log: message from a@example.com: delivered to ["b@example.net"]; Content-Type fields rewritten: 0
}

// A Deliver can be called on its own; here with a message rewritten by
// mailhdr.NewReader, as Backend does.
func ExampleWriterDeliver() {
	deliver := relay.WriterDeliver(os.Stdout)
	msg := "Content-Type: ContentType:text/plain?charset=%22utf-8%22\n\nhi\n"
	r := mailhdr.NewReader(strings.NewReader(msg), mailhdr.Options{To: mailhdr.ToContentType})
	if err := deliver("a@example.com", []string{"b@example.net", "c@example.net"}, r); err != nil {
		panic(err)
	}
	// Output:
	// === message from <a@example.com> to ["b@example.net" "c@example.net"]
	// Content-Type: text/plain; charset="utf-8"
	//
	// hi
}

func ExampleDirDeliver() {
	dir, err := os.MkdirTemp("", "relay-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	deliver := relay.DirDeliver(dir)
	if err := deliver("a@example.com", []string{"b@example.net"}, strings.NewReader("Subject: x\r\n\r\nhi\r\n")); err != nil {
		panic(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	fmt.Println(len(files), "file")
	b, err := os.ReadFile(files[0])
	if err != nil {
		panic(err)
	}
	fmt.Print(strings.ReplaceAll(string(b), "\r\n", "\n"))
	// Output:
	// 1 file
	// Return-Path: <a@example.com>
	// Subject: x
	//
	// hi
}

// SMTPDeliver hands a message on to the next hop, here a second relay on
// 127.0.0.1 that leaves Content-Types as they are and prints what it gets,
// after its own Received field, which names the gateway as it introduced
// itself.
func ExampleSMTPDeliver() {
	next, stop := serve(&relay.Backend{
		Options: mailhdr.Options{To: mailhdr.ToContentType},
		Deliver: relay.WriterDeliver(noCR{os.Stdout}),
		Now:     clock,
	})
	defer stop()

	deliver := relay.SMTPDeliver(next, "gateway.example")
	msg := "Content-Type: application/uri.http%3A%2F%2Fexample.com%2Ftag42\r\n\r\nhi\r\n"
	if err := deliver("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)); err != nil {
		panic(err)
	}
	// Output:
	// === message from <a@example.com> to ["b@example.net"]
	// Received: from gateway.example ([127.0.0.1]) by localhost with ESMTP
	// 	for <b@example.net>; Fri, 02 Jan 2026 03:04:05 +0000
	// Content-Type: application/uri.http%3A%2F%2Fexample.com%2Ftag42
	//
	// hi
}

// Drain, called as the server shuts down, ends a session that has no
// message under way: its next command is answered 421, and the server's
// Shutdown, which waits for every session to close, returns at once.
func ExampleBackend_Drain() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	be := &relay.Backend{Deliver: relay.WriterDeliver(io.Discard)}
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	go srv.Serve(l)

	c, err := smtp.Dial(l.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		panic(err)
	}

	be.Drain()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println("shutdown:", srv.Shutdown(ctx))
	fmt.Println("next command:", c.Noop())
	// Output:
	// shutdown: <nil>
	// next command: SMTP error 421: Idle timeout, bye bye
}
