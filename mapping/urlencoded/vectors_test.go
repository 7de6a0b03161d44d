package urlencoded

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cturi/cturi/internal/vectors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// formRow is one row of testdata/form.tsv, a copy of the project's
// shared/vectors/form.tsv: the examples of seed 002 §5, plus rows for §3
// (the '+' defect), §6 (the fragment filter) and §8 (the Ragnarök form).
// RELATED.md explains the columns.
type formRow struct {
	line     int
	example  string
	relation string  // "==", "~~", "!!", "invalid" or "#filter"
	dataSet  DataSet // the data set the draft states ("n/a" for invalid rows)
	input    string  // the string column, <U+HHHH> resolved to UTF-8 octets
	decoded  DataSet // what the §4 decoder yields (decoded_by_sec4)
	invalid  bool    // decoded_by_sec4 is INVALID
	holds    bool    // the draft's claim holds; "NO" marks an erratum
	note     string
}

const formHeader = "example\trelation\tdata_set\tstring\tdecoded_by_sec4\tholds\tnote"

func loadFormRows(t testing.TB) []formRow {
	t.Helper()
	var rows []formRow
	for _, row := range vectors.Table(t, "testdata/form.tsv", formHeader) {
		n, cols := row.Line, row.Cols
		r := formRow{line: n, example: cols[0], relation: cols[1], input: resolveNotation(t, cols[3]), note: cols[6]}
		switch cols[5] {
		case "yes":
			r.holds = true
		case "NO":
		default:
			t.Fatalf("line %d: holds is %q", n, cols[5])
		}
		if r.relation != "invalid" {
			r.dataSet = parseDataSet(t, cols[2])
		} else {
			require.Equal(t, "n/a", cols[2], "line %d", n)
		}
		if cols[4] == "INVALID" {
			r.invalid = true
		} else {
			r.decoded = parseDataSet(t, cols[4])
		}
		rows = append(rows, r)
	}
	require.Len(t, rows, 45, "rows in form.tsv")
	return rows
}

var codePoint = regexp.MustCompile(`<U\+([0-9A-Fa-f]{4,6})>`)

// resolveNotation replaces the draft's <U+HHHH> notation with the UTF-8
// octets of the code point. A surrogate (not a character, so Go would turn
// it into U+FFFD) becomes the three octets a naive UTF-8 encoder writes for
// it (ED A0 80-ED BF BF), which is what §5's non-conforming example means.
func resolveNotation(t testing.TB, s string) string {
	return codePoint.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseUint(m[3:len(m)-1], 16, 32)
		require.NoError(t, err)
		r := rune(v)
		if 0xD800 <= r && r <= 0xDFFF {
			return string([]byte{0xE0 | byte(r>>12), 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F})
		}
		require.True(t, utf8.ValidRune(r), "code point %s", m)
		return string(r)
	})
}

// parseDataSet reads the draft's data set notation:
// (("name", "value"), ("name", undef)) or ().
func parseDataSet(t testing.TB, s string) DataSet {
	t.Helper()
	p := &notationParser{t: t, s: s}
	var d DataSet
	p.expect('(')
	for !p.peek(')') {
		if len(d) > 0 {
			p.expect(',')
		}
		p.expect('(')
		var pair Pair
		pair.Name = p.str()
		p.expect(',')
		if p.peek('"') {
			pair.Value, pair.Defined = p.str(), true
		} else {
			p.word("undef")
		}
		p.expect(')')
		d = append(d, pair)
	}
	p.expect(')')
	p.skipSpace()
	require.Equal(t, len(s), p.i, "trailing text in %q", s)
	return d
}

type notationParser struct {
	t testing.TB
	s string
	i int
}

func (p *notationParser) skipSpace() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *notationParser) peek(c byte) bool {
	p.skipSpace()
	return p.i < len(p.s) && p.s[p.i] == c
}

func (p *notationParser) expect(c byte) {
	require.True(p.t, p.peek(c), "want %q at offset %d of %q", c, p.i, p.s)
	p.i++
}

func (p *notationParser) word(w string) {
	p.skipSpace()
	require.True(p.t, strings.HasPrefix(p.s[p.i:], w), "want %s at offset %d of %q", w, p.i, p.s)
	p.i += len(w)
}

func (p *notationParser) str() string {
	p.expect('"')
	end := strings.IndexByte(p.s[p.i:], '"')
	require.GreaterOrEqual(p.t, end, 0, "unterminated string in %q", p.s)
	v := p.s[p.i : p.i+end]
	p.i += end + 1
	return resolveNotation(p.t, v)
}

