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
