package mailhdr

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzKeepsStructure: keepsStructure's shortcut, which takes a single part
// of a subtype other than uri. to stay one without mapping it back, gives
// what mapping back gives, going to URI labels and to canonical form
// (SPEC K2, K3, N2); and a field keeps its structure exactly when mapping
// its rewritten form back reads like the original.
func FuzzKeepsStructure(f *testing.F) {
	for _, in := range mappingVectorInputs(f) {
		f.Add(in)
	}
	f.Add(`message/uri.ContentType%3Amessage%2Frfc822`)
	f.Add(`text/plain; URI-body="ContentType:multipart/mixed"; boundary=b`)
	f.Fuzz(func(t *testing.T, ct string) {
		before, err := structureOf(ct)
		if err != nil {
			return
		}
		for _, to := range []Target{ToURI, Canonical} {
			fr := newFieldRewriter(&Options{To: to})
			var mapped string
			if to == ToURI {
				mapped, err = mapping.ToURI(ct, mapping.Lenient)
			} else {
				mapped, err = mapping.Canonical(ct, mapping.Lenient)
			}
			if err != nil {
				continue
			}
			after := fr.structureOfOutput(mapped)
			require.True(t, after.known, "%s maps to %q, which does not map back", ct, mapped)
			assert.Equal(t, before.readsLike(after), fr.keepsStructure(before, mapped), "%s: %q", ct, mapped)
		}
	})
}

// mappingVectorInputs returns the inputs of package mapping's test
// vectors that are Content-Types.
func mappingVectorInputs(t testing.TB) []string {
	t.Helper()
	file, err := os.Open("../mapping/testdata/vectors.tsv")
	require.NoError(t, err)
	defer file.Close()
	var ins []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) > 1 && cols[0] == "ct2uri" {
			ins = append(ins, cols[1])
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, ins)
	return ins
}
