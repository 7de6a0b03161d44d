package middleware

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mapTwice maps in until the cache would have admitted it (two misses).
func mapTwice(rw *rewriter, in string, m Mode) {
	_, _, _ = rw.mapLabel(in, m)
	_, _, _ = rw.mapLabel(in, m)
}

// cached reports whether mode m's cache holds in.
func cached(rw *rewriter, in string, m Mode) bool {
	c := &rw.caches[m]
	return c.get(c.hash(in), in) != nil
}

// cacheEntries counts the entries of a cache and their bytes.
func cacheEntries(c *labelCache) (n, bytes int) {
	for i := range c.entries {
		if e := c.entries[i].Load(); e != nil {
			n++
			bytes += len(e.in) + len(e.out)
		}
	}
	return n, bytes
}

// TestCacheHitMatchesFreshMapping maps every SPEC vector input in every
// mode three times, the third from the cache, and checks each result
// against that of a new rewriter, whose cache is empty.
// (TestMapLabelMatchesMapping checks those against the mapping package.)
func TestCacheHitMatchesFreshMapping(t *testing.T) {
	rw := newRewriter(Options{})
	hits := 0
	for _, in := range vectorInputs(t) {
		for _, m := range []Mode{ToContentType, ToURI, Canonical} {
			want, wantUnparsable, wantErr := newRewriter(Options{}).mapLabel(in, m)
			mapTwice(rw, in, m)
			fromCache := cached(rw, in, m)
			got, gotUnparsable, gotErr := rw.mapLabel(in, m)
			assert.Equal(t, wantUnparsable, gotUnparsable, "%s %q: unparsable", m, in)
			if wantErr != nil {
				assert.False(t, fromCache, "%s %q: an error is not cached", m, in)
				assert.Equal(t, mapping.KindOf(wantErr), mapping.KindOf(gotErr), "%s %q", m, in)
				assert.Equal(t, in, got)
				continue
			}
			require.NoError(t, gotErr, "%s %q", m, in)
			assert.Equal(t, want, got, "%s %q", m, in)
			if fromCache {
				hits++
			}
		}
	}
	assert.Greater(t, hits, 20, "the vectors that map were served from the cache")
}

// A label is admitted on its second miss, and served from the cache
// after that; a label seen once is not stored.
func TestCacheAdmission(t *testing.T) {
	const tag42 = "http://example.com/tag42"
	rw := newRewriter(Options{})
	_, _, _ = rw.mapLabel(tag42, ToContentType)
	assert.False(t, cached(rw, tag42, ToContentType), "after one miss")
	_, _, _ = rw.mapLabel(tag42, ToContentType)
	assert.True(t, cached(rw, tag42, ToContentType), "after two")
	n, _ := cacheEntries(&rw.caches[ToContentType])
	assert.Equal(t, 1, n)
}

// The same label means different things to different modes; each mode
// has its own cache.
func TestCacheModesDoNotMix(t *testing.T) {
	rw := newRewriter(Options{Request: ToURI, Response: Canonical})
	for _, in := range []string{
		"TEXT/Plain; charset=utf-8",
		"http://example.com/tag42",
		"ContentType:image/jpeg",
		"application/uri.ContentType%3Atext%2Fplain",
	} {
		results := map[Mode]string{}
		for range 3 {
			for _, m := range []Mode{ToContentType, ToURI, Canonical} {
				got, _, err := rw.mapLabel(in, m)
				require.NoError(t, err, "%s %q", m, in)
				if prev, ok := results[m]; ok {
					assert.Equal(t, prev, got, "%s %q: the same answer every time", m, in)
				}
				results[m] = got
			}
		}
		assert.Equal(t, mustMap(t, mapping.Canonical, in), results[Canonical], in)
		if mapping.Detect(in) == mapping.DirectionToURI {
			assert.Equal(t, mustMap(t, mapping.ToURI, in), results[ToURI], in)
			assert.Equal(t, in, results[ToContentType], in)
		} else {
			assert.Equal(t, mustMap(t, mapping.ToContentType, in), results[ToContentType], in)
			assert.Equal(t, in, results[ToURI], in)
		}
		assert.NotEqual(t, results[ToURI], results[Canonical], "%q: the modes disagree, so mixing them would show", in)
		for m, out := range results {
			assert.Equal(t, out != in, cached(rw, in, m), "%s %q: cached exactly when mapped", m, in)
		}
	}
}

func mustMap(t *testing.T, f func(string, ...mapping.Option) (string, error), in string) string {
	t.Helper()
	out, err := f(in)
	require.NoError(t, err, in)
	return out
}

