package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/mailhdr"
)

// runMail is "cturi mail" (or "cturi -mail"): it rewrites the
// Content-Type fields of one message (package mailhdr) from FILE or
// standard input to standard output, and reports the problems it met
// (mailhdr.Report) on standard error.
func runMail(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cturi mail", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseError writes what is wrong
	to := fs.String("to", "uri", "rewrite Content-Types to: uri (URI labels), ct (Content-Types) or canonical")
	strictURI := fs.Bool("strict-uri", false, "write query-value delimiters as %22 (strict RFC 3986 URIs)")
	strictParsing := fs.Bool("strict-parsing", false, "refuse the unquoted parameter values mail software writes")
	noControlled := fs.Bool("no-controlled", false, "refuse the controlled mapping (URI-body, MIME-type) for untrusted mail")
	rewriteSigned := fs.Bool("rewrite-signed", false, "rewrite the part a multipart/signed signs too, breaking its signature")
	// The limits default to mailhdr's; 0 also means the default and a
	// negative value no limit, as in mailhdr.Options.
	maxHeader := fs.Int("max-header-bytes", mailhdr.DefaultMaxHeaderBytes, "bound one header block (`N` octets; 0: the default; negative: no limit)")
	maxField := fs.Int("max-field-bytes", mailhdr.DefaultMaxFieldBytes, "bound one Content-Type or Content-Transfer-Encoding field (`N` octets; 0: the default; negative: no limit)")
	maxDepth := fs.Int("max-depth", mailhdr.DefaultMaxDepth, "bound how deeply parts are descended into (`N` levels; 0: the default; negative: no limit)")
	// The usage goes to standard output for -h; after a bad command line,
	// what is wrong goes to standard error with a pointer to -h (as for
	// cturi itself).
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return printOut(stdout, stderr, "cturi mail", func(w io.Writer) { mailUsage(w, fs) })
		}
		return parseError(stderr, "cturi mail", err)
	}
	target, err := mailhdr.ParseTarget(*to)
	switch {
	case err != nil:
		err = fmt.Errorf("-to must be uri, ct or canonical, not %q", *to)
	case fs.NArg() > 1:
		err = errors.New("at most one FILE")
	}
	if err != nil {
		return badUsage(stderr, "cturi mail", err)
	}
	in := stdin
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			// The error names FILE as given, which may come from a
			// script's list of names.
			fmt.Fprintf(stderr, "cturi mail: %s\n", printable.Escape(err.Error()))
			return exitFailed
		}
		defer f.Close()
		in = f
	}
	opts := mailhdr.Options{
		To: target, StrictURI: *strictURI, StrictParsing: *strictParsing, NoControlled: *noControlled,
		RewriteSigned:  *rewriteSigned,
		MaxHeaderBytes: *maxHeader, MaxFieldBytes: *maxField, MaxDepth: *maxDepth,
	}
	rep, err := mailhdr.Rewrite(stdout, in, opts)
	for i := range rep.Problems {
		fmt.Fprintf(stderr, "cturi mail: offset %d: %v\n", rep.Problems[i].Offset, &rep.Problems[i])
	}
	if rep.Omitted > 0 {
		fmt.Fprintf(stderr, "cturi mail: %d more not listed\n", rep.Omitted)
	}
	if err != nil {
		// A read error names FILE too.
		fmt.Fprintf(stderr, "cturi mail: %s\n", printable.Escape(err.Error()))
		return exitFailed
	}
	if !rep.OK() {
		return exitFailed
	}
	return exitOK
}

func mailUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: cturi mail [-to uri|ct|canonical] [-strict-uri] [-strict-parsing] [-no-controlled]
                  [-rewrite-signed] [-max-header-bytes N] [-max-field-bytes N] [-max-depth N] [FILE]

Reads one MIME message from FILE (standard input when FILE is absent or
"-") and writes it to standard output with every Content-Type field, of
the message and of each part at any depth, rewritten: to its URI label
(-to uri), from a URI label back to a Content-Type (-to ct), or to the
canonical Content-Type (-to canonical). Every other byte is copied
unchanged. Each problem is listed on standard error, one line each, with
its byte offset, part path and kind: a field not rewritten, a part passed
through unexamined, or a malformed structure (a multipart without its
close delimiter, a bad delimiter line). The part a multipart/signed signs
(PGP/MIME, S/MIME) is one passed through: its signature covers its
header, so rewriting it would break the signature (-rewrite-signed does).

Exit status: 0 if no problem was listed, 1 if one was (the message is
still written in full; a malformed structure counts, even with every
field rewritten) or on an I/O error, 2 for a usage error; on Unix, when
the reader of standard output goes away, it ends by SIGPIPE (status 141
in sh). cturi -mail [...] is the same command.

A field longer than -max-field-bytes passes through unchanged, as does
the rest of a header past -max-header-bytes; the entity's body, like the
body of a multipart or message at -max-depth, passes through unexamined.
Each is reported (field-too-large, header-too-large, too-deep). Rewritten,
a field can grow: a Content-Type written as a URI label, and a URI label
written as an application/uri. type, percent-encode each octet that needs
it (one octet becomes three; a non-ASCII octet of an IRI becomes five).
To read such a message again, as with -to ct after -to uri, give
-max-field-bytes (and -max-header-bytes) four times the limits it was
written with, six times for IRIs written with -to ct.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Example:

  $ printf 'Content-Type: text/plain; charset=us-ascii\r\n\r\nhi\r\n' | cturi mail
  Content-Type: ContentType:text/plain?charset="us-ascii"

  hi
`)
}
