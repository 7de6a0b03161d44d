// Package vectors reads the mapping's test vectors, a TSV file whose
// columns are direction, input, expected, section and note, for the tests
// of every package: mapping/testdata/vectors.tsv, and the copy in
// middleware/testdata.
package vectors

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// header is the file's first line.
const header = "direction\tinput\texpected\tsection\tnote"

// Vector is one row of the file.
type Vector struct {
	Line      int    // in the file; the header is line 1
	Direction string // ct2uri, uri2ct, ct2uri-strict (StrictURI) or ct2uri-lenient (Lenient)
	Input     string
	Expected  string // the result, or ERROR:<kind>
	Section   string // of the draft or SPEC
	Note      string
}

// Load reads the vectors file at path, relative to the test's package
// folder, and fails t if it cannot be read, has no vectors, or has a
// header or a row other than the five columns.
func Load(t testing.TB, path string) []Vector {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var vs []Vector
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			require.Equal(t, header, sc.Text(), "%s: header row", path)
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		require.Len(t, cols, 5, "%s: line %d", path, n)
		vs = append(vs, Vector{n, cols[0], cols[1], cols[2], cols[3], cols[4]})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, vs, "%s: no vectors", path)
	return vs
}