// Only mappings that passed every check are cached: a label refused by
// Options.Schemes or NoControlled stays refused, however often it comes,
// and another rewriter's cache does not leak into this one.
func TestCacheHoldsOnlyAcceptedMappings(t *testing.T) {
	const (
		tag42  = "http://example.com/tag42"
		mailMT = `mailto:joe@blow.test?MIME-type="message%2Frfc822"`
		evil   = "ContentType:text/plain%0D%0AX-Evil:%201"
	)
	open := newRewriter(Options{})
	for _, in := range []string{tag42, mailMT} {
		mapTwice(open, in, ToContentType)
		require.True(t, cached(open, in, ToContentType), in)
	}
	tests := []struct {
		name string
		opts Options
		in   string
		err  error
	}{
		{"scheme not allowed", Options{Schemes: []string{"https"}}, tag42, ErrSchemeNotAllowed},
		{"controlled mapping refused", Options{Mapping: []mapping.Option{mapping.NoControlled}}, mailMT, mapping.ErrReservedParam},
		{"control character", Options{}, evil, mapping.ErrCTL},
		{"too long for MaxLabelLen", Options{MaxLabelLen: 10}, tag42, ErrLabelTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rw := newRewriter(tt.opts)
			for range 4 {
				out, _, err := rw.mapLabel(tt.in, ToContentType)
				require.ErrorIs(t, err, tt.err)
				assert.Equal(t, tt.in, out)
			}
			assert.False(t, cached(rw, tt.in, ToContentType))
		})
	}
}

