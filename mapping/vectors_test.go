package mapping

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vector is one row of testdata/vectors.tsv (a copy of the project's
// shared vectors: direction, input, expected, section, note).
type vector struct {
	line            int
	direction       string
	input, expected string
	section, note   string
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open("testdata/vectors.tsv")
	require.NoError(t, err)
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			require.Equal(t, "direction\tinput\texpected\tsection\tnote", sc.Text(), "header row")
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		require.Len(t, cols, 5, "line %d", n)
		vs = append(vs, vector{n, cols[0], cols[1], cols[2], cols[3], cols[4]})
	}
	require.NoError(t, sc.Err())
	return vs
}

// apply runs a vector's direction and renders the result as the file does.
func (v vector) apply() string {
	return v.applyWith(ToURI, ToContentType)
}

// applyGeneral is apply without the direct paths (direct.go).
func (v vector) applyGeneral() string {
	toURI := func(s string, opts ...Option) (string, error) { return toURIGeneral(nil, s, optionsOf(opts), 0) }
	toCT := func(s string, opts ...Option) (string, error) {
		return toContentTypeGeneral(nil, s, optionsOf(opts), 0)
	}
	return v.applyWith(toURI, toCT)
}

func (v vector) applyWith(toURI, toCT func(string, ...Option) (string, error)) string {
	var out string
	var err error
	switch v.direction {
	case "ct2uri":
		out, err = toURI(v.input)
	case "ct2uri-strict":
		out, err = toURI(v.input, StrictURI)
	case "ct2uri-lenient":
		out, err = toURI(v.input, Lenient)
	case "uri2ct":
		out, err = toCT(v.input)
	default:
		return "unknown direction " + v.direction
	}
	if err != nil {
		return "ERROR:" + KindOf(err).String()
	}
	return out
}

func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	require.Greater(t, len(vs), 200, "the vector file should hold the whole shared set")
	for _, v := range vs {
		t.Run(v.direction+"/"+v.input, func(t *testing.T) {
			assert.Equal(t, v.expected, v.apply(), "line %d, §%s: %s", v.line, v.section, v.note)
			assert.Equal(t, v.expected, v.applyGeneral(), "general path, line %d", v.line)
		})
	}
}
