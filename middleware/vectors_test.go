package middleware

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// vectorInputs returns the input column of testdata/vectors.tsv, a copy of
// the SPEC's test vectors.
func vectorInputs(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/vectors.tsv")
	require.NoError(t, err)
	var ins []string
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if i == 0 {
			continue
		}
		f := strings.Split(line, "\t")
		require.GreaterOrEqual(t, len(f), 3, "line %d", i+1)
		ins = append(ins, f[1])
	}
	require.NotEmpty(t, ins)
	return ins
}
