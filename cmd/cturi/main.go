// Command cturi maps MIME Content-Types to URIs and back
// (draft-eastlake-cturi, as the cturi SPEC resolves it).
//
// Usage:
//
//	cturi [-to uri|ct|auto] [-strict-uri] [-lenient] [-json] [VALUE...]
//	cturi mail [-to uri|ct|canonical] [...] [FILE]
//	cturi -version
//
// Each VALUE, or each line of standard input when there is none, is mapped
// and printed on one line of standard output: the mapped value, or
// ERROR:<kind> with the SPEC error kind. With mail (or -mail) as its first
// argument it rewrites the Content-Type fields of a MIME message instead.
// cturi -version prints its version. Run cturi -h for the details.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/cturi/cturi/internal/checkedio"
	"github.com/cturi/cturi/internal/printable"
)

// Exit statuses of the mapping command.
const (
	exitOK     = 0 // every value mapped
	exitFailed = 1 // some value did not map, or output failed
	exitUsage  = 2 // bad flags or arguments
	// maxKeptLine bounds the buffer eachLine keeps, from one line longer
	// than its read buffer, for the next such line.
	maxKeptLine = 1 << 20
)

// maxLineSize is the longest value mapped (16 MiB, as -h says). It is a
// variable so that the tests of the limit can lower it to a size the race
// detector reads quickly; nothing else changes it.
var maxLineSize = 16 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The word mail never maps (it is neither a Content-Type nor a URI:
	// ERROR:syntax, or relative-uri with -to ct), so as the first argument
	// it can name the mail command and no script loses a mapping by it;
	// "cturi -- mail" still maps the word. -mail is the same command.
	if len(args) > 0 && (args[0] == "mail" || mailFlag(args[0])) {
		return runMail(args[1:], stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("cturi", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseError writes what is wrong
	to := fs.String("to", "auto", "direction: uri (Content-Type to URI), ct (URI to Content-Type) or auto")
	strict := fs.Bool("strict-uri", false, "write query-value delimiters as %22 (strict RFC 3986 URIs)")
	lenient := fs.Bool("lenient", false, "accept unquoted parameter values as mail software writes them")
	asJSON := fs.Bool("json", false, "print one JSON object per value")
	mail := fs.Bool("mail", false, "as the first argument: the same as cturi mail (cturi mail -h)")
	version := fs.Bool("version", false, "print cturi's version and the Go release that built it, and exit")
	// The usage goes to standard output for -h; after a bad command line,
	// what is wrong goes to standard error with a pointer to -h, rather
	// than the usage's 30 lines, which would scroll it away.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return printOut(stdout, stderr, "cturi", func(w io.Writer) { usage(w, fs) })
		}
		return parseError(stderr, "cturi", err)
	}
	if *version {
		// As -h: whatever else the command line holds.
		return printOut(stdout, stderr, "cturi", func(w io.Writer) { fmt.Fprintln(w, versionLine(debug.ReadBuildInfo())) })
	}
	m, err := newMapper(*to, *strict, *lenient)
	if err == nil && *mail {
		err = errors.New("-mail must be the first argument")
	}
	if err != nil {
		return badUsage(stderr, "cturi", err)
	}
	out := bufio.NewWriterSize(&checkedio.Writer{W: stdout}, 64<<10)
	// Messages are buffered too, unless both streams go to one file (2>&1,
	// a terminal), where each message must come out just before its
	// ERROR line, at the cost of two writes per failing value.
	interleave := sameDestination(stdout, stderr)
	msgs := bufio.NewWriterSize(&checkedio.Writer{W: stderr}, 16<<10)
	w := newResultWriter(out, msgs, *asJSON, interleave)
	flush := func() error {
		msgs.Flush() // an error writing messages is ignored, as unbuffered
		return out.Flush()
	}
	// The first error writing the output stops the command: the rest of
	// an input that may never end would go nowhere.
	var werr error
	if fs.NArg() > 0 {
		for _, v := range fs.Args() {
			if werr = w.write(m.apply(v), 0); werr != nil {
				break
			}
		}
	} else if err := eachLine(stdin, func() error { werr = flush(); return werr }, func(n int, line string, tooLong, uri bool) error {
		if tooLong {
			werr = w.write(m.tooLong(line, uri), n)
		} else {
			werr = w.write(m.apply(line), n)
		}
		return werr
	}); err != nil && werr == nil {
		fmt.Fprintf(msgs, "cturi: reading standard input: %v\n", err)
		w.failed = true
	}
	// After a write error, Flush returns it again (bufio.Writer).
	if err := flush(); err != nil {
		fmt.Fprintf(stderr, "cturi: writing standard output: %v\n", err)
		return exitFailed
	}
	if w.failed {
		return exitFailed
	}
	return exitOK
}

// eachLine calls fn for each line of r, without the line ending (LF, and a
// CR before it; a CR that ends the input without an LF goes too). Memory
// is bounded by the longest line while it is read, and by maxKeptLine
// after it, and a line whose value (without its ending) is longer than
// maxLineSize is skipped unread: fn gets its first
// bytes and tooLong, and uri tells whether the whole value starts with a
// URI scheme and ':' (SPEC R0.17), which its first bytes may not show. An
// error from fn stops eachLine, which returns it.
//
// Before each read that may wait for input (no whole line is buffered),
// eachLine calls flush: a program that feeds cturi a line at a time gets
// each answer at once, and a large input is still answered in large
// blocks. A flush error stops eachLine, which returns it: a program
// waiting for that answer before it writes more would wait for ever.
func eachLine(r io.Reader, flush func() error, fn func(n int, line string, tooLong, uri bool) error) error {
	// The buffer may hold a value of maxLineSize octets and its CR LF.
	maxBuffered := maxLineSize + 2
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for n := 1; ; n++ {
		// The scan stops at the next line's end, so it adds one pass.
		if b, _ := br.Peek(br.Buffered()); bytes.IndexByte(b, '\n') < 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		chunk, err := br.ReadSlice('\n')
		tooLong := false
		line := chunk
		start := startWSP
		if err == bufio.ErrBufferFull {
			long = append(long[:0], chunk...)
			start = start.next(chunk)
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				start = start.next(chunk)
				if len(long)+len(chunk) > maxBuffered {
					tooLong = true
				} else {
					long = append(long, chunk...)
				}
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) > maxLineSize {
			tooLong = true
		}
		if ferr := fn(n, string(line), tooLong, start == startURI); ferr != nil {
			return ferr
		}
		if cap(long) > maxKeptLine {
			long = nil // not kept for the lines after a long one
		}
		if err == io.EOF {
			return nil
		}
	}
}

// mailFlag reports whether arg turns -mail on, in any form the flag
// package accepts for a bool: -mail, --mail, -mail=true, --mail=1, ...
func mailFlag(arg string) bool {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	if name != "mail" || !strings.HasPrefix(arg, "-") {
		return false
	}
	on, err := strconv.ParseBool(value)
	return !hasValue || (err == nil && on)
}

// sameDestination reports whether stdout and stderr go to one place,
// where the order of their lines shows: one file (os.SameFile, as with
// 2>&1), or two character devices (a terminal, reached as /dev/tty or as
// /dev/pts/N, or /dev/null, where buffering gains nothing). Writers other
// than two *os.File values are one place when they are the same value, or
// values that cannot be compared; a file that cannot be examined counts
// as the other's too. When in doubt, the order is kept.
func sameDestination(stdout, stderr io.Writer) bool {
	fo, ok1 := stdout.(*os.File)
	fe, ok2 := stderr.(*os.File)
	if !ok1 || !ok2 {
		return sameWriter(stdout, stderr)
	}
	so, err1 := fo.Stat()
	se, err2 := fe.Stat()
	if err1 != nil || err2 != nil {
		return true
	}
	return os.SameFile(so, se) || so.Mode()&se.Mode()&os.ModeCharDevice != 0
}

// sameWriter reports whether a == b; comparing values of a type that is
// not comparable panics, and such writers count as the same.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = true
		}
	}()
	return a == b
}

