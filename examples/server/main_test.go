package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPrintsURLAndServes(t *testing.T) {
	base, stop := servertest.Start(t, func(ctx context.Context, stdout io.Writer) error {
		return run(ctx, "127.0.0.1:0", stdout, io.Discard)
	})

	res, err := http.Get(base + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "/api/map?label=")

	stop()
}

func TestMapAPI(t *testing.T) {
	srv := httptest.NewServer(newHandler(io.Discard))
	defer srv.Close()
	tests := []struct {
		label, detected, toURI, toCT, canonical string
		stable                                  bool
	}{
		{`text/plain; charset="us-ascii"`, "content-type", `ContentType:text/plain?charset="us-ascii"`, "", `text/plain; charset="us-ascii"`, true},
		{"http://example.com/tag42", "uri", "", "application/uri.http%3A%2F%2Fexample.com%2Ftag42", "application/uri.http%3A%2F%2Fexample.com%2Ftag42", true},
	}
	for _, tt := range tests {
		res, err := srv.Client().Get(srv.URL + "/api/map?label=" + url.QueryEscape(tt.label))
		require.NoError(t, err)
		var m mapResponse
		require.NoError(t, json.NewDecoder(res.Body).Decode(&m))
		res.Body.Close()
		assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
		assert.Equal(t, tt.label, m.Input)
		assert.Equal(t, tt.detected, m.Detected)
		assert.Equal(t, tt.canonical, m.Canonical.Output)
		if tt.toURI != "" {
			assert.Equal(t, tt.toURI, m.ToURI.Output)
			assert.Equal(t, "relative-uri", m.ToCT.Kind)
		}
		if tt.toCT != "" {
			assert.Equal(t, tt.toCT, m.ToCT.Output)
		}
		assert.Equal(t, tt.stable, m.RoundTrip.Stable)
	}

	res, err := srv.Client().Get(srv.URL + "/api/map?label=" + url.QueryEscape("ContentType:text/plain%0D%0AX:1"))
	require.NoError(t, err)
	var m mapResponse
	require.NoError(t, json.NewDecoder(res.Body).Decode(&m))
	res.Body.Close()
	assert.Equal(t, "ctl", m.ToCT.Kind)
	assert.False(t, m.RoundTrip.Stable)

	for _, q := range []string{"", "?label=text/plain;charset=x"} {
		res, err := srv.Client().Get(srv.URL + "/api/map" + q)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusBadRequest, res.StatusCode)
		assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(body, &e), "%s", body)
		assert.Contains(t, e.Error, "%3B")
	}
}

func TestEchoAndXMLEnc(t *testing.T) {
	var log servertest.SyncBuffer
	srv := httptest.NewServer(newHandler(&log))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/echo", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "ContentType:application/json")
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	var e echoResponse
	require.NoError(t, json.NewDecoder(res.Body).Decode(&e))
	res.Body.Close()
	assert.Equal(t, echoResponse{
		Original: "ContentType:application/json", Mapped: "application/json", Changed: true,
		BodyBytes: 2, BodySHA256: "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
	}, e)

	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/echo", strings.NewReader("city=Z%C3%BCrich;tag=a;tag=b"))
	req.Header.Set("Content-Type", "ContentType:application/www-form-urlencoded")
	res, err = srv.Client().Do(req)
	require.NoError(t, err)
	e = echoResponse{}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&e))
	res.Body.Close()
	assert.Equal(t, map[string][]string{"city": {"Zürich"}, "tag": {"a", "b"}}, e.Form)
	assert.Equal(t, int64(len("city=Z%C3%BCrich;tag=a;tag=b")), e.BodyBytes, "the body stays readable")

	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/echo", nil)
	req.Header.Set("Content-Type", "ContentType:text/plain%0D%0AX-Evil:%201")
	res, err = srv.Client().Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	assert.Contains(t, string(body), "(ctl)")
	assert.Empty(t, res.Header.Get("X-Evil"))

	// Clients' labels may not use the controlled mapping.
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/echo", strings.NewReader("x"))
	req.Header.Set("Content-Type", `mailto:joe@blow.test?MIME-type="text%2Fhtml"`)
	res, err = srv.Client().Do(req)
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusUnsupportedMediaType, res.StatusCode)
	assert.Contains(t, string(body), "(reserved-param)")

	res, err = srv.Client().Get(srv.URL + "/xmlenc")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, `application/uri.http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmlenc; URI-fragment="Element"`, res.Header.Get("Content-Type"))
	// LoggingHandler logs after the handler returns, maybe after the
	// client has its answer.
	assert.Eventually(t, func() bool { return strings.Contains(log.String(), `"POST /echo HTTP/1.1" 415`) }, 5*time.Second, 10*time.Millisecond)
}

