package integration

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/internal/vectors"
	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file and http_node_*_test.go have Node's HTTP
// implementations (llhttp, nghttp2), not Go's, on the other end of the
// middleware: what Go's client reads leniently or the same way Go's
// server wrote it, a second, strict parser must read alike.

// nodeVectorModes is the response middleware, by path, for each
// direction of the shared vectors.
var nodeVectorModes = map[string]struct {
	path string
	opts middleware.Options
}{
	"uri2ct":         {"/to-ct", middleware.Options{Response: middleware.ToContentType}},
	"ct2uri":         {"/to-uri", middleware.Options{Response: middleware.ToURI}},
	"ct2uri-strict":  {"/to-uri-strict", middleware.Options{Response: middleware.ToURI, Mapping: []mapping.Option{mapping.StrictURI}}},
	"ct2uri-lenient": {"/to-uri-lenient", middleware.Options{Response: middleware.ToURI, Mapping: []mapping.Option{mapping.Lenient}}},
}

// nodeServer is the Go server Node is a client of: the handlers of
// TestServerOverHTTP1AndHTTP2 that matter to a client, behind the
// middleware with default options, and a handler that answers with the
// label in its X-Label request field behind each of nodeVectorModes.
// /sse waits after each event for a GET of /ack?id= with its own id.
func nodeServer(t *testing.T, payload []byte, acks map[string]chan struct{}) http.Handler {
	outer := http.NewServeMux()
	label := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.Header.Get("X-Label"))
		_, _ = io.WriteString(w, "ok")
	})
	for _, m := range nodeVectorModes {
		outer.Handle(m.path, middleware.Rewrite(m.opts)(label))
	}
	outer.HandleFunc("/ack", func(w http.ResponseWriter, r *http.Request) {
		acks[r.URL.Query().Get("id")] <- struct{}{}
	})

	mux := http.NewServeMux()
	mux.HandleFunc("/bytes", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", uriLabel)
		_, _ = w.Write(payload)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if !assert.NoError(t, err) {
			return
		}
		w.Header().Set("Content-Type", uriLabel)
		w.Header().Set("X-Seen-Content-Type", r.Header.Get("Content-Type"))
		_, _ = w.Write(body)
	})
	mux.HandleFunc("/early-hints", serveEarlyHints)
	mux.HandleFunc("/silent", serveSilent)
	mux.HandleFunc("/trailers", serveTrailers)
	mux.HandleFunc("/sse", serveGatedEvents(t, func(r *http.Request) <-chan struct{} { return acks[r.URL.Query().Get("id")] }))
	outer.Handle("/", middleware.Rewrite(middleware.Options{})(mux))
	return outer
}

// nodeProtos starts h on HTTP/1.1 and on HTTP/2 over TLS, for Node's
// http and http2 clients.
func nodeProtos(t *testing.T, h http.Handler) (h1, h2 *httptest.Server) {
	h1 = httptest.NewServer(h)
	t.Cleanup(h1.Close)
	h2 = httptest.NewUnstartedServer(h)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	t.Cleanup(h2.Close)
	return h1, h2
}

// nodeCase is one request of Node's and what must hold of its answer.
type nodeCase struct {
	name  string
	job   nodeJob // URL and Ack are paths, in which nodeRun puts the server and "{proto}"
	check func(t *testing.T, r *nodeResult)
}

// nodeRun runs each case over HTTP/1.1 and over HTTP/2, in one node
// process, against the servers start returns, given the URL of Node's
// backend, and checks the results, one subtest per case and protocol.
func nodeRun(t *testing.T, node string, start func(backend string) (h1, h2 *httptest.Server), cases []nodeCase) {
	t.Helper()
	var jobs []nodeJob
	began := time.Now()
	res := runNodePeer(t, node, func(backend string) (string, []nodeJob) {
		h1, h2 := start(backend)
		for _, p := range []struct {
			proto string
			srv   *httptest.Server
		}{{"h1", h1}, {"h2", h2}} {
			for _, c := range cases {
				j := c.job
				j.Proto, j.URL = p.proto, p.srv.URL+strings.ReplaceAll(j.URL, "{proto}", p.proto)
				if j.Method == "" {
					j.Method = http.MethodGet
				}
				if j.Ack != "" && j.Ack != "local" {
					// Node acks with its http client, over HTTP/1.1.
					j.Ack = h1.URL + strings.ReplaceAll(j.Ack, "{proto}", p.proto)
				}
				jobs = append(jobs, j)
			}
		}
		return caPEM(h2), jobs
	})
	t.Logf("node ran %d requests in %v", len(jobs), time.Since(began).Round(time.Millisecond))
	for i := range jobs {
		c := cases[i%len(cases)]
		res[i].Proto = jobs[i].Proto
		t.Run(jobs[i].Proto+"/"+c.name, func(t *testing.T) {
			require.Empty(t, res[i].Error, "Node failed on %s %s", jobs[i].Method, jobs[i].URL)
			assertCleanFields(t, res[i].Header)
			c.check(t, &res[i])
		})
	}
}

