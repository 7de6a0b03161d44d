package middleware

import (
	"errors"
	"net/http"
	"strconv"
)

// Rewrite returns middleware that rewrites the Content-Type labels of
// requests and responses as opts says (see Options for the defaults). It
// has the shape chi's Use, gorilla/mux's Use and plain handler chains
// expect. It panics if opts holds an invalid Mode, Policy or scheme name,
// and the function it returns panics if given a nil handler, as
// http.Handle does: both are programming errors, reported when the chain
// is built rather than per request.
//
// Put it before anything that reads the request's Content-Type or body
// (gorilla's ContentTypeHandler, body parsers), inside logging and
// recovery, and outside compression, so that the Content-Type a compressing
// handler sniffs is mapped too; the README has the full order.
func Rewrite(opts Options) func(http.Handler) http.Handler {
	rw := newRewriter(opts)
	return func(next http.Handler) http.Handler {
		if next == nil {
			panic("middleware: Rewrite: nil handler")
		}
		return &handler{rw: rw, next: next}
	}
}

type handler struct {
	rw   *rewriter
	next http.Handler
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.rw.response == Leave {
		if r2 := h.rw.rewriteRequest(w, r); r2 != nil {
			serveNext(h.next, w, r, r2)
		}
		return
	}
	x := getResponseWriter(w, r, h.rw)
	returned := false
	defer func() {
		if !returned {
			x.unwound()
		}
	}()
	vw := x.view()
	// A rejection goes through the response rewriting too, so a client
	// that speaks URI labels gets its 415 labelled as it expects.
	if r2 := h.rw.rewriteRequest(vw, r); r2 != nil {
		x.r = r2
		serveNext(h.next, vw, r, r2)
	}
	x.finish()
	returned = true
}

// rewriteRequest maps r's label, and decodes a form body if asked to. It
// returns r itself when nothing changes, a shallow copy (with a cloned
// header if the label changed) otherwise, and nil after answering with an
// error status. r is never modified.
func (rw *rewriter) rewriteRequest(w http.ResponseWriter, r *http.Request) *http.Request {
	if rw.request == Leave && !rw.forms {
		return r
	}
	r2, label := rw.rewriteLabel(w, r)
	if r2 == nil {
		return nil
	}
	labelled := r2 != r // r2's context holds this middleware's Labels
	decode := rw.wantsForm(r2, label)
	if decode || labelled && parsedIntoRequest(label) {
		// A body read into the request (PostForm and Body, as the
		// middleware decodes it: up to MaxFormBytes, and its decoding;
		// or the form the handler will parse: up to 10 MB, or 32 MiB in
		// memory) goes into a copy of its own, never into r, nor into the
		// copy withLabels or withMappedLabel made: that one shares its
		// allocation with the request's context and its header's values,
		// which a handler may keep after it returns (a goroutine's
		// context, a header handed to a logger), and would keep the body
		// alive. One allocation more, for form labels only.
		r2 = r2.WithContext(r2.Context())
	}
	if !decode {
		return r2
	}
	if err := rw.decodeForm(r2); err != nil {
		original := r.Header["Content-Type"][0] // the one label: wantsForm
		e := rw.report(r, SideRequest, original, err)
		if rw.policy == Reject {
			reject(w, e)
			return nil
		}
		// Passed through undecoded: the handler learns why from
		// RequestLabels, as for a label that does not map, instead of
		// seeing a form that merely looks empty. A label that did not
		// map either keeps its error, first.
		l := Labels{Original: original, Mapped: label, Err: e}
		if labelled {
			if prev, _ := LabelsFromContext(r2.Context()); prev.Err != nil {
				l.Err = errors.Join(prev.Err, e)
			}
		}
		// Not withLabels, which would copy r2, Body included, into one
		// allocation with the context: the context goes alone.
		r2 = r2.WithContext(&labelsContext{Context: r2.Context(), labels: l})
	}
	return r2
}

// parsedIntoRequest reports whether net/http's ParseForm or
// ParseMultipartForm store what they read of a body labelled label in the
// Request: for application/x-www-form-urlencoded and multipart/form-data.
func parsedIntoRequest(label string) bool {
	return parsedBody(label) || mediaTypeIs(label, "multipart/form-data")
}

// rewriteLabel maps r's label (see rewriteRequest) and returns the request
// for the handler with the label it will see ("" for none, or for two
// fields, which are ambiguous), or nil after answering 415.
func (rw *rewriter) rewriteLabel(w http.ResponseWriter, r *http.Request) (*http.Request, string) {
	v := r.Header["Content-Type"]
	switch {
	case len(v) == 0:
		return r, ""
	case rw.request == Leave && len(v) == 1:
		return r, v[0]
	case rw.request == Leave:
		return r, "" // ambiguous: no form decoding either
	}
	var out string
	var err error
	if len(v) > 1 {
		err = ErrMultipleLabels
	} else {
		out, _, err = rw.mapLabel(v[0], rw.request)
	}
	if err != nil {
		e := rw.report(r, SideRequest, v[0], err)
		if rw.policy == Reject {
			reject(w, e)
			return nil, ""
		}
		r2 := withLabels(r, Labels{Original: v[0], Mapped: v[0], Err: e})
		if len(v) > 1 {
			return r2, "" // ambiguous, as with Leave: no form decoding
		}
		return r2, v[0]
	}
	if out == v[0] {
		return r, out
	}
	return withMappedLabel(r, v[0], out), out
}

// reject answers with the status e calls for (415 Unsupported Media
// Type, RFC 9110 §15.5.16, for a label; 400 or 413 for a form body) and a
// plain-text body whose first line names the error kind. The error's
// message quotes (as %q does) whatever it shows of the label, and
// http.Error marks the body nosniff, so nothing from the request is
// rendered.
func reject(w http.ResponseWriter, e *Error) {
	kind := e.Kind()
	code := status(kind)
	http.Error(w, strconv.Itoa(code)+" "+http.StatusText(code)+": "+e.what(kind)+" ("+kind+")\n"+e.Err.Error(), code)
}

// serveNext calls next with r2, the request r became. When r2 is a copy, the
// temporary files of a multipart form the handler parsed into it are
// removed afterwards, even if the handler panics: net/http removes those
// of the request it made only.
func serveNext(next http.Handler, w http.ResponseWriter, r, r2 *http.Request) {
	if r2 != r {
		defer cleanup(r, r2)
	}
	next.ServeHTTP(w, r2)
}

// cleanup removes the temporary files of a multipart form the handler
// parsed into r2, a copy of r.
func cleanup(r, r2 *http.Request) {
	if r2 != r && r2.MultipartForm != nil && r2.MultipartForm != r.MultipartForm {
		_ = r2.MultipartForm.RemoveAll()
	}
}
