package middleware

import (
	"context"
	"net/http"
	"strings"
)

// Labels is what the middleware did with a request's Content-Type label.
type Labels struct {
	// Original is the Content-Type field value the request arrived with.
	Original string
	// Mapped is the value the handler sees; it equals Original when the
	// label was not changed.
	Mapped string
	// Err is the *Error that kept the label from being mapped, or the
	// form body from being decoded (Options.DecodeForms; its Kind starts
	// with "form-"), when the policy is PassThrough; nil otherwise. A
	// label that does not map and whose form body does not decode either
	// gives both, joined (errors.Join), the label's first, so errors.As
	// finds it.
	Err error
}

// RequestLabels returns the original and mapped Content-Type label of a
// request that passed through Rewrite. ok is true when the middleware
// changed the label, or could not map it or decode its form body
// (Labels.Err); when it left the label as it was, or r did not pass
// through it, ok is false and both labels are r's Content-Type field as
// it stands.
func RequestLabels(r *http.Request) (l Labels, ok bool) {
	if l, ok := LabelsFromContext(r.Context()); ok {
		return l, true
	}
	ct := r.Header.Get("Content-Type")
	return Labels{Original: ct, Mapped: ct}, false
}

// LabelsFromContext is RequestLabels for code that holds only a request's
// context, or one derived from it (a database call, a goroutine the
// handler started): it returns the labels and true when the middleware
// changed the request's label, or could not map it or decode its form
// body, and zero Labels and false otherwise.
func LabelsFromContext(ctx context.Context) (l Labels, ok bool) {
	if p, ok := ctx.Value(labelsKey{}).(*Labels); ok {
		return *p, true
	}
	return Labels{}, false
}

type labelsKey struct{}

// labelsContext carries Labels. It is context.WithValue in one
// allocation instead of two (the node and the boxed value); Done, Err and
// Deadline come from the embedded parent, so cancellation propagates as
// for any derived context.
type labelsContext struct {
	context.Context
	labels Labels
}

func (c *labelsContext) Value(key any) any {
	if key == (labelsKey{}) {
		return &c.labels
	}
	return c.Context.Value(key)
}

func (c *labelsContext) String() string { return "middleware.labelsContext" }

// requestCopy is a copy of a request together with the context it
// carries and room for the values of a small cloned header, so that the
// copy costs one allocation where r.WithContext and a context cost two
// (withLabels) and the header's values a third (withMappedLabel).
type requestCopy struct {
	req    http.Request
	ctx    labelsContext
	values [inlineHeaderValues]string
}

// inlineHeaderValues is how many header field values a requestCopy holds,
// for 128 bytes. API clients send a handful of fields; a header of more
// than eight fields no longer fits in one group of a Go map, whose copy
// then costs more allocations anyway.
const inlineHeaderValues = 8

// newRequestCopy returns a requestCopy whose req is a shallow copy of r
// with ctx, carrying l, as its context. r itself is not modified.
func newRequestCopy(r *http.Request, l Labels) *requestCopy {
	c := &requestCopy{ctx: labelsContext{Context: r.Context(), labels: l}}
	// WithContext is the only way to set a Request's context; it is
	// inlined, and the Request it returns does not escape here, so it
	// lives on the stack and only c is allocated.
	c.req = *r.WithContext(&c.ctx)
	return c
}

// withLabels returns a shallow copy of r whose context carries l. r
// itself is not modified.
func withLabels(r *http.Request, l Labels) *http.Request {
	return &newRequestCopy(r, l).req
}

// withMappedLabel returns a shallow copy of r whose header is a clone of
// r's with mapped as its Content-Type, and whose context carries the
// original and mapped labels. r, its header and its header's slices are
// not modified. The header is cloned exactly as http.Header.Clone does it
// (cloneHeader); for a header of at most inlineHeaderValues values, the
// values live in the requestCopy.
func withMappedLabel(r *http.Request, original, mapped string) *http.Request {
	c := newRequestCopy(r, Labels{Original: original, Mapped: mapped})
	c.req.Header = cloneHeader(r.Header, c.values[:])
	// The clone's slice is ours; the caller's is untouched.
	c.req.Header["Content-Type"][0] = mapped
	if r.PostForm != nil && r.MultipartForm == nil && !parsedBody(original) {
		// A handler ahead read a form value (gorilla's
		// HTTPMethodOverrideHandler does on every POST), so net/http
		// parsed the form under the original label (ParseForm always
		// leaves PostForm set) and, for a type whose body it does not
		// read, found only the URL's query. Parsed again
		// under the mapped label, into maps of the copy's own: shared,
		// the handler would find no body values and a multipart parse
		// would add its values to the caller's maps.
		c.req.Form, c.req.PostForm = nil, nil
	}
	return &c.req
}

// parsedBody reports whether net/http's ParseForm reads the body of a
// request labelled label, as its parsePostForm decides: for the legacy
// application/x-www-form-urlencoded type only (multipart bodies are read
// by ParseMultipartForm, which sets MultipartForm), whatever the
// parameters say.
func parsedBody(label string) bool {
	return mediaTypeIs(label, "application/x-www-form-urlencoded")
}

// mediaTypeIs reports whether label's media type is t, a lower-case
// type/subtype, as mime.ParseMediaType reads it (before any ';', spaces
// trimmed, in any case) without allocating.
func mediaTypeIs(label, t string) bool {
	mt, _, _ := strings.Cut(label, ";")
	return strings.EqualFold(strings.TrimSpace(mt), t)
}

// cloneHeader is http.Header.Clone, with the values copied into spare
// while they fit, in one pass over h for a small header. As with Clone,
// each slice of the copy has its capacity equal to its length, so that an
// append to it reallocates instead of writing into the next field's
// values, a nil slice stays nil (ReverseProxy tells it from an empty one),
// and no slice is shared with h. When the values outgrow spare, the rest
// go into one array, as Clone's all do.
func cloneHeader(h http.Header, spare []string) http.Header {
	h2 := make(http.Header, len(h))
	copied := 0
	for k, vv := range h {
		if vv == nil {
			h2[k] = nil
			continue
		}
		if len(vv) > len(spare) {
			// Rare (more than inlineHeaderValues values): count what is
			// left, which the rest of this iteration visits, whatever
			// its order.
			spare = make([]string, countValues(h)-copied)
		}
		n := copy(spare, vv)
		h2[k] = spare[:n:n]
		spare = spare[n:]
		copied += n
	}
	return h2
}

func countValues(h http.Header) int {
	n := 0
	for _, vv := range h {
		n += len(vv)
	}
	return n
}
