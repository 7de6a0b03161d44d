package relay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/mailhdr"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDirDeliver(t *testing.T) {
	dir := t.TempDir()
	addr := serve(t, &Backend{Deliver: DirDeliver(dir), Now: clock})
	require.NoError(t, send(t, addr, []string{"b@example.net"}))
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.Equal(t, "Return-Path: <a@example.com>\r\n"+received+rewritten, string(b))
	left, _ := filepath.Glob(filepath.Join(dir, ".incoming-*"))
	assert.Empty(t, left)
}

// TestDirDeliverSyncs: the file is synced before it takes its name, and
// the folder after (RFC 5321 §6.1: an accepted message must survive a
// crash); a failed sync fails the delivery, so that the sender tries again.
func TestDirDeliverSyncs(t *testing.T) {
	for _, failAt := range []int{0, 1, 2} { // 0: no failure
		t.Run(fmt.Sprintf("failing sync %d", failAt), func(t *testing.T) {
			dir := t.TempDir()
			var synced []string
			orig := syncFile
			t.Cleanup(func() { syncFile = orig })
			syncFile = func(f *os.File) error {
				named, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
				synced = append(synced, fmt.Sprintf("%s (%d .eml)", filepath.Base(f.Name()), len(named)))
				if len(synced) == failAt {
					return errors.New("sync failed")
				}
				return orig(f)
			}
			err := DirDeliver(dir)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
			named, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
			switch failAt {
			case 0:
				require.NoError(t, err)
				require.Len(t, synced, 2)
				assert.Regexp(t, `^\.incoming-\d+ \(0 \.eml\)$`, synced[0], "the file, before it is renamed")
				assert.Equal(t, filepath.Base(dir)+" (1 .eml)", synced[1], "the folder, after")
				assert.Len(t, named, 1)
			case 1:
				require.ErrorContains(t, err, "sync failed")
				assert.Empty(t, named, "a file not synced is not delivered")
			case 2:
				require.ErrorContains(t, err, "sync failed")
				assert.Len(t, named, 1, "the complete file keeps its name")
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".incoming-*"))
			assert.Empty(t, left)
		})
	}
}

// TestDirDeliverCloseAndOpenFail: a file that cannot be closed is not
// delivered, and a folder that cannot be opened to be synced fails the
// delivery too (the file, complete, stays under its name: the sender
// tries again, and the folder may get the message twice, never none).
func TestDirDeliverCloseAndOpenFail(t *testing.T) {
	orig, origOpen := syncFile, openDir
	t.Cleanup(func() { syncFile, openDir = orig, origOpen })

	dir := t.TempDir()
	syncFile = func(f *os.File) error { f.Close(); return nil } // Close then fails
	err := DirDeliver(dir)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
	require.ErrorIs(t, err, os.ErrClosed)
	files, _ := os.ReadDir(dir)
	assert.Empty(t, files)

	syncFile = orig
	openDir = func(string) (*os.File, error) { return nil, os.ErrPermission }
	err = DirDeliver(dir)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
	require.ErrorIs(t, err, os.ErrPermission)
	named, _ := filepath.Glob(filepath.Join(dir, "*.eml"))
	assert.Len(t, named, 1)
}

// TestDirDeliverReturnPath: a file in the folder starts with the envelope
// sender in a Return-Path field (RFC 5321 §4.4), <> for the null sender of
// a bounce; a sender that cannot be written there is an error, and no
// file is written.
func TestDirDeliverReturnPath(t *testing.T) {
	for _, tt := range []struct {
		from, want string // want "": an error
	}{
		{"a@example.com", "Return-Path: <a@example.com>\r\n"},
		{"", "Return-Path: <>\r\n"},
		{"postmaster@[192.0.2.1]", "Return-Path: <postmaster@[192.0.2.1]>\r\n"},
		{"a@example.com>\r\nBcc: c@example.org", ""},
		{"a b@example.com", ""},
		{"a@b@example.com", ""},
	} {
		t.Run(fmt.Sprintf("%q", tt.from), func(t *testing.T) {
			dir := t.TempDir()
			err := DirDeliver(dir)(tt.from, []string{"b@example.net"}, strings.NewReader(msg))
			files, _ := os.ReadDir(dir)
			if tt.want == "" {
				require.Error(t, err)
				assert.Empty(t, files)
				return
			}
			require.NoError(t, err)
			require.Len(t, files, 1)
			b, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
			require.NoError(t, err)
			assert.Equal(t, tt.want+msg, string(b))
		})
	}
}

