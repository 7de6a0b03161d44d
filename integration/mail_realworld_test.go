package integration

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// pythonEmailData is the e-mail test data of CPython's test suite, which
// Debian ships in libpython3.11-testsuite; .ci/run installs it.
const pythonEmailData = "/usr/lib/python3.11/test/test_email/data"

// TestMailRoundTripRealWorld round-trips the real-world messages of
// CPython's e-mail tests. Where the data is not installed the test is
// skipped, except under CI (the CI environment variable is set, as
// .ci/run's runner sets it), where a missing corpus is a failure.
func TestMailRoundTripRealWorld(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(pythonEmailData, "msg_*.txt"))
	if len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("no messages in %s: install libpython3.11-testsuite (.ci/run does)", pythonEmailData)
		}
		t.Skipf("no messages in %s (apt-get install libpython3.11-testsuite)", pythonEmailData)
	}
	require.Greater(t, len(files), 40)
	readable := 0
	for _, f := range files {
		msg, err := os.ReadFile(f)
		require.NoError(t, err)
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Compare go-message's trees where it can read the original.
			_, err := goMessageTree(msg)
			if err == nil {
				readable++
			}
			checkRoundTrip(t, msg, err == nil)
		})
	}
	require.Greater(t, readable, len(files)/2, "go-message reads most of the corpus")
}
