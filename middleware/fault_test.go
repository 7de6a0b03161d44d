package middleware

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/faultio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on the form body the middleware decodes: bodies read in
// any chunks, and cut at any offset by a read error.

// TestFormBodyFaults: a form body read in any chunks decodes as when read
// whole, and the handler reads it all again; a body cut at any offset by
// a read error, repeated, reported once, or reported once with the body
// going on after it, is reported as form-unreadable with that error, and
// the handler (PassThrough) reads the octets before the cut and then the
// error, for good: never a shorter body that looks whole, nor the octets
// after the error.
func TestFormBodyFaults(t *testing.T) {
	const body = "a=1;b=%C3%A9&c;d=x+y"
	for _, wrap := range faultio.Chunkings {
		r := httptest.NewRequest(http.MethodPost, "/", wrap.Wrap(strings.NewReader(body)))
		r.Header.Set("Content-Type", "application/www-form-urlencoded")
		var ran bool
		Rewrite(Options{DecodeForms: true})(http.HandlerFunc(func(_ http.ResponseWriter, r2 *http.Request) {
			ran = true
			assert.Equal(t, map[string][]string{"a": {"1"}, "b": {"é"}, "c": {""}, "d": {"x y"}}, map[string][]string(r2.PostForm), wrap.Name)
			got, err := io.ReadAll(r2.Body)
			assert.NoError(t, err, wrap.Name)
			assert.Equal(t, body, string(got), wrap.Name)
		})).ServeHTTP(httptest.NewRecorder(), r)
		assert.True(t, ran, wrap.Name)
	}
	for n := 0; n <= len(body); n++ {
		for _, src := range faultio.Modes {
			src.Chunk = 1
			for name, policy := range map[string]Policy{"Reject": Reject, "PassThrough": PassThrough} {
				what := fmt.Sprintf("cut at %d, error %s, %s", n, src.Name, name)
				r := httptest.NewRequest(http.MethodPost, "/", src.Cut(body, n))
				r.Header.Set("Content-Type", "application/www-form-urlencoded")
				var reported error
				var ran bool
				w := httptest.NewRecorder()
				Rewrite(Options{DecodeForms: true, Unmappable: policy, OnError: func(_ *http.Request, err error) { reported = err }})(
					http.HandlerFunc(func(_ http.ResponseWriter, r2 *http.Request) {
						ran = true
						assert.Nil(t, r2.PostForm, what)
						got, err := io.ReadAll(r2.Body)
						assert.ErrorIs(t, err, faultio.ErrFault, what)
						assert.Equal(t, body[:n], string(got), what)
						_, err = r2.Body.Read(make([]byte, 4))
						assert.ErrorIs(t, err, faultio.ErrFault, "%s: read again", what)
					})).ServeHTTP(w, r)
				require.Error(t, reported, what)
				assert.ErrorIs(t, reported, ErrFormUnreadable, what)
				assert.ErrorIs(t, reported, faultio.ErrFault, what)
				assert.Equal(t, policy == PassThrough, ran, what)
				if policy == Reject {
					assert.Equal(t, http.StatusBadRequest, w.Code, what)
				}
			}
		}
	}
}