// TestEnvelopeAddresses: the gateway takes local@domain with a dot-atom
// local part (a domain name or address literal after the @) and the null
// sender, and refuses other addresses with 553: go-smtp hands a quoted
// local part on unquoted, so "a@b"@example.net would reach the next hop as
// a@b@example.net.
func TestEnvelopeAddresses(t *testing.T) {
	for _, tt := range []struct {
		name, cmd string
		code      int
		enhanced  smtp.EnhancedCode
	}{
		{"a sender", "MAIL FROM:<a.b+c@example.com>", 250, smtp.EnhancedCode{2, 0, 0}},
		{"the null sender", "MAIL FROM:<>", 250, smtp.EnhancedCode{2, 0, 0}},
		{"a sender at an address literal", "MAIL FROM:<a@[IPv6:2001:db8::1]>", 250, smtp.EnhancedCode{2, 0, 0}},
		{"a quoted sender", `MAIL FROM:<"a b"@example.com>`, 553, smtp.EnhancedCode{5, 1, 7}},
		{"a sender with an escape", "MAIL FROM:<a@example.com\x1b[2K>", 553, smtp.EnhancedCode{5, 1, 7}},
		{"a sender with a CR", "MAIL FROM:<a@ex\rample.com>", 553, smtp.EnhancedCode{5, 1, 7}},
		{"a sender beyond ASCII", "MAIL FROM:<a@exämple.com>", 553, smtp.EnhancedCode{5, 1, 7}},
		{"a sender with a long local part (SRS)", "MAIL FROM:<SRS0=HHH=TT=example.org=" + strings.Repeat("u", 60) + "@forwarder.example>", 250, smtp.EnhancedCode{2, 0, 0}},
		{"a path of 254 octets", "MAIL FROM:<" + strings.Repeat("a", 254-len("@example.com")) + "@example.com>", 250, smtp.EnhancedCode{2, 0, 0}},
		{"a path of 255 octets", "MAIL FROM:<" + strings.Repeat("a", 255-len("@example.com")) + "@example.com>", 553, smtp.EnhancedCode{5, 1, 7}},
		{"a recipient", "RCPT TO:<b@example.net>", 250, smtp.EnhancedCode{2, 0, 0}},
		{"a quoted recipient with an @", `RCPT TO:<"b@c"@example.net>`, 553, smtp.EnhancedCode{5, 1, 3}},
		{"a quoted recipient", `RCPT TO:<"b; x"@example.net>`, 553, smtp.EnhancedCode{5, 1, 3}},
		{"a recipient with a CR", "RCPT TO:<b@exam\rple.net>", 553, smtp.EnhancedCode{5, 1, 3}},
		{"a recipient beyond ASCII", "RCPT TO:<bü@example.net>", 553, smtp.EnhancedCode{5, 1, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rc := dialRaw(t, serve(t, &Backend{Deliver: func(string, []string, io.Reader) error { return nil }}))
			require.True(t, strings.HasPrefix(rc.send("EHLO client.example\r\n"), "250"))
			if strings.HasPrefix(tt.cmd, "RCPT") {
				require.True(t, strings.HasPrefix(rc.send("MAIL FROM:<a@example.com>\r\n"), "250"))
			}
			want := fmt.Sprintf("%d %d.%d.%d ", tt.code, tt.enhanced[0], tt.enhanced[1], tt.enhanced[2])
			assert.True(t, strings.HasPrefix(rc.send(tt.cmd+"\r\n"), want), "want %q", want)
		})
	}
}

func TestWriterDeliverAndLog(t *testing.T) {
	var out bytes.Buffer
	var logged []string
	addr := serve(t, &Backend{
		Options: mailhdr.Options{To: mailhdr.Canonical},
		Deliver: WriterDeliver(&out),
		Logf:    func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
		Now:     clock,
	})
	require.NoError(t, send(t, addr, []string{"b@example.net", "c@example.net"}))
	assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\" \"c@example.net\"]\n"+
		"Received: from localhost ([127.0.0.1]) by localhost with ESMTP;\r\n\tFri, 02 Jan 2026 03:04:05 +0000\r\n"+
		strings.Replace(msg, "charset=us-ascii", `charset="us-ascii"`, 1), out.String())
	assert.Equal(t, []string{`message from a@example.com: delivered to ["b@example.net" "c@example.net"]; Content-Type fields rewritten: 1`}, logged,
		"no problem; the outcome")
}

