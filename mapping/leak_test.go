package mapping

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine that one of them
// started (concurrent_test.go's) is still running after the last test.
// (As WebAssembly in Node, the runtime has a goroutine of its own for
// JavaScript's events, which goleak does not know.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}
