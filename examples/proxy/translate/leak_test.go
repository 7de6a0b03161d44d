package translate_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine that one of them
// started (a server, a connection) is still running after the last test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