// TestDeliverReadingPart: a Deliver that stops reading early still lets
// the SMTP exchange finish.
func TestDeliverReadingPart(t *testing.T) {
	var head []byte
	addr := serve(t, &Backend{Deliver: func(_ string, _ []string, r io.Reader) error {
		head = make([]byte, len(received)+4)
		_, err := io.ReadFull(r, head)
		return err
	}, Now: clock})
	require.NoError(t, send(t, addr, []string{"b@example.net"}))
	assert.Equal(t, received+"Subj", string(head))
}

// A next hop that cannot be reached is a transient failure: the sender
// gets 451 and tries again later, and the hop's address stays in the log.
func TestSMTPDeliverFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := l.Addr().String()
	l.Close()
	var logged []string
	addr := serve(t, &Backend{Deliver: SMTPDeliver(dead, ""), Logf: func(f string, a ...any) {
		logged = append(logged, fmt.Sprintf(f, a...))
	}})
	err = send(t, addr, []string{"b@example.net"})
	se, ok := errors.AsType[*smtp.SMTPError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 451, se.Code)
	assert.Equal(t, smtp.EnhancedCode{4, 3, 0}, se.EnhancedCode, "a transient system failure, as the code says")
	assert.True(t, se.Temporary())
	assert.NotContains(t, se.Message, dead)
	require.Len(t, logged, 1)
	assert.True(t, strings.HasPrefix(logged[0], "message from a@example.com: delivering: "), logged[0])
	assert.Contains(t, logged[0], dead)
}

// refusingHop is a next hop whose DATA reply is reply.
type refusingHop struct{ reply *smtp.SMTPError }

func (h refusingHop) NewSession(*smtp.Conn) (smtp.Session, error) { return h, nil }
func (h refusingHop) Mail(string, *smtp.MailOptions) error        { return nil }
func (h refusingHop) Rcpt(string, *smtp.RcptOptions) error        { return nil }
func (h refusingHop) Data(r io.Reader) error {
	_, _ = io.Copy(io.Discard, r)
	return h.reply
}
func (refusingHop) Reset()        {}
func (refusingHop) Logout() error { return nil }

// The next hop's reply reaches the sender with its own code, transient or
// permanent, and so does go-smtp's 552 for a message over the size limit.
func TestDeliveryReplyCodes(t *testing.T) {
	for _, code := range []int{451, 550} {
		hop := serve(t, refusingHop{&smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0}, Message: "hop says no"}})
		err := send(t, serve(t, &Backend{Deliver: SMTPDeliver(hop, "")}), []string{"b@example.net"})
		se, ok := errors.AsType[*smtp.SMTPError](err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, code, se.Code)
		assert.Equal(t, "hop says no", se.Message)
	}

	// The limit holds also when Deliver stops reading before it: the
	// rest of the message is read, and counted, before the reply.
	for _, tt := range []struct {
		name    string
		deliver Deliver
	}{
		{"Deliver reads it all", WriterDeliver(io.Discard)},
		{"Deliver stops early", func(_ string, _ []string, r io.Reader) error {
			_, err := io.ReadFull(r, make([]byte, 4))
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			small := serve(t, &Backend{Deliver: tt.deliver}, func(s *smtp.Server) { s.MaxMessageBytes = 16 })
			err := send(t, small, []string{"b@example.net"})
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 552, se.Code)
		})
	}
}

// TestDirDeliverFailure: a message that cannot be read to its end leaves
// no file behind, complete or partial, and the error reaches the caller.
func TestDirDeliverFailure(t *testing.T) {
	boom := errors.New("connection reset")
	for _, tt := range []struct {
		name string
		msg  io.Reader
	}{
		{"at once", iotest.ErrReader(boom)},
		{"after part of the message", io.MultiReader(strings.NewReader("Subject: x\r\n"), iotest.ErrReader(boom))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := DirDeliver(dir)("a@example.com", []string{"b@example.net"}, tt.msg)
			assert.ErrorIs(t, err, boom)
			left, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, left)
		})
	}
}