// badUsage tells stderr what is wrong with the command line of cmd
// ("cturi" or "cturi mail"), if err says more than the flag package has
// already written, and where the usage is, and returns exitUsage.
func badUsage(stderr io.Writer, cmd string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	}
	fmt.Fprintf(stderr, "Run '%s -h' for usage.\n", cmd)
	return exitUsage
}

// parseError writes err, a command line's error from the flag package,
// as the flag package writes it, but with what does not print escaped: it
// names a flag as it was given, and a value meant for mapping but written
// without a -- before it is taken for one. It then calls badUsage.
func parseError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintln(stderr, printable.Escape(err.Error()))
	return badUsage(stderr, cmd, nil)
}

// printOut writes what write writes, at once, to standard output, for -h
// and -version: exit status 0, or 1 with a message if the write fails, as
// for the mapped values.
func printOut(stdout, stderr io.Writer, cmd string, write func(io.Writer)) int {
	var b bytes.Buffer
	write(&b)
	if _, err := (&checkedio.Writer{W: stdout}).Write(b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "%s: writing standard output: %v\n", cmd, err)
		return exitFailed
	}
	return exitOK
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: cturi [-to uri|ct|auto] [-strict-uri] [-lenient] [-json] [VALUE...]
       cturi mail [-to uri|ct|canonical] [...] [FILE]
       cturi -version