// Labels or mappings longer than maxCachedLabel are mapped every time.
func TestCacheSkipsLongLabels(t *testing.T) {
	rw := newRewriter(Options{})
	long := "http://example.com/" + strings.Repeat("a", maxCachedLabel)
	// ToURI of a value full of quotes grows by two thirds: the label fits,
	// its mapping does not.
	grows := "text/plain; a=\"" + strings.Repeat(`\"`, (maxCachedLabel-20)/2) + "\""
	require.LessOrEqual(t, len(grows), maxCachedLabel)
	out, _, err := rw.mapLabel(grows, ToURI)
	require.NoError(t, err)
	require.Greater(t, len(out), maxCachedLabel)
	for _, c := range []struct {
		in string
		m  Mode
	}{{long, ToContentType}, {grows, ToURI}} {
		want, _, err := rw.mapFresh(c.in, c.m)
		require.NoError(t, err)
		for range 3 {
			got, _, err := rw.mapLabel(c.in, c.m)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
		assert.False(t, cached(rw, c.in, c.m), c.in)
	}
}

// Many goroutines mapping overlapping labels, more than the cache holds,
// all get the right answer; -race checks the cache's synchronisation.
func TestCacheConcurrent(t *testing.T) {
	rw := newRewriter(Options{})
	labels := make([]string, 3*cacheSlots)
	want := make([]string, len(labels))
	for i := range labels {
		if i%2 == 0 {
			labels[i] = fmt.Sprintf("http://example.com/tag%d", i)
			want[i] = mustMap(t, mapping.ToContentType, labels[i])
		} else {
			labels[i] = fmt.Sprintf("text/x-%d; charset=utf-8", i)
			want[i] = mustMap(t, mapping.Canonical, labels[i])
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range 4000 {
				i := (k*7 + g*13) % len(labels)
				if k%5 == 0 {
					i %= 16 // a few hot labels, so that hits happen too
				}
				m := ToContentType
				if i%2 == 1 {
					m = Canonical
				}
				got, _, err := rw.mapLabel(labels[i], m)
				if err != nil || got != want[i] {
					errs <- fmt.Sprintf("%q: got %q, %v; want %q", labels[i], got, err, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	hot := 0
	for i := range 16 {
		m := ToContentType
		if i%2 == 1 {
			m = Canonical
		}
		if cached(rw, labels[i], m) {
			hot++
		}
	}
	assert.Positive(t, hot, "some hot labels are cached")
}

// An adversary sending distinct labels, each twice so that it is
// admitted, only churns the cache: it holds at most cacheSlots entries of
// at most maxCachedLabel bytes each way, and the heap does not grow with
// the number of labels.
func TestCacheBoundedUnderDistinctLabels(t *testing.T) {
	rw := newRewriter(Options{})
	c := &rw.caches[ToContentType]
	pad := strings.Repeat("a", 150)
	stream := func(from, to int) {
		for i := from; i < to; i++ {
			mapTwice(rw, fmt.Sprintf("http://example.com/%s/%d", pad, i), ToContentType)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	stream(0, 2*cacheSlots) // fill
	before := heap()
	stream(2*cacheSlots, 20000)
	after := heap()

	n, bytes := cacheEntries(c)
	assert.LessOrEqual(t, n, cacheSlots)
	assert.Greater(t, n, cacheSlots/2, "the adversary's labels did churn the cache")
	assert.LessOrEqual(t, bytes, 2*cacheSlots*maxCachedLabel)
	// 20,000 labels of about 180 bytes mapping to about 220: kept, they
	// would take over 8 MB. The cache's own worst case is under 100 KB.
	assert.Less(t, int64(after)-int64(before), int64(1<<20), "heap grew from %d to %d", before, after)
}

// Two labels whose first slots collide are both kept (the second goes to
// its other slot while that is free), so that they do not keep evicting
// each other: each is served from the cache after its two misses.
func TestCacheKeepsLabelsSharingASlot(t *testing.T) {
	for _, m := range []Mode{ToContentType, ToURI, Canonical} {
		t.Run(m.String(), func(t *testing.T) {
			rw := newRewriter(Options{})
			c := &rw.caches[m]
			label := func(n int) string {
				if m == ToContentType {
					return fmt.Sprintf("http://example.com/tag%d", n)
				}
				return fmt.Sprintf("text/x-%d", n)
			}
			a := label(0)
			ai, _ := slots(c.hash(a))
			// b shares a's first slot; its second slot differs unless no
			// label's does (the two choices would then be one).
			b, bSame := "", ""
			for n := 1; b == "" && n < 100000; n++ {
				switch i, j := slots(c.hash(label(n))); {
				case i == ai && j != ai:
					b = label(n)
				case i == ai && bSame == "":
					bSame = label(n)
				}
			}
			if b == "" {
				b = bSame
			}
			require.NotEmpty(t, b, "no label shares a first slot with %q", a)
			mapTwice(rw, a, m)
			mapTwice(rw, b, m)
			assert.True(t, cached(rw, a, m), a)
			assert.True(t, cached(rw, b, m), b)
			for _, in := range []string{a, b} {
				want, _, err := newRewriter(Options{}).mapLabel(in, m)
				require.NoError(t, err)
				got, _, err := rw.mapLabel(in, m)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
		})
	}
}

// Two labels whose first slots coincide, mapped in turn, are both kept
// before long: each remembers its misses in either of its slots at
// random, so the other wipes out its note a quarter of the time, not
// every time. (After 20 rounds each, the odds that one is still out are
// under 1e-11.)
func TestCacheAdmitsLabelsMissingInTurn(t *testing.T) {
	rw := newRewriter(Options{})
	c := &rw.caches[ToContentType]
	label := func(n int) string { return fmt.Sprintf("http://example.com/tag%d", n) }
	// a and b share their first slot, and their second slots differ from
	// it and from each other (c's seed is random: search for them).
	a, b := "", ""
	var ai, aj uint64
	for n := 0; b == "" && n < 100000; n++ {
		i, j := slots(c.hash(label(n)))
		switch {
		case i == j:
		case a == "":
			a, ai, aj = label(n), i, j
		case i == ai && j != aj:
			b = label(n)
		}
	}
	require.NotEmpty(t, b, "no label shares a first slot with %q", a)
	for range 20 {
		for _, l := range []string{a, b} {
			_, _, err := rw.mapLabel(l, ToContentType)
			require.NoError(t, err)
		}
	}
	assert.True(t, cached(rw, a, ToContentType), a)
	assert.True(t, cached(rw, b, ToContentType), b)
}

// The cache keeps a copy of a label, not the larger string it may have
// been cut from (a whole header block): once the caller lets go of that
// string, it can be collected while the cache holds the label.
func TestCacheCopiesLabels(t *testing.T) {
	rw := newRewriter(Options{})
	freed := make(chan struct{})
	func() {
		big := strings.Repeat("x", 1<<20) + "ContentType:text/plain"
		label := big[1<<20:]
		runtime.AddCleanup(unsafe.StringData(big), func(ch chan struct{}) { close(ch) }, freed)
		for range 3 { // two misses admit it; the third is a hit
			out, _, err := rw.mapLabel(label, ToContentType)
			require.NoError(t, err)
			require.Equal(t, "text/plain", out)
		}
		require.True(t, cached(rw, label, ToContentType))
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(rw)
			return
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "the 1 MiB string the label was cut from is still reachable")
	}
}

// TestCacheKeepsUnparsable: whether browsers cannot parse a label's
// mapping, for nosniff, comes from the cache as mapFresh found it: true
// only for a URI label mapped to a Content-Type with '?' in its type, or a
// Content-Type that Canonical collapses to one (SPEC K6).
func TestCacheKeepsUnparsable(t *testing.T) {
	for _, tt := range []struct {
		in   string
		m    Mode
		want bool
	}{
		{"ContentType:text/plain%3Fflag", ToContentType, true},
		{"ContentType:text/plain%3Fflag", Canonical, true},
		{"ContentType:text/plain", ToContentType, false},
		{"TEXT/pl?ain", Canonical, false}, // the handler's own
		{"application/uri.ContentType%3Atext%2Fplain%253Fflag", Canonical, true},
		{"text/plain?flag", ToURI, false},
	} {
		rw := newRewriter(Options{})
		mapTwice(rw, tt.in, tt.m)
		require.True(t, cached(rw, tt.in, tt.m), tt.in)
		out, unparsable, err := rw.mapLabel(tt.in, tt.m)
		require.NoError(t, err)
		assert.Equal(t, tt.want, unparsable, "%q (mode %v) to %q", tt.in, tt.m, out)
		_, fresh, err := rw.mapFresh(tt.in, tt.m)
		require.NoError(t, err)
		assert.Equal(t, tt.want, fresh, "%q (mode %v), not cached", tt.in, tt.m)
	}
}