// TestLogOmittedProblems: Logf hears of every problem the rewrite
// reports, those past Options.MaxProblems as a count.
func TestLogOmittedProblems(t *testing.T) {
	const bad = "Content-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: x\r\n\r\n\r\n--b\r\nContent-Type: y\r\n\r\n\r\n--b\r\nContent-Type: z\r\n\r\n\r\n--b--\r\n"
	cases := []struct {
		name        string
		maxProblems int
		want        []string
	}{
		{"all listed", 0, []string{
			"message from a@example.com: mailhdr: 1: mapping",
			"message from a@example.com: mailhdr: 2: mapping",
			"message from a@example.com: mailhdr: 3: mapping",
			"message from a@example.com: delivered to",
		}},
		{"one listed", 1, []string{
			"message from a@example.com: mailhdr: 1: mapping",
			"message from a@example.com: 2 more not listed",
			"message from a@example.com: delivered to",
		}},
		{"two listed", 2, []string{
			"message from a@example.com: mailhdr: 1: mapping",
			"message from a@example.com: mailhdr: 2: mapping",
			"message from a@example.com: 1 more not listed",
			"message from a@example.com: delivered to",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var logged []string
			addr := serve(t, &Backend{
				Options: mailhdr.Options{MaxProblems: tc.maxProblems},
				Deliver: WriterDeliver(io.Discard),
				Logf: func(f string, a ...any) {
					mu.Lock()
					defer mu.Unlock()
					logged = append(logged, fmt.Sprintf(f, a...))
				},
			})
			c, err := smtp.Dial(addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(bad)))
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, logged, len(tc.want))
			for i, w := range tc.want {
				assert.True(t, strings.HasPrefix(logged[i], w), "%q does not start with %q", logged[i], w)
			}
		})
	}
}

// A message refused part-way is marked as such after what was written of
// it: over the size limit (go-smtp's 552 reaches the sender) or cut off.
func TestWriterDeliverCutShort(t *testing.T) {
	t.Run("over the size limit", func(t *testing.T) {
		var out servertest.SyncBuffer
		addr := serve(t, &Backend{Deliver: WriterDeliver(&out)}, func(s *smtp.Server) { s.MaxMessageBytes = 16 })
		err := send(t, addr, []string{"b@example.net"})
		se, ok := errors.AsType[*smtp.SMTPError](err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, 552, se.Code)
		got := out.String()
		assert.True(t, strings.HasPrefix(got, "=== message from <a@example.com> to [\"b@example.net\"]\n"), "%q", got)
		assert.Regexp(t, `\n=== message from <a@example.com> cut short: .*[Mm]aximum message size.*, not accepted\n$`, got)
	})
	t.Run("read error", func(t *testing.T) {
		var out bytes.Buffer
		broken := errors.New("connection reset")
		err := WriterDeliver(&out)("a@example.com", []string{"b@example.net"},
			io.MultiReader(strings.NewReader("Subject: x"), iotest.ErrReader(broken)))
		assert.ErrorIs(t, err, broken)
		assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\"]\nSubject: x\n"+
			"=== message from <a@example.com> cut short: connection reset, not accepted\n", out.String())
	})
}

// quitDroppingHop is a next hop that accepts the message at the end of
// DATA and then closes the connection instead of answering QUIT. It
// returns its address and the message it accepted, once it has.
func quitDroppingHop(t *testing.T) (string, <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	accepted := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		fmt.Fprint(c, "220 hop ready\r\n")
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
			case strings.HasPrefix(cmd, "DATA"):
				fmt.Fprint(c, "354 go on\r\n")
				var body strings.Builder
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if l == ".\r\n" {
						break
					}
					body.WriteString(l)
				}
				fmt.Fprint(c, "250 accepted\r\n")
				accepted <- body.String()
			case strings.HasPrefix(cmd, "QUIT"):
				return // no reply: the connection just closes
			default:
				fmt.Fprint(c, "250 ok\r\n")
			}
		}
	}()
	return l.Addr().String(), accepted
}

