package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withMappedLabel clones the header as http.Header.Clone does, whether
// its values fit in the context's allocation or not, and leaves the
// caller's request, header and slices as they were.
func TestWithMappedLabel(t *testing.T) {
	const uri, ct = "http://example.com/tag42", "application/uri.http%3A%2F%2Fexample.com%2Ftag42"
	many := func(fields, perField int) http.Header {
		h := http.Header{"Content-Type": {uri}}
		for i := range fields - 1 {
			for j := range perField {
				h.Add(fmt.Sprintf("X-F%d", i), fmt.Sprint(j))
			}
		}
		return h
	}
	tests := []struct {
		name string
		h    http.Header
	}{
		{"only the label", many(1, 1)},
		{"filling the context", many(inlineHeaderValues, 1)},
		{"one value over", many(inlineHeaderValues+1, 1)},
		{"fields with several values", many(4, 3)},
		{"nil and empty slices", http.Header{"Content-Type": {uri}, "X-Nil": nil, "X-Empty": {}, "X-Two": {"a", "b"}}},
		{"a large header", many(40, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header = tt.h
			before := tt.h.Clone()
			ctSlice := tt.h["Content-Type"]

			r2 := withMappedLabel(r, uri, ct)

			assert.Equal(t, before, r.Header, "the caller's header is untouched")
			assert.Equal(t, uri, ctSlice[0], "the caller's Content-Type slice is untouched")
			require.NotSame(t, r, r2)
			want := tt.h.Clone()
			want["Content-Type"] = []string{ct}
			assert.Equal(t, want, r2.Header, "http.Header.Clone's copy with the mapped label")
			for k, vv := range r2.Header {
				if tt.h[k] == nil {
					assert.Nil(t, vv, "%s: a nil slice stays nil", k)
					continue
				}
				assert.Equal(t, len(vv), cap(vv), "%s: an append cannot reach another field's values", k)
				if len(vv) > 0 {
					assert.NotSame(t, &tt.h[k][0], &vv[0], "%s: not the caller's slice", k)
				}
			}
			// An append by the handler writes into its own array.
			r2.Header["Content-Type"] = append(r2.Header["Content-Type"], "x")
			assert.Equal(t, want, withoutLast(r2.Header, "Content-Type"))
			assert.Equal(t, before, r.Header)

			l, ok := RequestLabels(r2)
			assert.True(t, ok)
			assert.Equal(t, Labels{Original: uri, Mapped: ct}, l)
		})
	}
}

func withoutLast(h http.Header, key string) http.Header {
	h = h.Clone()
	h[key] = h[key][:len(h[key])-1]
	return h
}

// The copy of a request with a small header costs three allocations: the
// header map and its group, and the requestCopy, which holds the request,
// its context and the header's values.
func TestWithMappedLabelAllocations(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header = http.Header{"Content-Type": {"http://x"}, "Accept": {"*/*"}, "User-Agent": {"test"}}
	allocs := testing.AllocsPerRun(100, func() { _ = withMappedLabel(r, "http://x", "application/uri.http%3A%2F%2Fx") })
	assert.Equal(t, 3.0, allocs)
	// Labels alone (an unmappable label passed through) are one.
	allocs = testing.AllocsPerRun(100, func() { _ = withLabels(r, Labels{Original: "x", Mapped: "x"}) })
	assert.Equal(t, 1.0, allocs)
}
