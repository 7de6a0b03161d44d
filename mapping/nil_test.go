package mapping

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An empty label is refused by every mapping and parsing function with a
// typed error at offset 0 (after any white space), and the result is the zero value: "" is a
// Content-Type to Detect, so Map takes it for one.
func TestEmptyLabel(t *testing.T) {
	for _, tt := range []struct {
		name string
		call func() (any, error)
		zero any
		kind Kind
		off  int
	}{
		{"ToURI", func() (any, error) { return ToURI("") }, "", KindSyntax, 0},
		{"ToContentType", func() (any, error) { return ToContentType("") }, "", KindRelativeURI, 0},
		{"Canonical", func() (any, error) { return Canonical("") }, "", KindSyntax, 0},
		{"Map", func() (any, error) {
			s, d, err := Map("")
			assert.Equal(t, DirectionToURI, d)
			return s, err
		}, "", KindSyntax, 0},
		{"ParseContentType", func() (any, error) { return ParseContentType("") }, ContentType{}, KindSyntax, 0},
		{"ParseURI", func() (any, error) { return ParseURI("") }, URI{}, KindRelativeURI, 0},
		{"white space only", func() (any, error) { return ToURI(" \t") }, "", KindSyntax, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.call()
			e, ok := err.(*Error)
			require.True(t, ok, "%T %v", err, err)
			assert.Equal(t, tt.kind, e.Kind)
			assert.Equal(t, tt.off, e.Offset)
			assert.ErrorIs(t, err, sentinels[tt.kind])
			assert.Equal(t, tt.zero, got)
		})
	}
	assert.Equal(t, DirectionToURI, Detect(""))
}

// Option bits that no constant names change nothing: Option(0), a bit
// past NoControlled, and a nil option slice are no option.
func TestUnknownOptionBits(t *testing.T) {
	const ct = `text/plain; a=b; URI-body="x:y"`
	want, err := ToURI(ct)
	require.NoError(t, err)
	for _, opts := range [][]Option{nil, {0}, {1 << 7}, {NoControlled << 1}} {
		got, err := ToURI(ct, opts...)
		require.NoError(t, err, "%v", opts)
		assert.Equal(t, want, got, "%v", opts)
		got, err = ToContentType(want, opts...)
		require.NoError(t, err, "%v", opts)
		assert.Equal(t, "text/plain; a=\"b\"; URI-body=\"x%3Ay\"", got, "%v", opts)
	}
	all, err := ToURI(`text/plain; a=b`, Option(0xFF))
	require.NoError(t, err)
	assert.Equal(t, "ContentType:text/plain?a=%22b%22", all, "0xFF holds StrictURI, Lenient and NoControlled")
}

// The zero values of the package's types: an empty ByteSet, which
// encodes every octet; ContentType and URI values that String formats
// without validating (as documented), so that parsing the result back
// refuses it; an Error without a message.
func TestZeroValueTypes(t *testing.T) {
	var s ByteSet
	for c := range 256 {
		assert.False(t, s.Contains(byte(c)))
	}
	assert.Equal(t, "%61%25%FF", Escape("a%\xff", s))
	assert.Equal(t, "%61%25%FF", string(AppendEscape(nil, "a%\xff", s)))
	assert.Equal(t, "%61%25%7A", Repair("a%z", s))
	assert.False(t, s.Union(ByteSet{}).Contains('a'))
	assert.False(t, s.Without("a\xff").Contains('a'))
	assert.True(t, s.Union(NewByteSet("a")).Contains('a'))
	assert.Empty(t, Escape("", s))
	assert.Empty(t, Unescape(""))
	assert.Empty(t, AppendUnescape(nil, ""))
	assert.Empty(t, AppendRepair(nil, "", s))
	text, err := EscapeText("", s)
	assert.NoError(t, err)
	assert.Empty(t, text)

	assert.Equal(t, "/", ContentType{}.String())
	_, err = ParseContentType(ContentType{}.String())
	assert.ErrorIs(t, err, ErrSyntax)
	assert.Equal(t, ":", URI{}.String())
	assert.Equal(t, ":", URI{}.Format(StrictURI))
	_, err = ParseURI(URI{}.String())
	assert.ErrorIs(t, err, ErrRelativeURI)
	for _, p := range []func(string) (string, bool){ContentType{}.Param, URI{}.Param} {
		v, ok := p("")
		assert.False(t, ok)
		assert.Empty(t, v)
	}

	assert.Equal(t, "Direction(0)", Direction(0).String())
	assert.Equal(t, "Kind(0)", Kind(0).String())
	assert.EqualError(t, &Error{}, "mapping: Kind(0) at offset 0")
	assert.Equal(t, Kind(0), KindOf(&Error{}))
}
