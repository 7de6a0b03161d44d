package mailhdr

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine that one of them
// started (concurrent_test.go's) is still running after the last test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
