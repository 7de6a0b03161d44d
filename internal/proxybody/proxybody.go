// Package proxybody keeps an httputil.ReverseProxy from cutting a response
// short when it forwards an HTTP/1 request body of known length.
//
// The race (golang/go#40747): once the transport has sent the
// Content-Length octets of the outgoing request, it reads the body once
// more to check that nothing follows. The backend can answer before that
// read; the proxy then writes the response header, and net/http's HTTP/1
// server closes the inbound request body as it does so. The extra read
// then fails with http.ErrBodyReadAfterClose, the transport treats that
// as a failed request write and closes the backend connection, and the
// response, already on its way to the client, is truncated ("ReverseProxy
// read error during body copy: use of closed network connection").
//
// Guard answers that extra read itself, from the length the request
// declared, so the closed inbound body is never read again.
package proxybody

import (
	"io"
	"net/http"
)

// Guard wraps out.Body, the body of a ReverseProxy's outgoing request (for
// example ProxyRequest.Out in a Rewrite hook), so that reads past
// out.ContentLength octets return io.EOF without reaching the inbound
// body. A body of unknown length (chunked) needs no guard: the transport
// reads it to its end before the backend can see the request complete.
// Guard leaves such a body, and a nil one, as it is.
func Guard(out *http.Request) {
	if out.Body != nil && out.Body != http.NoBody && out.ContentLength > 0 {
		out.Body = &lengthBody{ReadCloser: out.Body, left: out.ContentLength}
	}
}

// lengthBody is a body that ends after left more octets.
type lengthBody struct {
	io.ReadCloser
	left int64
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left == 0 && err == nil {
		err = io.EOF
	}
	return n, err
}
