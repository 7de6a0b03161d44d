package middleware

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStructureChangeKeepsTheBody: a multipart form whose label the
// mapping would give another boundary (here the backslash Go keeps in a
// quoted boundary, which the mapping drops) is not rewritten, so the
// handler can still parse the form with PassThrough; Reject answers 415
// naming structure-change, as for a label that cannot be mapped. Both
// report the error.
func TestStructureChangeKeepsTheBody(t *testing.T) {
	const label = `multipart/form-data; boundary="a\b"`
	const body = "--a\\b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nvalue\r\n--a\\b--\r\n"
	for _, tt := range []struct {
		name   string
		opts   Options
		status int
	}{
		{"canonical, pass through", Options{Request: Canonical, Unmappable: PassThrough}, http.StatusOK},
		{"to-uri, pass through", Options{Request: ToURI, Unmappable: PassThrough}, http.StatusOK},
		{"canonical, reject", Options{Request: Canonical}, http.StatusUnsupportedMediaType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var reported []string
			tt.opts.OnError = func(_ *http.Request, err error) { reported = append(reported, err.(*Error).Kind()) }
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			r.Header.Set("Content-Type", label)
			w := httptest.NewRecorder()
			Rewrite(tt.opts)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				assert.Equal(t, label, r.Header.Get("Content-Type"))
				require.NoError(t, r.ParseMultipartForm(1<<20))
				assert.Equal(t, "value", r.FormValue("name"))
				l, ok := RequestLabels(r)
				require.True(t, ok)
				assert.ErrorIs(t, l.Err, ErrStructureChange)
			})).ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code, w.Body.String())
			assert.Equal(t, []string{"structure-change"}, reported)
			if tt.status != http.StatusOK {
				assert.Contains(t, w.Body.String(), "(structure-change)")
			}
		})
	}
}

// A quoted-pair before a tspecial is the tspecial to Go and to the
// mapping: boundary="a\:b" is a:b, which Canonical writes as "a:b", the
// same boundary, so the request goes through.
func TestQuotedPairBoundary(t *testing.T) {
	var got string
	h := Rewrite(Options{Request: Canonical, Response: Leave})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Content-Type")
	}))
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(""))
	r.Header.Set("Content-Type", `multipart/form-data; boundary="a\:b"`)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, `multipart/form-data; boundary="a:b"`, got)
}

// FuzzSimpleBoundary holds simpleBoundary, the allocation-free reading of
// a boundary, to mime.ParseMediaType, which it stands in for: whatever it
// reads, Go reads the same, with no other parameter.
func FuzzSimpleBoundary(f *testing.F) {
	for _, s := range []string{
		"multipart/form-data; boundary=----WebKitFormBoundary0123456789abcdef",
		`multipart/form-data; boundary="----x y"`, ` Multipart/Mixed ;	BOUNDARY=a `,
		`multipart/mixed; boundary=""`, `multipart/mixed; boundary="a\b"`, `multipart/mixed; boundary="a\:b"`, `multipart/mixed; boundary="a"b"`,
		"multipart/mixed; boundary=a; charset=b", "multipart/mixed;boundary=a=b", "multipart/mixed; boundary =a",
		"multipart/mixed;\vboundary=a", "multipart/mixed; boundary=\"a\r\nb\"", "text/plain; boundary=a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := simpleBoundary(s)
		if !ok {
			return
		}
		_, params, err := mime.ParseMediaType(s)
		require.NoError(t, err, "%q read as boundary %q", s, b)
		assert.Equal(t, map[string]string{"boundary": b}, params, "%q", s)
	})
}

// TestSimpleBoundary: what simpleBoundary reads, and what it leaves to
// mime.ParseMediaType (ok false), which reads no boundary from an open
// quote, so net/http reads no parts and the structure check lets the
// label be rewritten.
func TestSimpleBoundary(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"multipart/form-data; boundary=----x", "----x", true},
		{`multipart/form-data; boundary="----x y"`, "----x y", true},
		{`multipart/form-data; boundary=""`, "", true},
		{`multipart/form-data; boundary="----x`, "", false}, // an open quote
		{`multipart/form-data; boundary="`, "", false},
		{`multipart/form-data; boundary="a\b"`, "", false}, // a quoted-pair: Go's reading
		{"multipart/form-data; boundary=a; charset=b", "", false},
		{"multipart/form-data; charset=b", "", false},
		{"multipart/form-data", "", false},
	} {
		b, ok := simpleBoundary(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		if ok {
			assert.Equal(t, tt.want, b, "%q", tt.in)
		}
	}
	_, ok := goBoundary(`multipart/form-data; boundary="----x`)
	assert.False(t, ok, "Go reads a boundary from an open quote")
	assert.True(t, keepsMultipart(`multipart/form-data; boundary="----x`, "anything", ToContentType))
}

// A label as browsers send it, and as mapping.Canonical writes it, is
// read without allocating.
func TestSimpleBoundaryAllocates(t *testing.T) {
	for _, s := range []string{
		"multipart/form-data; boundary=----WebKitFormBoundary0123456789abcdef",
		`multipart/form-data; boundary="----WebKitFormBoundary0123456789abcdef"`,
	} {
		var ok bool
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, ok = goBoundary(s) }), s)
		assert.True(t, ok, s)
	}
}
