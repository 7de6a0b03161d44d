package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runMailCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(append([]string{"mail"}, args...), strings.NewReader(stdin), &out, &errs)
	return code, out.String(), errs.String()
}

func TestMailCommand(t *testing.T) {
	const msg = "Subject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nbody\r\n"
	const uri = "Subject: x\r\nContent-Type: ContentType:text/plain?charset=\"us-ascii\"\r\n\r\nbody\r\n"
	const canonical = "Subject: x\r\nContent-Type: text/plain; charset=\"us-ascii\"\r\n\r\nbody\r\n"
	file := filepath.Join(t.TempDir(), "m.eml")
	dir := filepath.Join(t.TempDir(), "x\r\x1b[2K\u202e") // opens, but does not read
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.WriteFile(file, []byte(uri), 0o644))
	// One part that does not map more than a report lists (1000 by
	// default): the one left out is still counted.
	var many strings.Builder
	many.WriteString("Content-Type: multipart/mixed; boundary=b\r\n\r\n")
	for range 1001 {
		many.WriteString("--b\r\nContent-Type: x\r\n\r\n\r\n")
	}
	many.WriteString("--b--\r\n")
	const controlled = "Content-Type: application/xml; URI-body=\"http://x.test/a\"\r\n\r\nx"
	const signed = "Content-Type: multipart/signed; protocol=\"a/b\"; boundary=s\r\n\r\n--s\r\nContent-Type: text/plain\r\n\r\nx\r\n--s\r\nContent-Type: a/b\r\n\r\ny\r\n--s--\r\n"
	signedURI := strings.NewReplacer("multipart/signed; protocol=\"a/b\"; boundary=s", `ContentType:multipart/signed?protocol="a%2Fb"&boundary="s"`, "Content-Type: a/b", "Content-Type: ContentType:a/b").Replace(signed)

	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string // a substring; "" means empty
	}{
		{"to URI from standard input", msg, nil, 0, uri, ""},
		{"to URI with -", msg, []string{"-to", "uri", "-"}, 0, uri, ""},
		{"back from a file", "", []string{"-to", "ct", file}, 0, canonical, ""},
		{"canonical", msg, []string{"-to", "canonical"}, 0, canonical, ""},
		{"strict parsing refuses unquoted values", "Content-Type: text/plain; name=a@b.txt\r\n\r\nx", []string{"-strict-parsing"}, 1, "Content-Type: text/plain; name=a@b.txt\r\n\r\nx", "top: mapping"},
		{"a problem", "Content-Type: text\r\n\r\nx", nil, 1, "Content-Type: text\r\n\r\nx", "cturi mail: offset 0: mailhdr: top: mapping"},
		{"a body left unexamined going to Content-Types", "Content-Type: multipart/mixed; boundary=\"b\r\n\r\n--b\r\nContent-Type: a:b\r\n\r\nx\r\n--b--\r\n", []string{"-to", "ct"}, 1, "Content-Type: multipart/mixed; boundary=\"b\r\n\r\n--b\r\nContent-Type: a:b\r\n\r\nx\r\n--b--\r\n", "top: mapping: Content-Type does not parse"},
		// A malformed structure is a problem too, though every field was
		// rewritten: the exit status is 1.
		{"a missing close delimiter", "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n", nil, 1, "Content-Type: ContentType:multipart/mixed?boundary=\"b\"\r\n\r\n--b\r\nContent-Type: ContentType:text/plain\r\n\r\nx\r\n", "top: missing-delimiter"},
		// A field cut off by the end of the input goes out as read.
		{"a header cut off", "Content-Type: text/plain; charset=us-a", nil, 1, "Content-Type: text/plain; charset=us-a", "top: truncated-header"},
		{"-strict-uri", msg, []string{"-strict-uri"}, 0, strings.Replace(uri, `"us-ascii"`, "%22us-ascii%22", 1), ""},
		{"the controlled mapping", controlled, nil, 0, "Content-Type: http://x.test/a?MIME-type=\"application/xml\"\r\n\r\nx", ""},
		{"-no-controlled refuses it", controlled, []string{"-no-controlled"}, 1, controlled, "cturi mail: offset 0: mailhdr: top: mapping"},
		{"a signed part is passed through", signed, nil, 1, signedURI, "cturi mail: offset 67: mailhdr: 1: signed: "},
		{"-rewrite-signed rewrites it", signed, []string{"-rewrite-signed"}, 0, strings.Replace(signedURI, "Content-Type: text/plain", "Content-Type: ContentType:text/plain", 1), ""},
		{"problems past the report's limit are counted", many.String(), nil, 1, strings.Replace(many.String(), "multipart/mixed; boundary=b", `ContentType:multipart/mixed?boundary="b"`, 1), "cturi mail: 1 more not listed\n"},
		{"bad direction", msg, []string{"-to", "auto"}, 2, "", `cturi mail: -to must be uri, ct or canonical, not "auto"`},
		{"two files", msg, []string{file, file}, 2, "", "at most one FILE"},
		{"missing file", "", []string{filepath.Join(t.TempDir(), "none.eml")}, 1, "", "no such file"},
		{"a directory with control characters", "", []string{dir}, 1, "", "x\\r\\x1b[2K\\u202e: is a directory"},
		{"missing file with control characters", "", []string{filepath.Join(t.TempDir(), "x\r\x1b[2K\u202e.eml")}, 1, "", "x\\r\\x1b[2K\\u202e.eml: no such file"},
		{"bad flag", msg, []string{"-nope"}, 2, "", "flag provided but not defined"},
		{"bad flag with control characters", msg, []string{"-x\r\x1b[2K\u202e"}, 2, "", "flag provided but not defined: -x\\r\\x1b[2K\\u202e\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMailCmd(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.stdout, stdout)
			if tc.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.Contains(t, stderr, tc.stderr)
			}
		})
	}
}

