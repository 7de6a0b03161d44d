package urlencoded

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilter(t *testing.T) {
	d := DataSet{def("a", "1"), undef("b"), def("a", "2"), def("", "3"), undef("d,"), undef("f"), def("a+b", "x"), def("a b", "y"), def("(", "p")}
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
	}
	for _, tt := range tests {
		got, err := d.Filter(tt.fragment)
		require.NoError(t, err, tt.fragment)
		assert.Equal(t, tt.want, got, "Filter(%q)", tt.fragment)
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
	s := EncodeFragment(names...)
	assert.Equal(t, "a%2Cb,%28x%29,50%25,a%20b,a+b,ö,%EE%80%80,%23,&=;", s)
	d := DataSet{}
	for _, n := range append(names, "other") {
		d = append(d, def(n, "v"))
	}
	got, err := d.Filter(s)
	require.NoError(t, err)
	assert.Equal(t, d.Select(names...), got)
	assert.Len(t, got, len(names))
	assert.Equal(t, "", EncodeFragment())
	assert.Equal(t, "e,,a,d%2C", EncodeFragment("e", "", "a", "d,"))
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
		for _, n := range names {
			if p.Name == n {
				want = append(want, p)
				break
			}
		}
	}
	assert.Equal(t, want, d.Select(names...))
	assert.Nil(t, d.Select("none"))
}
