package integration

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/cturi/cturi/examples/proxy/translate"
	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/internal/vectors"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exampleProxy is examples/proxy's translating proxy (package
// translate), without the error log its failed requests would write.
func exampleProxy(target *url.URL) http.Handler {
	p := translate.Proxy(target)
	p.ErrorLog = log.New(io.Discard, "", 0)
	return p
}

// TestHTTPNodeBehindProxy puts examples/proxy's translation between
// Node's client and Node's backend (http-peer.mjs), which labels its
// answers with the URI in the request's X-Label field and refuses a
// request label that is not a URI (415): the proxy, over HTTP/1.1 and
// HTTP/2, must translate the labels both ways, as the vectors say, and
// pass bodies byte for byte, a request body streamed in chunks of
// unknown length and an event stream whose every event the backend
// sends only once Node's client has it.
func TestHTTPNodeBehindProxy(t *testing.T) {
	node := servertest.Command(t, "node")
	upload := randomBytes(t, 1<<20+9)
	var pieces [][]byte
	for off := 0; off < len(upload); off += 64 << 10 {
		pieces = append(pieces, upload[off:min(off+64<<10, len(upload))])
	}
	var cases []nodeCase
	for _, c := range []struct {
		name    string
		body    [][]byte
		chunked string // what the backend saw: a body framed by length, or chunked
	}{{"body byte-identical", [][]byte{upload}, "false"}, {"chunked request body", pieces, "true"}} {
		cases = append(cases, nodeCase{c.name, nodeJob{
			Method: http.MethodPost, URL: "/echo", Body: c.body,
			Header: map[string]string{"Content-Type": "application/octet-stream", "X-Label": uriLabel},
		}, func(t *testing.T, r *nodeResult) {
			assert.Equal(t, http.StatusOK, r.Status)
			assert.Equal(t, "ContentType:application/octet-stream", r.get(t, "X-Backend-Saw"))
			assert.Equal(t, sha(upload), r.get(t, "X-Body-SHA256"), "the request body the backend read")
			assert.Equal(t, c.chunked, r.get(t, "X-Backend-Chunked"))
			assert.Equal(t, ctLabel, r.get(t, "Content-Type"))
			assert.Equal(t, int64(len(upload)), r.Length)
			assert.Equal(t, sha(upload), r.SHA256)
		}})
	}
	cases = append(cases, nodeCase{"event stream", nodeJob{
		URL: "/stream?proto={proto}", Ack: "local",
		Header: map[string]string{"Content-Type": "text/plain", "X-Label": "ContentType:text/event-stream"},
	}, func(t *testing.T, r *nodeResult) {
		assert.Equal(t, "text/event-stream", r.get(t, "Content-Type"))
		assert.Equal(t, "data: chunk 0\n\ndata: chunk 1\n\ndata: chunk 2\n\ndata: chunk 3\n\n", r.Body)
	}})
	cases = append(cases, nodeProxyVectorCases(t)...)

	nodeRun(t, node, func(backend string) (_, _ *httptest.Server) {
		target, err := url.Parse(backend)
		require.NoError(t, err)
		return nodeProtos(t, exampleProxy(target))
	}, cases)
}

// nodeProxyVectorCases has the backend answer with each uri2ct vector's
// input, which the client must get as the vector's Content-Type, or, if
// it cannot be mapped, as a 502: ProxyModifyResponse under Reject, as
// examples/proxy has it, fails the response. (A relative URI such as /x
// is no URI label, SPEC R0.17, and ToContentType leaves it alone.) And
// it has the client send each ct2uri vector's input, which the backend
// must get as the vector's URI label, or, where the proxy cannot map it
// without the controlled mapping, as it came (and refuse it, 415). An
// input that starts like a URI (Content-Type: text/plain, a scheme and a
// colon, SPEC R0.17) is a URI label to ToURI, which leaves it alone, and
// to the
// backend, which takes it.
func nodeProxyVectorCases(t *testing.T) []nodeCase {
	var cases []nodeCase
	for _, v := range vectors.Load(t, mappingVectors) {
		name := "vector line " + itoa(int64(v.Line))
		switch v.Direction {
		case "uri2ct":
			uri := mapping.Detect(v.Input) == mapping.DirectionToContentType
			cases = append(cases, nodeCase{name, nodeJob{
				Header: map[string]string{"Content-Type": "x:request", "X-Label": toLatin1(v.Input)},
			}, func(t *testing.T, r *nodeResult) {
				switch {
				case !uri:
					assert.Equal(t, http.StatusOK, r.Status)
					assert.Equal(t, v.Input, r.get(t, "Content-Type"), "%q is left alone", v.Input)
				case strings.HasPrefix(v.Expected, "ERROR:"):
					assert.Equal(t, http.StatusBadGateway, r.Status, "%q cannot be mapped", v.Input)
				default:
					assert.Equal(t, http.StatusOK, r.Status)
					assert.Equal(t, v.Expected, r.get(t, "Content-Type"), "%s %q", v.Direction, v.Input)
				}
			}})
		case "ct2uri":
			_, err := mapping.ToURI(v.Input, mapping.NoControlled)
			uri := mapping.Detect(v.Input) == mapping.DirectionToContentType
			cases = append(cases, nodeCase{name, nodeJob{
				Header: map[string]string{"Content-Type": toLatin1(v.Input), "X-Label": "x:response"},
			}, func(t *testing.T, r *nodeResult) {
				switch {
				case uri:
					assert.Equal(t, http.StatusOK, r.Status)
					assert.Equal(t, v.Input, r.get(t, "X-Backend-Saw"), "%q is left alone", v.Input)
				case err != nil:
					assert.Equal(t, http.StatusUnsupportedMediaType, r.Status)
					assert.Equal(t, v.Input, r.get(t, "X-Backend-Saw"), "%q reaches the backend as it came", v.Input)
					assert.Equal(t, `text/plain; charset="utf-8"`, r.get(t, "Content-Type"))
				default:
					assert.Equal(t, http.StatusOK, r.Status)
					assert.Equal(t, v.Expected, r.get(t, "X-Backend-Saw"), "%s %q", v.Direction, v.Input)
					assert.Equal(t, "application/uri.x%3Aresponse", r.get(t, "Content-Type"))
				}
			}})
		}
	}
	return cases
}