Maps MIME Content-Types to URIs and URIs to Content-Types
(draft-eastlake-cturi, as the cturi SPEC resolves it).

Each VALUE, or with no VALUE each line of standard input up to EOF (a
trailing CR is removed), is mapped, and exactly one line is printed on
standard output for it: the mapped value, or ERROR:<kind> with the SPEC
error kind (syntax, ctl, bad-utf8, relative-uri, invalid-uri, reserved,
reserved-param, duplicate-special, bad-mime-type, bad-param-name,
bad-uri-body, nested). A message for each failure goes to standard error.
Values are field values: no "Content-Type:" prefix, no angle brackets;
an empty line is a value too (ERROR:syntax, or relative-uri with -to ct),
so lines stay in step.
A value longer than 16 MiB is not mapped (invalid-uri if it would map to
a Content-Type, as with -to ct or a URI under -to auto; syntax otherwise).
Output and messages are buffered, but written before cturi waits for more
input, so a program can feed it one line at a time. When both streams go
to one file (2>&1, a terminal), each message is written just before its
ERROR line instead, which costs two writes per failing value.

Put -- before a VALUE that starts with '-': cturi -- -x/y. With mail (or
-mail) as the first argument, cturi rewrites the Content-Type fields of a
MIME message instead: run cturi mail -h for that. The word mail never maps
as a value; cturi -- mail maps it all the same (ERROR:syntax).

Exit status: 0 if every value mapped, 1 if any failed or on an I/O error
(cturi stops at the first error writing standard output), 2 for a usage
error. On Unix, when the reader of standard output goes away (cturi |
head -1), cturi ends by SIGPIPE, as cat does (status 141 in sh), not with
status 1, and messages still buffered are lost with it.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
With -to auto, a value that starts with a URI scheme and ':' is a URI and
maps to a Content-Type; anything else is a Content-Type and maps to a URI.

With -json, each line is instead an object with the fields input,
direction (to-uri or to-ct), output, kind (empty on success) and error
(the message, empty on success). For a value over 16 MiB, input holds its
first 64 bytes (fewer, to end on a whole UTF-8 character) followed by
"...". JSON strings are Unicode, so in input an octet that is not part of
valid UTF-8 shows as U+FFFD; such a value never maps (bad-utf8, syntax or
invalid-uri), and the message on standard error quotes it exactly (\xff).
A character that does not print (DEL, a C1 or bidi control...) is written
as a \u escape.

Examples (draft §2.2 and §3.1):

  $ cturi 'image/tiff; application=faxbw'
  ContentType:image/tiff?application="faxbw"

  $ cturi 'mailto:U@example.net?subject="misc"&body="line1%0D%0Aline2"'
  application/uri.mailto%3AU%40example.net; subject="misc"; body="line1%250D%250Aline2"
`)
}