// A body that cannot be read for another reason than its size (a broken
// chunked encoding, a client that goes away) is a bad request, not one
// too large; only a body over the limit gets 413, and one of exactly
// maxBody is echoed.
func TestEchoBodyErrors(t *testing.T) {
	tests := []struct {
		name string
		body io.Reader
		code int
	}{
		{"read error", iotest.ErrReader(errors.New("invalid byte in chunk length")), http.StatusBadRequest},
		{"at the limit", bytes.NewReader(make([]byte, maxBody)), http.StatusOK},
		{"one octet over the limit", bytes.NewReader(make([]byte, maxBody+1)), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/echo", tt.body)
			req.Header.Set("Content-Type", "application/octet-stream")
			w := httptest.NewRecorder()
			newHandler(io.Discard).ServeHTTP(w, req)
			assert.Equal(t, tt.code, w.Code)
			if tt.code == http.StatusOK {
				var got echoResponse
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
				assert.Equal(t, int64(maxBody), got.BodyBytes)
				return
			}
			assert.Equal(t, "text/plain; charset=utf-8", w.Header().Get("Content-Type"))
		})
	}
}

// A body over the limit is answered 413 on a connection net/http then
// closes, rather than reading the rest of the body to keep it: the limit
// is set where the writer is net/http's own (see newHandler). The body is
// less than 256 KiB over, which net/http would otherwise read and discard.
func TestBodyOverLimitClosesConnection(t *testing.T) {
	base, stop := servertest.Start(t, runExample)
	defer stop()
	// The second body is a form, which the middleware reads.
	for _, label := range []string{"application/octet-stream", "application/www-form-urlencoded"} {
		t.Run(label, func(t *testing.T) {
			body := strings.Repeat("a", maxBody+100<<10)
			res, err := http.Post(base+"/echo", label, strings.NewReader(body))
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
			assert.True(t, res.Close, "Connection: close")
		})
	}
}

// A client that sends a request's header and then holds back its body
// does not hold the connection (and a goroutine) for ever: the read
// deadline covers the body too, and POST /echo answers 400.
func TestSlowBodyTimesOut(t *testing.T) {
	base := servertest.StartWith(t, &readTimeout, 300*time.Millisecond, runExample)

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 10\r\n\r\nab")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	raw, err := io.ReadAll(conn)
	require.NoError(t, err, "the server let the connection wait")
	assert.True(t, strings.HasPrefix(string(raw), "HTTP/1.1 400 "), "%q", raw)
}

