// Command proxy is a reverse proxy that translates Content-Type labels
// between a backend that speaks URI labels and clients that speak
// Content-Types.
//
//	go run ./examples/proxy [-addr 127.0.0.1:0] [-backend URL] [-max-connections 256]
//
// Without -backend it starts an embedded demo backend on 127.0.0.1 that
// labels everything with URIs (an XML-DSig signature, a JSON-LD person,
// stored documents, an event stream) and refuses requests labelled with
// a Content-Type. Through the proxy, clients send and receive
// Content-Types: requests are mapped with middleware.ProxyRewrite
// (Content-Type -> URI), responses with middleware.ProxyModifyResponse
// (URI -> Content-Type). FlushInterval is -1 so event streams pass
// through as they come.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cturi/cturi/internal/connlimit"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil: // the flag package's status for a bad command line
		os.Exit(2)
	}
	maxConnections = cfg.maxConnections
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg.addr, cfg.backend, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		if _, ok := errors.AsType[usageError](err); ok {
			cfg.usage()
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// config is the command line: the flags' values, and usage, which writes
// the usage where parseArgs wrote.
type config struct {
	addr, backend  string
	maxConnections int
	usage          func()
}

// parseArgs reads the command line, without the program's name. It
// writes what is wrong with a bad one, and the usage, to stderr, and
// returns an error: flag.ErrHelp for -h. run checks the backend's URL.
func parseArgs(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	fs.StringVar(&cfg.backend, "backend", "", "URL of the backend (default: start the embedded demo backend)")
	fs.IntVar(&cfg.maxConnections, "max-connections", maxConnections, "most client connections open at once; more clients wait (at least 1)")
	cfg.usage = fs.Usage
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	var bad string
	switch {
	case fs.NArg() > 0:
		bad = fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case cfg.maxConnections < 1:
		bad = "-max-connections must be at least 1"
	}
	if bad != "" {
		fmt.Fprintln(stderr, "proxy:", bad)
		fs.Usage()
		return cfg, errors.New(bad)
	}
	return cfg, nil
}

// usageError is a bad -backend: main answers it with the usage and status
// 2, as the flag package answers a bad flag.
type usageError string

func (e usageError) Error() string { return string(e) }

// The servers' timeouts: headerTimeout bounds how long a client may take
// to send a request's header (a client that trickles it in holds a
// connection), idleTimeout how long a keep-alive connection to the proxy
// or the demo backend may wait for its next request. There is no
// ReadTimeout or WriteTimeout: they would cut off streamed uploads and
// event streams. The tests shorten them.
var (
	headerTimeout = 10 * time.Second
	idleTimeout   = 2 * time.Minute
)

// maxConnections bounds the client connections open at once
// (-max-connections): each holds a goroutine and its buffers, an event
// stream for as long as it runs. The embedded backend, which only the
// proxy uses, has no bound of its own.
var maxConnections = 256

// run serves the proxy (and the demo backend when backendURL is empty)
// until ctx is done.
func run(ctx context.Context, addr, backendURL string, out, logw io.Writer) error {
	var servers []*http.Server
	errc := make(chan error, 2)
	serve := func(ln net.Listener, h http.Handler) {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout}
		servers = append(servers, srv)
		go func() { errc <- srv.Serve(ln) }()
	}
	demo := backendURL == ""
	if demo {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		backendURL = "http://" + ln.Addr().String()
		serve(ln, newBackend())
	}
	target, err := url.Parse(backendURL)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return usageError(fmt.Sprintf("-backend %q is not an http(s) URL", backendURL))
	}
	if target.User != nil {
		// ProxyRequest.SetURL would drop them, and the transport does not
		// send them: refuse rather than proxy without them.
		return usageError(fmt.Sprintf("-backend %q: credentials in the URL are not sent to the backend", target.Redacted()))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ln = connlimit.Listener(ln, maxConnections, nil)
	base := "http://" + ln.Addr().String()
	serve(ln, newProxy(target, logw))

	fmt.Fprintf(out, "%s\n\nProxying to %s", base, backendURL)
	if demo {
		fmt.Fprintf(out, ` (embedded demo backend, which speaks URI labels only).

The backend labels with URIs; through the proxy you see Content-Types:
  curl -i %[1]s/signature
  curl -i %[1]s/person
  curl -N %[1]s/events
Send a Content-Type; the backend receives its URI label:
  curl -i -X POST -H 'Content-Type: text/plain; charset=utf-8' --data 'hello' %[1]s/documents
  curl -i %[1]s/documents/1
Compare with the backend itself, which refuses Content-Types:
  curl -i -X POST -H 'Content-Type: text/plain' --data 'hello' %[2]s/documents
`, base, backendURL)
	} else {
		fmt.Fprintf(out, ".\nTry: curl -i %s/\n", base)
	}
	fmt.Fprintln(out, "Stop it with Ctrl-C.")

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, srv := range servers {
		errs = append(errs, srv.Shutdown(shutdown))
	}
	for range servers {
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
