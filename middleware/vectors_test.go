package middleware

import (
	"testing"

	"github.com/cturi/cturi/internal/vectors"
)

// vectorInputs returns the input column of testdata/vectors.tsv, a copy of
// the SPEC's test vectors.
func vectorInputs(t testing.TB) []string {
	t.Helper()
	var ins []string
	for _, v := range vectors.Load(t, "testdata/vectors.tsv") {
		ins = append(ins, v.Input)
	}
	return ins
}
