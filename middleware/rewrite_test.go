package middleware

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/gorilla/handlers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seen is what a handler saw of its request.
type seen struct {
	ran    bool
	req    *http.Request
	ct     []string
	labels Labels
	ok     bool
}

func recordRequest(s *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ran, s.req = true, r
		s.ct = r.Header["Content-Type"]
		s.labels, s.ok = RequestLabels(r)
	})
}

func TestRequestRewrite(t *testing.T) {
	const (
		tag42   = "http://example.com/tag42"
		tag42CT = "application/uri.http%3A%2F%2Fexample.com%2Ftag42"
		evil    = "ContentType:text/plain%0D%0AX-Evil:%201"
	)
	tests := []struct {
		name       string
		opts       Options
		ct         []string // nil: no field
		status     int      // 0: the handler ran
		wantCT     []string // what the handler sees
		changed    bool     // a copy with a new header
		labelsOK   bool
		labelsKind string // Labels.Err kind
	}{
		{"no Content-Type", Options{}, nil, 0, nil, false, false, ""},
		{"empty field", Options{}, []string{}, 0, []string{}, false, false, ""},
		{"Content-Type left alone", Options{}, []string{"application/json"}, 0, []string{"application/json"}, false, false, ""},
		{"URI label mapped", Options{}, []string{tag42}, 0, []string{tag42CT}, true, true, ""},
		{"to-uri", Options{Request: ToURI}, []string{"image/JPEG"}, 0, []string{"ContentType:image/jpeg"}, true, true, ""},
		{"canonical", Options{Request: Canonical}, []string{"Text/Plain;charset=UTF-8"}, 0, []string{`text/plain; charset="UTF-8"`}, true, true, ""},
		{"canonical, already canonical", Options{Request: Canonical}, []string{"text/plain"}, 0, []string{"text/plain"}, false, false, ""},
		{"leave", Options{Request: Leave}, []string{evil}, 0, []string{evil}, false, false, ""},
		{"reject injection", Options{}, []string{evil}, 415, nil, false, false, ""},
		{"pass injection through", Options{Unmappable: PassThrough}, []string{evil}, 0, []string{evil}, false, true, "ctl"},
		{"reject two fields", Options{}, []string{tag42, "text/plain"}, 415, nil, false, false, ""},
		{"pass two fields through", Options{Unmappable: PassThrough}, []string{tag42, "text/plain"}, 0, []string{tag42, "text/plain"}, false, true, "multiple-labels"},
		{"reject a scheme", Options{Schemes: []string{"https"}}, []string{tag42}, 415, nil, false, false, ""},
		{"reject NoControlled", Options{Mapping: []mapping.Option{mapping.NoControlled}}, []string{`mailto:a@b?MIME-type="text%2Fplain"`}, 415, nil, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("body"))
			if tt.ct != nil {
				r.Header["Content-Type"] = tt.ct
			}
			r.Header.Set("X-Other", "kept")
			before := r.Header.Clone()
			beforeReq := *r
			var errs []error
			tt.opts.OnError = func(_ *http.Request, err error) { errs = append(errs, err) }

			var s seen
			w := httptest.NewRecorder()
			Rewrite(tt.opts)(recordRequest(&s)).ServeHTTP(w, r)

			assert.Equal(t, before, r.Header, "the caller's header is untouched")
			assert.Equal(t, beforeReq.Context(), r.Context(), "the caller's request is untouched")
			if tt.status != 0 {
				assert.False(t, s.ran)
				assert.Equal(t, tt.status, w.Code)
				require.Len(t, errs, 1)
				var e *Error
				require.ErrorAs(t, errs[0], &e)
				assert.Equal(t, SideRequest, e.Side)
				assert.Equal(t, tt.ct[0], e.Label)
				assert.Equal(t, "text/plain; charset=utf-8", w.Header().Get("Content-Type"))
				assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
				assert.True(t, strings.HasPrefix(w.Body.String(), "415 Unsupported Media Type: the request's Content-Type label cannot be mapped ("+e.Kind()+")\n"), w.Body.String())
				return
			}
			require.True(t, s.ran)
			assert.Equal(t, tt.wantCT, s.ct)
			assert.Equal(t, tt.changed || tt.labelsOK, s.req != r, "a copy exactly when something changed")
			if tt.changed {
				assert.Equal(t, "kept", s.req.Header.Get("X-Other"))
				body, _ := io.ReadAll(s.req.Body)
				assert.Equal(t, "body", string(body), "the body is the caller's")
			} else if s.req != r {
				assert.Equal(t, r.Header, s.req.Header)
			}
			assert.Equal(t, tt.labelsOK, s.ok)
			if tt.labelsOK {
				assert.Equal(t, tt.ct[0], s.labels.Original)
				if tt.labelsKind != "" {
					assert.Equal(t, tt.ct[0], s.labels.Mapped)
					var e *Error
					require.ErrorAs(t, s.labels.Err, &e)
					assert.Equal(t, tt.labelsKind, e.Kind())
					assert.Len(t, errs, 1)
				} else {
					assert.Equal(t, tt.wantCT[0], s.labels.Mapped)
					assert.NoError(t, s.labels.Err)
				}
			} else {
				assert.Empty(t, errs)
			}
		})
	}
}

