// Package integration holds cturi's end-to-end tests: real servers and
// clients on the loopback interface (127.0.0.1) and real messages, run
// with go test like every other package. It has no API; its files are
// tests only. The http_*_test.go files exercise package middleware over
// HTTP/1.1 and HTTP/2 (httptest servers, TLS for HTTP/2), through a
// reverse proxy, under concurrent load and behind the routers chi and
// gorilla/mux (http_routers_test.go), and along HTTP's rarer paths
// (http_expect_test.go: Expect: 100-continue; http_h2c_test.go: h2c;
// http_variants_test.go: HTTP/1.0, pipelining, OPTIONS *, CONNECT,
// request trailers); the
// mail_*_test.go files exercise the mail header rewriter;
// uri_whatwg_test.go passes the URI
// labels of package mapping through Node's WHATWG URL parser,
// mimetype_whatwg_test.go its Content-Types through Node's WHATWG MIME
// type parser (util.MIMEType) and mimetype_go_test.go through Go's
// mime.ParseMediaType, and
// http_node*_test.go put Node's HTTP/1.1 and HTTP/2 implementations on
// the other end of the middleware and of the translating proxy.
package integration
