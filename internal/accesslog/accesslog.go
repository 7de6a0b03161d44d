// Package accesslog is the request log of the example HTTP servers:
// gorilla/handlers' LoggingHandler (Apache Common Log Format), with the
// one field it writes unescaped made safe to print.
//
// LoggingHandler escapes the request target it logs, but writes the user
// name of a target in absolute form (GET http://USER@host/ HTTP/1.1) as
// net/url percent-decodes it: %0D%0A or %1B in it would reach the log as
// a line break or a terminal escape sequence. Such a name is Go-quoted.
package accesslog

import (
	"io"
	"net/http"
	"net/url"

	"github.com/cturi/cturi/internal/printable"
	"github.com/gorilla/handlers"
)

// Handler returns h with every request logged to out, one line each, as
// handlers.LoggingHandler logs it, but with a user name that is not
// printable ASCII (control characters, space, anything past '~', octets
// that are not UTF-8) Go-quoted. h sees each request as it came.
func Handler(out io.Writer, h http.Handler) http.Handler {
	logged := handlers.LoggingHandler(out, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL == nil || r.URL.User == nil {
			logged.ServeHTTP(w, r)
			return
		}
		name := printable.Token(r.URL.User.Username())
		if name == r.URL.User.Username() {
			logged.ServeHTTP(w, r)
			return
		}
		// LoggingHandler logs the request it is given: a copy with the
		// name quoted, while h gets r itself. It also removes the files
		// of a multipart form h parsed, which it looks for in the copy.
		shown := r.WithContext(r.Context())
		u := *r.URL
		u.User = url.User(name)
		shown.URL = &u
		handlers.LoggingHandler(out, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			h.ServeHTTP(w, r)
			shown.MultipartForm = r.MultipartForm
		})).ServeHTTP(w, shown)
	})
}
