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
// body instead. So does one mapped to a Content-Type that browsers cannot
// read either ('?', '{' or '}' in its type or subtype). A response with
// another Content-Type, or one the handler wrote (Canonical may rewrite
// it), or with no label, and a request get none, and Leave touches
// nothing.
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
		{"the handler's own value kept beside a URI label left as it is", ToURI, []string{uriLabel}, []string{"sniff-me"}, true, []string{"sniff-me"}},
		{"the handler's own value kept beside a URI label that does not map", ToContentType, []string{"http://example.com/a b"}, []string{"sniff-me"}, true, []string{"sniff-me"}},
		{"a URI label that does not map", ToContentType, []string{"http://example.com/a b"}, nil, false, []string{"nosniff"}},
		{"a URI label that does not map, canonical", Canonical, []string{"http://example.com/a b"}, nil, false, []string{"nosniff"}},
		{"two labels, one a URI label", ToContentType, []string{"text/plain", uriLabel}, nil, false, []string{"nosniff"}},
		{"two Content-Types", ToURI, []string{"text/plain", "text/html"}, nil, false, nil},
		{"a Content-Type that does not map", ToURI, []string{"text/"}, nil, false, nil},
		{"to a Content-Type", ToContentType, []string{uriLabel}, nil, false, nil},
		{"to a Content-Type with '?' in its subtype", ToContentType, []string{"ContentType:text/plain%3Fflag"}, nil, false, []string{"nosniff"}},
		{"to a Content-Type with '{' in its subtype", ToContentType, []string{"ContentType:text/x%7By%7D"}, nil, false, []string{"nosniff"}},
		{"to a Content-Type with '?' in its type, canonical", Canonical, []string{"ContentType:x-FOO%3Fbar/a"}, nil, false, []string{"nosniff"}},
		{"the handler's own value kept beside a Content-Type with '?'", ToContentType, []string{"ContentType:text/plain%3Fflag"}, []string{"sniff-me"}, true, []string{"sniff-me"}},
		{"to a Content-Type with '{' in a parameter name", ToContentType, []string{`ContentType:text/plain?a%7Bb%7D="c"`}, nil, false, nil},
		{"a Content-Type with '?' left as the handler wrote it", ToContentType, []string{"text/pl?ain"}, nil, false, nil},
		{"a Content-Type with '?' canonical as the handler wrote it", Canonical, []string{"text/pl?ain"}, nil, false, nil},
		{"a Content-Type with '?' canonicalised", Canonical, []string{"TEXT/pl?ain"}, nil, false, nil},
		{"a uri. subtype wrapping a ContentType: URI, collapsed to a Content-Type with '?'", Canonical, []string{"application/uri.ContentType%3Atext%2Fplain%253Fflag"}, nil, false, []string{"nosniff"}},
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

	// Requests are not rendered by browsers: no field is added to one,
	// mapped to a URI label or with one that does not map.
	for _, rq := range []struct {
		mode        Mode
		label, want string
	}{
		{ToURI, "text/plain", "ContentType:text/plain"},
		{ToContentType, "http://example.com/a b", "http://example.com/a b"},
		{ToContentType, "ContentType:text/plain%3Fflag", "text/plain?flag"}, // one browsers cannot parse
	} {
		in := httptest.NewRequest(http.MethodPost, "/", nil)
		in.Header.Set("Content-Type", rq.label)
		out := in.Clone(in.Context())
		opts := Options{Request: rq.mode, Unmappable: PassThrough}
		ProxyRewrite(opts, nil)(&httputil.ProxyRequest{In: in, Out: out})
		assert.Equal(t, rq.want, out.Header.Get("Content-Type"))
		assert.NotContains(t, out.Header, "X-Content-Type-Options", rq.label)

		var seen http.Header
		Rewrite(opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = r.Header
		})).ServeHTTP(httptest.NewRecorder(), in)
		assert.Equal(t, rq.want, seen.Get("Content-Type"))
		assert.NotContains(t, seen, "X-Content-Type-Options", rq.label)
	}
}

