package mailhdr

import (
	"testing"

	"github.com/cturi/cturi/internal/vectors"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzKeepsStructure: the shortcut of keepsStructure holds: a single
// part that staysSinglePart says stays one does, rewritten to a URI label
// or to canonical form under every combination of options (SPEC K2, K3:
// the mapping keeps type and subtype), every Content-Type that is
// rewritten parses, and every rewritten value maps back to a Content-Type
// that parses. (Whether the rewrite as a whole keeps the structure,
// FuzzMailRewrite in package integration checks from the outside.)
func FuzzKeepsStructure(f *testing.F) {
	for _, in := range mappingVectorInputs(f) {
		f.Add(in)
	}
	f.Add(`message/uri.ContentType%3Amessage%2Frfc822`)
	f.Add(`text/plain; URI-body="ContentType:multipart/mixed"; boundary=b`)
	f.Add(`text/plain; charset=us-ascii(Plain text)`)
	f.Fuzz(func(t *testing.T, ct string) {
		before, beforeErr := structureOf(ct)
		for _, to := range []Target{ToURI, Canonical} {
			for opt := range 8 {
				o := Options{To: to, StrictParsing: opt&1 != 0, StrictURI: opt&2 != 0, NoControlled: opt&4 != 0}
				fr := newFieldRewriter(&o)
				var mapped string
				var err error
				if to == ToURI {
					mapped, err = mapping.ToURI(ct, fr.opts...)
				} else {
					mapped, err = mapping.Canonical(ct, fr.opts...)
				}
				if err != nil {
					continue
				}
				if mapping.Detect(ct) == mapping.DirectionToURI { // keepsStructure's values: Content-Types
					require.NoError(t, beforeErr, "%s maps to %q (%+v), but its structure is not read", ct, mapped, o)
				}
				after := fr.structureOfOutput(mapped)
				require.True(t, after.known, "%s maps to %q (%+v), which does not map back", ct, mapped, o)
				if staysSinglePart(before) {
					assert.Equal(t, bodyReading{}, after.reading(), "%s maps to %q (%+v)", ct, mapped, o)
				}
			}
		}
	})
}

// mappingVectorInputs returns the inputs of package mapping's test
// vectors that are Content-Types.
func mappingVectorInputs(t testing.TB) []string {
	t.Helper()
	var ins []string
	for _, v := range vectors.Load(t, "../mapping/testdata/vectors.tsv") {
		if v.Direction == "ct2uri" {
			ins = append(ins, v.Input)
		}
	}
	require.NotEmpty(t, ins)
	return ins
}