// nodeVectorCases asks for a response labelled with each vector's input
// and checks the label Node reads: the vector's expected label, or the
// input where the vector expects an error (the middleware leaves a label
// it cannot map), with X-Content-Type-Options: nosniff exactly when that
// is a URI label, or a Content-Type mapped from one that browsers refuse.
func nodeVectorCases(t *testing.T) []nodeCase {
	var cases []nodeCase
	for _, v := range vectors.Load(t, mappingVectors) {
		m, ok := nodeVectorModes[v.Direction]
		require.True(t, ok, "line %d: unknown direction %q", v.Line, v.Direction)
		want := v.Expected
		if strings.HasPrefix(want, "ERROR:") {
			want = v.Input
		}
		cases = append(cases, nodeCase{
			name: "vector line " + itoa(int64(v.Line)),
			job:  nodeJob{URL: m.path, Header: map[string]string{"X-Label": toLatin1(v.Input)}},
			check: func(t *testing.T, r *nodeResult) {
				assert.Equal(t, http.StatusOK, r.Status)
				assert.Equal(t, want, r.get(t, "Content-Type"), "%s %q", v.Direction, v.Input)
				nosniff := mapping.Detect(want) == mapping.DirectionToContentType ||
					mapping.Detect(v.Input) == mapping.DirectionToContentType && whatwgRefuses(t, want)
				assert.Equal(t, nosniff, r.get(t, "X-Content-Type-Options") == "nosniff", "nosniff for %q", want)
				assert.Equal(t, "ok", r.Body)
			},
		})
	}
	return cases
}

// TestHTTPNodeClient has Node's http and http2 clients read what a Go
// server behind the middleware sends: every vector's label both ways,
// bodies byte for byte, a 103 before the 200, trailers, HEAD, and an
// event stream flushed event by event.
func TestHTTPNodeClient(t *testing.T) {
	node := servertest.Command(t, "node")
	payload := randomBytes(t, 1<<20+7)
	upload := randomBytes(t, 512<<10+3)
	acks := map[string]chan struct{}{"h1": make(chan struct{}, 1), "h2": make(chan struct{}, 1)}
	h1, h2 := nodeProtos(t, nodeServer(t, payload, acks))

	nodeRun(t, node, func(string) (_, _ *httptest.Server) { return h1, h2 }, append([]nodeCase{
		{"body byte-identical", nodeJob{URL: "/bytes"}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, ctLabel, r.get(t, "Content-Type"))
			assert.Equal(t, int64(len(payload)), r.Length)
			assert.Equal(t, sha(payload), r.SHA256)
		}},
		{"request body and label", nodeJob{
			Method: http.MethodPost, URL: "/echo", Body: [][]byte{upload},
			Header: map[string]string{"Content-Type": "ContentType:application/octet-stream"},
		}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, "application/octet-stream", r.get(t, "X-Seen-Content-Type"))
			assert.Equal(t, ctLabel, r.get(t, "Content-Type"))
			assert.Equal(t, int64(len(upload)), r.Length)
			assert.Equal(t, sha(upload), r.SHA256)
		}},
		{"103 then 200", nodeJob{URL: "/early-hints"}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, []int{http.StatusEarlyHints, http.StatusOK}, r.Order)
			require.Len(t, r.Info, 1)
			hint := r.Info[0].Header
			assertCleanFields(t, hint)
			assert.Equal(t, []string{"</style.css>; rel=preload; as=style"}, nodeValues(hint, "Link"))
			assert.Equal(t, []string{uriLabel}, nodeValues(hint, "Content-Type"), "the 103 went out untouched")
			assert.Equal(t, ctLabel, r.get(t, "Content-Type"))
			assert.Equal(t, "</app.js>; rel=preload; as=script", r.get(t, "Link"))
			assert.Equal(t, "final", r.Body)
		}},
		{"trailers", nodeJob{URL: "/trailers"}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, ctLabel, r.get(t, "Content-Type"))
			assertCleanFields(t, r.Trailer)
			assert.Equal(t, []string{sha([]byte(r.Body))}, nodeValues(r.Trailer, "X-Checksum"))
			assert.Equal(t, []string{"announced late"}, nodeValues(r.Trailer, "X-Late"))
		}},
		{"HEAD", nodeJob{Method: http.MethodHead, URL: "/silent"}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, http.StatusOK, r.Status)
			assert.Equal(t, ctLabel, r.get(t, "Content-Type"))
			assert.Equal(t, "1234", r.get(t, "Content-Length"))
			assert.Zero(t, r.Length)
		}},
		{"event stream flushed", nodeJob{URL: "/sse?id={proto}", Ack: "/ack?id={proto}"}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, "text/event-stream", r.get(t, "Content-Type"))
			assert.Equal(t, "data: event 0\n\ndata: event 1\n\ndata: event 2\n\n", r.Body)
		}},
		// No vector's Content-Type holds an HTAB, which a quoted value
		// may (RFC 9110 §5.6.4), and so may a field value, inside it
		// (nghttp2 refuses one at either end).
		{"HTAB in a quoted value", nodeJob{URL: "/to-ct", Header: map[string]string{"X-Label": `ContentType:text/plain?a="x%09y"`}},
			func(t *testing.T, r *nodeResult) {
				assert.Equal(t, "text/plain; a=\"x\ty\"", r.get(t, "Content-Type"))
			}},
		// RFC 9113 §8.2.1 makes a field value with white space at either
		// end malformed. Go's HTTP/2 server takes one from Node's client
		// (its HTTP/1.1 server strips it, RFC 9110 §5.5) and sends one a
		// handler sets, which nghttp2 drops without a word and Go's
		// client would keep. The middleware's own labels have none:
		// the mapping strips it (SPEC U2, C1).
		{"white space around a label mapped", nodeJob{URL: "/to-ct", Header: map[string]string{"X-Label": " \tContentType:text/plain\t "}},
			func(t *testing.T, r *nodeResult) {
				assert.Equal(t, "text/plain", r.get(t, "Content-Type"))
			}},
		{"white space around a label left alone", nodeJob{URL: "/to-ct", Header: map[string]string{"X-Label": "text/plain\t"}},
			func(t *testing.T, r *nodeResult) {
				if r.Proto == "h2" {
					assert.Empty(t, nodeValues(r.Header, "Content-Type"), "nghttp2 drops the field")
					return
				}
				assert.Equal(t, "text/plain", r.get(t, "Content-Type"))
			}},
	}, nodeVectorCases(t)...))
}

