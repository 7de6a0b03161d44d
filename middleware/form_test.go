package middleware

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cturi/cturi/mapping/urlencoded"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormPairsLimit: DecodeForms decodes a form of
// urlencoded.DefaultMaxPairs pairs, and answers one pair more with 400
// form-too-many-pairs, the handler not run.
func TestFormPairsLimit(t *testing.T) {
	for _, tt := range []struct {
		pairs  int
		status int // 0: the handler ran
	}{
		{urlencoded.DefaultMaxPairs, 0},
		{urlencoded.DefaultMaxPairs + 1, http.StatusBadRequest},
	} {
		t.Run(strconv.Itoa(tt.pairs), func(t *testing.T) {
			body := strings.Repeat("a;", tt.pairs-1) + "a"
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/www-form-urlencoded")
			var decoded int
			w := httptest.NewRecorder()
			Rewrite(Options{DecodeForms: true})(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				decoded = len(r.PostForm["a"])
			})).ServeHTTP(w, r)
			if tt.status == 0 {
				assert.Equal(t, http.StatusOK, w.Code)
				assert.Equal(t, tt.pairs, decoded)
				return
			}
			assert.Equal(t, tt.status, w.Code)
			assert.Zero(t, decoded, "the handler did not run")
			assert.Contains(t, w.Body.String(), "form-too-many-pairs")
		})
	}
}

