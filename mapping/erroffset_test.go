package mapping

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodedAuthorityOffset: a malformed authority in the URI a uri.
// subtype or a URI-body wraps (K0, Beyond SPEC) is reported at the octet
// that makes it malformed, as ToContentType reports one in a URI, not at
// the start of the wrapped URI: past the triplets before it, the octets
// REPAIR encodes before it, and the quoted-pairs of a URI-body.
func TestDecodedAuthorityOffset(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		offset int
		at     string // the input from the offset on
		msg    string
	}{
		{"a port after triplets", "application/uri.a%3A%2F%2Fh%3Ax", 30, "x", "expected a port of digits at offset 30"},
		{"a port after an empty host", "application/uri.a%3A%2F%2F%3Ax", 29, "x", "expected a port of digits at offset 29"},
		{"a port after an octet REPAIR encodes", "application/uri.a%3A%2F%2Fu%20v%40h%3Ax", 38, "x", "expected a port of digits at offset 38"},
		{"an ASCII escape in the host, at its '%'", "application/uri.a%3A%2F%2F%2541", 26, "%2541", "expected a host (percent-encoding only for UTF-8 octets) at offset 26"},
		{"an IPv6 literal, at its '['", "text/plain; URI-body=\"http://[x]/\"", 29, "[x]/\"", "expected an IPv6 literal at offset 29"},
		{"a port in a quoted URI-body, at the quoted-pair", `text/plain; URI-body="a://h:\x"`, 28, `\x"`, "expected a port of digits at offset 28"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ToURI(tt.in)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, KindInvalidURI, e.Kind, "%v", err)
			assert.Equal(t, tt.in, e.Input)
			require.Equal(t, tt.offset, e.Offset, "%v", err)
			assert.Equal(t, tt.at, tt.in[e.Offset:])
			assert.Contains(t, err.Error(), "malformed authority")
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
	// The same authority in a URI is reported at the same octet of it.
	for _, u := range []string{"a://h:x", "a://:x", "a://u%20v@h:x"} {
		_, err := ToContentType(u)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, len(u)-1, e.Offset, u)
		assert.Contains(t, err.Error(), fmt.Sprintf("expected a port of digits at offset %d", len(u)-1))
	}
}

// TestCollapseErrorNamesItsLabel: an error raised while collapsing a
// wrapped label (K6, R3) has its offset in that label (Input), not in the
// caller's, so its message says which label that is; a message about the
// caller's own label does not. Map and Canonical give the same error.
func TestCollapseErrorNamesItsLabel(t *testing.T) {
	tests := []struct {
		name   string
		toURI  bool // else ToContentType
		in     string
		input  string // the *Error's Input
		offset int
	}{
		{"K6: the wrapped URI maps to a CT with a CR", true, `application/uri.ContentType%3Atext%2Fplain; k="%250D"`, `ContentType:text/plain?k="%0D"`, 26},
		{"K6: a C1 control", true, `application/uri.ContentType%3Atext%2Fplain; a="%C2%85"`, `ContentType:text/plain?a="%C2%85"`, 26},
		{"K6: ContentType:// is reserved", true, "application/uri.ContentType%3A%2F%2Fx", "ContentType://x", 12},
		{"R3: the wrapped CT has a MIME-type parameter", false, "ContentType:application/uri.x%253Ay?MIME-type=a", `application/uri.x%3Ay; MIME-type="a"`, 23},
		{"R3: a C1 control", false, "ContentType:application/uri.ContentType%253Atext%252Fplain?a=%25C2%2585", `ContentType:text/plain?a="%C2%85"`, 26},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			note := " (the offset is in " + quoteClip(tt.input) + ", the wrapped label being mapped)"
			err := mapOneWay(tt.toURI, tt.in)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.input, e.Input)
			assert.Equal(t, tt.offset, e.Offset)
			assert.Contains(t, err.Error(), fmt.Sprintf(" at offset %d", tt.offset))
			assert.True(t, strings.HasSuffix(err.Error(), note), "%v", err)
			assert.Equal(t, 1, strings.Count(err.Error(), "the wrapped label"), "noted once: %v", err)
			_, _, merr := Map(tt.in)
			assert.Equal(t, err, merr, "Map")
			_, cerr := Canonical(tt.in)
			assert.Equal(t, err, cerr, "Canonical")
		})
	}
	// An error in the caller's own label, before or without a collapse.
	for _, in := range []string{`application/uri.ContentType%3Atext%2Fplain; MIME-type="a/b"`, "ContentType:application/uri.foo?a=%01", "text/plain; a=\"\x01\""} {
		_, _, err := Map(in)
		require.Error(t, err, in)
		assert.NotContains(t, err.Error(), "wrapped label", in)
	}
}
