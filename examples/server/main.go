// Command server is cturi's main example: an HTTP server on 127.0.0.1
// that shows the Content-Type <-> URI mapping to a person and the
// middleware at work.
//
//	go run ./examples/server [-addr 127.0.0.1:0] [-max-connections 256]
//
// It serves:
//
//	GET  /                a page: type a Content-Type or a URI, see both
//	                      mappings, the canonical form and the round trip
//	GET  /api/map?label=  the same as JSON
//	POST /echo            how the request's label was rewritten, and the
//	                      decoded application/www-form-urlencoded form (JSON)
//	GET  /xmlenc          a resource its handler labels with a URI, which
//	                      clients receive as a Content-Type
//	GET  /favicon.ico     204 No Content: the page has no icon, and a
//	                      browser asks for one with every page it opens
//
// The chain, outermost first: gorilla/handlers LoggingHandler (every
// request is logged, 415s included; internal/accesslog quotes the user
// name it would write raw), RecoveryHandler, the cturi
// middleware, CompressHandler (inside, so the labels it sniffs are mapped
// too), the routes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cturi/cturi/internal/accesslog"
	"github.com/cturi/cturi/internal/connlimit"
	"github.com/cturi/cturi/internal/graceful"
	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
	"github.com/gorilla/handlers"
)

func main() {
	addr, conns, err := parseArgs(os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil: // the flag package's status for a bad command line
		os.Exit(2)
	}
	maxConnections = conns
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, addr, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// parseArgs reads the command line, without the program's name. It
// writes what is wrong with a bad one, and the usage, to stderr, and
// returns an error: flag.ErrHelp for -h.
func parseArgs(args []string, stderr io.Writer) (addr string, conns int, err error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	fs.IntVar(&conns, "max-connections", maxConnections, "most connections open at once; more clients wait (at least 1)")
	if err := fs.Parse(args); err != nil {
		return "", 0, err
	}
	var bad string
	switch {
	case fs.NArg() > 0:
		bad = fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case conns < 1:
		bad = "-max-connections must be at least 1"
	}
	if bad != "" {
		fmt.Fprintln(stderr, "server:", bad)
		fs.Usage()
		return "", 0, errors.New(bad)
	}
	return addr, conns, nil
}

// The server's timeouts: headerTimeout bounds how long a client may take
// to send a request's header (a client that trickles it in holds a
// connection), readTimeout the reading of a whole request, body included
// (POST /echo reads up to 1 MiB), writeTimeout the time from the end of
// a request's header to the end of its answer, body read included (a
// client that sends requests and does not read the answers holds a
// connection once they fill the buffers), idleTimeout how long a
// keep-alive connection may wait for its next request. No handler streams,
// so none needs longer. The tests shorten them.
var (
	headerTimeout = 10 * time.Second
	readTimeout   = 30 * time.Second
	writeTimeout  = 60 * time.Second
	idleTimeout   = 2 * time.Minute
)

// maxConnections bounds the connections open at once (-max-connections):
// within the timeouts, each holds a goroutine and its buffers.
var maxConnections = 256

// maxHeaderBytes bounds a request's header (431 beyond it and the 4 KiB
// net/http reads past it, 69,632 octets with the request line). net/http's
// default, 1 MiB, let every client hold a buffer of about a MiB while it
// trickled a header in: some 300 MB at maxConnections. A browser's
// header, cookies included, is a few KiB.
const maxHeaderBytes = 64 << 10

// run serves until ctx is done, printing the URL and what to try to out
// and the request log to logw.
func run(ctx context.Context, addr string, out, logw io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ln = connlimit.Listener(ln, maxConnections, nil)
	url := "http://" + ln.Addr().String()
	srv := &http.Server{
		Handler:           newHandler(logw),
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	fmt.Fprintf(out, `%s

Open it in a browser and type a label, or try:
  curl '%[1]s/api/map?label=text/plain%%3B%%20charset%%3Dus-ascii'
  curl '%[1]s/api/map?label=http://www.w3.org/2000/09/xmldsig%%23'
  curl -i -X POST -H 'Content-Type: ContentType:application/json' -d '{}' %[1]s/echo
  curl -i -X POST -H 'Content-Type: ContentType:text/plain%%0D%%0AX-Evil:%%201' %[1]s/echo
  curl -X POST -H 'Content-Type: ContentType:application/www-form-urlencoded' -d 'city=Z%%C3%%BCrich;tag=a;tag=b' %[1]s/echo
  curl -i %[1]s/xmlenc
Stop it with Ctrl-C.
`, url)
	errc := make(chan error, 1)
	conns := graceful.Track(srv)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Requests under way get 5 seconds; connections a browser opened
	// ahead of time, with no request on them, are closed at once.
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conns.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHandler builds the example's handler chain.
func newHandler(logw io.Writer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", servePage)
	mux.HandleFunc("GET /api/map", serveMap)
	mux.HandleFunc("POST /echo", serveEcho)
	mux.HandleFunc("GET /xmlenc", serveXMLEnc)
	mux.HandleFunc("GET /favicon.ico", serveNoIcon)

	// URI labels become Content-Types both ways, a request label that
	// cannot be mapped is answered 415, and application/www-form-urlencoded
	// bodies (up to the 1 MiB POST /echo reads) are decoded into
	// r.PostForm. Clients are not trusted, so their labels may not use the
	// controlled mapping (URI-body, MIME-type: a URI whose MIME-type item
	// would choose the Content-Type, draft §6); /api/map still shows it.
	rewrite := middleware.Rewrite(middleware.Options{
		DecodeForms: true,
		// The same limit as MaxBytesHandler's below, which the middleware
		// keeps to anyway: a guard should the chain be taken apart.
		MaxFormBytes: maxBody,
		Mapping:      []mapping.Option{mapping.NoControlled},
	})
	// The body limit goes outside everything, where the writer is
	// net/http's own: an http.MaxBytesReader tells net/http to close the
	// connection once a client sends more than the limit, through a
	// method only that writer has (golang/go#73754). Set inside the
	// wrappers, it leaves net/http to read up to 256 KiB more of a body
	// the handler refused, to keep the connection.
	return http.MaxBytesHandler(accesslog.Handler(logw,
		handlers.RecoveryHandler()(
			rewrite(handlers.CompressHandler(mux)))), maxBody)
}
