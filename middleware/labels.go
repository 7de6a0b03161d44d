package middleware

import (
	"context"
	"net/http"
)

// Labels is what the middleware did with a request's Content-Type label.
type Labels struct {
	// Original is the Content-Type field value the request arrived with.
	Original string
	// Mapped is the value the handler sees; it equals Original when the
	// label was not changed.
	Mapped string
	// Err is the *Error that kept the label from being mapped, when the
	// policy is PassThrough; nil otherwise.
	Err error
}

// RequestLabels returns the original and mapped Content-Type label of a
// request that passed through Rewrite. ok is true when the middleware
// changed the label or could not map it (Labels.Err); when it left the
// label as it was, or r did not pass through it, ok is false and both
// labels are r's Content-Type field as it stands.
func RequestLabels(r *http.Request) (l Labels, ok bool) {
	if p, ok := r.Context().Value(labelsKey{}).(*Labels); ok {
		return *p, true
	}
	ct := r.Header.Get("Content-Type")
	return Labels{Original: ct, Mapped: ct}, false
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

// withLabels returns a shallow copy of r whose context carries l. r
// itself is not modified.
func withLabels(r *http.Request, l Labels) *http.Request {
	return r.WithContext(&labelsContext{Context: r.Context(), labels: l})
}

// inlineHeaderValues is how many header field values the copy of a
// request keeps in the allocation of its labelsContext (see
// withMappedLabel), for 128 bytes. API clients send a handful of fields;
// a header of more than eight fields no longer fits in one group of a Go
// map, whose copy then costs more allocations anyway.
const inlineHeaderValues = 8

// labelsContextWithValues is a labelsContext with room for the values of
// a small cloned header, so that the copy of a request costs one
// allocation fewer.
type labelsContextWithValues struct {
	labelsContext
	values [inlineHeaderValues]string
}

// withMappedLabel returns a shallow copy of r whose header is a clone of
// r's with mapped as its Content-Type, and whose context carries the
// original and mapped labels. r, its header and its header's slices are
// not modified. The header is cloned exactly as http.Header.Clone does it
// (cloneHeader); for a header of at most inlineHeaderValues values, the
// values' backing array lives in the same allocation as the context.
func withMappedLabel(r *http.Request, original, mapped string) *http.Request {
	l := Labels{Original: original, Mapped: mapped}
	var ctx *labelsContext
	var values []string
	if n := countValues(r.Header); n <= inlineHeaderValues {
		c := &labelsContextWithValues{labelsContext: labelsContext{Context: r.Context(), labels: l}}
		ctx, values = &c.labelsContext, c.values[:n]
	} else {
		ctx, values = &labelsContext{Context: r.Context(), labels: l}, make([]string, n)
	}
	r2 := r.WithContext(ctx)
	r2.Header = cloneHeader(r.Header, values)
	// The clone's slice is ours, in values; the caller's is untouched.
	r2.Header["Content-Type"][0] = mapped
	return r2
}

func countValues(h http.Header) int {
	n := 0
	for _, vv := range h {
		n += len(vv)
	}
	return n
}

// cloneHeader is http.Header.Clone with the backing array for the
// values supplied: values must have exactly countValues(h) elements. As
// with Clone, each slice of the copy has its capacity equal to its length,
// so that an append to it reallocates instead of writing into the next
// field's values, a nil slice stays nil (ReverseProxy tells it from an
// empty one), and no slice is shared with h.
func cloneHeader(h http.Header, values []string) http.Header {
	h2 := make(http.Header, len(h))
	for k, vv := range h {
		if vv == nil {
			h2[k] = nil
			continue
		}
		n := copy(values, vv)
		h2[k] = values[:n:n]
		values = values[n:]
	}
	return h2
}
