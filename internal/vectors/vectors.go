// Package vectors reads the mapping's test vectors, a TSV file whose
// columns are direction, input, expected, section and note, for the tests
// of every package: mapping/testdata/vectors.tsv, and the copy in
// middleware/testdata; with Table, any such file with a header; and, with
// Names, the real-world media type names of mapping/testdata.
package vectors

import (
	"bufio"
	"os"
	"path/filepath"
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
	var vs []Vector
	for _, r := range Table(t, path, header) {
		vs = append(vs, Vector{r.Line, r.Cols[0], r.Cols[1], r.Cols[2], r.Cols[3], r.Cols[4]})
	}
	require.NotEmpty(t, vs, "%s: no vectors", path)
	return vs
}

// Row is one row of a TSV file Table reads.
type Row struct {
	Line int // in the file; the header is line 1
	Cols []string
}

// Table reads the TSV file at path, whose first line must be header,
// and returns the rows after it, each with as many tab-separated columns
// as header has; it fails t otherwise, or if the file cannot be read.
// It reads the shared vectors (Load) and urlencoded's form.tsv.
func Table(t testing.TB, path, header string) []Row {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	ncols := strings.Count(header, "\t") + 1
	var rows []Row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			require.Equal(t, header, sc.Text(), "%s: header row", path)
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		require.Len(t, cols, ncols, "%s: line %d", path, n)
		rows = append(rows, Row{n, cols})
	}
	require.NoError(t, sc.Err())
	return rows
}

// MediaTypeFiles are the real-world media type fixtures, from
// scripts/mediatypes.sh, relative to the module's root, each with the
// least number of names it must hold.
var MediaTypeFiles = []struct {
	Path string
	Min  int
}{
	{"mapping/testdata/mime-db-types.txt", 2500},
	{"mapping/testdata/media-types.txt", 350},
}

// MediaTypeNames reads every file of MediaTypeFiles with Names and returns
// their names in order; root is the module's root relative to the test's
// package folder ("..", "../..").
func MediaTypeNames(t testing.TB, root string) []string {
	t.Helper()
	var names []string
	for _, f := range MediaTypeFiles {
		names = append(names, Names(t, filepath.Join(root, f.Path), f.Min)...)
	}
	return names
}

// Names reads a file of media type names, one per line, such as
// mapping/testdata/mime-db-types.txt and media-types.txt (from
// scripts/mediatypes.sh), skipping empty lines and those that start with
// '#', and returns the names in order. It fails t if the file cannot be
// read, holds a name twice, or holds fewer than min names: a fixture cut
// short fails rather than passes.
func Names(t testing.TB, path string, min int) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var names []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		s := sc.Text()
		if s == "" || s[0] == '#' {
			continue
		}
		require.False(t, seen[s], "%s:%d: %q twice", path, n, s)
		seen[s] = true
		names = append(names, s)
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, len(names), min, "%s is cut short", path)
	return names
}
