package relay

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/faultio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on the readers between the client and Deliver: a
// source that fails at any offset, and reports its error only once.

// TestCountHopsReadErrorAnywhere: a read error at any offset of the
// header reaches the reader of the message countHops gives back, after
// the octets before it and none after, whether the source repeats it or
// not: an io.Reader need not, and a source that then ends, or goes on,
// must not make a cut message look whole.
func TestCountHopsReadErrorAnywhere(t *testing.T) {
	const m = "Received: x\r\nSubject: y\r\n\r\nbody\r\n"
	for n := 0; n <= len(m); n++ {
		for _, src := range faultio.Modes {
			what := fmt.Sprintf("cut at %d (%q), error %s", n, m[:n], src.Name)
			_, _, r := countHops(src.Cut(m, n), MaxTraceBytes, 100)
			got, err := io.ReadAll(r)
			assert.ErrorIs(t, err, faultio.ErrFault, what)
			assert.Equal(t, m[:n], string(got), what)
		}
	}
}

// TestDataReadErrorAnywhere: a message whose source fails at any offset
// is not delivered, whether the source repeats its error or not: Deliver
// meets the error, and the sender gets a failure, not 250.
func TestDataReadErrorAnywhere(t *testing.T) {
	const m = "Subject: y\r\nContent-Type: text/plain\r\n\r\nbody\r\n"
	for n := 0; n <= len(m); n++ {
		for _, src := range faultio.Modes {
			what := fmt.Sprintf("cut at %d (%q), error %s", n, m[:n], src.Name)
			var readErr error
			be := &Backend{Deliver: func(_ string, _ []string, r io.Reader) error {
				_, readErr = io.ReadAll(r)
				return readErr
			}, Now: clock}
			sess, err := be.NewSession(nil)
			require.NoError(t, err)
			require.NoError(t, sess.Mail("a@example.com", nil))
			require.NoError(t, sess.Rcpt("b@example.net", nil))
			err = sess.Data(src.Cut(m, n))
			assert.Error(t, err, what)
			assert.ErrorIs(t, readErr, faultio.ErrFault, "%s: what Deliver read", what)
			require.NoError(t, sess.Logout())
		}
	}
}

// TestWriterDeliverWriteFaults: WriterDeliver fails when its writer
// fails, takes less than it was given, or claims more, anywhere in what
// it writes (the line before the message included), once or for good,
// and returns that error, io.ErrShortWrite for a short count without
// one, or an error for a count past the write (as io.Copy has them).
func TestWriterDeliverWriteFaults(t *testing.T) {
	const head = "=== message from <a@example.com> to [\"b@example.net\"]\n"
	for _, limit := range []int{0, 1, len(head) - 1, len(head), len(head) + 1, len(head) + len(msg) - 1} {
		for _, mode := range faultio.WriterModes {
			for _, once := range []bool{false, true} {
				what := fmt.Sprintf("%s after %d octets, once %v", mode.Name, limit, once)
				w := mode.After(limit)
				w.Once = once
				err := WriterDeliver(w)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
				switch {
				case mode.Err != nil:
					assert.ErrorIs(t, err, mode.Err, what)
				case !mode.Over:
					assert.ErrorIs(t, err, io.ErrShortWrite, what)
				default:
					assert.Error(t, err, what)
				}
				if !once {
					assert.True(t, strings.HasPrefix(head+msg, w.String()), "%s: %q", what, w.String())
				}
			}
		}
	}
}
