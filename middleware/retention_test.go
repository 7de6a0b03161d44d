package middleware

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Retention: what a handler keeps after the request (its context, for a
// goroutine or context.WithoutCancel; its header, handed to a logger)
// must not keep alive the bodies and forms read for the request.

// TestFormRequestNotPinnedByContext: the request a handler gets with a
// decoded form, or with a form body that did not decode, holds the body
// the middleware read (the replay buffer) and, decoded, the form; what a
// handler keeps beyond the request, its context (a goroutine it
// started, context.WithoutCancel for work after the answer) or its
// header, must not keep that request alive. The middleware decoded the
// form into the request that shares one allocation with the context and
// the header's values (requestCopy), or, for a form that did not decode,
// put the request with the replay body into one, so a context or header
// kept held every form body, up to MaxFormBytes three times over (the
// octets read, the string decoded, the decoding's buffer): 10 requests
// with 1 MiB forms whose handlers kept their header held 30 MiB.
func TestFormRequestNotPinnedByContext(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, label, body string
		decoded           bool
	}{
		{"mapped label, decoded", "ContentType:application/www-form-urlencoded", "a=%20&b=" + big, true},
		{"label as it came, decoded", "application/www-form-urlencoded", "a=%20&b=" + big, true},
		{"mapped label, not decoded", "ContentType:application/www-form-urlencoded", "a=%FF&b=" + big, false},
		{"label as it came, not decoded", "application/www-form-urlencoded", "a=%FF&b=" + big, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				ctx  context.Context
				hdr  http.Header
				req  weak.Pointer[http.Request]
				form weak.Pointer[byte]
			)
			h := Rewrite(Options{DecodeForms: true, Unmappable: PassThrough})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx, hdr, req = r.Context(), r.Header, weak.Make(r)
				if v := r.PostFormValue("b"); v != "" {
					form = weak.Make(unsafe.StringData(v))
				}
			}))
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.label)
			r.Header.Set("Accept", "text/plain")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code)
			l, _ := LabelsFromContext(ctx)
			require.Equal(t, tt.decoded, l.Err == nil, "%v", l.Err)
			if tt.decoded {
				require.NotNil(t, form.Value(), "the handler saw the form")
			}

			runtime.GC()
			assert.True(t, req.Value() == nil, "the handler's request, with the body read, is still reachable")
			assert.True(t, form.Value() == nil, "the decoded form is still reachable")
			runtime.KeepAlive(ctx)
			runtime.KeepAlive(hdr)
		})
	}
}

// TestParsedFormNotPinnedByContext: a form the handler parses itself
// (ParseMultipartForm, ParseForm) under a label the middleware mapped
// goes into a request that the context and header do not keep alive:
// the copy that carries them shares one allocation with them
// (requestCopy), and a kept context held every parsed form, up to 32 MiB
// in memory each.
func TestParsedFormNotPinnedByContext(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	multipartBody := "--b\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n" + big + "\r\n--b--\r\n"
	tests := []struct {
		name, label, body string
		parse             func(*http.Request) error
	}{
		{"multipart/form-data, ParseMultipartForm", "ContentType:multipart/form-data?boundary=b", multipartBody,
			func(r *http.Request) error { return r.ParseMultipartForm(32 << 20) }},
		{"application/x-www-form-urlencoded, ParseForm", "ContentType:application/x-www-form-urlencoded", "f=" + big,
			func(r *http.Request) error { return r.ParseForm() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				ctx  context.Context
				hdr  http.Header
				form weak.Pointer[byte]
			)
			h := Rewrite(Options{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.NoError(t, tt.parse(r))
				v := r.FormValue("f")
				require.Len(t, v, len(big), "the handler parsed the form under the mapped label")
				ctx, hdr, form = r.Context(), r.Header, weak.Make(unsafe.StringData(v))
			}))
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.label)
			h.ServeHTTP(httptest.NewRecorder(), r)
			l, ok := LabelsFromContext(ctx)
			require.True(t, ok)
			require.NotEqual(t, l.Original, l.Mapped, "the label was mapped")

			runtime.GC()
			assert.True(t, form.Value() == nil, "the parsed form is still reachable")
			runtime.KeepAlive(ctx)
			runtime.KeepAlive(hdr)
		})
	}
}

// TestParsedIntoRequest: the labels whose bodies net/http parses into
// the Request, as mime.ParseMediaType reads their type.
func TestParsedIntoRequest(t *testing.T) {
	for label, want := range map[string]bool{
		"multipart/form-data; boundary=b":        true,
		" Multipart/Form-Data ;boundary=b":       true,
		"application/x-www-form-urlencoded":      true,
		"APPLICATION/X-WWW-FORM-URLENCODED; a=b": true,
		"multipart/mixed; boundary=b":            false,
		"application/www-form-urlencoded":        false,
		"multipart/form-data-x":                  false,
		"":                                       false,
	} {
		assert.Equal(t, want, parsedIntoRequest(label), "%q", label)
	}
}
