package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNosniff: a response that goes out with a URI label, mapped to one,
// left as one (ToURI) or one that could not be mapped, gets
// X-Content-Type-Options: nosniff, unless the handler set that field;
// browsers cannot read a URI label as a MIME type, and would sniff the
// body instead. A response with a Content-Type, or with no label, and a
// request get none, and Leave touches nothing.
func TestNosniff(t *testing.T) {
	tests := []struct {
		name   string
		mode   Mode
		labels []string
		own    []string // the handler's X-Content-Type-Options
		hasOwn bool     // whether the handler sets it (own may be nil)
		want   []string // the field as it goes out; nil: absent
	}{
		{"to a URI label", ToURI, []string{"text/plain; charset=utf-8"}, nil, false, []string{"nosniff"}},
		{"the handler's own value kept", ToURI, []string{"text/plain"}, []string{"sniff-me"}, true, []string{"sniff-me"}},
		{"the handler's empty field kept", ToURI, []string{"text/plain"}, []string{}, true, []string{}},
		{"the handler's nil field kept", ToURI, []string{"text/plain"}, nil, true, nil},
		{"a URI label left as it is", ToURI, []string{uriLabel}, nil, false, []string{"nosniff"}},
		{"a URI label that does not map", ToContentType, []string{"http://example.com/a b"}, nil, false, []string{"nosniff"}},
		{"a URI label that does not map, canonical", Canonical, []string{"http://example.com/a b"}, nil, false, []string{"nosniff"}},
		{"two labels, one a URI label", ToContentType, []string{"text/plain", uriLabel}, nil, false, []string{"nosniff"}},
		{"two Content-Types", ToURI, []string{"text/plain", "text/html"}, nil, false, nil},
		{"a Content-Type that does not map", ToURI, []string{"text/"}, nil, false, nil},
		{"to a Content-Type", ToContentType, []string{uriLabel}, nil, false, nil},
		{"a Content-Type left as it is", ToContentType, []string{"text/plain"}, nil, false, nil},
		{"canonical", Canonical, []string{"TEXT/plain"}, nil, false, nil},
		{"left alone", Leave, []string{uriLabel}, nil, false, nil},
		{"no label", ToURI, nil, nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(t *testing.T, h http.Header) {
				t.Helper()
				v, ok := h["X-Content-Type-Options"]
				assert.Equal(t, tt.want != nil || tt.hasOwn, ok, "%q", v)
				assert.Equal(t, tt.want, v)
			}
			w := &minimalWriter{h: http.Header{}}
			Rewrite(Options{Response: tt.mode, Unmappable: PassThrough})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.labels != nil {
					w.Header()["Content-Type"] = tt.labels
				}
				if tt.hasOwn {
					w.Header()["X-Content-Type-Options"] = tt.own
				}
				w.WriteHeader(http.StatusOK)
			})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			check(t, w.h)

			res := &http.Response{Header: http.Header{}, Request: httptest.NewRequest(http.MethodGet, "/", nil)}
			if tt.labels != nil {
				res.Header["Content-Type"] = tt.labels
			}
			if tt.hasOwn {
				res.Header["X-Content-Type-Options"] = tt.own
			}
			_ = ProxyModifyResponse(Options{Response: tt.mode, Unmappable: PassThrough}, nil)(res)
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

// TestNosniffAfterUnsentHeader: a flush the writer cannot do rewrites the
// label without sending the header; the field that rewrite added is taken
// back when the handler then changes its label, and decided afresh. One
// the handler set in between is its own.
func TestNosniffAfterUnsentHeader(t *testing.T) {
	tests := []struct {
		name, later string // the label set after the failed flush; "" deletes it
		own         bool   // the handler sets its own field after the flush
		want        []string
	}{
		{"unchanged", "", false, nil}, // later is not used: see below
		{"a Content-Type that does not map", "text/", false, nil},
		{"no label", "", false, nil},
		{"a URI label", uriLabel, false, []string{"nosniff"}},
		{"another Content-Type", "text/html", false, []string{"nosniff"}},
		{"the handler's own field", "text/", true, []string{"sniff-me"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &minimalWriter{h: http.Header{}}
			Rewrite(Options{Response: ToURI, Unmappable: PassThrough})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				require.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
				assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"), "the probe's rewrite")
				switch {
				case i == 0:
				case tt.later == "":
					w.Header().Del("Content-Type")
				default:
					w.Header().Set("Content-Type", tt.later)
				}
				if tt.own {
					w.Header()["X-Content-Type-Options"] = []string{"sniff-me"}
				}
				_, _ = w.Write([]byte("<html>"))
			})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			if i == 0 {
				assert.Equal(t, []string{"ContentType:text/plain"}, w.sent)
				assert.Equal(t, []string{"nosniff"}, w.h["X-Content-Type-Options"], "kept with the label it was added for")
				return
			}
			assert.Equal(t, tt.want, w.h["X-Content-Type-Options"])
		})
	}
}

// TestNosniffSlicesApart: the two fields share one allocation, but an
// append to either leaves the other as it is.
func TestNosniffSlicesApart(t *testing.T) {
	h := http.Header{"Content-Type": {"text/plain"}}
	rw := newRewriter(Options{Response: ToURI})
	_, err := rw.rewriteHeader(nil, h, SideResponse, ToURI)
	assert.NoError(t, err)
	h["Content-Type"] = append(h["Content-Type"], "x")
	h["X-Content-Type-Options"] = append(h["X-Content-Type-Options"], "y")
	assert.Equal(t, []string{"ContentType:text/plain", "x"}, h["Content-Type"])
	assert.Equal(t, []string{"nosniff", "y"}, h["X-Content-Type-Options"])
}