// TestFormVectors checks every row of form.tsv against Decode, Encode and
// Filter. decoded_by_sec4 is what Decode must give; whether that equals
// the draft's data set is what the row's relation and holds column claim.
func TestFormVectors(t *testing.T) {
	for _, r := range loadFormRows(t) {
		t.Run(fmt.Sprintf("line%d %s %s", r.line, r.example, r.relation), func(t *testing.T) {
			switch r.relation {
			case "invalid":
				checkInvalidRow(t, r)
			case "#filter":
				checkFilterRow(t, r)
			case "==", "~~", "!!":
				checkDecodeRow(t, r)
				if r.relation == "==" {
					checkCanonicalRow(t, r)
				}
			default:
				t.Fatalf("unknown relation %q", r.relation)
			}
		})
	}
}

func checkDecodeRow(t *testing.T, r formRow) {
	require.False(t, r.invalid)
	got, err := Decode(r.input)
	require.NoError(t, err)
	assert.Equal(t, r.decoded, got, "Decode(%q)", r.input)

	// The row's claim that the string represents ("~~") or does not
	// represent ("!!") the draft's data set; holds=NO marks a wrong claim.
	// checkCanonicalRow checks the claims of "==" rows.
	if r.relation != "==" {
		if same := (r.relation == "~~") == r.holds; same {
			assert.Equal(t, r.dataSet, got, "the draft's data set")
		} else {
			assert.NotEqual(t, r.dataSet, got, "the draft's data set")
		}
	}

	// Whatever it decodes to, the canonical form of that is a fixed point.
	canon := must(t)(got.Encode())
	again, err := Decode(canon)
	require.NoError(t, err)
	assert.Equal(t, got, again, "Decode(Encode(x)) for %q", canon)
	assert.Equal(t, canon, must(t)(again.Encode()))
}

// checkCanonicalRow checks a "==" row's encoding claim.
func checkCanonicalRow(t *testing.T, r formRow) {
	enc, err := r.dataSet.Encode()
	if !r.holds && r.dataSet.Validate() != nil {
		// (("", undef)) == "": the one data set the format cannot encode,
		// refused rather than written as "", the empty data set's string.
		assert.ErrorIs(t, err, ErrUnencodable)
		assert.Empty(t, enc)
		assert.Empty(t, r.input)
		assert.NotEqual(t, r.dataSet, r.decoded)
		return
	}
	require.NoError(t, err)
	assert.Equal(t, r.input, enc, "Encode(%v)", r.dataSet)
	if r.holds {
		require.NoError(t, r.dataSet.Validate())
		assert.Equal(t, r.dataSet, r.decoded)
		return
	}
	// The '+' defect of §3: without escaping '+', the draft's encoder
	// writes a string that decodes to another data set.
	require.Contains(t, enc, "%2B")
	draft := strings.ReplaceAll(enc, "%2B", "+")
	got, err := Decode(draft)
	require.NoError(t, err)
	assert.NotEqual(t, r.dataSet, got, "the draft's encoding %q", draft)
	assert.Equal(t, r.dataSet, r.decoded)
}

// checkInvalidRow: §5's non-conforming strings fail with ErrBadUTF8 at
// the first octet or triplet that is not ASCII, which in every such row is
// where the invalid sequence starts.
func checkInvalidRow(t *testing.T, r formRow) {
	require.True(t, r.invalid)
	want := strings.IndexFunc(r.input, func(c rune) bool { return c == '%' || c >= utf8.RuneSelf })
	require.GreaterOrEqual(t, want, 0)
	for name, decode := range map[string]func(string) (DataSet, error){"Decode": Decode, "DecodeLegacy": DecodeLegacy} {
		got, err := decode(r.input)
		require.Error(t, err, "%s(%q) = %v", name, r.input, got)
		assert.Nil(t, got)
		assert.ErrorIs(t, err, ErrBadUTF8)
		var e *Error
		require.True(t, errors.As(err, &e))
		assert.Equal(t, KindBadUTF8, e.Kind)
		assert.Equal(t, want, e.Offset, "%s(%q): %v", name, r.input, err)
		assert.Equal(t, r.input, e.Input)
		assert.Equal(t, 0, e.Index)
		assert.True(t, strings.HasPrefix(err.Error(), "urlencoded: "), err.Error())
	}
}

// checkFilterRow: the §6 example, a data: URI's data with a fragment.
func checkFilterRow(t *testing.T, r formRow) {
	query, fragment, ok := strings.Cut(r.input, "#")
	require.True(t, ok)
	d, err := Decode(query)
	require.NoError(t, err)
	require.Equal(t, r.dataSet, d)
	got, err := d.Filter(fragment)
	require.NoError(t, err)
	assert.Equal(t, r.decoded, got)
	// "essentially as if it were" the filtered data set's own encoding.
	assert.Equal(t, "a=1;a=2;=3;d,", must(t)(got.Encode()))
}
