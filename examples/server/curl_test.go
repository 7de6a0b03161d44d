package main

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrintedCurlCommands runs each curl command the example prints for
// its user to try, as printed, with curl (an HTTP client that shares no
// code with ours), and checks that it shows what it is printed to show.
// The commands come from the banner, so that what is tested is what a
// user copies.
func TestPrintedCurlCommands(t *testing.T) {
	servertest.Command(t, "curl")
	_, banner := servertest.StartBanner(t, runExample)

	// In the order printed; match picks a command out, so that a command
	// added, dropped or moved fails the test until this table follows.
	tests := []struct {
		name, match string
		check       func(t *testing.T, r *servertest.CurlRun)
	}{
		{"map a Content-Type", `/api/map\?label=text/plain`, func(t *testing.T, r *servertest.CurlRun) {
			servertest.AssertJSON(t, string(r.Out), map[string]any{
				"input":                      "text/plain; charset=us-ascii",
				"detected":                   "content-type",
				"to_uri.output":              `ContentType:text/plain?charset="us-ascii"`,
				"canonical.output":           `text/plain; charset="us-ascii"`,
				"round_trip.stable":          true,
				"to_content_type.error_kind": "relative-uri",
			})
		}},
		// %23 reaches the server as '#': unescaped, curl would take it for
		// the start of the URL's fragment and not send it.
		{"map a URI", `/api/map\?label=http://`, func(t *testing.T, r *servertest.CurlRun) {
			servertest.AssertJSON(t, string(r.Out), map[string]any{
				"input":                  "http://www.w3.org/2000/09/xmldsig#",
				"detected":               "uri",
				"to_content_type.output": `application/uri.http%3A%2F%2Fwww.w3.org%2F2000%2F09%2Fxmldsig; URI-fragment=""`,
				"round_trip.back.output": "http://www.w3.org/2000/09/xmldsig#",
				"round_trip.stable":      true,
			})
		}},
		{"echo a URI label", `ContentType:application/json'`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, "application/json", h.Get("Content-Type"))
			servertest.AssertJSON(t, body, map[string]any{
				"original": "ContentType:application/json", "mapped": "application/json",
				"changed": true, "body_bytes": 2,
			})
		}},
		{"header injection", `X-Evil`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusUnsupportedMediaType, code)
			assert.Contains(t, body, "cannot be mapped (ctl)")
			assert.Equal(t, "text/plain; charset=utf-8", h.Get("Content-Type"))
			assert.NotContains(t, h, "X-Evil")
			assert.NotRegexp(t, `(?mi)^X-Evil`, string(r.Out), "a line of its own anywhere")
		}},
		{"decode a form", `application/www-form-urlencoded' -d 'city=`, func(t *testing.T, r *servertest.CurlRun) {
			servertest.AssertJSON(t, string(r.Out), map[string]any{
				"original": "ContentType:application/www-form-urlencoded",
				"mapped":   "application/www-form-urlencoded",
				"form":     map[string][]string{"city": {"Zürich"}, "tag": {"a", "b"}},
			})
		}},
		{"a URI-labelled resource", `-i \S+/xmlenc$`, func(t *testing.T, r *servertest.CurlRun) {
			code, h, body := r.Response(t)
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, `application/uri.http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmlenc; URI-fragment="Element"`, h.Get("Content-Type"))
			assert.Contains(t, body, `<EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#"`)
		}},
	}
	cmds := servertest.CurlCommands(banner)
	require.Len(t, cmds, len(tests), "%s", banner)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Regexp(t, tt.match, cmds[i])
			tt.check(t, servertest.Curl(t, filepath.Join("..", ".."), cmds[i]))
		})
	}
}
