package mailhdr

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// TestReaderReportEditsStayTheCallers: a caller who sorts the problems of
// a Report taken part way, or edits one and its Path, changes nothing the
// Reader reports later (the problems were the Reader's own entries, and
// reversing them reordered its list).
func TestReaderReportEditsStayTheCallers(t *testing.T) {
	const parts = 6
	r := NewReader(strings.NewReader(unmappableParts(parts)), Options{})
	var one [1]byte
	for len(r.Report().Problems) < 3 {
		_, err := r.Read(one[:])
		require.NoError(t, err)
	}
	early := r.Report()
	slices.Reverse(early.Problems)
	early.Problems[0].Path[0] = 99
	early.Problems[1].Detail = "the caller's"
	early.Problems[2].Path = append(early.Problems[2].Path, 7)
	_, err := io.Copy(io.Discard, r)
	require.NoError(t, err)

	final := r.Report()
	require.Len(t, final.Problems, parts)
	for i, p := range final.Problems {
		assert.Equal(t, Path{i + 1}, p.Path, "problem %d", i)
		assert.NotEqual(t, "the caller's", p.Detail, "problem %d", i)
	}
	assert.Equal(t, Path{99}, early.Problems[0].Path, "the caller's edit stays in its copy")
}

// Rewrites share nothing: several goroutines rewriting the corpus at
// once, each message to each target, through Rewrite, a Reader's Read and
// its WriteTo, get the output and Report one goroutine gets. Run it with
// -race: a buffer or scanner recycled between rewrites, to save an
// allocation, would show here.
func TestConcurrentRewrites(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.eml"))
	require.NoError(t, err)
	require.NotEmpty(t, names)
	type job struct {
		in, out []byte
		opts    Options
		rep     Report
	}
	var jobs []job
	for _, name := range names {
		in, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, to := range []Target{ToURI, ToContentType, Canonical} {
			opts := Options{To: to, NoControlled: true}
			out, rep := rewriteBytes(t, in, opts)
			jobs = append(jobs, job{in, out, opts, rep})
		}
	}
	ways := []func(j job) ([]byte, Report, error){
		func(j job) ([]byte, Report, error) {
			var out bytes.Buffer
			rep, err := Rewrite(&out, bytes.NewReader(j.in), j.opts)
			return out.Bytes(), rep, err
		},
		func(j job) ([]byte, Report, error) {
			r := NewReader(bytes.NewReader(j.in), j.opts)
			out, err := io.ReadAll(r)
			return out, r.Report(), err
		},
		func(j job) ([]byte, Report, error) {
			r := NewReader(bytes.NewReader(j.in), j.opts)
			var out bytes.Buffer
			_, err := r.WriteTo(&out)
			return out.Bytes(), r.Report(), err
		},
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 3 * len(jobs) {
				i := (k*4 + g) % len(jobs)
				out, rep, err := ways[(k+g)%len(ways)](jobs[i])
				if !assert.NoError(t, err) ||
					!assert.Equal(t, string(jobs[i].out), string(out), "job %d", i) ||
					!assert.Equal(t, jobs[i].rep, rep, "job %d", i) {
					return
				}
			}
		})
	}
	wg.Wait()
}
