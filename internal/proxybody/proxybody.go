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
// Guard turns that one failure into the end of the body. It covers only
// the read after the declared length: a backend that answers before it
// has the whole body makes the server discard or close the rest, the
// transport cannot finish sending it, and the response is cut short all
// the same. EnableFullDuplex on the inbound response is the remedy there,
// with its own costs (see net/http's ResponseController).
package proxybody

import (
	"errors"
	"io"
	"net/http"
)

// Guard wraps out.Body, the body of a ReverseProxy's outgoing request (for
// example ProxyRequest.Out in a Rewrite hook), so that once out.ContentLength
// octets have been read, a read that fails because net/http has closed the
// inbound body (http.ErrBodyReadAfterClose) reports io.EOF instead. Every
// other read reaches the body as before, so a body longer than declared
// still fails the request, and a read error before the declared length
// still reaches the transport. A body of unknown length (chunked) needs no
// guard, since the transport reads it to its end before the backend sees
// the request complete; Guard leaves it, and a nil or empty one, as it is.
func Guard(out *http.Request) {
	if out.Body != nil && out.Body != http.NoBody && out.ContentLength > 0 {
		out.Body = &lengthBody{ReadCloser: out.Body, left: out.ContentLength}
	}
}

// lengthBody is a body of which left octets are still to come.
type lengthBody struct {
	io.ReadCloser
	left int64
}

func (b *lengthBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left <= 0 && errors.Is(err, http.ErrBodyReadAfterClose) {
		err = io.EOF
	}
	return n, err
}
