package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startPrinting starts the proxy as runExample does, to target (nil: the
// demo backend), and returns its URL and everything it printed.
func startPrinting(t *testing.T, target *url.URL) (base, banner string) {
	t.Helper()
	return servertest.StartBanner(t, func(ctx context.Context, stdout io.Writer) error {
		return run(ctx, "127.0.0.1:0", target, stdout, io.Discard)
	})
}

// TestPrintedCurlCommands runs each curl command the proxy prints for its
// user to try, as printed, with curl (an HTTP client that shares no code
// with ours), and checks that it shows what it is printed to show.
func TestPrintedCurlCommands(t *testing.T) {
	servertest.Command(t, "curl")
	base, banner := startPrinting(t, nil)
	backend := regexp.MustCompile(`Proxying to (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(banner)
	require.NotNil(t, backend, "%s", banner)

	// In the order printed (the document the POST stores is the one the
	// GET after it reads); match picks a command out, {proxy} and
	// {backend} standing for the two servers' URLs.
	tests := []struct {
		name, match string
		check       func(t *testing.T, r *servertest.CurlRun)
	}{
		{"XML-DSig label", `^curl -i {proxy}/signature$`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, `application/uri.http%3A%2F%2Fwww.w3.org%2F2000%2F09%2Fxmldsig; URI-fragment=""`, h.Get("Content-Type"))
			assert.Contains(t, body, "<Signature ")
		}},
		{"JSON-LD type", `^curl -i {proxy}/person$`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, "application/uri.https%3A%2F%2Fschema.org%2FPerson", h.Get("Content-Type"))
			assert.Contains(t, body, `"@type": "Person"`)
		}},
		// The backend sends an event every 300 ms: the first reaches curl's
		// output well before the last, unless the proxy or curl (without
		// -N, it buffers its output) holds the stream back.
		{"event stream", `^curl -N {proxy}/events$`, func(t *testing.T, r *servertest.CurlRun) {
			assert.Equal(t, "data: event 1 of 5\n\ndata: event 2 of 5\n\ndata: event 3 of 5\n\ndata: event 4 of 5\n\ndata: event 5 of 5\n\n", string(r.Out))
			first, last := r.At(t, "event 1 of 5\n"), r.At(t, "event 5 of 5\n")
			assert.GreaterOrEqual(t, last-first, 600*time.Millisecond, "the first event came at %v, the last at %v", first, last)
		}},
		{"store a document", `^curl -i -X POST .* {proxy}/documents$`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusCreated, code)
			assert.Equal(t, "application/json", h.Get("Content-Type"))
			assert.Equal(t, "/documents/1", h.Get("Location"))
			servertest.AssertJSON(t, body, map[string]any{"backend_saw_label": `ContentType:text/plain?charset="utf-8"`, "bytes": 5, "id": 1})
		}},
		{"read it back", `^curl -i {proxy}/documents/1$`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, `text/plain; charset="utf-8"`, h.Get("Content-Type"))
			assert.Equal(t, "hello", body)
		}},
		{"the backend refuses a Content-Type", `^curl -i -X POST .* {backend}/documents$`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusUnsupportedMediaType, code)
			assert.Equal(t, `ContentType:text/plain?charset="utf-8"`, h.Get("Content-Type"), "the backend's own label")
			assert.Equal(t, "this backend speaks URI labels only, not \"text/plain\"\n", body)
		}},
	}
	cmds := servertest.CurlCommands(banner)
	require.Len(t, cmds, len(tests), "%s", banner)
	urls := strings.NewReplacer("{proxy}", regexp.QuoteMeta(base), "{backend}", regexp.QuoteMeta(backend[1]))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Regexp(t, urls.Replace(tt.match), cmds[i])
			tt.check(t, servertest.Curl(t, filepath.Join("..", ".."), cmds[i]))
		})
	}
}

// TestPrintedCurlCommandWithBackend: in front of a backend of the user's
// (-backend), the one command the proxy prints shows that backend's URI
// label as a Content-Type.
func TestPrintedCurlCommandWithBackend(t *testing.T) {
	servertest.Command(t, "curl")
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", labelPerson)
	}))
	defer backend.Close()
	target, err := url.Parse(backend.URL)
	require.NoError(t, err)
	base, banner := startPrinting(t, target)

	cmds := servertest.CurlCommands(banner)
	require.Len(t, cmds, 1, "%s", banner)
	require.Contains(t, cmds[0], " "+base+"/", "to the proxy")
	code, h, _ := servertest.Curl(t, filepath.Join("..", ".."), cmds[0]).Response(t)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "application/uri.https%3A%2F%2Fschema.org%2FPerson", h.Get("Content-Type"))
}
