package main

import (
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/vectors"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusLabels are the real-world media type names of the mapping's
// fixtures (mime-db and Debian's media-types; scripts/mediatypes.sh),
// each bare, in upper case, and with the parameters real labels carry,
// one of which, an unquoted boundary, fails without -lenient.
func corpusLabels(t *testing.T) []string {
	t.Helper()
	var labels []string
	for _, x := range vectors.MediaTypeNames(t, "../..") {
		labels = append(labels, x, strings.ToUpper(x), x+"; charset=UTF-8",
			x+`; name="Q3 (final).pdf"; boundary=----=_Part_0`)
	}
	return labels
}

// TestCorpus feeds the corpus to cturi on standard input, in one stream,
// and requires one line out per line in, each the library's answer
// (ERROR:<kind> where it fails), under -to uri with and without
// -strict-uri and -lenient and under -to auto; then the URIs back under
// -to ct.
func TestCorpus(t *testing.T) {
	labels := corpusLabels(t)
	stdin := strings.Join(labels, "\n") + "\n"
	answer := func(out string, err error) string {
		if err != nil {
			return "ERROR:" + mapping.KindOf(err).String()
		}
		return out
	}
	for _, args := range [][]string{{"-to", "uri"}, {"-to", "uri", "-strict-uri"}, {"-to", "uri", "-lenient"}, {"-to", "auto"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var opts []mapping.Option
			for _, a := range args {
				switch a {
				case "-strict-uri":
					opts = append(opts, mapping.StrictURI)
				case "-lenient":
					opts = append(opts, mapping.Lenient)
				}
			}
			var want, uris []string
			failed := 0
			for _, l := range labels {
				u, err := mapping.ToURI(l, opts...)
				want = append(want, answer(u, err))
				if err != nil {
					failed++
				} else {
					uris = append(uris, u)
				}
			}
			out, errs, code := runCLI(t, stdin, args...)
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, got, len(labels), "one line out per line in")
			mismatches := 0
			for i := range labels {
				if got[i] != want[i] {
					mismatches++
					assert.Equal(t, want[i], got[i], "line %d: %q", i+1, labels[i])
				}
				require.Less(t, mismatches, 10)
			}
			// The ERROR lines are the unquoted boundaries, and only without
			// -lenient (SPEC C2), one message each.
			if failed == 0 {
				assert.Equal(t, exitOK, code)
				assert.Empty(t, errs)
				assert.Contains(t, args, "-lenient")
			} else {
				assert.Equal(t, exitFailed, code)
				assert.Equal(t, len(labels)/4, failed)
				assert.Equal(t, failed, strings.Count(errs, "\n"))
			}

			// And back: the library's Content-Types, none failing.
			out, errs, code = runCLI(t, strings.Join(uris, "\n")+"\n", "-to", "ct")
			assert.Equal(t, exitOK, code)
			assert.Empty(t, errs)
			got = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, got, len(uris))
			for i, u := range uris {
				ct, err := mapping.ToContentType(u)
				require.NoError(t, err)
				require.Equal(t, ct, got[i], "line %d: %q", i+1, u)
			}
		})
	}
}