func TestFormDecoding(t *testing.T) {
	const form = "a=1;b=x+y&c=%E2%82%AC;a=2;flag"
	tests := []struct {
		name     string
		opts     Options
		method   string
		label    string
		body     string
		status   int        // 0: the handler ran
		postForm url.Values // nil: not decoded
	}{
		{"decoded", Options{DecodeForms: true}, http.MethodPost, "application/www-form-urlencoded", form, 0,
			url.Values{"a": {"1", "2"}, "b": {"x y"}, "c": {"€"}, "flag": {""}}},
		{"URI label, mapped then decoded", Options{DecodeForms: true}, http.MethodPut, "ContentType:application/www-form-urlencoded", "k=v", 0, url.Values{"k": {"v"}}},
		{"case and a meaningless charset", Options{DecodeForms: true}, http.MethodPatch, "Application/WWW-Form-URLEncoded; charset=latin1", "k=v", 0, url.Values{"k": {"v"}}},
		{"empty body", Options{DecodeForms: true}, http.MethodPost, "application/www-form-urlencoded", "", 0, url.Values{}},
		{"option off", Options{}, http.MethodPost, "application/www-form-urlencoded", form, 0, nil},
		{"GET is not decoded", Options{DecodeForms: true}, http.MethodGet, "application/www-form-urlencoded", form, 0, nil},
		{"legacy type left to net/http", Options{DecodeForms: true}, http.MethodPost, "application/x-www-form-urlencoded", "k=v", 0, nil},
		{"invalid UTF-8 rejected", Options{DecodeForms: true}, http.MethodPost, "application/www-form-urlencoded", "k=%FF", http.StatusBadRequest, nil},
		{"invalid UTF-8 passed through", Options{DecodeForms: true, Unmappable: PassThrough}, http.MethodPost, "application/www-form-urlencoded", "k=%FF", 0, nil},
		{"too large", Options{DecodeForms: true, MaxFormBytes: 8}, http.MethodPost, "application/www-form-urlencoded", "k=123456789", http.StatusRequestEntityTooLarge, nil},
		{"too large passed through", Options{DecodeForms: true, MaxFormBytes: 8, Unmappable: PassThrough}, http.MethodPost, "application/www-form-urlencoded", "k=123456789", 0, nil},
		{"exactly the limit", Options{DecodeForms: true, MaxFormBytes: 3}, http.MethodPost, "application/www-form-urlencoded", "k=v", 0, url.Values{"k": {"v"}}},
		{"one octet over the limit", Options{DecodeForms: true, MaxFormBytes: 3}, http.MethodPost, "application/www-form-urlencoded", "k=vv", http.StatusRequestEntityTooLarge, nil},
		{"white space around the type", Options{DecodeForms: true}, http.MethodPost, "application/www-form-urlencoded ; charset=utf-8", "k=v", 0, url.Values{"k": {"v"}}},
		{"no limit (MaxInt64)", Options{DecodeForms: true, MaxFormBytes: math.MaxInt64}, http.MethodPost, "application/www-form-urlencoded", "k=v", 0, url.Values{"k": {"v"}}},
		{"limit one below MaxInt64", Options{DecodeForms: true, MaxFormBytes: math.MaxInt64 - 1}, http.MethodPost, "application/www-form-urlencoded", "k=v", 0, url.Values{"k": {"v"}}},
		{"negative limit: none", Options{DecodeForms: true, MaxFormBytes: -1}, http.MethodPost, "application/www-form-urlencoded", "k=v", 0, url.Values{"k": {"v"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/?q=query&a=fromurl", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.label)
			origBody := r.Body
			var errs []error
			tt.opts.OnError = func(_ *http.Request, err error) { errs = append(errs, err) }
			var ran bool
			w := httptest.NewRecorder()
			Rewrite(tt.opts)(http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
				ran = true
				// A form passed through undecoded says why; one decoded
				// (or not to be decoded) carries no error.
				l, ok := RequestLabels(r2)
				if strings.Contains(tt.name, "passed through") {
					assert.True(t, ok)
					assert.Equal(t, Labels{Original: tt.label, Mapped: tt.label, Err: l.Err}, l)
					var e *Error
					require.ErrorAs(t, l.Err, &e)
					assert.True(t, strings.HasPrefix(e.Kind(), "form-"), e.Kind())
				} else {
					assert.NoError(t, l.Err)
				}
				if tt.postForm == nil {
					assert.Nil(t, r2.PostForm, "not decoded before ParseForm")
				} else {
					assert.Equal(t, tt.postForm, r2.PostForm)
					assert.Nil(t, r2.Form, "left to ParseForm")
					require.NoError(t, r2.ParseForm())
					assert.Equal(t, "query", r2.FormValue("q"))
					if v, ok := tt.postForm["a"]; ok {
						assert.Equal(t, append(append([]string{}, v...), "fromurl"), r2.Form["a"], "body values first, as net/http")
					}
				}
				body, err := io.ReadAll(r2.Body)
				require.NoError(t, err)
				assert.Equal(t, tt.body, string(body), "the body stays readable, byte for byte")
				require.NoError(t, r2.Body.Close())
			})).ServeHTTP(w, r)

			assert.Nil(t, r.PostForm, "the caller's request is not parsed")
			assert.True(t, origBody == r.Body, "the caller's body is the caller's")
			if tt.status != 0 {
				assert.False(t, ran)
				assert.Equal(t, tt.status, w.Code)
				require.Len(t, errs, 1)
				assert.True(t, strings.HasPrefix(w.Body.String(), strconv.Itoa(tt.status)+" "+http.StatusText(tt.status)+": "), w.Body.String())
				return
			}
			assert.True(t, ran)
			if strings.Contains(tt.name, "passed through") {
				assert.Len(t, errs, 1)
			} else {
				assert.Empty(t, errs)
			}
		})
	}
}

