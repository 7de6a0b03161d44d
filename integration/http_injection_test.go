package integration

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// injectionLabels are URI labels whose decoding would put CR, LF, NUL or
// another control character (ASCII's, Unicode's C1, or a Unicode line or
// paragraph separator) into a header, by every route the mapping has:
// type, subtype, parameter name and value, the MIME-type item, the uri.
// wrapping, and IRI octets.
var injectionLabels = []string{
	"ContentType:text/plain%0D%0AX-Injected:%201",
	"ContentType:text/plain%0AX-Injected:%201",
	"ContentType:text/plain%0DX-Injected:%201",
	"ContentType:text%00/plain",
	"ContentType:text/plain?a=%22%0D%0AX-Injected:%201%22",
	`ContentType:text/plain?a="x%0D%0AX-Injected:%201"`,
	`ContentType:text/plain?X-Injected%0D%0A=1`,
	`ContentType:text/plain?a="%00"`,
	`ContentType:text/plain?a="%1B[31m"`,
	"ContentType:text/plain%3B%20X-Injected%3D1%0D%0A",
	`http://x?MIME-type=text%2Fplain%0D%0AX-Injected:1`,
	`mailto:a@b?MIME-type="text%2Fplain%0AX-Injected:1"`,
	"ContentType:application/uri.http%253A%252F%252Fx%250D%250AX-Injected:1",
	"ContentType:%E2%80%A8text/plain",
	// Decoded into a value, a NEL, a LINE SEPARATOR (line breaks to some
	// readers) and a CSI (an escape to terminals).
	"ContentType:text/plain?a=%C2%85X-Injected:%201",
	`ContentType:text/plain?a="x%E2%80%A8X-Injected:%201"`,
	"ContentType:text/plain?a=%C2%9B31m",
	"http://x/%0D%0AX-Injected:%201",
	"http://x/a#%0D%0AX-Injected:%201",
	"urn:x?a=%0D%0AX-Injected:1&b=%00",
}

// hasUnicodeControl reports whether s holds a C1 control, U+2028 or
// U+2029.
func hasUnicodeControl(s string) bool {
	for _, r := range s {
		if r >= 0x80 && r <= 0x9F || r == 0x2028 || r == 0x2029 {
			return true
		}
	}
	return false
}

// rawExchange sends a request over a fresh TCP connection and returns
// every byte the server sent back.
func rawExchange(t *testing.T, addr, request string) []byte {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	raw, err := io.ReadAll(conn)
	require.NoError(t, err)
	return raw
}

// checkWire asserts that the raw response is one well-formed HTTP/1.1
// header section with no injected field and no stray control character,
// and returns its header and body.
func checkWire(t *testing.T, raw []byte) (http.Header, []byte) {
	t.Helper()
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	require.True(t, ok, "a header section: %q", raw)
	lines := strings.Split(string(head), "\r\n")
	require.True(t, strings.HasPrefix(lines[0], "HTTP/1.1 "), lines[0])
	h := http.Header{}
	for _, line := range lines[1:] {
		for i := 0; i < len(line); i++ {
			c := line[i]
			require.False(t, (c < 0x20 && c != '\t') || c == 0x7F, "control octet 0x%02X in header line %q", c, line)
		}
		require.False(t, hasUnicodeControl(line), "Unicode control or separator in header line %q", line)
		name, value, ok := strings.Cut(line, ": ")
		require.True(t, ok, "header line %q", line)
		assert.NotEqual(t, "x-injected", strings.ToLower(strings.TrimSpace(name)), "injected field %q", line)
		h.Add(name, value)
	}
	return h, body
}

// Request labels: the handler must never see a control character, and
// the answer on the wire must hold no injected field, under both
// policies. Response labels: a label that cannot be mapped goes out as
// the handler wrote it, which net/http already refuses to write raw.
func TestHeaderInjectionNeverReachesTheWire(t *testing.T) {
	for _, policy := range []middleware.Policy{middleware.Reject, middleware.PassThrough} {
		for _, mode := range []middleware.Mode{middleware.ToContentType, middleware.Canonical} {
			opts := middleware.Options{Request: mode, Response: mode, Unmappable: policy}
			srv := httptest.NewServer(middleware.Rewrite(opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen := r.Header.Get("Content-Type")
				for i := 0; i < len(seen); i++ {
					if c := seen[i]; (c < 0x20 && c != '\t') || c == 0x7F {
						t.Errorf("handler sees control octet 0x%02X in %q", c, seen)
					}
				}
				if hasUnicodeControl(seen) {
					t.Errorf("handler sees a Unicode control or separator in %q", seen)
				}
				w.Header().Set("Content-Type", r.URL.Query().Get("label"))
				w.Header().Set("X-Seen", strconv.Quote(seen))
				_, _ = io.WriteString(w, "ok")
			})))
			for _, label := range injectionLabels {
				t.Run(mode.String()+"/"+strconv.Itoa(int(policy))+"/"+label, func(t *testing.T) {
					req := "POST /?label=" + url.QueryEscape(label) + " HTTP/1.1\r\n" +
						"Host: 127.0.0.1\r\n" +
						"Content-Type: " + label + "\r\n" +
						"Content-Length: 0\r\n" +
						"Connection: close\r\n\r\n"
					h, body := checkWire(t, rawExchange(t, srv.Listener.Addr().String(), req))
					ct := h.Get("Content-Type")
					mapped, err := mapping.Canonical(label) // both modes map a URI label alike
					if err == nil {
						// The level codec keeps the octets encoded one level
						// deeper: still no control octet.
						assert.Equal(t, strconv.Quote(mapped), h.Get("X-Seen"))
						assert.Equal(t, mapped, ct)
						assert.Equal(t, "ok", string(body))
						return
					}
					if policy == middleware.Reject {
						want := "text/plain; charset=utf-8"
						if mode == middleware.Canonical {
							want = `text/plain; charset="utf-8"`
						}
						assert.Equal(t, want, ct, "the 415's own label, rewritten like any response's")
						assert.True(t, bytes.HasPrefix(body, []byte("415 Unsupported Media Type:")), "%q", body)
						return
					}
					assert.Equal(t, "ok", string(body))
					assert.Equal(t, strconv.Quote(label), h.Get("X-Seen"), "passed through unchanged")
					assert.Equal(t, label, ct, "an unmappable response label goes out as the handler wrote it")
				})
			}
			srv.Close()
		}
	}
}

// Raw control octets in the request field itself never get past net/http;
// a label with a raw HTAB inside a quoted value is legal and is carried
// through the mapping both ways.
func TestRawControlOctetsInTheRequest(t *testing.T) {
	srv := httptest.NewServer(middleware.Rewrite(middleware.Options{Request: middleware.ToURI, Response: middleware.ToURI})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Header.Get("Content-Type"))
		w.Header().Set("Content-Type", "text/plain; a=\"x\ty\"")
	})))
	defer srv.Close()
	raw := rawExchange(t, srv.Listener.Addr().String(), "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain; a=\"x\ty\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	h, _ := checkWire(t, raw)
	assert.Equal(t, `ContentType:text/plain?a="x%09y"`, h.Get("X-Seen"))
	assert.Equal(t, `ContentType:text/plain?a="x%09y"`, h.Get("Content-Type"))

	raw = rawExchange(t, srv.Listener.Addr().String(), "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\x00x\r\nConnection: close\r\n\r\n")
	line, err := bufio.NewReader(bytes.NewReader(raw)).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "HTTP/1.1 400 Bad Request\r\n", line)
}
