package accesslog

import (
	"bufio"
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/printable"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUserName: a user name that is printable ASCII is logged as it is;
// any other is Go-quoted, so that the log line holds no control, bidi or
// other non-printing character and no octet that is not UTF-8; the handler
// sees the request as it came.
func TestUserName(t *testing.T) {
	for _, tc := range []struct{ target, user, shown string }{
		{"http://ada@x/", "ada", "ada"},
		{"/", "", "-"},
		{"http://%0D%0Aforged@x/", "\r\nforged", `"\r\nforged"`},
		{"http://%1B%5B2K%C2%9B@x/", "\x1b[2K\u009b", `"\x1b[2K\u009b"`},
		{"http://%E2%80%AE%E2%81%A6%E2%80%A8%7F%FF@x/", "\u202e\u2066\u2028\x7f\xff", `"\u202e\u2066\u2028\x7f\xff"`},
		{"http://a%20b@x/", "a b", `"a b"`},
		{"http://z%C3%BCrich@x/", "zürich", `"zürich"`},
	} {
		t.Run(tc.target, func(t *testing.T) {
			req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + tc.target + " HTTP/1.1\r\nHost: x\r\n\r\n")))
			require.NoError(t, err)
			req.RemoteAddr = "192.0.2.1:1234"
			var seen *http.Request
			var log bytes.Buffer
			Handler(&log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen = r
				w.WriteHeader(http.StatusTeapot)
			})).ServeHTTP(httptest.NewRecorder(), req)
			assert.Same(t, req, seen, "the handler gets the request as it came")
			assert.Equal(t, tc.user, req.URL.User.Username())
			line := log.String()
			assert.True(t, strings.HasPrefix(line, "192.0.2.1 - "+tc.shown+" ["), line)
			assert.Contains(t, line, `" 418 0`+"\n")
			assert.True(t, printable.Is(strings.TrimSuffix(line, "\n")), "%q prints", line)
		})
	}
}

// TestMultipartFilesRemoved: LoggingHandler removes the temporary files of
// a multipart form the handler parsed (net/http does not, for a request a
// wrapper such as MaxBytesHandler copied), with a quoted user name too.
func TestMultipartFilesRemoved(t *testing.T) {
	for _, target := range []string{"http://ada@x/", "http://%0D%0Aforged@x/"} {
		t.Run(target, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp) // where ParseMultipartForm writes its files
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, err := mw.CreateFormFile("f", "f.bin")
			require.NoError(t, err)
			_, err = fw.Write(bytes.Repeat([]byte("x"), 4096))
			require.NoError(t, err)
			require.NoError(t, mw.Close())
			req := httptest.NewRequest(http.MethodPost, target, &body)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			var log bytes.Buffer
			var written []string
			Handler(&log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.NoError(t, r.ParseMultipartForm(1024)) // the file goes to disk
				written, _ = filepath.Glob(filepath.Join(tmp, "*"))
			})).ServeHTTP(httptest.NewRecorder(), req)
			require.Len(t, written, 1, "the form's file was on disk")
			left, err := filepath.Glob(filepath.Join(tmp, "*"))
			require.NoError(t, err)
			assert.Empty(t, left, "the form's files are removed")
		})
	}
}
