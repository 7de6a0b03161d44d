package urlencoded

import (
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The form of seed 002 §8:
//
//	<form method='get' action='/t' enctype='application/www-form-urlencoded'>
//	  <input name='url' value='http://example.org/Ragnar&#xF6;k/' />
//	  <input name='lang' value='de' />
//	</form>
var ragnarok = DataSet{def("url", "http://example.org/Ragnarök/"), def("lang", "de")}

// The requests §8 shows for it.
const (
	getNew    = "url=http://example.org/Ragnar%C3%B6k/;lang=de"           // GET, new format (U+00F6 escaped for HTTP)
	postNew   = "url=http://example.org/Ragnar\xC3\xB6k/;lang=de"         // POST body, new format (raw UTF-8)
	getLegacy = "url=http%3A%2F%2Fexample.org%2FRagnar%C3%B6k%2F&lang=de" // GET and POST, legacy format
)

func TestSection8Encodings(t *testing.T) {
	assert.Equal(t, getNew, must(t)(ragnarok.EncodeURI()))
	assert.Equal(t, postNew, must(t)(ragnarok.Encode()))
	assert.Equal(t, getLegacy, must(t)(ragnarok.EncodeLegacy()))

	// "The decoding algorithm defined in this specification can properly
	// decode any UTF-8-based application/x-www-form-urlencoded encoded
	// data set."
	for _, s := range []string{getNew, postNew, getLegacy} {
		d, err := Decode(s)
		require.NoError(t, err, s)
		assert.Equal(t, ragnarok, d, s)
	}
	d, err := DecodeLegacy(getLegacy)
	require.NoError(t, err)
	assert.Equal(t, ragnarok, d)
	v, err := url.ParseQuery(getLegacy)
	require.NoError(t, err)
	assert.Equal(t, v, ragnarok.Values())

	// A script written for the legacy format has to learn ';' (§8): a
	// legacy decoder reads the new GET query as one pair.
	d, err = DecodeLegacy(getNew)
	require.NoError(t, err)
	assert.Equal(t, DataSet{def("url", "http://example.org/Ragnarök/;lang=de")}, d)
	_, err = url.ParseQuery(getNew)
	assert.Error(t, err, "net/url refuses ';'")
}

// formScript is the 't' script of §8: it takes the form by GET (either
// format) or POST (either media type) and answers with the canonical
// encoding of the data set it received.
func formScript(w http.ResponseWriter, r *http.Request) {
	var d DataSet
	var err error
	switch r.Method {
	case http.MethodGet:
		d, err = Decode(r.URL.RawQuery)
	case http.MethodPost:
		body, rerr := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if rerr != nil {
			http.Error(w, rerr.Error(), http.StatusBadRequest)
			return
		}
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch mt {
		case "application/www-form-urlencoded":
			d, err = Decode(string(body))
		case "application/x-www-form-urlencoded":
			d, err = DecodeLegacy(string(body))
		default:
			http.Error(w, "unsupported media type "+mt, http.StatusUnsupportedMediaType)
			return
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s, err := d.Encode()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/www-form-urlencoded")
	io.WriteString(w, s)
}

// TestSection8HTTP submits the §8 form to a server on 127.0.0.1 the four
// ways §8 shows, as a browser would.
func TestSection8HTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(formScript))
	defer srv.Close()
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), srv.URL)

	requests := []struct {
		name, method, query, mediaType, body string
	}{
		{"GET new", http.MethodGet, must(t)(ragnarok.EncodeURI()), "", ""},
		{"POST new", http.MethodPost, "", "application/www-form-urlencoded", must(t)(ragnarok.Encode())},
		{"GET legacy", http.MethodGet, must(t)(ragnarok.EncodeLegacy()), "", ""},
		{"POST legacy", http.MethodPost, "", "application/x-www-form-urlencoded", must(t)(ragnarok.EncodeLegacy())},
	}
	for _, rq := range requests {
		t.Run(rq.name, func(t *testing.T) {
			target := srv.URL + "/t"
			if rq.query != "" {
				target += "?" + rq.query
			}
			req, err := http.NewRequest(rq.method, target, strings.NewReader(rq.body))
			require.NoError(t, err)
			if rq.mediaType != "" {
				req.Header.Set("Content-Type", rq.mediaType)
			}
			if rq.method == http.MethodGet {
				assert.Equal(t, rq.query, req.URL.RawQuery, "the query goes on the wire unchanged")
			}
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(got))
			assert.Equal(t, postNew, string(got))
		})
	}

	// net/http's own form parsing agrees on the legacy POST.
	req := httptest.NewRequest(http.MethodPost, "/t", strings.NewReader(getLegacy))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	require.NoError(t, req.ParseForm())
	assert.Equal(t, ragnarok.Values(), req.PostForm)
}