// With the request mode Leave, forms are still decoded, and two
// Content-Type fields are ambiguous, so nothing is, whatever the mode and
// policy (the other modes pass the two fields through as unmappable).
func TestFormDecodingWithLeave(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		labels []string
		want   url.Values
	}{
		{"Leave, one field", Options{Request: Leave}, []string{"application/www-form-urlencoded"}, url.Values{"k": {"v"}}},
		{"Leave, two fields", Options{Request: Leave}, []string{"application/www-form-urlencoded", "text/plain"}, nil},
		{"Leave, two form fields", Options{Request: Leave}, []string{"application/www-form-urlencoded", "application/www-form-urlencoded"}, nil},
		{"ToContentType passed through, two fields", Options{Unmappable: PassThrough}, []string{"application/www-form-urlencoded", "text/plain"}, nil},
		{"Canonical passed through, two form fields", Options{Request: Canonical, Unmappable: PassThrough}, []string{"application/www-form-urlencoded", "application/www-form-urlencoded"}, nil},
		{"ToURI passed through, two fields", Options{Request: ToURI, Unmappable: PassThrough}, []string{"application/www-form-urlencoded", "text/plain"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("k=v"))
			r.Header["Content-Type"] = tt.labels
			var got url.Values
			var ran bool
			tt.opts.DecodeForms = true
			Rewrite(tt.opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ran = true
				got = r.PostForm
			})).ServeHTTP(httptest.NewRecorder(), r)
			require.True(t, ran)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A form body that breaks off while it is read (a broken chunked
// encoding, a timeout) is the client's fault but not a type problem: 400
// with the kind form-unreadable, or, passed through, the handler reads
// what the middleware read and then the same error.
func TestFormBodyUnreadable(t *testing.T) {
	broken := errors.New("invalid byte in chunk length")
	for name, policy := range map[string]Policy{"Reject": Reject, "PassThrough": PassThrough} {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader("k=v&"), iotest.ErrReader(broken)))
			r.Header.Set("Content-Type", "application/www-form-urlencoded")
			var reported error
			var ran bool
			w := httptest.NewRecorder()
			Rewrite(Options{DecodeForms: true, Unmappable: policy, OnError: func(_ *http.Request, err error) { reported = err }})(
				http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
					ran = true
					assert.Nil(t, r2.PostForm)
					l, ok := RequestLabels(r2)
					assert.True(t, ok)
					assert.ErrorIs(t, l.Err, ErrFormUnreadable)
					body, err := io.ReadAll(r2.Body)
					assert.Equal(t, "k=v&", string(body))
					assert.ErrorIs(t, err, broken)
				})).ServeHTTP(w, r)

			require.Error(t, reported)
			assert.ErrorIs(t, reported, ErrFormUnreadable)
			assert.ErrorIs(t, reported, broken)
			var e *Error
			require.ErrorAs(t, reported, &e)
			assert.Equal(t, "form-unreadable", e.Kind())
			assert.Equal(t, policy == PassThrough, ran)
			if policy == Reject {
				assert.Equal(t, http.StatusBadRequest, w.Code)
				assert.True(t, strings.HasPrefix(w.Body.String(), "400 Bad Request: the request body cannot be read (form-unreadable)\n"), w.Body.String())
			}
		})
	}
}

// A client that declares more octets than it sends and half-closes its
// connection: net/http's body reports io.ErrUnexpectedEOF once, then ends
// cleanly. Passed through, the handler must still see the error, not a
// shorter body that looks complete.
func TestFormBodyCutShort(t *testing.T) {
	type read struct {
		body string
		err  error
	}
	for name, policy := range map[string]Policy{"Reject": Reject, "PassThrough": PassThrough} {
		t.Run(name, func(t *testing.T) {
			reads := make(chan read, 1)
			srv := httptest.NewServer(Rewrite(Options{DecodeForms: true, Unmappable: policy})(
				http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, err := io.ReadAll(r.Body)
					reads <- read{string(body), err}
				})))
			defer srv.Close()
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/www-form-urlencoded\r\nContent-Length: 100\r\n\r\nk=v&a=b")
			require.NoError(t, err)
			require.NoError(t, conn.(*net.TCPConn).CloseWrite())
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err)
			msg, _ := io.ReadAll(res.Body)
			res.Body.Close()

			if policy == Reject {
				assert.Equal(t, http.StatusBadRequest, res.StatusCode)
				assert.Contains(t, string(msg), "(form-unreadable)\n")
				assert.Empty(t, reads, "the handler ran")
				return
			}
			require.Len(t, reads, 1, "the handler did not run")
			got := <-reads
			assert.Equal(t, "k=v&a=b", got.body)
			assert.ErrorIs(t, got.err, io.ErrUnexpectedEOF, "a truncated body looked complete")
		})
	}
}

