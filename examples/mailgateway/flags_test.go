package main

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDestinationLogged: the gateway says at start where it delivers.
func TestDestinationLogged(t *testing.T) {
	needsCommand(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "to uri, delivering to standard output\n"},
		// The next hop is dialled only for a message: none listens here.
		{[]string{"-next", "127.0.0.1:9"}, "to uri, delivering to the next hop 127.0.0.1:9\n"},
		{[]string{"-to", "ct", "-dir", dir}, "to ct, delivering to the folder " + dir + "\n"},
	} {
		_, _, _, _, logs := startGateway(t, tt.args...)
		waitLogged(t, logs, "mailgateway: rewriting Content-Types "+tt.want)
	}
}

// TestMappingFlags: the options cturi mail has reach the rewrite: with
// -no-controlled, a Content-Type using the controlled mapping (URI-body)
// is not rewritten, and the log says why; the part a multipart/signed
// signs is not rewritten, unless -rewrite-signed; -strict-uri writes %22
// delimiters; -strict-parsing refuses mail's unquoted values.
func TestMappingFlags(t *testing.T) {
	needsCommand(t)
	const controlled = "Content-Type: application/xml; URI-body=\"http://example.com/ns\"\r\n"
	const signed = "Content-Type: multipart/signed; protocol=\"a/b\"; boundary=s\r\n\r\n--s\r\n" +
		"Content-Type: text/plain\r\n\r\nx\r\n--s\r\nContent-Type: a/b\r\n\r\ny\r\n--s--\r\n"
	const signedField = "--s\r\nContent-Type: text/plain\r\n"
	const unquoted = "Content-Type: text/plain; name=a@b.txt\r\n"
	const spaced = "Content-Type: text/plain; a=\"b c\"\r\n\r\nx\r\n"
	for _, tt := range []struct {
		args   []string
		msg    string
		out    string // in the message delivered exactly when has
		has    bool
		logged string // if not "", in the log exactly when has
	}{
		{nil, controlled + "\r\nx\r\n", controlled, false, "refused by NoControlled"},
		{[]string{"-no-controlled"}, controlled + "\r\nx\r\n", controlled, true, "refused by NoControlled"},
		{nil, signed, signedField, true, "1: signed: the part a multipart/signed signs"},
		{[]string{"-rewrite-signed"}, signed, signedField, false, "1: signed: the part a multipart/signed signs"},
		{nil, spaced, "?a=%22b%20c%22", false, ""},
		{[]string{"-strict-uri"}, spaced, "?a=%22b%20c%22", true, ""},
		{nil, unquoted + "\r\nx\r\n", unquoted, false, "top: mapping: "},
		{[]string{"-strict-parsing"}, unquoted + "\r\nx\r\n", unquoted, true, "top: mapping: "},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tt.args...), " "), func(t *testing.T) {
			_, addr, _, stdout, logs := startGateway(t, tt.args...)
			c, err := smtp.Dial(addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SendMail("a@example.com", []string{"b@example.net"}, strings.NewReader(tt.msg)))
			waitLogged(t, logs, "delivered to")
			// Standard output reaches the test through a pipe of its own,
			// so the log line can come first: wait for the message's last
			// line, which the rewrite leaves as it is.
			last := tt.msg[strings.LastIndex(strings.TrimSuffix(tt.msg, "\r\n"), "\n")+1:]
			assert.Eventually(t, func() bool { return strings.HasSuffix(stdout.String(), last) }, 10*time.Second, 10*time.Millisecond, "%s", stdout)
			assert.Equal(t, tt.has, strings.Contains(stdout.String(), tt.out), "%s", stdout)
			if tt.logged != "" {
				assert.Equal(t, tt.has, strings.Contains(logs.String(), tt.logged), "%s", logs)
			}
		})
	}
}

// TestHostname: -hostname names the gateway in its greeting, in its
// Received field, and in its EHLO to the next hop, whose Received field
// then names it too.
func TestHostname(t *testing.T) {
	needsCommand(t)
	addr, _, stdout := gateway(t, "-hostname", "mx-1.example")
	greeting := readGreeting(t, addr)
	assert.True(t, strings.HasPrefix(greeting, "220 mx-1.example "), "%q", greeting)
	require.NoError(t, send(t, addr))
	assert.Eventually(t, func() bool { return strings.Contains(stdout.String(), ") by mx-1.example with ESMTP") }, 10*time.Second, 10*time.Millisecond, "%s", stdout)

	hop, _, hopOut := gateway(t)
	addr, _, _ = gateway(t, "-hostname", "mx-1.example", "-next", hop)
	require.NoError(t, send(t, addr))
	assert.Eventually(t, func() bool {
		return strings.Contains(hopOut.String(), "Received: from mx-1.example ([127.0.0.1]) by localhost with ESMTP")
	}, 10*time.Second, 10*time.Millisecond, "%s", hopOut)

	// The longest name a domain may have, 253 octets, in labels of 63.
	long := strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 61)
	addr, _, _ = gateway(t, "-hostname", long, "-grace", "0")
	greeting = readGreeting(t, addr)
	assert.True(t, strings.HasPrefix(greeting, "220 "+long+" "), "%q", greeting)
}