// TestNosniffAfterUnsentHeader: a flush the writer cannot do rewrites the
// label without sending the header; the field that rewrite added is taken
// back when the handler then changes its label, and decided afresh. One
// the handler set in between, or wrote into, is its own.
func TestNosniffAfterUnsentHeader(t *testing.T) {
	const unmappable = "http://example.com/a b"
	tests := []struct {
		name  string
		mode  Mode
		first string // the label before the failed flush; "text/plain" if ""
		later string // the label set after it; "" deletes it
		keep  bool   // the label is not changed after the flush
		own   func(h http.Header)
		want  []string
		sent  []string // the label sent, checked if not nil
	}{
		{name: "unchanged", mode: ToURI, keep: true, want: []string{"nosniff"}, sent: []string{"ContentType:text/plain"}},
		{name: "a Content-Type that does not map", mode: ToURI, later: "text/"},
		{name: "no label", mode: ToURI},
		{name: "a URI label", mode: ToURI, later: uriLabel, want: []string{"nosniff"}},
		{name: "another Content-Type", mode: ToURI, later: "text/html", want: []string{"nosniff"}},
		{name: "the handler's own field", mode: ToURI, later: "text/", want: []string{"sniff-me"},
			own: func(h http.Header) { h["X-Content-Type-Options"] = []string{"sniff-me"} }},
		{name: "the handler's own nosniff, in a slice of its own", mode: ToURI, later: "text/", want: []string{"nosniff"},
			own: func(h http.Header) { h["X-Content-Type-Options"] = []string{"nosniff"} }},
		{name: "a value the handler wrote into the field", mode: ToURI, later: "text/", want: []string{"sniff-me"},
			own: func(h http.Header) { h["X-Content-Type-Options"][0] = "sniff-me" }},
		{name: "the handler's nil field", mode: ToURI, later: "text/", want: nil,
			own: func(h http.Header) { h["X-Content-Type-Options"] = nil }},
		{name: "after a URI label left as it is", mode: ToURI, first: uriLabel, later: "text/"},
		{name: "after a URI label that does not map", mode: ToContentType, first: unmappable, later: "text/plain"},
		{name: "a URI label that does not map, kept", mode: ToContentType, first: unmappable, keep: true, want: []string{"nosniff"}, sent: []string{unmappable}},
		{name: "after a URI label mapped to a Content-Type browsers cannot parse", mode: ToContentType, first: "ContentType:text/plain%3Fflag", later: "text/plain"},
		{name: "a Content-Type browsers cannot parse, kept", mode: ToContentType, first: "ContentType:text/plain%3Fflag", keep: true, want: []string{"nosniff"}, sent: []string{"text/plain?flag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode, first := tt.mode, tt.first
			if first == "" {
				first = "text/plain"
			}
			w := &minimalWriter{h: http.Header{}}
			Rewrite(Options{Response: mode, Unmappable: PassThrough})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", first)
				require.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
				assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"), "the probe's rewrite")
				switch {
				case tt.keep:
				case tt.later == "":
					w.Header().Del("Content-Type")
				default:
					w.Header().Set("Content-Type", tt.later)
				}
				if tt.own != nil {
					tt.own(w.Header())
				}
				_, _ = w.Write([]byte("<html>"))
			})).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			v, set := w.h["X-Content-Type-Options"]
			if tt.sent != nil {
				assert.Equal(t, tt.sent, w.sent)
			}
			assert.Equal(t, tt.want, v)
			assert.Equal(t, tt.want != nil || tt.own != nil, set, "the field is there")
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

// TestBrowserParses holds browserParses to WHATWG MIME Sniffing's "parse a
// MIME type" (integration's TestWHATWGMIMEType holds it to Node's
// util.MIMEType on every Content-Type the mapping produces from the
// vectors and the real-world names).
func TestBrowserParses(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"text/plain", true},
		{"TEXT/Plain", true},
		{`text/plain; charset="utf-8"`, true},
		{"text/plain;charset=utf-8", true},
		{" \t\r\ntext/plain \t\r\n", true},
		{"text/plain \t; a=b", true},
		{"text/plain; a{b}=c", true}, // a parameter the browser drops
		{"text/plain; =", true},
		{"application/vnd.api+json", true},
		{"x-foo!#$%&'*+-.^_`|~/0", true},
		{"text/plain?flag", false},
		{"x-foo?bar/bizzare#sub#type", false},
		{"text/x{y}", false},
		{"text/x}", false},
		{"text/plain (comment)", false},
		{"text /plain", false},
		{"text/ plain", false},
		{"text/plain/x", false},
		{"text/", false},
		{"/plain", false},
		{"text", false},
		{"", false},
		{"text/pl\x00ain", false},
		{"text/pl\u00e9in", false},
		{"ContentType:text/plain", false},
		{"http://example.com/a", false},
		{"mailto:user@host.example", false},
		{"urn:isbn:0-395-36341-1", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, browserParses(tt.in), "%q", tt.in)
	}
}