// A rejection answered under ToURI carries a URI label, like every other
// response.
func TestRejectGoesThroughResponseRewrite(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", "text")
	w := httptest.NewRecorder()
	Rewrite(Options{Request: ToURI, Response: ToURI})(http.NotFoundHandler()).ServeHTTP(w, r)
	assert.Equal(t, http.StatusUnsupportedMediaType, w.Code)
	assert.Equal(t, `ContentType:text/plain?charset="utf-8"`, w.Header().Get("Content-Type"))
	assert.Contains(t, w.Body.String(), "(syntax)")
}

func TestRequestLabelsWithoutMiddleware(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Content-Type", "text/plain")
	l, ok := RequestLabels(r)
	assert.False(t, ok)
	assert.Equal(t, Labels{Original: "text/plain", Mapped: "text/plain"}, l)
}

// LabelsFromContext finds the labels in the request's context and in
// contexts derived from it, and nothing in a context the middleware did not
// make.
func TestLabelsFromContext(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Content-Type", uriLabel)
	var got []Labels
	Rewrite(Options{})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		for _, c := range []context.Context{r.Context(), ctx} {
			l, ok := LabelsFromContext(c)
			require.True(t, ok)
			got = append(got, l)
		}
	})).ServeHTTP(httptest.NewRecorder(), r)
	want := Labels{Original: uriLabel, Mapped: ctLabel}
	assert.Equal(t, []Labels{want, want}, got)

	l, ok := LabelsFromContext(context.Background())
	assert.False(t, ok)
	assert.Equal(t, Labels{}, l)
}

func TestLabelsContextKeepsParent(t *testing.T) {
	type key struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	r := httptest.NewRequest(http.MethodPost, "/", nil).WithContext(ctx)
	r.Header.Set("Content-Type", "http://x")
	var got context.Context
	Rewrite(Options{})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = r.Context()
	})).ServeHTTP(httptest.NewRecorder(), r)
	require.NotNil(t, got)
	assert.Equal(t, "v", got.Value(key{}))
	child, stop := context.WithCancel(got)
	defer stop()
	cancel()
	<-child.Done()
	assert.ErrorIs(t, got.Err(), context.Canceled)
	assert.Equal(t, "middleware.labelsContext", got.(interface{ String() string }).String())
}

// multipartForm returns a multipart/form-data body with the field
// name=value and a file of size octets, and its label as a URI.
func multipartForm(t *testing.T, size int) (body []byte, uriLabel string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	require.NoError(t, mw.WriteField("name", "value"))
	fw, err := mw.CreateFormFile("file", "f.txt")
	require.NoError(t, err)
	_, _ = fw.Write(bytes.Repeat([]byte("x"), size))
	require.NoError(t, mw.Close())
	uriLabel, err = mapping.ToURI(mw.FormDataContentType())
	require.NoError(t, err)
	return buf.Bytes(), uriLabel
}

