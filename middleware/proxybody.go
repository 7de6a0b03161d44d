package middleware

import (
	"errors"
	"io"
	"net/http"
)

// GuardProxyBody keeps an httputil.ReverseProxy from cutting a response
// short when it forwards an HTTP/1 request body of known length. Call it
// on the outgoing request (ProxyRequest.Out) in the proxy's Rewrite hook,
// for example inside the function passed to ProxyRewrite:
//
//	Rewrite: middleware.ProxyRewrite(opts, func(pr *httputil.ProxyRequest) {
//		pr.SetURL(backend)
//		middleware.GuardProxyBody(pr.Out)
//	}),
//
// The race it closes (golang/go#40747, any ReverseProxy, with or without
// this package): once the transport has sent the Content-Length octets of
// the outgoing request, it reads the body once more to check that nothing
// follows. The backend can answer before that read; the proxy then writes
// the response header, and net/http's HTTP/1 server closes the inbound
// request body as it does so. The extra read then fails with
// http.ErrBodyReadAfterClose, the transport treats that as a failed
// request write and closes the backend connection, and the response,
// already on its way to the client, is truncated ("ReverseProxy read error
// during body copy: use of closed network connection").
//
// GuardProxyBody wraps out.Body so that, once out.ContentLength octets
// have been read, a read failing with http.ErrBodyReadAfterClose reports
// io.EOF instead. Every other read reaches the body as before, so a body
// longer than declared still fails the request, and a read error before
// the declared length still reaches the transport. A body of unknown
// length (chunked) needs no guard, since the transport reads it to its
// end before the backend sees the request complete; GuardProxyBody leaves
// it, and a nil or empty one, as it is.
//
// It covers only the read after the declared length: a backend that
// answers before it has the whole body makes the server discard or close
// the rest, the transport cannot finish sending it, and the response is
// cut short all the same. EnableFullDuplex on the inbound response is the
// remedy there, with its own costs (see net/http's ResponseController).
// ProxyRewrite does not call GuardProxyBody itself, so that it changes no
// body the caller did not ask it to.
func GuardProxyBody(out *http.Request) {
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