// TestSMTPDeliverQuitFails: a hop that accepted the message has it; a QUIT
// that fails afterwards does not make the delivery fail (the sender
// would try again and the hop get the message twice).
func TestSMTPDeliverQuitFails(t *testing.T) {
	hop, accepted := quitDroppingHop(t)
	err := SMTPDeliver(hop, "")("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
	require.NoError(t, err)
	assert.Equal(t, msg, <-accepted)
}

// TestSenderPrintedSafely: an envelope sender with control octets (go-smtp
// accepts a bare CR in a MAIL FROM domain; a Backend refuses it, but
// WriterDeliver may be called with anything) is Go-quoted in the line
// WriterDeliver writes, so it cannot forge a line or send terminal escape
// sequences; a plain address is written as it is.
func TestSenderPrintedSafely(t *testing.T) {
	for _, tc := range []struct{ from, shown string }{
		{"a@example.com", "a@example.com"},
		{"a@ex\rample.com", `"a@ex\rample.com"`},
		{"a@example.com\x1b[2K", `"a@example.com\x1b[2K"`},
		{"a@exämple.com", `"a@exämple.com"`},
	} {
		t.Run(tc.shown, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, WriterDeliver(&out)(tc.from, []string{"b@example.net"}, strings.NewReader("x")))
			first, _, _ := strings.Cut(out.String(), "\n")
			assert.Equal(t, "=== message from <"+tc.shown+"> to [\"b@example.net\"]", first)
		})
	}
}

// TestLogNamesSender: what the log says of a message starts with its
// sender.
func TestLogNamesSender(t *testing.T) {
	var logged []string
	be := &Backend{Deliver: WriterDeliver(io.Discard), Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
	sess, err := be.NewSession(nil)
	require.NoError(t, err)
	require.NoError(t, sess.Mail("a@example.com", nil))
	require.NoError(t, sess.Rcpt("b@example.net", nil))
	require.NoError(t, sess.Data(strings.NewReader("Content-Type: text\r\n\r\nx")))
	require.Len(t, logged, 2, "the unmappable Content-Type is logged, then the outcome")
	for _, l := range logged {
		assert.True(t, strings.HasPrefix(l, "message from a@example.com: "), l)
	}
}

// TestWriterDeliverStalledSender: a sender that stops part-way through its
// message holds up no other message; each is still written whole, one
// after the other.
func TestWriterDeliverStalledSender(t *testing.T) {
	var out servertest.SyncBuffer
	deliver := WriterDeliver(&out)
	pr, pw := io.Pipe()
	stalled := make(chan error, 1)
	go func() { stalled <- deliver("slow@example.com", []string{"b@example.net"}, pr) }()
	_, err := io.WriteString(pw, "Subject: slow\r\n") // then nothing more for now
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() { done <- deliver("a@example.com", []string{"b@example.net"}, strings.NewReader(msg)) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		pw.CloseWithError(errors.New("given up"))
		t.Fatal("a stalled sender holds up the delivery of another message")
	}
	assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\"]\n"+msg, out.String())

	_, err = io.WriteString(pw, "\r\nhi\r\n")
	require.NoError(t, err)
	pw.Close()
	require.NoError(t, <-stalled)
	assert.Equal(t, "=== message from <a@example.com> to [\"b@example.net\"]\n"+msg+
		"=== message from <slow@example.com> to [\"b@example.net\"]\nSubject: slow\r\n\r\nhi\r\n", out.String())
}

// TestLineTooLong: a message with a line longer than the server's
// MaxLineLength can never be accepted, so it is refused for good (554
// 5.6.0), not with a 451 that has the sender send it again and again,
// however it is handed on.
func TestLineTooLong(t *testing.T) {
	long := "Subject: x\r\n\r\n" + strings.Repeat("x", 3000) + "\r\n"
	hop := serve(t, &Backend{Deliver: WriterDeliver(io.Discard)})
	for _, tt := range []struct {
		name    string
		deliver Deliver
	}{
		{"standard output", WriterDeliver(io.Discard)},
		{"a folder", DirDeliver(t.TempDir())},
		{"the next hop", SMTPDeliver(hop, "")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logged []string
			c, err := smtp.Dial(serve(t, &Backend{Deliver: tt.deliver, Logf: func(f string, a ...any) {
				logged = append(logged, fmt.Sprintf(f, a...))
			}}))
			require.NoError(t, err)
			defer c.Close()
			err = c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(long))
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 554, se.Code, se.Message)
			assert.Equal(t, smtp.EnhancedCode{5, 6, 0}, se.EnhancedCode)
			require.Len(t, logged, 1)
			assert.True(t, strings.HasPrefix(logged[0], "message from a@example.com: refused: "+se.Message+" ("), logged[0])
		})
	}
}

