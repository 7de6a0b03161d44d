package urlencoded

import (
	"maps"
	"net/url"
	"slices"
)

// Pair is one (name, value) pair of a data set. A value is either a string
// (Defined) or undefined: "name" without '=' decodes to an undefined value,
// "name=" to the empty one (§3).
type Pair struct {
	Name    string
	Value   string
	Defined bool
}

// DataSet is an ordered list of pairs; order and duplicate names are
// significant and kept (§7).
type DataSet []Pair

// Get returns the value of the first pair named name, and whether that
// pair exists and has a defined value. Names are compared exactly (§7).
func (d DataSet) Get(name string) (value string, ok bool) {
	for _, p := range d {
		if p.Name == name {
			return p.Value, p.Defined
		}
	}
	return "", false
}

// Values converts d to a url.Values. The map keeps the values of each name
// in order but loses the order of the names, which pairs had undefined
// values (they become ""), and so the difference between "a" and "a=".
func (d DataSet) Values() url.Values {
	v := make(url.Values, len(d))
	for _, p := range d {
		v[p.Name] = append(v[p.Name], p.Value)
	}
	return v
}

// FromValues converts v to a data set: names in sorted order (a map has no
// order of its own), each name's values in their order, all defined.
func FromValues(v url.Values) DataSet {
	var d DataSet
	for _, name := range slices.Sorted(maps.Keys(v)) {
		for _, value := range v[name] {
			d = append(d, Pair{Name: name, Value: value, Defined: true})
		}
	}
	return d
}