// A label that does not map, passed through, whose form body does not
// decode either: RequestLabels keeps both errors, the label's first.
func TestFormErrorKeepsTheLabelError(t *testing.T) {
	for _, mode := range []Mode{ToURI, Canonical} {
		t.Run(mode.String(), func(t *testing.T) {
			const label = "application/www-form-urlencoded; x"
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("k=%FF"))
			r.Header.Set("Content-Type", label)
			var ran bool
			Rewrite(Options{Request: mode, DecodeForms: true, Unmappable: PassThrough})(http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
				ran = true
				l, ok := RequestLabels(r2)
				require.True(t, ok)
				assert.Equal(t, label, l.Original)
				assert.Equal(t, label, l.Mapped)
				joined, isJoined := l.Err.(interface{ Unwrap() []error })
				require.True(t, isJoined, "%v", l.Err)
				var kinds []string
				for _, err := range joined.Unwrap() {
					var e *Error
					require.ErrorAs(t, err, &e)
					kinds = append(kinds, e.Kind())
				}
				assert.Equal(t, []string{"syntax", "form-bad-utf8"}, kinds)
				var first *Error
				require.ErrorAs(t, l.Err, &first)
				assert.Equal(t, "syntax", first.Kind())
			})).ServeHTTP(httptest.NewRecorder(), r)
			require.True(t, ran)
		})
	}
}

// A form body that does not decode after its URI label was mapped, passed
// through: RequestLabels reports the label the request came with and the
// one the handler sees, with the form error, whose Label is the field as
// the request came with it.
func TestFormErrorAfterTheLabelWasMapped(t *testing.T) {
	const uri = "ContentType:application/www-form-urlencoded"
	tests := []struct {
		name string
		opts Options
		body string
		kind string
	}{
		{"bad UTF-8", Options{}, "k=%FF", "form-bad-utf8"},
		{"too large", Options{MaxFormBytes: 2}, "k=v", "form-too-large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", uri)
			tt.opts.DecodeForms, tt.opts.Unmappable = true, PassThrough
			var ran bool
			Rewrite(tt.opts)(http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
				ran = true
				assert.Equal(t, "application/www-form-urlencoded", r2.Header.Get("Content-Type"))
				l, ok := RequestLabels(r2)
				require.True(t, ok)
				assert.Equal(t, uri, l.Original)
				assert.Equal(t, "application/www-form-urlencoded", l.Mapped)
				var e *Error
				require.ErrorAs(t, l.Err, &e)
				assert.Equal(t, tt.kind, e.Kind())
				assert.Equal(t, uri, e.Label, "the field value as it was, as Error.Label documents")
				body, err := io.ReadAll(r2.Body)
				require.NoError(t, err)
				assert.Equal(t, tt.body, string(body))
			})).ServeHTTP(httptest.NewRecorder(), r)
			require.True(t, ran)
		})
	}
}

// A body cut off by a limit set further out (http.MaxBytesReader in an
// outer handler) is too large, not unreadable: 413, kind form-too-large.
func TestFormBodyLimitedUpstream(t *testing.T) {
	for _, policy := range []Policy{Reject, PassThrough} {
		t.Run(map[Policy]string{Reject: "Reject", PassThrough: "PassThrough"}[policy], func(t *testing.T) {
			var reported error
			var ran bool
			mw := Rewrite(Options{DecodeForms: true, Unmappable: policy, OnError: func(_ *http.Request, err error) { reported = err }})
			inner := mw(http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
				ran = true
				l, ok := RequestLabels(r2)
				require.True(t, ok)
				var e *Error
				require.ErrorAs(t, l.Err, &e)
				assert.Equal(t, "form-too-large", e.Kind())
			}))
			outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Body = http.MaxBytesReader(w, r.Body, 4)
				inner.ServeHTTP(w, r)
			})
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("k=123456789"))
			r.Header.Set("Content-Type", "application/www-form-urlencoded")
			w := httptest.NewRecorder()
			outer.ServeHTTP(w, r)

			var e *Error
			require.ErrorAs(t, reported, &e)
			assert.Equal(t, "form-too-large", e.Kind())
			assert.ErrorIs(t, reported, ErrFormTooLarge, "whichever limit it is over")
			var tooBig *http.MaxBytesError
			require.ErrorAs(t, reported, &tooBig, "the limit's own error, as Error.Err documents")
			assert.EqualValues(t, 4, tooBig.Limit)
			assert.Contains(t, reported.Error(), tooBig.Error())
			assert.NotErrorIs(t, reported, ErrFormUnreadable)
			assert.Equal(t, policy == PassThrough, ran)
			if policy == Reject {
				assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
				assert.True(t, strings.HasPrefix(w.Body.String(), "413 Request Entity Too Large: the request body cannot be decoded as application/www-form-urlencoded (form-too-large)\n"), w.Body.String())
			}
		})
	}
}

