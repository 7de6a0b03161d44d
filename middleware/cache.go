package middleware

import (
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"sync/atomic"
)

// Real traffic carries a few distinct labels over and over, and every
// mapping call allocates its result, so a rewriter remembers the mappings
// it has made, per mode, in a cache of fixed size.
const (
	// cacheSlots is the number of entries of one mode's cache.
	cacheSlots = 128
	// maxCachedLabel is the longest label, and the longest mapping, in
	// bytes, that the cache holds. Real labels are far shorter; the bound
	// keeps the cache's memory fixed: at most cacheSlots entries of two
	// strings of up to 256 bytes, about 70 KiB per mode.
	maxCachedLabel = 256
)

// labelCache holds successful mappings of one mode of one rewriter (so
// its key is the label alone: the options are the rewriter's). It is a
// two-choice hash table of atomic pointers to immutable entries: a lookup
// loads the two slots a label may be in and compares strings; a store
// replaces one pointer. No lock is taken, and concurrent stores into one
// slot only decide which of two correct entries stays.
//
// A label is admitted when it misses while one of its two slots still
// remembers an earlier miss of it (missed holds the label's hash), so a
// label seen once, such as a multipart boundary, costs no entry and
// evicts nothing. A miss is remembered in either slot at random: two
// labels that share a slot and miss in turn then keep each other out a
// quarter of the time, not every time, as one fixed slot would. A stream
// of distinct labels, even repeated ones, only churns the entries; the
// cache never grows.
type labelCache struct {
	seed    maphash.Seed // random per cache (newRewriter), so that colliding labels cannot be chosen
	entries [cacheSlots]atomic.Pointer[cacheEntry]
	missed  [cacheSlots]atomic.Uint64
}

// cacheEntry is a mapping that passed every check of mapLabel, with what
// mapFresh found of its result.
type cacheEntry struct {
	in, out    string
	unparsable bool
}

// hash returns the hash of label, which get and put take.
func (c *labelCache) hash(label string) uint64 { return maphash.String(c.seed, label) }

// slots returns the two slots where the label of hash h may be.
func slots(h uint64) (i, j uint64) { return h % cacheSlots, (h >> 32) % cacheSlots }

// get returns the mapping of in, whose hash is h, if the cache holds it,
// or nil.
func (c *labelCache) get(h uint64, in string) *cacheEntry {
	i, j := slots(h)
	if e := c.entries[i].Load(); e != nil && e.in == in {
		return e
	}
	if e := c.entries[j].Load(); e != nil && e.in == in {
		return e
	}
	return nil
}

// put tells the cache that in, of hash h, which get did not find, maps
// to out, a string of mapping's own, which browsers cannot parse as a
// MIME type if unparsable (mapLabel). On a miss its slots remember (see
// labelCache) it stores the mapping: into an empty candidate slot if
// there is one, otherwise into either at random, so that two labels
// sharing a slot do not keep evicting each other.
func (c *labelCache) put(h uint64, in, out string, unparsable bool) {
	if len(in) > maxCachedLabel || len(out) > maxCachedLabel {
		return
	}
	i, j := slots(h)
	if c.missed[i].Load() != h && c.missed[j].Load() != h {
		if rand.Uint32()&1 == 1 {
			c.missed[j].Store(h)
		} else {
			c.missed[i].Store(h)
		}
		return
	}
	// in may be part of a larger string (a whole header block): the copy
	// keeps the cache from holding on to more than the label.
	e := &cacheEntry{in: strings.Clone(in), out: out, unparsable: unparsable}
	switch {
	case c.entries[i].Load() == nil:
	case c.entries[j].Load() == nil, rand.Uint32()&1 == 1:
		i = j
	}
	c.entries[i].Store(e)
}