// A handler ahead of the middleware that read a form value (gorilla's
// HTTPMethodOverrideHandler does on every POST) made net/http parse the
// form under the original label. When the label is then mapped to a type
// whose body net/http parses, the handler still finds the body's values,
// and the caller's form maps stay as they were; a body net/http already
// read under the original label keeps the values parsed from it.
func TestFormParsedAheadOfMappedLabel(t *testing.T) {
	multipartBody, multipartLabel := multipartForm(t, 16)
	tests := []struct {
		name, label, body string
		opts              Options
		want              string // the handler's FormValue("name")
	}{
		{"to x-www-form-urlencoded", "ContentType:application/x-www-form-urlencoded", "name=value", Options{}, "value"},
		{"to multipart/form-data", multipartLabel, string(multipartBody), Options{}, "value"},
		{"to URI after net/http read the body", "application/x-www-form-urlencoded", "name=value", Options{Request: ToURI}, "value"},
		// mime.ParseMediaType refuses the comment (ErrInvalidMediaParameter)
		// but returns the type, and net/http reads the body on the type.
		{"to URI after net/http read the body, a parameter mime refuses", "application/x-www-form-urlencoded; charset=utf-8 (c)", "name=value", Options{Request: ToURI}, "value"},
		{"canonical after net/http read the body, a parameter mime refuses", "application/x-www-form-urlencoded; charset=utf-8 (c)", "name=value", Options{Request: Canonical}, "value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, label string
			h := Rewrite(tt.opts)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				label = r.Header.Get("Content-Type")
				got = r.FormValue("name")
				if err := r.ParseMultipartForm(1 << 20); !errors.Is(err, http.ErrNotMultipart) {
					require.NoError(t, err, "a second parse is harmless")
				}
			}))
			r := httptest.NewRequest(http.MethodPost, "/?q=query", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.label)
			r.Header.Set("X-HTTP-Method-Override", "PUT")
			var form, postForm url.Values
			outer := handlers.HTTPMethodOverrideHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				form, postForm = cloneValues(r.Form), cloneValues(r.PostForm)
				h.ServeHTTP(w, r)
			}))
			w := httptest.NewRecorder()
			outer.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.NotEqual(t, tt.label, label, "the label was mapped")
			assert.Equal(t, tt.want, got)
			assert.Equal(t, form, r.Form, "the caller's Form")
			assert.Equal(t, postForm, r.PostForm, "the caller's PostForm")
			assert.Nil(t, r.MultipartForm, "the caller's MultipartForm")
		})
	}

	// A Form a handler ahead set itself, without parsing (PostForm is
	// nil), is the handler's to see.
	var got string
	h := Rewrite(Options{})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = r.FormValue("set")
	}))
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("name=value"))
	r.Header.Set("Content-Type", "ContentType:application/x-www-form-urlencoded")
	r.Form = url.Values{"set": {"ahead"}}
	h.ServeHTTP(httptest.NewRecorder(), r)
	assert.Equal(t, "ahead", got)
}

// ParseForm and ParseMultipartForm run on the mapped label: a client that
// labels a form ContentType:multipart/form-data... gets it parsed.
func TestBodyParsersSeeTheMappedLabel(t *testing.T) {
	body, uriLabel := multipartForm(t, 2048)
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", uriLabel)
	var tmp string
	Rewrite(Options{})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		// maxMemory 0 puts the file on disk, so the clean-up is visible.
		require.NoError(t, r.ParseMultipartForm(0))
		assert.Equal(t, "value", r.FormValue("name"))
		f, fh, err := r.FormFile("file")
		require.NoError(t, err)
		defer f.Close()
		if of, ok := f.(*os.File); ok {
			tmp = of.Name()
		}
		assert.Equal(t, int64(2048), fh.Size)
	})).ServeHTTP(httptest.NewRecorder(), r)
	require.NotEmpty(t, tmp, "the file went to disk")
	_, err := os.Stat(tmp)
	assert.True(t, os.IsNotExist(err), "the middleware removed the temporary file of its copy")
	assert.Nil(t, r.MultipartForm, "the caller's request was not parsed")

	form := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("a=1&b=2"))
	u, err := mapping.ToURI("application/x-www-form-urlencoded")
	require.NoError(t, err)
	form.Header.Set("Content-Type", u)
	Rewrite(Options{})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "2", r.PostFormValue("b"))
	})).ServeHTTP(httptest.NewRecorder(), form)
}

// Options.MaxLabelLen is the longest label mapped: a label of exactly that
// length maps, one octet more is refused with 415 (too-long).
func TestMaxLabelLenBoundary(t *testing.T) {
	require.Equal(t, 4096, DefaultMaxLabelLen, "the default the docs give")
	atDefault := "http://x/" + strings.Repeat("a", 4096-len("http://x/"))
	tests := []struct {
		name   string
		max    int
		label  string
		status int // 0: mapped, the handler ran
	}{
		{"exactly the limit", len(uriLabel), uriLabel, 0},
		{"one over the limit", len(uriLabel) - 1, uriLabel, http.StatusUnsupportedMediaType},
		{"exactly the default limit", 0, atDefault, 0},
		{"one over the default limit", 0, atDefault + "a", http.StatusUnsupportedMediaType},
		{"no limit", -1, atDefault + "a", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header.Set("Content-Type", tt.label)
			var s seen
			w := httptest.NewRecorder()
			Rewrite(Options{MaxLabelLen: tt.max})(recordRequest(&s)).ServeHTTP(w, r)
			if tt.status != 0 {
				assert.False(t, s.ran)
				assert.Equal(t, tt.status, w.Code)
				assert.Contains(t, w.Body.String(), "(too-long)\n")
				max := tt.max
				if max == 0 {
					max = DefaultMaxLabelLen
				}
				assert.Contains(t, w.Body.String(), fmt.Sprintf("label longer than the limit (%d octets; MaxLabelLen is %d)\n", len(tt.label), max),
					"the body says how long the label is and what the limit is")
				return
			}
			require.True(t, s.ran)
			want, err := mapping.ToContentType(tt.label)
			require.NoError(t, err)
			assert.Equal(t, []string{want}, s.ct)
		})
	}
}