// wrappedBody is a body wrapper (a decompressor, say) that adds its own
// context to its source's read errors.
type wrappedBody struct{ io.ReadCloser }

var errInflate = errors.New("inflate")

func (b wrappedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errInflate, err)
	}
	return n, err
}

// A limit set upstream and reached through a body wrapper keeps the
// wrapper's context, as a read error does, and is still too large.
func TestFormBodyLimitedUpstreamWrapped(t *testing.T) {
	var reported error
	mw := Rewrite(Options{DecodeForms: true, OnError: func(_ *http.Request, err error) { reported = err }})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = wrappedBody{http.MaxBytesReader(w, r.Body, 4)}
		mw(http.NotFoundHandler()).ServeHTTP(w, r)
	})
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("k=123456789"))
	r.Header.Set("Content-Type", "application/www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)

	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.ErrorIs(t, reported, ErrFormTooLarge)
	assert.ErrorIs(t, reported, errInflate, "the wrapper's context")
	var tooBig *http.MaxBytesError
	require.ErrorAs(t, reported, &tooBig)
	assert.Contains(t, reported.Error(), "(form-too-large): inflate: "+tooBig.Error())
}

// A form request without a body (http.NoBody, as net/http's server and
// httptest give, or a nil Body, as http.NewRequest gives a handler called
// directly) has nothing to decode: the handler gets the request itself,
// and it costs no allocation.
func TestFormWithoutBody(t *testing.T) {
	tests := []struct {
		name string
		body func() io.ReadCloser
	}{
		{"NoBody", func() io.ReadCloser { return http.NoBody }},
		{"nil Body", func() io.ReadCloser { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Body = tt.body()
			r.Header.Set("Content-Type", "application/www-form-urlencoded")
			var got *http.Request
			h := Rewrite(Options{DecodeForms: true, Response: Leave})(http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
				got = r2
			}))
			require.NotPanics(t, func() { h.ServeHTTP(httptest.NewRecorder(), r) })
			require.Same(t, r, got, "nothing changed, so no copy")
			assert.Nil(t, got.PostForm)
			assert.Equal(t, tt.body(), got.Body)
			w := &discardWriter{h: http.Header{}}
			assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }))
		})
	}
}

// A handler before the middleware that reads a form value (gorilla's
// HTTPMethodOverrideHandler calls r.FormValue on every POST) makes
// net/http parse the form first: for a type it does not know, it leaves
// the body unread and sets r.Form to the URL's query alone. The handler
// must still find the decoded body in r.Form (FormValue), as it finds
// the body of the legacy type net/http decodes itself.
func TestFormParsedBeforeTheMiddleware(t *testing.T) {
	tests := []struct {
		name, label, body string
	}{
		{"application/www-form-urlencoded", "application/www-form-urlencoded", "a=1;b=2"},
		{"URI label", "ContentType:application/www-form-urlencoded", "a=1;b=2"},
		{"legacy type, net/http's own (baseline)", "application/x-www-form-urlencoded", "a=1&b=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var form url.Values
			var a, q string
			h := Rewrite(Options{DecodeForms: true})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				a, q = r.FormValue("a"), r.FormValue("q")
				form = r.Form
			}))
			var before url.Values
			outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = r.FormValue("_method")
				before = cloneValues(r.Form)
				h.ServeHTTP(w, r)
			})
			r := httptest.NewRequest(http.MethodPost, "/?q=query&a=fromurl", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", tt.label)
			w := httptest.NewRecorder()
			outer.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Equal(t, "1", a, "the body's value comes first, as net/http puts it")
			assert.Equal(t, "query", q)
			assert.Equal(t, url.Values{"a": {"1", "fromurl"}, "b": {"2"}, "q": {"query"}}, form)
			assert.Equal(t, before, r.Form, "the caller's form is not modified")
		})
	}
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vv := range v {
		c[k] = append([]string(nil), vv...)
	}
	return c
}

