package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodePeer is Node's HTTP/1.1 and HTTP/2 client, and a URI-labelling
// backend (see the script's own comment).
const nodePeer = "testdata/http-peer.mjs"

// nodeJob is one request for nodePeer to send. Header values are octets,
// which toLatin1 writes one character each, as the script sends them.
type nodeJob struct {
	Proto  string            `json:"proto"` // "h1" (plain TCP) or "h2" (TLS, ALPN h2)
	Method string            `json:"method"`
	URL    string            `json:"url"`
	Header map[string]string `json:"header,omitempty"`
	Body   [][]byte          `json:"body,omitempty"` // one write each: one has a Content-Length, more are streamed
	// Ack, after each event of the response body (text up to "\n\n"),
	// is GET, or "local" to tell nodePeer's backend the event arrived.
	Ack string `json:"ack,omitempty"`
}

// nodeField is a header field as Node parsed it: [name, value].
type nodeField [2]string

// nodeResult is what Node parsed of the answer to a nodeJob. After
// runNodePeer, header values and Body hold the octets Node received.
type nodeResult struct {
	Info []struct {
		Status int         `json:"status"`
		Header []nodeField `json:"header"`
	} `json:"info"` // informational (1xx) responses
	Order   []int       `json:"order"` // statuses, informational and final, as they came
	Status  int         `json:"status"`
	Header  []nodeField `json:"header"`
	Trailer []nodeField `json:"trailer"`
	Length  int64       `json:"length"`
	SHA256  string      `json:"sha256"`
	Body    string      `json:"body"` // up to 64 KiB
	Error   string      `json:"error"`
	Proto   string      `json:"-"` // the job's
}

// nodeValues returns the values of the fields named name (any case), in
// order.
func nodeValues(fields []nodeField, name string) []string {
	var vs []string
	for _, f := range fields {
		if strings.EqualFold(f[0], name) {
			vs = append(vs, f[1])
		}
	}
	return vs
}

// get returns the one value of the header field name, "" if there is
// none; two are an error of the test.
func (r *nodeResult) get(t *testing.T, name string) string {
	t.Helper()
	vs := nodeValues(r.Header, name)
	require.LessOrEqual(t, len(vs), 1, "Node parsed %d %s fields: %q", len(vs), name, vs)
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// toLatin1 writes each octet of s as the character of that number, the
// form in which Node's HTTP code reads and writes header values.
func toLatin1(s string) string {
	var b strings.Builder
	for i := range len(s) {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

// fromLatin1 is the inverse of toLatin1; a character above U+00FF,
// which no octet gives, fails t.
func fromLatin1(t *testing.T, s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		require.LessOrEqual(t, r, rune(0xFF), "a character Node did not read as one octet in %q", s)
		b = append(b, byte(r))
	}
	return string(b)
}

func (r *nodeResult) octets(t *testing.T) {
	fix := func(fs []nodeField) {
		for i := range fs {
			fs[i][0], fs[i][1] = fromLatin1(t, fs[i][0]), fromLatin1(t, fs[i][1])
		}
	}
	for i := range r.Info {
		fix(r.Info[i].Header)
	}
	fix(r.Header)
	fix(r.Trailer)
	r.Body = fromLatin1(t, r.Body)
}

// caPEM is the certificate of an httptest TLS server, for Node to trust.
func caPEM(srv *httptest.Server) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

// runNodePeer starts nodePeer, passes the URL of its backend to jobs,
// sends Node the jobs that returns, with the certificate (PEM) its
// HTTP/2 client is to trust, and returns Node's results, one per job.
// One node process per call.
func runNodePeer(t *testing.T, node string, jobs func(backend string) (ca string, list []nodeJob)) []nodeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, nodePeer)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }() // after a failed require too

	out := bufio.NewReader(stdout)
	var first struct{ Backend int }
	line, err := out.ReadBytes('\n')
	require.NoError(t, err, "node failed to start its backend:\n%s", &stderr)
	require.NoError(t, json.Unmarshal(line, &first), "%s", line)
	ca, list := jobs("http://127.0.0.1:" + strconv.Itoa(first.Backend))
	in, err := json.Marshal(map[string]any{"ca": ca, "jobs": list})
	require.NoError(t, err)
	_, err = stdin.Write(in)
	require.NoError(t, err)
	require.NoError(t, stdin.Close())

	line, err = out.ReadBytes('\n')
	require.NoError(t, err, "node failed:\n%s", &stderr)
	var res []nodeResult
	require.NoError(t, json.Unmarshal(line, &res), "%s", line)
	require.Len(t, res, len(list))
	require.NoError(t, cmd.Wait(), "node failed:\n%s", &stderr)
	for i := range res {
		res[i].octets(t)
	}
	return res
}

// assertCleanFields asserts that no field Node parsed is named
// X-Injected and that no name or value holds a control character: an
// ASCII one but HTAB, or, read as UTF-8, a C1 control, U+2028 or U+2029.
func assertCleanFields(t *testing.T, fields []nodeField) {
	t.Helper()
	for _, f := range fields {
		assert.NotEqual(t, "x-injected", strings.ToLower(f[0]), "injected field %q", f)
		for _, s := range f {
			for i := range len(s) {
				c := s[i]
				assert.False(t, c < 0x20 && c != '\t' || c == 0x7F, "control octet 0x%02X in field %q", c, f)
			}
			if utf8.ValidString(s) {
				assert.False(t, hasUnicodeControl(s), "Unicode control or separator in field %q", f)
			}
		}
	}
}
