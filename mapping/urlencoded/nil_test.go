package urlencoded

import (
	"net/url"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The nil DataSet is the empty data set for every method: it encodes as
// "" in each format, selects nothing, validates, and is an empty
// url.Values.
func TestNilDataSet(t *testing.T) {
	var d DataSet
	for name, enc := range map[string]func() (string, error){
		"Encode": d.Encode, "EncodeURI": d.EncodeURI, "EncodeLegacy": d.EncodeLegacy,
	} {
		s, err := enc()
		assert.NoError(t, err, name)
		assert.Empty(t, s, name)
	}
	for _, fragment := range []string{"", "a", "a,b"} {
		sel, err := d.Filter(fragment)
		assert.NoError(t, err, fragment)
		assert.Nil(t, sel, fragment)
	}
	_, err := d.Filter("(")
	assert.ErrorIs(t, err, ErrReservedFragment, "the fragment is checked, data set or not")
	p, ok := d.Lookup("")
	assert.False(t, ok)
	assert.Equal(t, Pair{}, p)
	assert.Nil(t, d.Select())
	assert.Nil(t, d.Select(""))
	assert.NoError(t, d.Validate())
	assert.Equal(t, url.Values{}, d.Values())
}

// Zero and empty arguments: the zero Decoder is Decode's, the empty input
// decodes as the nil data set in both formats, a nil or empty url.Values
// (or a name with no values) gives no pairs, no names give the empty
// fragment, and nil text escapes to "" with either Treatment, while the
// zero Treatment is a KindBadArgument error, as any undefined one.
func TestZeroArguments(t *testing.T) {
	for name, dec := range map[string]func(string) (DataSet, error){
		"Decode": Decode, "DecodeLegacy": DecodeLegacy,
		"Decoder{}.Decode": Decoder{}.Decode, "Decoder{}.DecodeLegacy": Decoder{}.DecodeLegacy,
		"MaxPairs -1": Decoder{MaxPairs: -1}.Decode, "MaxPairs 1": Decoder{MaxPairs: 1}.Decode,
	} {
		d, err := dec("")
		assert.NoError(t, err, name)
		assert.Nil(t, d, name)
	}
	// An unusable LegacyCharset is refused even for an empty form.
	_, err := Decoder{LegacyCharset: "no-such-charset"}.DecodeLegacy("")
	assert.ErrorIs(t, err, ErrUnknownCharset)

	for _, v := range []url.Values{nil, {}, {"a": nil}, {"a": {}}} {
		assert.Nil(t, FromValues(v), "%#v", v)
	}

	s, err := EncodeFragment()
	assert.NoError(t, err)
	assert.Empty(t, s)
	s, err = EncodeFragment(nil...)
	assert.NoError(t, err)
	assert.Empty(t, s)

	for _, how := range []Treatment{Opaque, DecodeFirst} {
		for _, charset := range []string{"", "windows-1252"} {
			s, err := EscapeCharset(nil, charset, how, mapping.ByteSet{})
			assert.NoError(t, err, "%v %q", how, charset)
			assert.Empty(t, s)
		}
	}
	_, err = EscapeCharset(nil, "", Treatment(0), mapping.ByteSet{})
	e, ok := err.(*Error)
	require.True(t, ok, "%T", err)
	assert.Equal(t, KindBadArgument, e.Kind)
	assert.Equal(t, "Treatment(0)", Treatment(0).String())
	assert.Equal(t, "Kind(0)", Kind(0).String())
	assert.EqualError(t, &Error{}, "urlencoded: Kind(0) at offset 0")
}