// A body that a handler further out limited with http.MaxBytesReader has
// that limit alone when Options.MaxFormBytes is not set, as net/http's
// ParseForm gives it to the legacy type ("If the request Body's size has
// not already been limited by MaxBytesReader, the size is capped at
// 10MB"); without one, or with MaxFormBytes set, the middleware's limit
// applies.
func TestFormBodyLimitedUpstreamAboveTheDefault(t *testing.T) {
	value := strings.Repeat("v", DefaultMaxFormBytes)
	body := "k=" + value // DefaultMaxFormBytes+2 octets
	tests := []struct {
		name    string
		label   string
		opts    Options
		limited bool // an outer http.MaxBytesReader of twice the default
		status  int
	}{
		{"legacy type, net/http's own (baseline)", "application/x-www-form-urlencoded", Options{DecodeForms: true}, true, http.StatusOK},
		{"limited upstream", "application/www-form-urlencoded", Options{DecodeForms: true}, true, http.StatusOK},
		{"limited upstream, negative MaxFormBytes", "application/www-form-urlencoded", Options{DecodeForms: true, MaxFormBytes: -1}, true, http.StatusOK},
		{"not limited upstream: the default", "application/www-form-urlencoded", Options{DecodeForms: true}, false, http.StatusRequestEntityTooLarge},
		{"not limited upstream, negative MaxFormBytes: no limit", "application/www-form-urlencoded", Options{DecodeForms: true, MaxFormBytes: -1}, false, http.StatusOK},
		{"MaxFormBytes set: it applies", "application/www-form-urlencoded", Options{DecodeForms: true, MaxFormBytes: DefaultMaxFormBytes}, true, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			inner := Rewrite(tt.opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !assert.NoError(t, r.ParseForm()) {
					w.WriteHeader(http.StatusBadRequest)
				}
				got = r.PostFormValue("k")
			}))
			outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.limited {
					r.Body = http.MaxBytesReader(w, r.Body, 2*DefaultMaxFormBytes)
				}
				inner.ServeHTTP(w, r)
			})
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			r.Header.Set("Content-Type", tt.label)
			w := httptest.NewRecorder()
			outer.ServeHTTP(w, r)
			require.Equal(t, tt.status, w.Code, w.Body.String())
			if tt.status == http.StatusOK {
				assert.True(t, got == value, "the whole value decoded")
			}
		})
	}
}

// endlessReader is a body of 'a's that counts the octets read from it.
type endlessReader struct{ n int64 }

func (c *endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	c.n += int64(len(p))
	return len(p), nil
}

// DecodeForms reads at most MaxFormBytes+1 octets of a body before it
// answers 413: a larger body is never held in memory.
func TestFormReadsAtMostOneOctetOverTheLimit(t *testing.T) {
	body := &endlessReader{}
	r := httptest.NewRequest(http.MethodPost, "/", io.LimitReader(body, 1<<20))
	r.Header.Set("Content-Type", "application/www-form-urlencoded")
	w := httptest.NewRecorder()
	ran := false
	Rewrite(Options{DecodeForms: true, MaxFormBytes: 10})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true })).ServeHTTP(w, r)
	assert.False(t, ran)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.LessOrEqual(t, body.n, int64(11), "octets read from the body")
}