// A next hop whose reply has a line longer than go-smtp's client takes
// (here its greeting) is the next hop's fault, not the message's: the
// client's ErrTooLongLine is a transient failure (451) like any other
// failure to hand the message on, not the 554 5.6.0 of a message with
// such a line, which would have the sender bounce a message it can send.
func TestNextHopLongReplyIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, "220 "+strings.Repeat("x", 3000)+"\r\n")
			c.Close()
		}
	}()
	addr := serve(t, &Backend{Deliver: SMTPDeliver(l.Addr().String(), "")})
	err = send(t, addr, []string{"b@example.net"})
	se, ok := errors.AsType[*smtp.SMTPError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 451, se.Code, se.Message)
}

// MaxHops 1 is one hop, not the default: a message with one Received
// field is refused as looping.
func TestMaxHopsOne(t *testing.T) {
	delivered := false
	addr := serve(t, &Backend{MaxHops: 1, Now: clock,
		Deliver: func(string, []string, io.Reader) error { delivered = true; return nil }})
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	err = c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(withReceived(1)))
	var se *smtp.SMTPError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 554, se.Code)
	assert.Equal(t, smtp.EnhancedCode{5, 4, 6}, se.EnhancedCode)
	assert.False(t, delivered)
}

// A Session used without go-smtp's server, which refuses DATA before
// RCPT itself, refuses a message without recipients.
func TestDataWithoutRecipients(t *testing.T) {
	delivered := false
	s, err := (&Backend{Deliver: func(string, []string, io.Reader) error { delivered = true; return nil }}).NewSession(nil)
	require.NoError(t, err)
	require.NoError(t, s.Mail("a@example.com", nil))
	var se *smtp.SMTPError
	require.ErrorAs(t, s.Data(strings.NewReader(msg)), &se)
	assert.Equal(t, 554, se.Code)
	assert.False(t, delivered)
}

// While DirDeliver writes a message, its file has a name that a reader
// of *.eml does not pick up.
func TestDirDeliverHidesPartialFile(t *testing.T) {
	dir := t.TempDir()
	var seen []string
	r := io.MultiReader(strings.NewReader("Subject: x\r\n"), readerFunc(func([]byte) (int, error) {
		var err error
		seen, err = filepath.Glob(filepath.Join(dir, "*.eml"))
		require.NoError(t, err)
		return 0, io.EOF
	}))
	require.NoError(t, DirDeliver(dir)("a@example.com", []string{"b@example.net"}, r))
	assert.Empty(t, seen, "a half-written message is visible as .eml")
	done, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	assert.Len(t, done, 1)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// WriterDeliver quotes a sender with a space (reachable by calling it
// directly: MAIL FROM refuses one).
func TestWriterDeliverQuotesSpace(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriterDeliver(&b)("a b@example.com", []string{"b@example.net"}, strings.NewReader("x")))
	assert.True(t, strings.HasPrefix(b.String(), `=== message from <"a b@example.com">`), b.String())
}

// TestLogNotDelivered: a reply that refuses the message, here the next
// hop's, goes back to the sender as it came and into the log, with the
// sender.
func TestLogNotDelivered(t *testing.T) {
	var logged []string
	hopReply := &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	be := &Backend{
		Deliver: func(_ string, _ []string, msg io.Reader) error { _, _ = io.Copy(io.Discard, msg); return hopReply },
		Logf:    func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
	}
	sess, err := be.NewSession(nil)
	require.NoError(t, err)
	require.NoError(t, sess.Mail("a@example.com", nil))
	require.NoError(t, sess.Rcpt("b@example.net", nil))
	assert.Same(t, hopReply, sess.Data(strings.NewReader("Subject: x\r\n\r\nx\r\n")))
	assert.Equal(t, []string{"message from a@example.com: not delivered: " + hopReply.Error()}, logged)
}

// TestLogEscapesHopReply: a next hop's reply goes into the log, and a
// reply of several lines, which go-smtp's client joins with LF, or one
// with control characters, would forge log lines or send terminal escape
// sequences. Such a reply is Go-quoted in the log.
func TestLogEscapesHopReply(t *testing.T) {
	for _, tc := range []struct{ reply, shown string }{
		{"no such user", "SMTP error 550: no such user"},
		{"first line\nforged line", `"SMTP error 550: first line\n5.1.1 forged line"`},
		{"no\x1b[2K\u009b\u202e such user", `"SMTP error 550: no\x1b[2K\u009b\u202e such user"`},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			hop := serve(t, refusingHop{&smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: tc.reply}})
			var mu sync.Mutex
			var logged []string
			addr := serve(t, &Backend{Deliver: SMTPDeliver(hop, ""), Logf: func(f string, a ...any) {
				mu.Lock()
				defer mu.Unlock()
				logged = append(logged, fmt.Sprintf(f, a...))
			}})
			err := send(t, addr, []string{"b@example.net"})
			se, ok := errors.AsType[*smtp.SMTPError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 550, se.Code)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, logged, 1)
			line := logged[0]
			assert.Equal(t, "message from a@example.com: not delivered: "+tc.shown, line)
			assert.True(t, printable.Is(line), "%q prints", line)
		})
	}
}

