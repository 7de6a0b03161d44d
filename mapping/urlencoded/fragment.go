package urlencoded

import (
	"strings"

	"github.com/cturi/cturi/mapping"
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
	names := make([]string, 0, strings.Count(fragment, ",")+1)
	start := 0
	for i := 0; i <= len(fragment); i++ {
		if i < len(fragment) && fragment[i] != ',' {
			continue
		}
		name, err := fragmentName(fragment, start, i, len(names))
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		start = i + 1
	}
	return d.Select(names...), nil
}

// fragmentName decodes the name fragment[lo:hi], element index of the list.
func fragmentName(fragment string, lo, hi, index int) (string, error) {
	raw := fragment[lo:hi]
	name := mapping.Unescape(raw)
	if bad := invalidUTF8(name); bad >= 0 {
		off := lo + rawOffset(raw, bad)
		return "", newError(KindBadUTF8, fragment, off, index,
			"invalid UTF-8 at offset %d, in name %d of the fragment identifier", off, index)
	}
	return name, nil
}

// Select returns the pairs of d whose name is one of names, in their
// original order; nil when there are none. It is Filter for names that
// are already decoded.
func (d DataSet) Select(names ...string) DataSet {
	var want func(string) bool
	if len(names) < selectMapMin {
		want = func(name string) bool {
			for _, n := range names {
				if n == name {
					return true
				}
			}
			return false
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
// one or more names that are valid UTF-8, Filter(EncodeFragment(names...))
// equals Select(names...). With no names the result is "", which Filter
// reads as the one empty name: no fragment selects nothing.
func EncodeFragment(names ...string) string {
	n := max(len(names)-1, 0)
	for _, name := range names {
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
	return b.String()
}
