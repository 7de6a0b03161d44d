package urlencoded

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilter(t *testing.T) {
	d := DataSet{def("a", "1"), undef("b"), def("a", "2"), def("", "3"), undef("d,"), undef("f"), def("a+b", "x"), def("a b", "y"), def("(", "p"), def("%4", "t")}
	tests := []struct {
		fragment string
		want     DataSet
	}{
		{"e,,a,%64%2C", DataSet{def("a", "1"), def("a", "2"), def("", "3"), undef("d,")}}, // §6
		{"a,e,,d%2c", DataSet{def("a", "1"), def("a", "2"), def("", "3"), undef("d,")}},   // order of names does not matter
		{"f,f,b", DataSet{undef("b"), undef("f")}},
		{"a+b", DataSet{def("a+b", "x")}}, // '+' is not a space in a fragment
		{"a%20b", DataSet{def("a b", "y")}},
		{"%28", DataSet{def("(", "p")}}, // an escaped parenthesis is a name
		{"", DataSet{def("", "3")}},
		{"nothing", nil},
		{"%4", DataSet{def("%4", "t")}}, // a '%' two octets from the end starts no triplet
	}
	for _, tt := range tests {
		got, err := d.Filter(tt.fragment)
		require.NoError(t, err, tt.fragment)
		assert.Equal(t, tt.want, got, "Filter(%q)", tt.fragment)
	}
}

// TestFilterIndex: a small data set or a short list (pairs compared one by
// one) and a large data set with a long list (looked up through
// pairIndex's map and chains, from the ninth name on) select the same.
func TestFilterIndex(t *testing.T) {
	small := DataSet{def("a", "1"), undef("b"), def("a", "2"), def("", "3")}
	require.Less(t, len(small), selectMapMin)
	large := append(DataSet{}, small...)
	for i := range 3 * selectMapMin {
		large = append(large, def(fmt.Sprint("n", i%5), fmt.Sprint(i)), def("a", fmt.Sprint(i)))
	}
	for _, d := range []DataSet{small, large} {
		for _, tt := range []struct {
			fragment string
			names    []string
		}{
			{"a", []string{"a"}},
			{"a,a,b", []string{"a", "b"}},
			{"n3,,a,n3", []string{"n3", "", "a"}},
			{"n%34,zz", []string{"n4", "zz"}},
			{"zz", nil},
			{"zz,y,x,w,v,u,t,s,n1,a,n1,n%32,,zz", []string{"n1", "a", "n2", ""}},
			{"z1,z2,z3,z4,z5,z6,z7,z8,z9", nil},
		} {
			got, err := d.Filter(tt.fragment)
			require.NoError(t, err)
			assert.Equal(t, d.Select(tt.names...), got, "Filter(%q) of %d pairs", tt.fragment, len(d))
		}
	}
}

// TestFilterMemory: the fragment is untrusted; however many names it
// lists, Filter's memory is bounded by the data set.
func TestFilterMemory(t *testing.T) {
	d := DataSet{def("a", "1"), def("b", "2"), def("c", "3")}
	for _, size := range []int{10, 100_000} {
		var sb strings.Builder
		for i := range size {
			fmt.Fprintf(&sb, "name%%20%d,", i)
		}
		sb.WriteString("b")
		fragment := sb.String()
		allocs := testing.AllocsPerRun(5, func() {
			got, err := d.Filter(fragment)
			require.NoError(t, err)
			require.Equal(t, DataSet{def("b", "2")}, got)
		})
		assert.LessOrEqual(t, allocs, 6.0, "%d names", size+1)
	}
}

// TestFilterRepeatedNames: a name the fragment lists many times marks its
// pairs once; memory stays bounded by the data set however often a name
// repeats, also once the lookups go through pairIndex's map.
func TestFilterRepeatedNames(t *testing.T) {
	const pairs, repeats = 1000, 2000
	d := make(DataSet, 0, pairs+1)
	for i := range pairs {
		d = append(d, def("a", fmt.Sprint(i)))
	}
	d = append(d, def("b", "x"))
	for _, fragment := range []string{
		strings.Repeat("a,", repeats) + "zz",
		"z1,z2,z3,z4,z5,z6,z7,z8,z9," + strings.Repeat("a,", repeats) + "b",
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := d.Filter(fragment)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		want := d[:pairs]
		if strings.HasSuffix(fragment, "b") {
			want = d
		}
		assert.Equal(t, want, got)
		// The result and the marks take about 41 bytes a pair; a
		// quadratic count of marks would ask for ~80 MB.
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated by Filter")
	}
}

func TestFilterErrors(t *testing.T) {
	d := DataSet{def("a", "1")}
	for _, tt := range []struct {
		fragment      string
		kind          Kind
		offset, index int
	}{
		{"value-of(a)", KindReservedFragment, 8, -1},
		{"a,b)", KindReservedFragment, 3, -1},
		{"a,%FF", KindBadUTF8, 2, 1},
		{"a,b,c%C3%B6%C3", KindBadUTF8, 11, 2},
		{"\xC3", KindBadUTF8, 0, 0},
	} {
		got, err := d.Filter(tt.fragment)
		assert.Nil(t, got)
		var e *Error
		require.ErrorAs(t, err, &e, tt.fragment)
		assert.Equal(t, tt.kind, e.Kind, tt.fragment)
		assert.Equal(t, tt.offset, e.Offset, tt.fragment)
		assert.Equal(t, tt.index, e.Index, tt.fragment)
		assert.Equal(t, tt.fragment, e.Input)
	}
	_, err := d.Filter("(")
	assert.ErrorIs(t, err, ErrReservedFragment)
}

func TestEncodeFragment(t *testing.T) {
	names := []string{"a,b", "(x)", "50%", "a b", "a+b", "ö", "\uE000", "#", "&=;"}
	s, err := EncodeFragment(names...)
	require.NoError(t, err)
	assert.Equal(t, "a%2Cb,%28x%29,50%25,a%20b,a+b,ö,%EE%80%80,%23,&=;", s)
	d := DataSet{}
	for _, n := range append(names, "other") {
		d = append(d, def(n, "v"))
	}
	got, err := d.Filter(s)
	require.NoError(t, err)
	assert.Equal(t, d.Select(names...), got)
	assert.Len(t, got, len(names))
	assert.Equal(t, "", must(t)(EncodeFragment()))
	assert.Equal(t, "e,,a,d%2C", must(t)(EncodeFragment("e", "", "a", "d,")))

	// A name that is not UTF-8 has no fragment Filter would accept.
	s, err = EncodeFragment("a", "b\xC3(")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindBadUTF8, e.Kind)
	assert.Equal(t, "b\xC3(", e.Input)
	assert.Equal(t, 1, e.Offset)
	assert.Equal(t, 1, e.Index)
	assert.Empty(t, s)
}

// TestSelectMap: the map lookup for many names selects what the loop does.
func TestSelectMap(t *testing.T) {
	var d DataSet
	var names []string
	for i := range 40 {
		d = append(d, def(fmt.Sprint(i%13), fmt.Sprint(i)))
		if i%3 == 0 {
			names = append(names, fmt.Sprint(i%13))
		}
	}
	require.GreaterOrEqual(t, len(names), selectMapMin)
	var want DataSet
	for _, p := range d {
		if slices.Contains(names, p.Name) {
			want = append(want, p)
		}
	}
	assert.Equal(t, want, d.Select(names...))
	assert.Nil(t, d.Select("none"))
}