func TestMailHelp(t *testing.T) {
	code, stdout, stderr := runMailCmd(t, "", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "Usage: cturi mail")
	assert.Contains(t, stdout, "-to string")
	assert.Empty(t, stderr)

	// The main usage names the mode.
	var out bytes.Buffer
	assert.Equal(t, 0, run([]string{"-h"}, strings.NewReader(""), &out, &out))
	assert.Contains(t, out.String(), "cturi mail [-to uri|ct|canonical]")
}

// TestMailCommandSpellings: the first argument mail, or -mail in any form
// a bool flag takes, selects the mail command; elsewhere, or after --, the
// word is a value to map, and never maps.
func TestMailCommandSpellings(t *testing.T) {
	const msg = "Content-Type: text/plain\r\n\r\nx"
	const rewritten = "Content-Type: ContentType:text/plain\r\n\r\nx"
	for _, first := range []string{"mail", "-mail", "--mail", "-mail=true"} {
		t.Run(first, func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run([]string{first, "-to", "uri"}, strings.NewReader(msg), &out, &errs)
			assert.Equal(t, exitOK, code)
			assert.Equal(t, rewritten, out.String())
			assert.Empty(t, errs.String())
		})
	}
	for _, args := range [][]string{{"--", "mail"}, {"-json=false", "mail"}, {"image/png", "mail"}, {"-to", "ct", "mail"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errs bytes.Buffer
			code := run(args, strings.NewReader(msg), &out, &errs)
			assert.Equal(t, exitFailed, code)
			assert.Regexp(t, `ERROR:(syntax|relative-uri)\n$`, out.String())
			assert.Contains(t, errs.String(), `"mail"`)
		})
	}
}

