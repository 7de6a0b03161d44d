package urlencoded

import (
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValues(t *testing.T) {
	d := DataSet{def("b", "1"), undef("a"), def("b", "2"), def("a", ""), def("c", "x")}
	v := d.Values()
	assert.Equal(t, url.Values{"a": {"", ""}, "b": {"1", "2"}, "c": {"x"}}, v)
	// What url.ParseQuery makes of the legacy encoding is the same map.
	parsed, err := url.ParseQuery(must(t)(d.EncodeLegacy()))
	require.NoError(t, err)
	assert.Equal(t, parsed, v)
	empty, err := url.ParseQuery("")
	require.NoError(t, err)
	assert.Equal(t, empty, DataSet(nil).Values(), "an empty, non-nil map, as url.ParseQuery gives")
	assert.NotNil(t, DataSet(nil).Values())
}

func TestFromValues(t *testing.T) {
	v := url.Values{"z": {"1", "2"}, "a": {"x"}, "empty": {}, "B": {""}}
	d := FromValues(v)
	assert.Equal(t, DataSet{def("B", ""), def("a", "x"), def("z", "1"), def("z", "2")}, d)
	// Same order as url.Values.Encode, so the legacy encodings agree.
	assert.Equal(t, v.Encode(), must(t)(d.EncodeLegacy()))
	assert.Equal(t, url.Values{"z": {"1", "2"}, "a": {"x"}, "B": {""}}, d.Values())
	assert.Nil(t, FromValues(nil))
	assert.Nil(t, FromValues(url.Values{"a": nil}))
}

func TestValidate(t *testing.T) {
	assert.NoError(t, DataSet(nil).Validate())
	assert.NoError(t, DataSet{undef(""), undef("")}.Validate())
	assert.NoError(t, DataSet{def("", "")}.Validate())

	err := DataSet{undef("")}.Validate()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindUnencodable, e.Kind)
	assert.True(t, errors.Is(err, ErrUnencodable))

	err = DataSet{def("ok", "fine"), def("ok", "b\xC3(")}.Validate()
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindBadUTF8, e.Kind)
	assert.Equal(t, "b\xC3(", e.Input)
	assert.Equal(t, 1, e.Offset)
	assert.Equal(t, 1, e.Index)
	assert.Contains(t, err.Error(), "value of pair 1")

	// A valid U+FFFD is a character, not the invalid octet.
	err = DataSet{def("r", "\uFFFD\xff")}.Validate()
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 3, e.Offset)

	err = DataSet{def("\xed\xa0\x80", "")}.Validate()
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 0, e.Offset)
	assert.Contains(t, err.Error(), "name of pair 0")
}

// TestUndefinedWithValue: a pair that is undefined but has a value cannot be
// encoded without losing the value, so every encoder refuses it rather
// than drop it; Values treats it as undefined.
func TestUndefinedWithValue(t *testing.T) {
	d := DataSet{def("a", "1"), Pair{Name: "x", Value: "junk"}}
	for name, encode := range map[string]func() (string, error){
		"Validate":     func() (string, error) { return "", d.Validate() },
		"Encode":       d.Encode,
		"EncodeURI":    d.EncodeURI,
		"EncodeLegacy": d.EncodeLegacy,
	} {
		s, err := encode()
		var e *Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, KindUnencodable, e.Kind, name)
		assert.Equal(t, 1, e.Index, name)
		assert.Equal(t, "junk", e.Input, name)
		assert.Empty(t, s, name)
		assert.Contains(t, err.Error(), "pair 1 is undefined", name)
	}
	assert.Equal(t, url.Values{"a": {"1"}, "x": {""}}, d.Values())

	// Alone and nameless, it is still the value that is at fault.
	err := DataSet{{Value: "x"}}.Validate()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, KindUnencodable, e.Kind)
	assert.Equal(t, "x", e.Input)
}

func TestLookup(t *testing.T) {
	d := DataSet{undef("a"), def("b", "1"), def("a", "2")}
	p, ok := d.Lookup("a")
	assert.True(t, ok)
	assert.Equal(t, undef("a"), p)
	p, ok = d.Lookup("b")
	assert.True(t, ok)
	assert.Equal(t, "1", p.Value)
	_, ok = d.Lookup("A")
	assert.False(t, ok, "names are case-sensitive")
}
