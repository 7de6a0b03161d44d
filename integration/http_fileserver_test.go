package integration

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileServerFiles are served by TestFileServer: a type named by the
// extension, one the file server must sniff, and a directory listing.
var fileServerFiles = fstest.MapFS{
	"doc.txt":  {Data: []byte("0123456789abcdefghij\n"), ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	"page":     {Data: []byte("<!DOCTYPE html><title>x</title><p>sniffed"), ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	"sub/a.js": {Data: []byte("export const a = 1;\n")},
}

// TestFileServer puts net/http's file server behind the middleware with
// responses mapped to URI labels, as for static files served to clients
// that read URI labels, and sends each request both to it and to the bare
// file server beside it. The answers must differ only in the label, which
// must be the URI that the bare answer's Content-Type maps to (with
// X-Content-Type-Options: nosniff beside it, once: a browser cannot read
// a URI label as a type, and must not sniff instead), whatever
// the file server did to set it: a type from the file name or sniffed
// from the content, a directory listing, an error page, HEAD, a range
// (206), a range it cannot serve (416), and conditional requests, whose
// 304 has no Content-Type and must get none. Several ranges are answered
// as multipart/byteranges, with a boundary of its own each time: there,
// the boundary of the mapped label, mapped back, must be the one that
// separates the parts of the body.
func TestFileServer(t *testing.T) {
	files := http.FileServerFS(fileServerFiles)
	mux := http.NewServeMux()
	mux.HandleFunc("/proto-probe", func(http.ResponseWriter, *http.Request) {})
	mux.Handle("/bare/", http.StripPrefix("/bare", files))
	mux.Handle("/mapped/", http.StripPrefix("/mapped", middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(files)))
	modTime := fileServerFiles["doc.txt"].ModTime.Format(http.TimeFormat)
	for _, tt := range []struct {
		name, method, path string
		header             map[string]string
		status             int
		noLabel            bool // the bare answer has no Content-Type
	}{
		{"by extension", http.MethodGet, "/doc.txt", nil, http.StatusOK, false},
		{"sniffed", http.MethodGet, "/page", nil, http.StatusOK, false},
		{"directory listing", http.MethodGet, "/sub/", nil, http.StatusOK, false},
		{"not found", http.MethodGet, "/missing.txt", nil, http.StatusNotFound, false},
		{"HEAD", http.MethodHead, "/doc.txt", nil, http.StatusOK, false},
		{"range", http.MethodGet, "/doc.txt", map[string]string{"Range": "bytes=2-5"}, http.StatusPartialContent, false},
		{"range not satisfiable", http.MethodGet, "/doc.txt", map[string]string{"Range": "bytes=100-200"}, http.StatusRequestedRangeNotSatisfiable, false},
		{"not modified", http.MethodGet, "/doc.txt", map[string]string{"If-Modified-Since": modTime}, http.StatusNotModified, true},
		{"not modified, HEAD", http.MethodHead, "/page", map[string]string{"If-Modified-Since": modTime}, http.StatusNotModified, true},
		{"precondition failed", http.MethodGet, "/doc.txt", map[string]string{"If-Unmodified-Since": "Thu, 01 Jan 2026 00:00:00 GMT"}, http.StatusPreconditionFailed, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eachProto(t, mux, func(t *testing.T, srv *httptest.Server, c *http.Client) {
				get := func(prefix string) (*http.Response, []byte) {
					req, err := http.NewRequest(tt.method, srv.URL+prefix+tt.path, nil)
					require.NoError(t, err)
					for k, v := range tt.header {
						req.Header.Set(k, v)
					}
					res, err := c.Do(req)
					require.NoError(t, err)
					defer res.Body.Close()
					body, err := io.ReadAll(res.Body)
					require.NoError(t, err)
					return res, body
				}
				bare, bareBody := get("/bare")
				mapped, mappedBody := get("/mapped")
				require.Equal(t, tt.status, bare.StatusCode, "%s", bareBody)
				assert.Equal(t, tt.status, mapped.StatusCode)
				assert.Equal(t, bareBody, mappedBody)
				label, ok := bare.Header["Content-Type"]
				if tt.noLabel {
					assert.False(t, ok, "the bare answer has no Content-Type")
					assert.NotContains(t, mapped.Header, "Content-Type", "none is added")
					assert.NotContains(t, mapped.Header, "X-Content-Type-Options", "nor a field that goes with a label")
				} else {
					require.Len(t, label, 1)
					want, err := mapping.ToURI(label[0])
					require.NoError(t, err)
					assert.Equal(t, []string{want}, mapped.Header["Content-Type"])
					assert.NotEqual(t, label, mapped.Header["Content-Type"], "the label is mapped")
					assert.Equal(t, []string{"nosniff"}, mapped.Header["X-Content-Type-Options"], "a URI label forbids sniffing")
				}
				if _, ok := bare.Header["X-Content-Type-Options"]; !ok {
					mapped.Header.Del("X-Content-Type-Options") // checked above
				}
				for _, h := range []http.Header{bare.Header, mapped.Header} {
					h.Del("Content-Type")
					h.Del("Date")
				}
				assert.Equal(t, bare.Header, mapped.Header, "the other fields are the same")
			})
		})
	}
}

// TestFileServerRanges: several ranges of a file come as a
// multipart/byteranges body whose boundary the file server picks for each
// answer, so the mapped answer is checked on its own: its URI label maps
// back to a multipart/byteranges Content-Type whose boundary separates the
// parts, which hold the ranges asked for with the file's own type.
func TestFileServerRanges(t *testing.T) {
	files := http.FileServerFS(fileServerFiles)
	h := middleware.Rewrite(middleware.Options{Response: middleware.ToURI})(files)
	data := fileServerFiles["doc.txt"].Data
	eachProto(t, h, func(t *testing.T, srv *httptest.Server, c *http.Client) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/doc.txt", nil)
		require.NoError(t, err)
		req.Header.Set("Range", "bytes=0-1,4-6,-3")
		res, err := c.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusPartialContent, res.StatusCode)
		label := res.Header.Get("Content-Type")
		require.True(t, strings.HasPrefix(label, "ContentType:multipart/byteranges?boundary="), "label %q", label)
		ct, err := mapping.ToContentType(label)
		require.NoError(t, err)
		mt, params, err := mime.ParseMediaType(ct)
		require.NoError(t, err)
		require.Equal(t, "multipart/byteranges", mt)
		mr := multipart.NewReader(res.Body, params["boundary"])
		var got []string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			assert.Equal(t, "text/plain; charset=utf-8", p.Header.Get("Content-Type"), "a part keeps the file's own type")
			b, err := io.ReadAll(p)
			require.NoError(t, err)
			got = append(got, p.Header.Get("Content-Range")+" "+string(b))
		}
		n := len(data)
		assert.Equal(t, []string{
			"bytes 0-1/21 " + string(data[0:2]),
			"bytes 4-6/21 " + string(data[4:7]),
			"bytes 18-20/21 " + string(data[n-3:]),
		}, got)
	})
}
