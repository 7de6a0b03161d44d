package integration

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cturi/cturi/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A router the README says the middleware works with: net/http's
// ServeMux, chi, gorilla/mux.
type router struct {
	name string
	// serve returns a router with one route, POST /items/{id}, to h, and
	// mw applied either around the router (with its Use method where it
	// has one, so that the routers that match first have done so) or
	// around the route's handler alone.
	serve func(mw func(http.Handler) http.Handler, aroundRoute bool, h http.Handler) http.Handler
	// param and pattern are the route's {id} and its pattern, as the
	// router tells a handler, and route is that pattern.
	param, pattern func(r *http.Request) string
	route          string
}

var routers = []router{
	{
		name: "net/http.ServeMux",
		serve: func(mw func(http.Handler) http.Handler, aroundRoute bool, h http.Handler) http.Handler {
			m := http.NewServeMux()
			if aroundRoute {
				m.Handle("POST /items/{id}", mw(h))
				return m
			}
			m.Handle("POST /items/{id}", h)
			return mw(m)
		},
		param:   func(r *http.Request) string { return r.PathValue("id") },
		pattern: func(r *http.Request) string { return r.Pattern },
		route:   "POST /items/{id}",
	},
	{
		// chi runs the middleware of Use before it routes, and that of
		// With after.
		name: "chi",
		serve: func(mw func(http.Handler) http.Handler, aroundRoute bool, h http.Handler) http.Handler {
			r := chi.NewRouter()
			if aroundRoute {
				r.With(mw).Method(http.MethodPost, "/items/{id}", h)
				return r
			}
			r.Use(mw)
			r.Method(http.MethodPost, "/items/{id}", h)
			return r
		},
		param:   func(r *http.Request) string { return chi.URLParam(r, "id") },
		pattern: func(r *http.Request) string { return chi.RouteContext(r.Context()).RoutePattern() },
		route:   "/items/{id}",
	},
	{
		// gorilla/mux runs the middleware of Use after it has matched a
		// route, with the route's variables in the request's context.
		name: "gorilla/mux",
		serve: func(mw func(http.Handler) http.Handler, aroundRoute bool, h http.Handler) http.Handler {
			r := mux.NewRouter()
			if aroundRoute {
				r.Handle("/items/{id}", mw(h)).Methods(http.MethodPost)
				return r
			}
			r.Use(mw)
			r.Handle("/items/{id}", h).Methods(http.MethodPost)
			return r
		},
		param: func(r *http.Request) string { return mux.Vars(r)["id"] },
		pattern: func(r *http.Request) string {
			tpl, err := mux.CurrentRoute(r).GetPathTemplate()
			if err != nil {
				return err.Error()
			}
			return tpl
		},
		route: "/items/{id}",
	},
}

// seen is what the handler behind a router found in its request.
type seen struct {
	id, pattern, label, form string
	labels                   middleware.Labels
	changed                  bool // RequestLabels' ok
}

// TestRouters: Rewrite's constructor goes into each router's Use as it
// is, and the copy of the request it hands on with a rewritten label (or
// a decoded form) keeps what the router put into the request: the path
// parameter and the route, whichever of the two runs first.
func TestRouters(t *testing.T) {
	mw := middleware.Rewrite(middleware.Options{DecodeForms: true})
	cases := []struct {
		name, label, body string
		status            int
		want              seen // for a status of 200
		wantLabel         string
	}{
		{
			name: "rewritten", label: "ContentType:application/json", body: "{}",
			status: http.StatusOK,
			want: seen{label: "application/json", changed: true, labels: middleware.Labels{
				Original: "ContentType:application/json", Mapped: "application/json",
			}},
		},
		{
			name: "form", label: "ContentType:application/www-form-urlencoded", body: "a=1;b=%C3%A9",
			status: http.StatusOK,
			want: seen{label: "application/www-form-urlencoded", form: "é", changed: true, labels: middleware.Labels{
				Original: "ContentType:application/www-form-urlencoded", Mapped: "application/www-form-urlencoded",
			}},
		},
		{
			name: "unchanged", label: "application/json", body: "{}",
			status: http.StatusOK,
			want: seen{label: "application/json", labels: middleware.Labels{
				Original: "application/json", Mapped: "application/json",
			}},
		},
		{name: "unmappable", label: "ContentType:application/json%0D%0A", body: "{}", status: http.StatusUnsupportedMediaType},
	}
	for _, rt := range routers {
		for _, aroundRoute := range []bool{false, true} {
			name := rt.name + "/Use"
			if aroundRoute {
				name = rt.name + "/route"
			}
			t.Run(name, func(t *testing.T) {
				var got []seen
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					s := seen{id: rt.param(r), pattern: rt.pattern(r), label: r.Header.Get("Content-Type"), form: r.PostFormValue("b")}
					s.labels, s.changed = middleware.RequestLabels(r)
					got = append(got, s)
					// A URI label, which the client gets as a Content-Type.
					w.Header().Set("Content-Type", "ContentType:text/plain")
					_, _ = io.WriteString(w, rt.param(r))
				})
				srv := httptest.NewServer(rt.serve(mw, aroundRoute, h))
				defer srv.Close()
				for i, c := range cases {
					t.Run(c.name, func(t *testing.T) {
						got = got[:0]
						id := string(rune('1' + i))
						res, err := srv.Client().Post(srv.URL+"/items/"+id, c.label, strings.NewReader(c.body))
						require.NoError(t, err)
						body, err := io.ReadAll(res.Body)
						res.Body.Close()
						require.NoError(t, err)
						require.Equal(t, c.status, res.StatusCode, "body %q", body)
						if c.status != http.StatusOK {
							assert.Empty(t, got, "the handler is not called")
							assert.Contains(t, string(body), "(ctl)")
							return
						}
						want := c.want
						want.id, want.pattern = id, rt.route
						require.Len(t, got, 1)
						assert.Equal(t, want, got[0])
						assert.Equal(t, id, string(body))
						assert.Equal(t, "text/plain", res.Header.Get("Content-Type"), "the response label")
					})
				}
			})
		}
	}
}
