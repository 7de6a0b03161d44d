package mapping

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		label string
		want  Direction
	}{
		{"text/plain", DirectionToURI},
		{"  http://x", DirectionToContentType},
		{"ContentType:image/jpeg", DirectionToContentType},
		{"x-FOO?bar/biZZare#sUb#tYpe", DirectionToURI},
		{"Content-Type: text/plain", DirectionToContentType}, // a scheme: the CT direction would say syntax anyway
		{"1abc:x", DirectionToURI},                           // not a scheme: starts with a digit
		{"a+b-c.d:e", DirectionToContentType},
		{"", DirectionToURI},
		{"text/x:y", DirectionToURI}, // '/' before ':'
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Detect(tt.label), "%q", tt.label)
	}
	assert.Equal(t, "to-uri", DirectionToURI.String())
	assert.Equal(t, "to-ct", DirectionToContentType.String())
	assert.Equal(t, "Direction(0)", Direction(0).String())
}

func TestMap(t *testing.T) {
	out, dir, err := Map("image/JPEG")
	require.NoError(t, err)
	assert.Equal(t, DirectionToURI, dir)
	assert.Equal(t, "ContentType:image/jpeg", out)

	out, dir, err = Map("ContentType:image/jpeg")
	require.NoError(t, err)
	assert.Equal(t, DirectionToContentType, dir)
	assert.Equal(t, "image/jpeg", out)

	_, dir, err = Map("http://x?MIME-type=a/b", NoControlled)
	assert.Equal(t, DirectionToContentType, dir)
	assert.ErrorIs(t, err, ErrReservedParam)
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Text/Plain; charset=us-ascii (comment)", `text/plain; charset="us-ascii"`},
		{"ContentType:text/plain?charset=%22us-ascii%22", `text/plain; charset="us-ascii"`},
		{"application/uri.ContentType%3Atext%2Fplain", "text/plain"},
		{"http://example.com/tag42", "application/uri.http%3A%2F%2Fexample.com%2Ftag42"},
		{"application/uri.HTTP%3a%2f%2fexample.com%2Ftag42", "application/uri.http%3A%2F%2Fexample.com%2Ftag42"},
		{`application/xml; URI-body="http://xml.example/foo"`, `application/xml; URI-body="http%3A%2F%2Fxml.example%2Ffoo"`},
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		again, err := Canonical(got)
		require.NoError(t, err)
		assert.Equal(t, got, again, "Canonical is idempotent")
	}
	_, err := Canonical(`application/xml; URI-body="http://x"`, NoControlled)
	assert.ErrorIs(t, err, ErrReservedParam)
	_, err = Canonical("text/plain; a=\"\r\"")
	assert.ErrorIs(t, err, ErrCTL)
}

// TestCanonicalIdempotentOnVectors holds Canonical to its doc comment on
// every vector input and option: a result is a canonical Content-Type, and
// Canonical of it is itself (SPEC N4).
func TestCanonicalIdempotentOnVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		for _, o := range []Option{0, StrictURI, Lenient, NoControlled} {
			got, err := Canonical(v.input, o)
			if err != nil {
				continue
			}
			checkCTOutput(t, got)
			again, err := Canonical(got, o)
			require.NoError(t, err, "Canonical(%q, %d) = %q", v.input, o, got)
			assert.Equal(t, got, again, "Canonical(%q, %d) is not idempotent", v.input, o)
		}
	}
}
