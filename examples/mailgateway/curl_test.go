package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrintedCurlCommand runs the curl command the gateway logs for its
// user to try, as logged, with curl (an SMTP client that shares no code
// with go-smtp's), from the repository's root, where go run
// ./examples/mailgateway runs and the file it sends is found. The
// gateway, without -next or -dir, writes the message to standard output:
// there it must be, after the gateway's Received field, with every
// Content-Type field rewritten to a URI label and nothing else changed.
func TestPrintedCurlCommand(t *testing.T) {
	needsCommand(t)
	servertest.Command(t, "curl")
	_, addr, _, stdout, logs := startGateway(t)
	cmds := servertest.CurlCommands(logs.String())
	require.Len(t, cmds, 1, "%s", logs)
	require.Contains(t, cmds[0], "smtp://"+addr)
	args, err := servertest.ShellWords(cmds[0])
	require.NoError(t, err)
	arg := func(flag string) string {
		i := slices.Index(args, flag)
		require.True(t, i > 0 && i+1 < len(args), "%s in %q", flag, args)
		return args[i+1]
	}
	root := filepath.Join("..", "..")
	sent, err := os.ReadFile(filepath.Join(root, arg("-T")))
	require.NoError(t, err)

	// curl exits 0 only once the gateway has answered the end of the data
	// with 250.
	servertest.Curl(t, root, cmds[0])
	waitLogged(t, logs, "message from "+arg("--mail-from")+": delivered to [\""+arg("--mail-rcpt")+"\"]; Content-Type fields rewritten: ")

	header := "=== message from <" + arg("--mail-from") + "> to [\"" + arg("--mail-rcpt") + "\"]\n"
	// The message's last line, which the rewrite leaves as it is, ends
	// what the gateway writes: standard output comes through a pipe.
	last := string(sent[strings.LastIndex(strings.TrimSuffix(string(sent), "\r\n"), "\n")+1:])
	require.Eventually(t, func() bool { return strings.HasSuffix(stdout.String(), last) }, 10*time.Second, 10*time.Millisecond, "%s", stdout)
	got, ok := strings.CutPrefix(stdout.String(), header)
	require.True(t, ok, "%s", stdout)
	// curl names itself (EHLO) with the path of the URL; without one, it
	// would take the name of the file it uploads (curl/curl#9464).
	received := regexp.MustCompile(`^Received: from localhost \(\[127\.0\.0\.1\]\) by localhost with ESMTP\r\n` +
		`\tfor <` + regexp.QuoteMeta(arg("--mail-rcpt")) + `>; (?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}\r\n`).FindString(got)
	require.NotEmpty(t, received, "%q", got)
	got = got[len(received):]

	// Field by field, the message as sent, but for Content-Type values.
	sentFields, gotFields := contentTypes(string(sent)), contentTypes(got)
	require.Len(t, gotFields, len(sentFields), "Content-Type fields in %q", got)
	require.NotEmpty(t, sentFields, "the message sent shows nothing rewritten")
	waitLogged(t, logs, "Content-Type fields rewritten: "+strconv.Itoa(len(sentFields))+"\n")
	want := string(sent)
	for i, f := range slices.Backward(sentFields) {
		assert.True(t, strings.HasPrefix(gotFields[i].value, "ContentType:"), "rewritten to a URI label: %q", gotFields[i].field)
		// The label maps back to the type sent, as the mapping reads mail.
		back, err := mapping.ToContentType(gotFields[i].value)
		assert.NoError(t, err, "%q", gotFields[i].field)
		sentType, err := mapping.Canonical(f.value, mapping.Lenient)
		require.NoError(t, err, "%q", f.field)
		assert.Equal(t, sentType, back, "%q", gotFields[i].field)
		want = want[:f.at] + gotFields[i].field + want[f.at+len(f.field):]
	}
	assert.Equal(t, want, got)
}

// contentTypeField matches a Content-Type header field, folded or not,
// in any case: the value unfolded is what follows the colon.
var contentTypeField = regexp.MustCompile(`(?im)^Content-Type:[ \t]*((?:.*\r\n)(?:[ \t].*\r\n)*)`)

type field struct {
	at           int    // offset in the message
	field, value string // the whole field; its value, unfolded and trimmed
}

// contentTypes returns the Content-Type fields of msg, in any part. A
// line of a body that looks like one would be counted too: the message
// the test sends has none.
func contentTypes(msg string) []field {
	var fields []field
	for _, m := range contentTypeField.FindAllStringSubmatchIndex(msg, -1) {
		value := strings.NewReplacer("\r\n", "").Replace(msg[m[2]:m[3]])
		fields = append(fields, field{m[0], msg[m[0]:m[1]], strings.TrimSpace(value)})
	}
	return fields
}