// The middleware reads a form body before the handler runs; it stops at
// the handler's own 1 MiB limit, not at its 10 MiB default.
func TestEchoFormBodyLimit(t *testing.T) {
	body := "a=" + strings.Repeat("b", 1<<20)
	req := httptest.NewRequest(http.MethodPost, "/echo", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/www-form-urlencoded")
	w := httptest.NewRecorder()
	newHandler(io.Discard).ServeHTTP(w, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.Contains(t, w.Body.String(), "(form-too-large)", "refused by the middleware, before it buffered the body")
}

// TestPageScript runs the page's script in Node (testdata/page.mjs, with a
// stand-in for the DOM) against the server: the table is filled on
// pageshow, for the label the input has then; each answer fills the table,
// and an error answer or a failed request clears what the previous label
// left there.
func TestPageScript(t *testing.T) {
	node := servertest.Command(t, "node")
	srv := httptest.NewServer(newHandler(io.Discard))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/page.mjs", srv.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node (Node 18 or later) failed:\n%s\nstandard output:\n%s", stderr.String(), out)

	type cell [2]string // text, class
	var steps []map[string]any
	for line := range strings.Lines(string(out)) {
		var step map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &step), line)
		steps = append(steps, step)
	}
	require.Len(t, steps, 5)
	get := func(i int, id string) cell {
		v := steps[i][id].([]any)
		return cell{v[0].(string), v[1].(string)}
	}
	cleared := func(i int) {
		for _, id := range []string{"to_uri", "to_content_type", "canonical", "round_trip"} {
			assert.Equal(t, cell{}, get(i, id), "%s: %s", steps[i]["step"], id)
		}
	}

	assert.Equal(t, cell{"content-type", ""}, get(0, "detected"))
	assert.Equal(t, cell{`ContentType:text/plain?charset="us-ascii"`, ""}, get(0, "to_uri"))
	assert.Equal(t, "ok", get(0, "round_trip")[1])

	// The label a browser put back on Back, not the page's own: the
	// script ran at once, and the table showed the other while the input
	// showed this one (seen in Chromium).
	assert.Equal(t, cell{"uri", ""}, get(1, "detected"))
	assert.Equal(t, cell{"application/uri.http%3A%2F%2Fexample.com%2Ftag42", ""}, get(1, "to_content_type"))

	assert.Contains(t, get(2, "detected")[0], "longer than 4096 bytes")
	assert.Equal(t, "err", get(2, "detected")[1])
	cleared(2)

	assert.Equal(t, cell{"content-type", ""}, get(3, "detected"))
	assert.Equal(t, cell{"ContentType:image/jpeg", ""}, get(3, "to_uri"))
	assert.Equal(t, cell{"image/jpeg", ""}, get(3, "canonical"))

	assert.Equal(t, cell{"the request failed (connection refused)", "err"}, get(4, "detected"))
	cleared(4)
}

// GET /api/map maps labels of up to 4096 bytes (413 past that) and wants
// a query that parses whole: a pair it would drop is a 400, even beside a
// label. Every answer of serveMap is JSON, the errors {"error": ...}.
func TestMapAPIRequests(t *testing.T) {
	srv := httptest.NewServer(newHandler(io.Discard))
	defer srv.Close()
	label := func(n int) string {
		return "text/plain; a=\"" + strings.Repeat("x", n-len("text/plain; a=\"\"")) + "\""
	}
	tests := []struct {
		name, query string
		code        int
	}{
		{"a label of 4096 bytes", "label=" + url.QueryEscape(label(maxLabel)), http.StatusOK},
		{"a label of 4097 bytes", "label=" + url.QueryEscape(label(maxLabel+1)), http.StatusRequestEntityTooLarge},
		{"no label", "", http.StatusBadRequest},
		{"a pair with a raw ';' beside the label", "x=a;b&label=text/plain", http.StatusBadRequest},
		{"a bad escape beside the label", "label=text/plain&x=%zz", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := srv.Client().Get(srv.URL + "/api/map?" + tt.query)
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, tt.code, res.StatusCode, "%.200s", body)
			assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
			if tt.code != http.StatusOK {
				var e struct{ Error string }
				require.NoError(t, json.Unmarshal(body, &e), "%s", body)
				assert.NotEmpty(t, e.Error)
			}
			if tt.code == http.StatusOK {
				var m mapResponse
				require.NoError(t, json.Unmarshal(body, &m))
				assert.Len(t, m.Input, maxLabel)
			}
		})
	}
}

// Ctrl-C stops the server at once, even while a browser holds a
// connection it opened ahead of time and has sent nothing on.
func TestStopsWithUnusedConnection(t *testing.T) {
	servertest.StopsWithUnusedConnection(t, runExample)
}

// An idle keep-alive connection to the server is closed after idleTimeout.
func TestIdleConnectionCloses(t *testing.T) {
	base := servertest.StartWith(t, &idleTimeout, 300*time.Millisecond, runExample)

	servertest.ClosesIdleConnection(t, base, "/xmlenc", 5*time.Second)
}

// A client that sends part of a request's header and then nothing has its
// connection closed after headerTimeout.
func TestHalfSentHeaderCloses(t *testing.T) {
	base := servertest.StartWith(t, &headerTimeout, 300*time.Millisecond, runExample)
	servertest.ClosesHalfSentHeader(t, base, 5*time.Second)
}

// A client that holds its connections open holds at most maxConnections
// of them; the next client waits until one closes.
func TestConnectionLimit(t *testing.T) {
	base := servertest.StartWith(t, &maxConnections, 1, runExample)
	servertest.ServesAtMost(t, base, "GET /xmlenc HTTP/1.1\r\nHost: x\r\n\r\n", 1)
}

