// Command proxy is a reverse proxy that translates Content-Type labels
// between a backend that speaks URI labels and clients that speak
// Content-Types.
//
//	go run ./examples/proxy [-addr 127.0.0.1:0] [-backend URL] [-max-connections 256] [-min-body-rate 500]
//
// Without -backend it starts an embedded demo backend on 127.0.0.1 that
// labels everything with URIs (an XML-DSig signature, a JSON-LD person,
// stored documents, an event stream) and refuses requests labelled with
// a Content-Type. Through the proxy, clients send and receive
// Content-Types: requests are mapped with middleware.ProxyRewrite
// (Content-Type -> URI), responses with middleware.ProxyModifyResponse
// (URI -> Content-Type). FlushInterval is -1 so event streams pass
// through as they come. A stream may run and pause as long as it likes,
// but a client that takes no data for a minute, or sends none of a
// request body for a minute, is cut off (408 for the body), and so is
// one whose body, past its first minute of waiting, comes at less than
// -min-body-rate octets a second (500; 0 for no minimum, for clients
// that stream an upload slowly on purpose).
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
	"slices"
	"syscall"
	"time"

	"github.com/cturi/cturi/internal/connlimit"
	"github.com/cturi/cturi/internal/graceful"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil: // the flag package's status for a bad command line
		os.Exit(2)
	}
	maxConnections, bodyMinRate = cfg.maxConnections, cfg.minBodyRate
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg.addr, cfg.backend, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		os.Exit(1)
	}
}

// config is the command line: backend is nil for the embedded demo
// backend.
type config struct {
	addr           string
	backend        *url.URL
	maxConnections int
	minBodyRate    int64
}

// parseArgs reads the command line, without the program's name. It
// writes what is wrong with a bad one, and the usage, to stderr, and
// returns an error: flag.ErrHelp for -h.
func parseArgs(args []string, stderr io.Writer) (config, error) {
	var cfg config
	var backend string
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	fs.StringVar(&backend, "backend", "", "URL of the backend (default: start the embedded demo backend)")
	fs.IntVar(&cfg.maxConnections, "max-connections", maxConnections, "most client connections open at once; more clients wait (at least 1)")
	fs.Int64Var(&cfg.minBodyRate, "min-body-rate", bodyMinRate, "octets a second a request body must average, past its first minute of waiting (0: no minimum)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	var bad string
	switch {
	case fs.NArg() > 0:
		bad = fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case cfg.maxConnections < 1:
		bad = "-max-connections must be at least 1"
	case cfg.minBodyRate < 0:
		bad = "-min-body-rate must be 0 or more"
	case backend != "":
		var err error
		if cfg.backend, err = parseBackend(backend); err != nil {
			bad = err.Error()
		}
	}
	if bad != "" {
		fmt.Fprintln(stderr, "proxy:", bad)
		fs.Usage()
		return cfg, errors.New(bad)
	}
	return cfg, nil
}

// parseBackend reads -backend: an http or https URL without credentials
// (ProxyRequest.SetURL would drop them and the transport would not send
// them, so the proxy would run without them unnoticed). Errors show no
// password.
func parseBackend(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, errors.New("-backend is not a URL; give an http(s) URL such as http://127.0.0.1:8080")
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, fmt.Errorf("-backend %q is not an http(s) URL", u.Redacted())
	case u.User != nil:
		return nil, fmt.Errorf("-backend %q: credentials in the URL are not sent to the backend", u.Redacted())
	}
	return u, nil
}

// The servers' timeouts: headerTimeout bounds how long a client may take
// to send a request's header (a client that trickles it in holds a
// connection), idleTimeout how long a keep-alive connection to the proxy
// or the demo backend may wait for its next request. There is no
// ReadTimeout or WriteTimeout: they would cut off streamed uploads and
// event streams; sendTimeout and bodyTimeout (stall.go) bound how long
// the proxy waits on a client that has stalled instead. The tests
// shorten them.
var (
	headerTimeout = 10 * time.Second
	idleTimeout   = 2 * time.Minute
)

// maxConnections bounds the client connections open at once
// (-max-connections): each holds a goroutine and its buffers, an event
// stream for as long as it runs. The embedded backend, which only the
// proxy uses, has no bound of its own.
var maxConnections = 256

// maxHeaderBytes bounds a request's header (431 beyond it and the 4 KiB
// net/http reads past it, 69,632 octets with the request line). net/http's
// default, 1 MiB, let every client hold a buffer of about a MiB while it
// trickled a header in: some 300 MB at maxConnections. A browser's
// header, cookies included, is a few KiB.
const maxHeaderBytes = 64 << 10

// run serves the proxy until ctx is done: to target, or, when target is
// nil, to the demo backend, which it serves too.
func run(ctx context.Context, addr string, target *url.URL, out, logw io.Writer) error {
	var servers []*graceful.Server
	errc := make(chan error, 2)
	serve := func(ln net.Listener, h http.Handler) {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
		servers = append(servers, graceful.Track(srv))
		go func() { errc <- srv.Serve(ln) }()
	}
	// Both listeners before either server, so that a failure (an -addr
	// in use) leaves nothing running behind the error.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	demo := target == nil
	if demo {
		bln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ln.Close()
			return err
		}
		target = &url.URL{Scheme: "http", Host: bln.Addr().String()}
		serve(bln, newBackend())
	}
	ln = sendListener{Listener: connlimit.Listener(ln, maxConnections, nil), timeout: sendTimeout}
	base := "http://" + ln.Addr().String()
	serve(ln, bodyDeadlines(newProxy(target, logw), bodyTimeout))

	// Redacted: a -backend URL may hold a password, which the terminal
	// and the logs it is copied into should not.
	fmt.Fprintf(out, "%s\n\nProxying to %s", base, target.Redacted())
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
`, base, target)
	} else {
		fmt.Fprintf(out, ".\nTry: curl -i %s/\n", base)
	}
	fmt.Fprintln(out, "Stop it with Ctrl-C.")

	// Until ctx is done, or a server fails: then the other stops too.
	var errs []error
	running := len(servers)
	select {
	case err := <-errc:
		errs = append(errs, err)
		running--
	case <-ctx.Done():
	}
	// Requests under way get 5 seconds; connections a client opened
	// ahead of time, with no request on them, are closed at once.
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The proxy first, the demo backend (served first) last: the proxy's
	// requests under way need the backend, and a request the proxy still
	// took would get a 502 from a backend already gone.
	for _, srv := range slices.Backward(servers) {
		errs = append(errs, srv.Shutdown(shutdown))
	}
	for range running {
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