// readGreeting connects to addr and returns the server's first line.
func readGreeting(t *testing.T, addr string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	greeting, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	return greeting
}

// TestSaysWhatToTry: like the other examples, the gateway says how to try
// it: a curl command that sends a message of the repository to the address
// it listens on.
func TestSaysWhatToTry(t *testing.T) {
	needsCommand(t)
	addr, try, _ := gateway(t)
	require.NotEmpty(t, addr, "no address")
	require.NotEmpty(t, try, "nothing to try")
	assert.Contains(t, try, "smtp://"+addr+"/localhost ")
	file := regexp.MustCompile(`-T (\S+)`).FindStringSubmatch(try)
	require.NotNil(t, file, "%s", try)
	assert.FileExists(t, filepath.Join("..", "..", file[1]), "the file it sends, from the repository's root")
}

// TestUsageErrors: a bad command line stops the gateway before it
// listens, with status 2 (as the flag package exits for an unknown flag),
// what is wrong, and the usage.
func TestUsageErrors(t *testing.T) {
	needsCommand(t)
	bin, err := built()
	require.NoError(t, err)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-to", "auto"}, `mailgateway: mailhdr: unknown target "auto"`},
		{[]string{"-max-recipients", "0"}, "mailgateway: -max-recipients must be at least 1"},
		{[]string{"-max-hops", "0"}, "mailgateway: -max-hops must be at least 1"},
		{[]string{"-max-connections", "100"}, "mailgateway: -max-connections must be more than -max-hops (100)"},
		{[]string{"-max-connections", "3", "-max-hops", "3"}, "mailgateway: -max-connections must be more than -max-hops (3)"},
		{[]string{"-timeout", "0"}, "mailgateway: -timeout must be more than 0"},
		{[]string{"-min-rate", "-1"}, "mailgateway: -min-rate must be 0 or more"},
		{[]string{"-max-message-bytes", "0"}, "mailgateway: -max-message-bytes must be at least 1"},
		{[]string{"-max-message-bytes", "-5"}, "mailgateway: -max-message-bytes must be at least 1"},
		{[]string{"127.0.0.1:2526"}, `mailgateway: unexpected argument "127.0.0.1:2526"`},
		{[]string{"-next", "127.0.0.1:25", "-dir", "/tmp/mail"}, "mailgateway: -next and -dir are two destinations; give one"},
		{[]string{"-next", "nohost"}, `mailgateway: -next wants host:port, not "nohost"`},
		{[]string{"-next", ":25"}, `mailgateway: -next wants host:port, not ":25"`},
		{[]string{"-hostname", "mx1.example\r\n250 x"}, `mailgateway: -hostname wants a domain name (letters, digits, hyphens, dots), not "mx1.example\r\n250 x"`},
		{[]string{"-hostname", ""}, `-hostname wants a domain name`},
		{[]string{"-hostname", "a..b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", "-a.b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", "a-.b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", strings.Repeat("a", 64) + ".b"}, `-hostname wants a domain name`},
		{[]string{"-hostname", strings.Repeat(strings.Repeat("a", 63)+".", 3) + strings.Repeat("a", 62)}, `-hostname wants a domain name`}, // 254 octets
		{[]string{"-grace", "-1s"}, "mailgateway: -grace must be 0 or more"},
		{[]string{"-grace", "-1ns"}, "mailgateway: -grace must be 0 or more"},
		{[]string{"-next", "127.0.0.1:"}, `mailgateway: -next wants host:port, not "127.0.0.1:"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			// A port of its own, and a deadline, in case the command
			// does start: it is then killed, and the status is not 2.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"-addr", "127.0.0.1:0"}, tt.args...)...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", out)
			assert.Equal(t, 2, exit.ExitCode(), "%s", out)
			assert.Contains(t, string(out), tt.want)
			assert.Contains(t, string(out), "Usage of mailgateway:")
			assert.NotContains(t, string(out), "listening on")
		})
	}
}

// TestDefaults: the gateway listens on the loopback interface unless
// told otherwise, and drops a silent client after a minute.
func TestDefaults(t *testing.T) {
	needsCommand(t)
	bin, err := built()
	require.NoError(t, err)
	out, err := exec.Command(bin, "-h").CombinedOutput()
	require.NoError(t, err, "%s", out) // -h is no error
	assert.Contains(t, string(out), `-addr string
    	address to listen on (default "127.0.0.1:2525")`)
	assert.Contains(t, string(out), `(more than 0) (default 1m0s)`)
	assert.Contains(t, string(out), `(0: no minimum) (default 500)`)
}
