package urlencoded

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// selectMapMin is the number of names from which Select looks names up in
// a map rather than comparing each pair with each name, so that filtering
// costs O(pairs + names) however long the fragment is.
const selectMapMin = 8

// Filter applies a fragment identifier of seed 002 §6 to d: fragment (the
// text after '#', still percent-encoded) is a comma-separated list of
// names, and Filter returns the pairs of d whose name is in the list, in
// their original order (the order of the names does not matter, and a
// name listed twice selects its pairs once).
//
// Each name is percent-decoded (%HH only: '+' is a plus sign in a
// fragment) and must be valid UTF-8, otherwise the error is a *Error of
// kind KindBadUTF8. A literal '(' or ')' anywhere in fragment gives
// KindReservedFragment: the draft reserves their meaning and forbids
// processing such fragments. An empty list element is the empty name, so
// "" selects the pairs named "" (the caller decides whether a URI has a
// fragment at all). The result is nil when no pair is selected.
//
// For example, the data set of "a=1;b;a=2;=3;d,;f" filtered by
// "e,,a,%64%2C" is (("a", "1"), ("a", "2"), ("", "3"), ("d,", undefined)).
func (d DataSet) Filter(fragment string) (DataSet, error) {
	if i := strings.IndexAny(fragment, "()"); i >= 0 {
		return nil, newError(KindReservedFragment, fragment, i, -1,
			"fragment identifier holds %q at offset %d; seed 002 §6 reserves '(' and ')'", fragment[i], i)
	}
	// The fragment is untrusted and may list any number of names: each is
	// decoded into one reused buffer and only marks the pairs it selects,
	// so that memory is bounded by d and the longest name, however many
	// names there are.
	pairs := pairIndex{d: d}
	selected := make([]bool, len(d))
	n := 0
	var name []byte
	for index, start, i := 0, 0, 0; i <= len(fragment); i++ {
		if i < len(fragment) && fragment[i] != ',' {
			continue
		}
		raw := fragment[start:i]
		if name = appendPctDecoded(name[:0], raw); !utf8.Valid(name) {
			off := start + rawOffset(raw, invalidUTF8(string(name)))
			return nil, newError(KindBadUTF8, fragment, off, index,
				"invalid UTF-8 at offset %d, in name %d of the fragment identifier", off, index)
		}
		n += pairs.mark(name, selected)
		index, start = index+1, i+1
	}
	if n == 0 {
		return nil, nil
	}
	out := make(DataSet, 0, n)
	for i, p := range d {
		if selected[i] {
			out = append(out, p)
		}
	}
	return out, nil
}

// pairIndex finds the pairs of a data set by name: by comparing each pair
// for the first selectMapMin names looked up, or when the data set is
// small, and through a map from each name to its first pair and a chain to
// the next pair of that name otherwise, so that filtering costs
// O(len(d) + names) for any number of names and a short list builds no map.
type pairIndex struct {
	d       DataSet
	lookups int
	first   map[string]int // built on the selectMapMin+1st lookup of a large d
	next    []int          // next[i]: the next pair named d[i].Name, or -1
}

func (x *pairIndex) build() {
	d := x.d
	x.first, x.next = make(map[string]int, len(d)), make([]int, len(d))
	for i := len(d) - 1; i >= 0; i-- {
		if j, ok := x.first[d[i].Name]; ok {
			x.next[i] = j
		} else {
			x.next[i] = -1
		}
		x.first[d[i].Name] = i
	}
}

// mark sets selected[i] for every pair i named name that is not marked
// yet, and returns how many it marked.
func (x *pairIndex) mark(name []byte, selected []bool) int {
	if x.lookups++; x.first == nil && x.lookups > selectMapMin && len(x.d) >= selectMapMin {
		x.build()
	}
	n := 0
	if x.first == nil {
		for i, p := range x.d {
			if !selected[i] && p.Name == string(name) {
				selected[i] = true
				n++
			}
		}
		return n
	}
	// A name's pairs are marked all at once, so a marked first pair means
	// an earlier element of the list named it already.
	i, ok := x.first[string(name)]
	for ; ok && i >= 0 && !selected[i]; i = x.next[i] {
		selected[i] = true
		n++
	}
	return n
}

// appendPctDecoded appends s with each %HH triplet decoded; '+' and a '%'
// that starts no triplet are kept (seed 002 §6: a fragment is not
// form-encoded).
func appendPctDecoded(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if isTriplet(s, i) {
			b = append(b, hexValue[s[i+1]]<<4|hexValue[s[i+2]])
			i += 2
		} else {
			b = append(b, s[i])
		}
	}
	return b
}

// Select returns the pairs of d whose name is one of names, in their
// original order; nil when there are none. It is Filter for names that
// are already decoded.
func (d DataSet) Select(names ...string) DataSet {
	var want func(string) bool
	if len(names) < selectMapMin {
		want = func(name string) bool {
			return slices.Contains(names, name)
		}
	} else {
		set := make(map[string]struct{}, len(names))
		for _, n := range names {
			set[n] = struct{}{}
		}
		want = func(name string) bool { _, ok := set[name]; return ok }
	}
	var out DataSet
	for _, p := range d {
		if want(p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// EncodeFragment returns the fragment identifier (without '#') that
// selects the pairs named names (seed 002 §6): the names joined with ',',
// each written as RFC 3987 ifragment text with as little escaping as the
// draft encourages: '%', ',', '(', ')', space and every character that
// cannot occur in an ifragment become %HH of their UTF-8 octets, upper-case;
// other characters, '+' and non-ASCII ones included, stay literal. For
// one or more names, Filter(EncodeFragment(names...)) equals
// Select(names...). With no names the result is "", which Filter reads as
// the one empty name: no fragment selects nothing.
//
// Names are UTF-8 (seed 002 §6); the first that is not gives a *Error of
// kind KindBadUTF8 (Input the name, Index its position in names), since
// Filter would refuse its encoding.
func EncodeFragment(names ...string) (string, error) {
	n := max(len(names)-1, 0)
	for i, name := range names {
		if off := invalidUTF8(name); off >= 0 {
			return "", newError(KindBadUTF8, name, off, i, "invalid UTF-8 at offset %d of fragment name %d", off, i)
		}
		n += escFragment.len(name)
	}
	var b strings.Builder
	b.Grow(n)
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		escFragment.write(&b, name)
	}
	return b.String(), nil
}
