package mailhdr

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unmappableParts returns a multipart message of n parts, each with a
// Content-Type that does not parse, so that each is a problem.
func unmappableParts(n int) string {
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=b\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "--b\r\nContent-Type: text/plain; x=\"%d\" junk\r\n\r\nbody %d\r\n", i, i)
	}
	b.WriteString("--b--\r\n")
	return b.String()
}

// A Report taken from a Reader part way is the caller's: appending to its
// Problems neither overwrites a problem the Reader lists after it nor is
// overwritten by one. (Its Problems once had the Reader's spare capacity:
// whichever of the two appended second overwrote the other's problem.)
func TestReaderReportIsTheCallers(t *testing.T) {
	tests := []struct {
		name     string
		appendAt int // the problems the Reader lists when the caller appends
	}{
		{"caller appends first", 3},
		{"Reader appends first", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const parts = 6
			r := NewReader(strings.NewReader(unmappableParts(parts)), Options{})
			readUntil := func(problems int) {
				var one [1]byte
				for len(r.Report().Problems) < problems {
					_, err := r.Read(one[:])
					require.NoError(t, err)
				}
			}
			readUntil(3)
			early := r.Report()
			readUntil(tt.appendAt)
			mine := Problem{Kind: KindMapping, Offset: -1, Detail: "the caller's"}
			early.Problems = append(early.Problems, mine)
			_, err := io.Copy(io.Discard, r)
			require.NoError(t, err)

			assert.Equal(t, mine, early.Problems[3], "the Reader overwrote the caller's problem")
			final := r.Report()
			require.Len(t, final.Problems, parts)
			for i, p := range final.Problems {
				assert.Equal(t, Path{i + 1}, p.Path, "problem %d", i)
			}
		})
	}
}