// TestMailOutputFails: an error writing standard output is reported and
// the exit status is 1, whatever else the message held.
func TestMailOutputFails(t *testing.T) {
	for _, tt := range []struct {
		name, stdin string
	}{
		{"a message that rewrites", "Content-Type: text/plain\r\n\r\nx"},
		{"a message with nothing to rewrite", "Subject: x\r\n\r\nx"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errs bytes.Buffer
			code := run([]string{"mail"}, strings.NewReader(tt.stdin), &failingWriter{}, &errs)
			assert.Equal(t, exitFailed, code)
			assert.Contains(t, errs.String(), "no space left on device")
			assert.True(t, strings.HasPrefix(errs.String(), "cturi mail: "), "%s", errs.String())
		})
	}
}

// TestMailLimits: the limit flags reach mailhdr.Options. A Content-Type
// that grows past the default field limit as a URI label reads back only
// with -max-field-bytes raised.
func TestMailLimits(t *testing.T) {
	params := make([]string, 3000)
	for i := range params {
		params[i] = fmt.Sprintf("p%d=\"%s\"", i, strings.Repeat(" ", 10)) // each space becomes %20
	}
	msg := "Content-Type: text/plain;\r\n " + strings.Join(params, ";\r\n ") + "\r\n\r\nbody\r\n"
	require.Less(t, len(msg), mailhdr.DefaultMaxFieldBytes)
	code, labelled, stderr := runMailCmd(t, msg)
	require.Equal(t, exitOK, code, stderr)
	require.Greater(t, len(labelled), mailhdr.DefaultMaxFieldBytes, "the URI label outgrows the default field limit")
	unfold := func(s string) string { return strings.ReplaceAll(s, "\r\n ", " ") }

	const nested = "Content-Type: multipart/mixed; boundary=a\r\n\r\n--a\r\n" +
		"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n--a--\r\n"
	nestedAs := func(top, inner, innermost string) string {
		return "Content-Type: " + top + "\r\n\r\n--a\r\nContent-Type: " + inner + "\r\n\r\n--b\r\nContent-Type: " + innermost + "\r\n\r\nx\r\n--b--\r\n--a--\r\n"
	}
	allLabelled := nestedAs(`ContentType:multipart/mixed?boundary="a"`, `ContentType:multipart/mixed?boundary="b"`, "ContentType:text/plain")
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // after unfolding
		stderr string // a substring; "" means empty
	}{
		{"back with the default field limit", labelled, []string{"-to", "ct"}, exitFailed, unfold(labelled), "top: field-too-large"},
		{"back with -max-field-bytes raised", labelled, []string{"-to", "ct", "-max-field-bytes", "400000"}, exitOK, unfold(msg), ""},
		{"back with no field limit", labelled, []string{"-to", "ct", "-max-field-bytes", "-1"}, exitOK, unfold(msg), ""},
		{"-max-field-bytes 0 is the default", labelled, []string{"-to", "ct", "-max-field-bytes", "0"}, exitFailed, unfold(labelled), "top: field-too-large"},
		{"three levels within the default depth", nested, nil, exitOK, allLabelled, ""},
		{"-max-depth 0 is the default", nested, []string{"-max-depth", "0"}, exitOK, allLabelled, ""},
		{"-max-depth 1 leaves the body at depth 1 unexamined", nested, []string{"-max-depth", "1"}, exitFailed,
			nestedAs(`ContentType:multipart/mixed?boundary="a"`, `ContentType:multipart/mixed?boundary="b"`, "text/plain"), "1: too-deep"},
		{"-max-header-bytes 20 leaves the message as it is", nested, []string{"-max-header-bytes", "20"}, exitFailed, nested, "top: header-too-large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMailCmd(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.stdout, unfold(stdout))
			if tc.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.Contains(t, stderr, tc.stderr)
			}
		})
	}

	code, _, stderr = runMailCmd(t, msg, "-max-depth", "x")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `invalid value "x" for flag -max-depth`)
	assert.True(t, strings.HasSuffix(stderr, "Run 'cturi mail -h' for usage.\n"), "%s", stderr)
	assert.NotContains(t, stderr, "Usage:")
}