// TestLogEscapesDeliveryError: a delivery error other than a reply (one
// of go-smtp's client, which can quote what the next hop sent, or of a
// Deliver of the caller's) goes into the log Go-quoted when it is not
// printable ASCII, as a reply does.
func TestLogEscapesDeliveryError(t *testing.T) {
	var logged []string
	addr := serve(t, &Backend{
		Deliver: func(_ string, _ []string, msg io.Reader) error {
			_, _ = io.Copy(io.Discard, msg)
			return errors.New("short response: 250\r\nforged \x1b[2K")
		},
		Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
	})
	err := send(t, addr, []string{"b@example.net"})
	se, ok := errors.AsType[*smtp.SMTPError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 451, se.Code)
	require.Len(t, logged, 1)
	assert.Equal(t, `message from a@example.com: delivering: "short response: 250\r\nforged \x1b[2K"`, logged[0])
}

// TestSMTPDeliverHostname: SMTPDeliver introduces the gateway to the next
// hop by the hostname it is given (the mailgateway command passes its
// -hostname), which the hop records in its Received field; "" is
// go-smtp's "localhost". Before, it said "localhost" whatever the
// gateway's name (seen in Exim's log: helo=localhost). A hostname that
// is not one line fails the delivery before anything is sent.
func TestSMTPDeliverHostname(t *testing.T) {
	for _, tc := range []struct{ hostname, helo string }{
		{"", "localhost"},
		{"gateway.example", "gateway.example"},
		{"gateway.example\r\nRSET", ""},
	} {
		t.Run(tc.hostname, func(t *testing.T) {
			var out servertest.SyncBuffer
			hop := serve(t, &Backend{Deliver: WriterDeliver(&out), Now: clock})
			err := SMTPDeliver(hop, tc.hostname)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
			if tc.helo == "" {
				require.Error(t, err)
				assert.Empty(t, out.String(), "nothing delivered")
				return
			}
			require.NoError(t, err)
			_, delivered, _ := strings.Cut(out.String(), "\n")
			clauses, _ := checkReceived(t, delivered)
			assert.Equal(t, tc.helo+" ([127.0.0.1])", clauses[0])
		})
	}
}

// TestLogNullSender: the log names the null sender of a bounce "<>", as
// WriterDeliver and DirDeliver's Return-Path do, not with nothing at all
// ("message from : delivered to ...").
func TestLogNullSender(t *testing.T) {
	rec := &recorder{}
	addr := serve(t, &Backend{Deliver: WriterDeliver(io.Discard), Logf: rec.logf})
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SendMail("", []string{"b@example.net"}, strings.NewReader(msg)))
	_, logs := rec.get()
	assert.Equal(t, []string{`message from <>: delivered to ["b@example.net"]; Content-Type fields rewritten: 1`}, logs)
}

// TestDirDeliverNamesAreUnique: two DirDelivers into one folder, under a
// clock that does not move (a coarse one, as on some systems), give every
// message a file of its own: the counter is the process's, and the name
// holds the process ID for other gateways on the folder. With a counter
// per DirDeliver the second file replaced the first.
func TestDirDeliverNamesAreUnique(t *testing.T) {
	orig := now
	t.Cleanup(func() { now = orig })
	stopped := time.Date(2026, 11, 27, 23, 15, 27, 0, time.UTC)
	now = func() time.Time { return stopped }

	dir := t.TempDir()
	a, b := DirDeliver(dir), DirDeliver(dir)
	for i, d := range []Deliver{a, b, a, b} {
		require.NoError(t, d("a@example.com", []string{"b@example.net"}, strings.NewReader(fmt.Sprintf("Subject: %d\r\n\r\n", i))))
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	require.NoError(t, err)
	require.Len(t, files, 4, "one file per message")
	for _, f := range files {
		assert.Regexp(t, `^20261127T231527\.000000000-`+strconv.Itoa(os.Getpid())+`-\d+\.eml$`, filepath.Base(f))
	}
}
