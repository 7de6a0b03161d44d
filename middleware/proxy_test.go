package middleware

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// backendSeen records the label the backend received and answers with
// the label named by the request's X-Answer header.
func labelBackend(t *testing.T, got *string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", r.Header.Get("X-Answer"))
		_, _ = io.Copy(w, r.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newProxy(t *testing.T, backend string, opts Options, rewriteNext func(*httputil.ProxyRequest), modifyNext func(*http.Response) error) *httptest.Server {
	t.Helper()
	target, err := url.Parse(backend)
	require.NoError(t, err)
	p := &httputil.ReverseProxy{
		Rewrite: ProxyRewrite(opts, func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			if rewriteNext != nil {
				rewriteNext(pr)
			}
		}),
		ModifyResponse: ProxyModifyResponse(opts, modifyNext),
		ErrorLog:       discardLogger(),
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv
}

func TestProxyHelpers(t *testing.T) {
	tests := []struct {
		name           string
		opts           Options
		reqCT, answer  string
		backendCT      string
		status         int
		clientCT       string
		wantErrorCalls int
	}{
		{"URI backend, Content-Type clients", Options{Request: ToURI, Response: ToContentType}, "image/JPEG", uriLabel, "ContentType:image/jpeg", 200, ctLabel, 0},
		{"both left", Options{Request: Leave, Response: Leave}, "image/JPEG", uriLabel, "image/JPEG", 200, uriLabel, 0},
		{"unmappable request goes through", Options{Request: ToURI}, "text/", "text/plain", "text/", 200, "text/plain", 1},
		{"unmappable response rejected: 502", Options{Response: ToContentType}, "text/plain", "ContentType:a%0Ab/c", "text/plain", 502, "", 1},
		{"unmappable response passed through", Options{Response: ToContentType, Unmappable: PassThrough}, "text/plain", "ContentType:a%0Ab/c", "text/plain", 200, "ContentType:a%0Ab/c", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var backendCT string
			backend := labelBackend(t, &backendCT)
			var errs int
			tt.opts.OnError = func(r *http.Request, err error) {
				errs++
				assert.NotNil(t, r)
				var e *Error
				assert.ErrorAs(t, err, &e)
			}
			var inCT string
			proxy := newProxy(t, backend.URL, tt.opts, func(pr *httputil.ProxyRequest) {
				inCT = pr.In.Header.Get("Content-Type")
				assert.Equal(t, tt.backendCT, pr.Out.Header.Get("Content-Type"), "next sees the mapped label")
			}, nil)

			req, err := http.NewRequest(http.MethodPost, proxy.URL, strings.NewReader("payload"))
			require.NoError(t, err)
			req.Header.Set("Content-Type", tt.reqCT)
			req.Header.Set("X-Answer", tt.answer)
			res, err := proxy.Client().Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()

			assert.Equal(t, tt.reqCT, inCT, "pr.In is untouched")
			assert.Equal(t, tt.backendCT, backendCT)
			assert.Equal(t, tt.status, res.StatusCode)
			if tt.status == 200 {
				assert.Equal(t, tt.clientCT, res.Header.Get("Content-Type"))
				assert.Equal(t, "payload", string(body))
			}
			assert.Equal(t, tt.wantErrorCalls, errs)
		})
	}
}

func TestProxyModifyResponseChains(t *testing.T) {
	errNext := errors.New("next failed")
	var sawCT string
	modify := ProxyModifyResponse(Options{}, func(res *http.Response) error {
		sawCT = res.Header.Get("Content-Type")
		return errNext
	})
	shared := []string{uriLabel}
	res := &http.Response{Header: http.Header{"Content-Type": shared}, Request: httptest.NewRequest(http.MethodGet, "/", nil)}
	assert.ErrorIs(t, modify(res), errNext)
	assert.Equal(t, ctLabel, sawCT)
	assert.Equal(t, []string{uriLabel}, shared, "the slice is replaced, not written into")

	res = &http.Response{Header: http.Header{"Content-Type": {uriLabel, "text/plain"}}}
	err := ProxyModifyResponse(Options{}, nil)(res)
	assert.ErrorIs(t, err, ErrMultipleLabels)

	res = &http.Response{Header: http.Header{}}
	assert.NoError(t, ProxyModifyResponse(Options{}, nil)(res))
	assert.NotContains(t, res.Header, "Content-Type", "no label is added")

	// An empty field has no label either: it stays as it is, on both sides.
	res = &http.Response{Header: http.Header{"Content-Type": {}}}
	require.NotPanics(t, func() { assert.NoError(t, ProxyModifyResponse(Options{Response: ToURI}, nil)(res)) })
	assert.Equal(t, []string{}, res.Header["Content-Type"])
	in := httptest.NewRequest(http.MethodPost, "/", nil)
	in.Header["Content-Type"] = []string{}
	out := in.Clone(in.Context())
	require.NotPanics(t, func() { ProxyRewrite(Options{Request: ToURI}, nil)(&httputil.ProxyRequest{In: in, Out: out}) })
	assert.Equal(t, []string{}, out.Header["Content-Type"])
}

func TestProxyRewriteWithoutNext(t *testing.T) {
	in := httptest.NewRequest(http.MethodPost, "/", nil)
	in.Header.Set("Content-Type", uriLabel)
	out := in.Clone(in.Context())
	ProxyRewrite(Options{}, nil)(&httputil.ProxyRequest{In: in, Out: out})
	assert.Equal(t, ctLabel, out.Header.Get("Content-Type"))
	assert.Equal(t, uriLabel, in.Header.Get("Content-Type"))
}

// ProxyRewrite reports a request label it cannot map as SideRequest.
func TestProxyRewriteErrorIsRequestSide(t *testing.T) {
	var got error
	rewrite := ProxyRewrite(Options{Request: ToURI, OnError: func(_ *http.Request, err error) { got = err }}, nil)
	in := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
	in.Header.Set("Content-Type", "text/")
	pr := &httputil.ProxyRequest{In: in, Out: in.Clone(in.Context())}
	pr.Out.URL = &url.URL{Scheme: "http", Host: "backend"}
	rewrite(pr)
	var e *Error
	require.ErrorAs(t, got, &e)
	assert.Equal(t, SideRequest, e.Side)
	assert.Contains(t, e.Error(), "the request's Content-Type label")
}