// A request's header may be 64 KiB long (68 KiB with net/http's slack),
// not net/http's 1 MiB: each client trickling one in holds a buffer that
// size.
func TestHeaderLimit(t *testing.T) {
	base, _ := servertest.Start(t, runExample)
	servertest.LimitsHeader(t, base, "/", maxHeaderBytes)
}

// runExample runs the example on a free port of 127.0.0.1, for servertest.
func runExample(ctx context.Context, stdout io.Writer) error {
	return run(ctx, "127.0.0.1:0", stdout, io.Discard)
}

// A client that sends requests and does not read the answers does not
// hold the connection (and the goroutine writing to it) for ever: once
// the answers fill the buffers between them, the write deadline closes
// the connection.
func TestUnreadAnswersTimeOut(t *testing.T) {
	base := servertest.StartWith(t, &writeTimeout, 300*time.Millisecond, runExample)

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	// A small receive buffer, so that a few answers fill the buffers: each
	// repeats the label, escaped, about 25 times over, some 100 KiB.
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(4096))
	label := `text/plain; a="` + strings.Repeat("<", maxLabel-len(`text/plain; a=""`)) + `"`
	req := "GET /api/map?label=" + url.QueryEscape(label) + " HTTP/1.1\r\nHost: x\r\n\r\n"
	go func() {
		for range 100 {
			if _, err := io.WriteString(conn, req); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second) // the server is stuck writing by now
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := io.Copy(io.Discard, conn)
	assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server kept the connection open after %d bytes", n)
}

// The page may load nothing from elsewhere, and a JSON answer is not to
// be sniffed as anything else.
func TestSecurityHeaders(t *testing.T) {
	h := newHandler(io.Discard)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	require.Equal(t, http.StatusOK, w.Code)
	csp := map[string][]string{}
	for d := range strings.SplitSeq(w.Header().Get("Content-Security-Policy"), ";") {
		f := strings.Fields(d)
		require.NotEmpty(t, f, "an empty directive")
		csp[f[0]] = f[1:]
	}
	assert.Equal(t, []string{"'self'"}, csp["default-src"])
	assert.Equal(t, []string{"'none'"}, csp["frame-ancestors"])
	assert.Equal(t, []string{"'none'"}, csp["base-uri"])
	// Every inline script and style of the page is allowed by its hash,
	// and nothing else inline is: the browser would not run it. The
	// browser hashes the element's text as its HTML parser left it,
	// which turns CRLF and CR into LF (HTML's "preprocessing the input
	// stream"): a page saved with CRLF (.gitattributes keeps what is
	// committed) is hashed so here, as a browser would.
	body := w.Body.String()
	newlines := strings.NewReplacer("\r\n", "\n", "\r", "\n")
	for directive, tag := range map[string]string{"script-src": "script", "style-src": "style"} {
		elements := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllStringSubmatch(body, -1)
		require.NotEmpty(t, elements, tag)
		var want []string
		for _, e := range elements {
			sum := sha256.Sum256([]byte(newlines.Replace(e[1])))
			want = append(want, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		}
		assert.Equal(t, want, csp[directive], directive)
	}
	assert.NotRegexp(t, `(?i)<(script|style)[\s/][^>]*>|\s(on[a-z]+|style)\s*=`, body,
		"an element or attribute that the policy's hashes do not allow")
	for _, target := range []string{"/api/map?label=text/plain", "/api/map?label=ContentType:a%250Ab"} {
		w = httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		assert.Equal(t, "application/json", w.Header().Get("Content-Type"), target)
		assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"), target)
	}
}

// A browser asks for /favicon.ico with every page it opens: a 404 was an
// error in its console each time the page loaded (seen in Chromium).
func TestFaviconNoContent(t *testing.T) {
	srv := httptest.NewServer(newHandler(io.Discard))
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/favicon.ico")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
	assert.Empty(t, body)
}

// TestLogEscapesUserName: the request log Go-quotes a user name that
// does not print (internal/accesslog), so a client cannot forge a log
// line or send terminal escape sequences with it.
func TestLogEscapesUserName(t *testing.T) {
	var log servertest.SyncBuffer
	srv := httptest.NewServer(newHandler(&log))
	defer srv.Close()
	servertest.LogsUserNameQuoted(t, srv.URL, &log, "/")
}
