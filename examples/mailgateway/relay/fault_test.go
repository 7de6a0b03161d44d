package relay

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fault injection on the readers between the client and Deliver: a
// source that fails at any offset, and reports its error only once.

var errFault = errors.New("fault injected")

// cutReader returns data, then fails with err: for ever, or once and then
// io.EOF (once), or once and then the octets after the cut (resume), as
// iotest.TimeoutReader goes on after its error.
type cutReader struct {
	data, after  string
	err          error
	once, resume bool
	failed       bool
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.data == "" {
		switch {
		case !r.failed || !r.once:
			r.failed = true
			return 0, r.err
		case r.resume && r.after != "":
			n := copy(p, r.after)
			r.after = r.after[n:]
			return n, nil
		}
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// faultSources are the ways a cutReader reports its error.
var faultSources = []struct {
	name         string
	once, resume bool
}{
	{"repeated", false, false},
	{"once", true, false},
	{"once, then the rest", true, true},
}

// TestCountHopsReadErrorAnywhere: a read error at any offset of the
// header reaches the reader of the message countHops gives back, after
// the octets before it and none after, whether the source repeats it or
// not: an io.Reader need not, and a source that then ends, or goes on,
// must not make a cut message look whole.
func TestCountHopsReadErrorAnywhere(t *testing.T) {
	const m = "Received: x\r\nSubject: y\r\n\r\nbody\r\n"
	for n := 0; n <= len(m); n++ {
		for _, src := range faultSources {
			what := fmt.Sprintf("cut at %d (%q), error %s", n, m[:n], src.name)
			_, _, r := countHops(&cutReader{data: m[:n], after: m[n:], err: errFault, once: src.once, resume: src.resume}, MaxTraceBytes, 100)
			got, err := io.ReadAll(r)
			assert.ErrorIs(t, err, errFault, what)
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
		for _, src := range faultSources {
			what := fmt.Sprintf("cut at %d (%q), error %s", n, m[:n], src.name)
			var readErr error
			be := &Backend{Deliver: func(_ string, _ []string, r io.Reader) error {
				_, readErr = io.ReadAll(r)
				return readErr
			}, Now: clock}
			sess, err := be.NewSession(nil)
			require.NoError(t, err)
			require.NoError(t, sess.Mail("a@example.com", nil))
			require.NoError(t, sess.Rcpt("b@example.net", nil))
			err = sess.Data(&cutReader{data: m[:n], after: m[n:], err: errFault, once: src.once, resume: src.resume})
			assert.Error(t, err, what)
			assert.ErrorIs(t, readErr, errFault, "%s: what Deliver read", what)
			require.NoError(t, sess.Logout())
		}
	}
}

// faultWriter takes octets until it holds limit, then fails a write that
// would go past it: with err, after taking what fits; with err nil, it
// takes what fits and returns that short count, which the io.Writer
// contract forbids. once, it fails only that write, and takes every
// later one whole. It has no method but Write, so that every write is
// one of these (a strings.Builder in it would make it an
// io.StringWriter).
type faultWriter struct {
	b      strings.Builder
	limit  int
	err    error
	once   bool
	failed bool
}

func (w *faultWriter) Write(p []byte) (int, error) {
	room := max(w.limit-w.b.Len(), 0)
	if len(p) <= room || w.once && w.failed {
		return w.b.Write(p)
	}
	w.failed = true
	n, _ := w.b.Write(p[:room])
	return n, w.err
}

// TestWriterDeliverWriteFaults: WriterDeliver fails when its writer
// fails, or takes less than it was given, anywhere in what it writes (the
// line before the message included), once or for good, and returns that
// error, or io.ErrShortWrite for a short count without one.
func TestWriterDeliverWriteFaults(t *testing.T) {
	const head = "=== message from <a@example.com> to [\"b@example.net\"]\n"
	for _, limit := range []int{0, 1, len(head) - 1, len(head), len(head) + 1, len(head) + len(msg) - 1} {
		for _, werr := range []error{errFault, nil} {
			for _, once := range []bool{false, true} {
				what := fmt.Sprintf("after %d octets, error %v, once %v", limit, werr, once)
				w := &faultWriter{limit: limit, err: werr, once: once}
				err := WriterDeliver(w)("a@example.com", []string{"b@example.net"}, strings.NewReader(msg))
				if werr == nil {
					assert.ErrorIs(t, err, io.ErrShortWrite, what)
				} else {
					assert.ErrorIs(t, err, werr, what)
				}
				if !once {
					assert.True(t, strings.HasPrefix(head+msg, w.b.String()), "%s: %q", what, w.b.String())
				}
			}
		}
	}
}
