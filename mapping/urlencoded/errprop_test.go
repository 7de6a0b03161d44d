package urlencoded

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The precision of errors, for the fuzz targets: an error's offset is in
// its Input and points at what its kind names, Index is the pair (or
// fragment name) that holds the offset, and the message names both and
// prints.

// octetAt returns the octet at offset i of s, or the one a %HH triplet
// there stands for.
func octetAt(s string, i int) byte {
	if isTriplet(s, i) {
		return hexValue[s[i+1]]<<4 | hexValue[s[i+2]]
	}
	return s[i]
}

// itemIndex returns the index of the item of s that offset off is in,
// items being separated by an octet of seps; with skipEmpty, empty items
// are not counted (DecodeLegacy).
func itemIndex(s string, off int, seps string, skipEmpty bool) int {
	n, start := 0, 0
	for i := range off {
		if strings.IndexByte(seps, s[i]) >= 0 {
			if !skipEmpty || i > start {
				n++
			}
			start = i + 1
		}
	}
	return n
}

// checkError asserts what an error of a decoder (seps "&;" for Decode,
// "&" for DecodeLegacy) or of Filter (",") must satisfy; in is the
// caller's input.
func checkError(t testing.TB, in string, err error, seps string, skipEmpty bool) {
	t.Helper()
	e, ok := errors.AsType[*Error](err)
	require.True(t, ok, "%T: %v", err, err)
	require.Equal(t, in, e.Input)
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, "urlencoded: "), msg)
	require.False(t, strings.ContainsFunc(msg, func(r rune) bool { return !strconv.IsPrint(r) }), "message %q does not print", msg)
	require.Contains(t, msg, " offset "+strconv.Itoa(e.Offset), "%q", in)
	require.True(t, e.Offset >= 0 && e.Offset <= len(in), "offset %d of %d", e.Offset, len(in))
	require.Equal(t, itemIndex(in, e.Offset, seps, skipEmpty), e.Index, "%q: %v", in, err)
	switch e.Kind {
	case KindBadUTF8:
		require.Less(t, e.Offset, len(in))
		require.GreaterOrEqual(t, octetAt(in, e.Offset), byte(0x80), "%q: %v", in, err)
	case KindReservedFragment:
		require.Contains(t, "()", string(in[e.Offset]), "%q: %v", in, err)
	case KindUndecodable:
		require.Less(t, e.Offset, len(in))
	}
}
