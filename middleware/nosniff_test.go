package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNosniff: a response label the middleware turns into a URI label
// goes out with X-Content-Type-Options: nosniff, unless the handler set
// that field (to anything, or to nil); browsers cannot read a URI label as
// a MIME type, and would sniff the body instead. A Content-Type it writes,
// a label it leaves as it is, and a request label get none.
func TestNosniff(t *testing.T) {
	tests := []struct {
		name  string
		mode  Mode
		label string
		set   []string // the handler's X-Content-Type-Options, if not nil
		want  []string // the field as it goes out; nil: absent
	}{
		{"to a URI label", ToURI, "text/plain; charset=utf-8", nil, []string{"nosniff"}},
		{"the handler's own value kept", ToURI, "text/plain", []string{"sniff-me"}, []string{"sniff-me"}},
		{"the handler's empty field kept", ToURI, "text/plain", []string{}, []string{}},
		{"a URI label left as it is", ToURI, uriLabel, nil, nil},
		{"a label that does not map", ToURI, "text/", nil, nil},
		{"to a Content-Type", ToContentType, uriLabel, nil, nil},
		{"canonical", Canonical, "TEXT/plain", nil, nil},
		{"left alone", Leave, "text/plain", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(t *testing.T, h http.Header) {
				t.Helper()
				v, ok := h["X-Content-Type-Options"]
				if tt.want == nil {
					assert.False(t, ok, "%q", v)
				} else {
					assert.Equal(t, tt.want, v)
				}
			}
			rec := httptest.NewRecorder()
			serve(Rewrite(Options{Response: tt.mode})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.label)
				if tt.set != nil {
					w.Header()["X-Content-Type-Options"] = tt.set
				}
				_, _ = w.Write([]byte("<html><script>"))
			})), rec, httptest.NewRequest(http.MethodGet, "/", nil))
			check(t, rec.Result().Header)

			res := &http.Response{Header: http.Header{"Content-Type": {tt.label}}, Request: httptest.NewRequest(http.MethodGet, "/", nil)}
			if tt.set != nil {
				res.Header["X-Content-Type-Options"] = tt.set
			}
			_ = ProxyModifyResponse(Options{Response: tt.mode}, nil)(res)
			check(t, res.Header)
		})
	}

	// Requests are not rendered by browsers: no field is added to one.
	in := httptest.NewRequest(http.MethodPost, "/", nil)
	in.Header.Set("Content-Type", "text/plain")
	out := in.Clone(in.Context())
	ProxyRewrite(Options{Request: ToURI}, nil)(&httputil.ProxyRequest{In: in, Out: out})
	assert.Equal(t, "ContentType:text/plain", out.Header.Get("Content-Type"))
	assert.NotContains(t, out.Header, "X-Content-Type-Options")
}

// TestNosniffSlicesApart: the two fields share one allocation, but an
// append to either leaves the other as it is.
func TestNosniffSlicesApart(t *testing.T) {
	h := http.Header{"Content-Type": {"text/plain"}}
	rw := newRewriter(Options{Response: ToURI})
	assert.NoError(t, rw.rewriteHeader(nil, h, SideResponse, ToURI))
	h["Content-Type"] = append(h["Content-Type"], "x")
	h["X-Content-Type-Options"] = append(h["X-Content-Type-Options"], "y")
	assert.Equal(t, []string{"ContentType:text/plain", "x"}, h["Content-Type"])
	assert.Equal(t, []string{"nosniff", "y"}, h["X-Content-Type-Options"])
}
