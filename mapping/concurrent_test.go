package mapping

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The mapping keeps no state between calls: several goroutines mapping
// every vector at once, through one shared options slice, get what one
// goroutine gets. Run it with -race: a buffer or cache shared between
// calls, to save an allocation, would show here.
func TestConcurrentCalls(t *testing.T) {
	vs := loadVectors(t)
	opts := []Option{Lenient}
	type want struct {
		vector, canonical, mapped, parsed string
	}
	results := func(v vector) want {
		var w want
		w.vector = v.apply()
		if out, err := Canonical(v.input, opts...); err == nil {
			w.canonical = out
		} else {
			w.canonical = "ERROR:" + KindOf(err).String()
		}
		if out, dir, err := Map(v.input, opts...); err == nil {
			w.mapped = dir.String() + " " + out
		} else {
			w.mapped = "ERROR:" + KindOf(err).String()
		}
		if u, err := ParseURI(v.input); err == nil {
			w.parsed = u.String()
		} else if ct, err := ParseContentType(v.input, opts...); err == nil {
			w.parsed = ct.String()
		}
		return w
	}
	wants := make([]want, len(vs))
	for i, v := range vs {
		wants[i] = results(v)
		assert.Equal(t, v.expected, wants[i].vector, "line %d", v.line)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 2 * len(vs) {
				i := (k*4 + g) % len(vs)
				if !assert.Equal(t, wants[i], results(vs[i]), "line %d", vs[i].line) {
					return
				}
			}
		})
	}
	wg.Wait()
}
