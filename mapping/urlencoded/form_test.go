package urlencoded

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// formRow is a row of testdata/form.tsv, a copy of the project's seed 002
// §5 vectors (with §6 and §8 rows). Columns: example, relation (== ~~ !!
// invalid #filter), data_set, string, decoded_by_sec4, holds (whether the
// draft's claim holds; NO marks the draft's errata), note.
type formRow struct {
	line                         int
	example, relation, data, str string
	decoded, holds, note         string
}

func loadFormRows(t *testing.T) []formRow {
	f, err := os.Open("testdata/form.tsv")
	require.NoError(t, err)
	defer f.Close()
	var rows []formRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		require.Len(t, c, 7, "line %d", n)
		rows = append(rows, formRow{n, c[0], c[1], c[2], c[3], c[4], c[5], c[6]})
	}
	require.NoError(t, sc.Err())
	return rows
}

var codePoint = regexp.MustCompile(`<U\+([0-9A-F]{4,6})>`)

// unnotate replaces the file's <U+HHHH> notation with the character's
// UTF-8 octets; a surrogate becomes the three octets it would take, which
// are not valid UTF-8 (as §5's non-conforming examples intend).
func unnotate(s string) string {
	return codePoint.ReplaceAllStringFunc(s, func(m string) string {
		r, _ := strconv.ParseUint(m[3:len(m)-1], 16, 32)
		if r >= 0xD800 && r <= 0xDFFF {
			return string([]byte{0xE0 | byte(r>>12), 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F})
		}
		return string(rune(r))
	})
}

var pairNotation = regexp.MustCompile(`\(\s*"([^"]*)"\s*,\s*(undef(?:ined)?|"([^"]*)")\s*\)`)

// parseDataSet reads the file's (("name", "value"), ("n", undef)) notation.
func parseDataSet(t *testing.T, s string) DataSet {
	require.True(t, strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")"), "data set %q", s)
	d := DataSet{}
	for _, m := range pairNotation.FindAllStringSubmatch(s, -1) {
		p := Pair{Name: unnotate(m[1])}
		if !strings.HasPrefix(m[2], "undef") {
			p.Value, p.Defined = unnotate(m[3]), true
		}
		d = append(d, p)
	}
	require.Equal(t, strings.Count(s, `("`), len(d), "parsed every pair of %q", s)
	return d
}

func TestFormVectors(t *testing.T) {
	rows := loadFormRows(t)
	require.Len(t, rows, 45)
	for _, r := range rows {
		name := r.example + " " + r.relation + " " + r.str
		t.Run(name, func(t *testing.T) {
			in := unnotate(r.str)
			if r.relation == "invalid" {
				_, err := Decode(in)
				require.ErrorIs(t, err, ErrBadUTF8, "line %d: §5 says this does not conform", r.line)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.GreaterOrEqual(t, e.Offset, len("Lookup="[:min(len(in), 6)]))
				return
			}
			data := parseDataSet(t, r.data)
			want := parseDataSet(t, r.decoded)
			var got DataSet
			var err error
			if r.relation == "#filter" {
				// data_set is the data set before the fragment filters it.
				query, frag, _ := strings.Cut(in, "#")
				all, err := Decode(query)
				require.NoError(t, err)
				assert.Equal(t, data, all, "line %d: the data set before filtering", r.line)
				got, err = Filter(all, frag)
				require.NoError(t, err)
			} else {
				got, err = Decode(in)
				require.NoError(t, err)
			}
			// What the §4 decoder really yields, errata or not.
			assert.Equal(t, len(want), len(got), "line %d", r.line)
			if len(want) > 0 {
				assert.Equal(t, want, got, "line %d: §4 decoding of %q", r.line, in)
			}
			switch {
			case r.relation == "==" && r.holds == "yes":
				enc, err := data.Encode()
				require.NoError(t, err)
				assert.Equal(t, in, enc, "line %d: canonical encoding", r.line)
			case r.relation == "==" && len(data) == 1 && data[0].Name == "" && !data[0].Defined:
				// Erratum: (("", undef)) == "" contradicts §3; "" is the
				// empty data set.
				_, err := data.Encode()
				assert.ErrorIs(t, err, ErrUnencodable)
				assert.Empty(t, got)
			case r.relation == "==":
				// Erratum: §3 does not escape '+'; this encoder does, and
				// the row's string is the correct encoding.
				enc, err := data.Encode()
				require.NoError(t, err)
				assert.Equal(t, in, enc, "line %d: %s", r.line, r.note)
				assert.Equal(t, data, got)
			case r.relation == "#filter":
			case r.relation == "~~" && r.holds == "yes":
				assert.Equal(t, data.withoutEmpty(), got.withoutEmpty(), "line %d: the same data set", r.line)
			case r.relation == "~~":
				assert.NotEqual(t, data, got, "line %d erratum: %s", r.line, r.note)
			case r.relation == "!!":
				assert.NotEqual(t, data, got, "line %d: a different data set", r.line)
			default:
				t.Fatalf("line %d: unknown relation %q", r.line, r.relation)
			}
		})
	}
}

// withoutEmpty returns nil for an empty data set, so that a decoded empty
// list compares equal to a parsed one.
func (d DataSet) withoutEmpty() DataSet {
	if len(d) == 0 {
		return nil
	}
	return d
}

// The draft's §8 HTML form, submitted with each method and format.
func TestSection8Form(t *testing.T) {
	want := DataSet{{"url", "http://example.org/Ragnarök/", true}, {"lang", "de", true}}
	enc, err := want.Encode()
	require.NoError(t, err)
	assert.Equal(t, "url=http://example.org/Ragnarök/;lang=de", enc, "POST body (UTF-8 as is)")
	for _, tt := range []struct {
		name, in string
		legacy   bool
	}{
		{"GET application/www-form-urlencoded", "url=http://example.org/Ragnar%C3%B6k/;lang=de", false},
		{"POST application/www-form-urlencoded", "url=http://example.org/Ragnar\xc3\xb6k/;lang=de", false},
		{"GET legacy", "url=http%3A%2F%2Fexample.org%2FRagnar%C3%B6k%2F&lang=de", true},
		{"POST legacy", "url=http%3A%2F%2Fexample.org%2FRagnar%C3%B6k%2F&lang=de", true},
	} {
		got, err := Decode(tt.in)
		require.NoError(t, err, tt.name)
		assert.Equal(t, want, got, tt.name)
		if tt.legacy {
			got, err = DecodeLegacy(tt.in)
			require.NoError(t, err, tt.name)
			assert.Equal(t, want, got, "%s, legacy decoder", tt.name)
		}
	}
	// The legacy format does not separate at ';'.
	got, err := DecodeLegacy("url=a;lang=de")
	require.NoError(t, err)
	assert.Equal(t, DataSet{{"url", "a;lang=de", true}}, got)
}