// TestHTTPNodeInjection sends injectionLabels through the middleware,
// in both modes that map URI labels to Content-Types: as response labels
// of a Go handler, which Node's strict parsers must read without error
// and without an injected field or a control character, mapped or as
// the handler wrote them; and as request labels of Node's, which the
// handler sees mapped, or not at all (415) under Reject, or unchanged
// under PassThrough, as TestHeaderInjectionNeverReachesTheWire checks
// with Go's own parser.
func TestHTTPNodeInjection(t *testing.T) {
	node := servertest.Command(t, "node")
	policies := map[string]middleware.Policy{"reject": middleware.Reject, "pass": middleware.PassThrough}
	modes := []middleware.Mode{middleware.ToContentType, middleware.Canonical}
	seen := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l := r.Header.Get("X-Label"); l != "" {
			w.Header().Set("Content-Type", l)
		}
		_, _ = io.WriteString(w, strconv.Quote(r.Header.Get("Content-Type")))
	})
	mux := http.NewServeMux()
	for pname, policy := range policies {
		for _, mode := range modes {
			opts := middleware.Options{Request: mode, Response: mode, Unmappable: policy}
			mux.Handle("/"+mode.String()+"/"+pname, middleware.Rewrite(opts)(seen))
		}
	}
	h1, h2 := nodeProtos(t, mux)

	var cases []nodeCase
	for _, label := range injectionLabels {
		mapped, err := mapping.Canonical(label) // both modes map a URI label alike
		for _, mode := range modes {
			want := label // an unmappable response label goes out as the handler wrote it
			if err == nil {
				want = mapped
			}
			cases = append(cases, nodeCase{
				name: "response/" + mode.String() + "/" + label,
				job:  nodeJob{URL: "/" + mode.String() + "/reject", Header: map[string]string{"X-Label": label}},
				check: func(t *testing.T, r *nodeResult) {
					assert.Equal(t, http.StatusOK, r.Status)
					assert.Equal(t, want, r.get(t, "Content-Type"))
					nosniff := mapping.Detect(want) == mapping.DirectionToContentType
					assert.Equal(t, nosniff, r.get(t, "X-Content-Type-Options") == "nosniff", "nosniff beside a URI label only")
				},
			})
			for pname, policy := range policies {
				cases = append(cases, nodeCase{
					name: "request/" + mode.String() + "/" + pname + "/" + label,
					job: nodeJob{Method: http.MethodPost, URL: "/" + mode.String() + "/" + pname,
						Header: map[string]string{"Content-Type": label}},
					check: func(t *testing.T, r *nodeResult) {
						if seen, err := strconv.Unquote(r.Body); err == nil {
							assertCleanFields(t, []nodeField{{"Content-Type, as the handler saw it", seen}})
						}
						switch {
						case err == nil:
							assert.Equal(t, http.StatusOK, r.Status)
							assert.Equal(t, strconv.Quote(mapped), r.Body, "the handler sees the mapped label")
						case policy == middleware.Reject:
							assert.Equal(t, http.StatusUnsupportedMediaType, r.Status)
							assert.True(t, strings.HasPrefix(r.Body, "415 Unsupported Media Type:"), "%q", r.Body)
						default:
							assert.Equal(t, http.StatusOK, r.Status)
							assert.Equal(t, strconv.Quote(label), r.Body, "passed through unchanged")
						}
					},
				})
			}
		}
	}
	nodeRun(t, node, func(string) (_, _ *httptest.Server) { return h1, h2 }, cases)
}
