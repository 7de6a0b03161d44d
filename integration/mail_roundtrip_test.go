package integration

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	message "github.com/emersion/go-message"
	"github.com/stretchr/testify/require"
)

// TestMailRoundTripCorpus round-trips every hand-written message of
// package mailhdr, as written and with every CRLF turned into LF.
func TestMailRoundTripCorpus(t *testing.T) {
	for name, msg := range mailCorpus(t) {
		t.Run(name, func(t *testing.T) {
			checkRoundTrip(t, msg, goMessageReadable[name])
		})
		t.Run(name+"/LF", func(t *testing.T) {
			checkRoundTrip(t, bytes.ReplaceAll(msg, []byte("\r\n"), []byte("\n")), goMessageReadable[name])
		})
	}
}

// TestMailRoundTripGenerated round-trips random trees that go-message
// writes, with random types, parameters, boundaries and bodies, in CRLF
// and in LF.
func TestMailRoundTripGenerated(t *testing.T) {
	const trees = 150
	r := rand.New(rand.NewPCG(1, 2))
	for i := range trees {
		msg := generateMessage(t, r)
		for _, lf := range []bool{false, true} {
			m := msg
			if lf {
				m = bytes.ReplaceAll(msg, []byte("\r\n"), []byte("\n"))
			}
			t.Run(fmt.Sprintf("%d/lf=%v", i, lf), func(t *testing.T) {
				uri := checkRoundTrip(t, m, true)
				_, rep := mailRewrite(t, uri, mailhdr.ToContentType)
				require.True(t, rep.OK(), "%v", rep.Err())
			})
		}
	}
}

// generateMessage writes a random message tree with go-message.
func generateMessage(t testing.TB, r *rand.Rand) []byte {
	t.Helper()
	e := randomEntity(t, r, 0)
	var b bytes.Buffer
	require.NoError(t, e.WriteTo(&b))
	return b.Bytes()
}

var (
	leafTypes  = []string{"text/plain", "text/html", "application/octet-stream", "image/png", "application/vnd.example+json", "text/x-FOO", "message/rfc822"}
	multiTypes = []string{"multipart/mixed", "multipart/alternative", "multipart/related", "multipart/digest"}
	paramNames = []string{"name", "format", "x-note", "Title", "delsp", "type"}
	valueChars = []string{"a", "Z", "0", "-", "_", ".", "=", "/", "@", " ", ";", ",", ":", "?", "\"", "\\", "%", "+", "'", "(", ")", "é", "ü"}
	boundChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?"
)

func randomString(r *rand.Rand, alphabet []string, maxLen int) string {
	var b strings.Builder
	for range 1 + r.IntN(maxLen) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func randomParams(r *rand.Rand) map[string]string {
	p := map[string]string{}
	for range r.IntN(4) {
		p[paramNames[r.IntN(len(paramNames))]] = randomString(r, valueChars, 30)
	}
	return p
}

func randomBoundary(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(40) {
		b.WriteByte(boundChars[r.IntN(len(boundChars))])
	}
	return "=_" + b.String() // '=' keeps it from being a prefix of body text
}

func randomEntity(t testing.TB, r *rand.Rand, depth int) *message.Entity {
	t.Helper()
	var h message.Header
	h.Set("X-Depth", fmt.Sprint(depth))
	if depth < 4 && r.IntN(3) == 0 {
		params := randomParams(r)
		delete(params, "type")
		params["boundary"] = randomBoundary(r)
		h.SetContentType(multiTypes[r.IntN(len(multiTypes))], params)
		var parts []*message.Entity
		for range 1 + r.IntN(4) {
			parts = append(parts, randomEntity(t, r, depth+1))
		}
		e, err := message.NewMultipart(h, parts)
		require.NoError(t, err)
		return e
	}
	typ := leafTypes[r.IntN(len(leafTypes))]
	var body []byte
	switch {
	case typ == "message/rfc822" && depth < 4:
		body = generateMessage(t, r)
	case typ == "message/rfc822":
		typ = "text/plain"
		fallthrough
	default:
		body = []byte(randomString(r, []string{"x", "y", " ", "\r\n", "--", "-", "é"}, 300))
	}
	params := randomParams(r)
	if typ == "message/rfc822" {
		params = nil
	}
	if strings.HasPrefix(typ, "text/") && r.IntN(2) == 0 {
		// go-message converts charsets: only ones it knows.
		params["charset"] = []string{"utf-8", "US-ASCII"}[r.IntN(2)]
	}
	h.SetContentType(typ, params)
	if typ == "application/octet-stream" || typ == "image/png" {
		// message.New decodes what it is given; WriteTo encodes again.
		h.Set("Content-Transfer-Encoding", "base64")
		body = []byte(base64.StdEncoding.EncodeToString(body))
	}
	e, err := message.New(h, bytes.NewReader(body))
	require.NoError(t, err)
	return e
}
