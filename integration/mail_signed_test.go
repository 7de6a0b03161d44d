package integration

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cturi/cturi/mailhdr"
	message "github.com/emersion/go-message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signedBoundaries returns the boundaries of the multipart/signed
// entities go-message finds in msg.
func signedBoundaries(t *testing.T, msg []byte) []string {
	t.Helper()
	e, err := message.Read(bytes.NewReader(msg))
	require.True(t, tolerable(err), "%v", err)
	var bs []string
	err = e.Walk(func(_ []int, part *message.Entity, err error) error {
		if mt, params, _ := part.Header.ContentType(); mt == "multipart/signed" {
			bs = append(bs, params["boundary"])
		}
		return nil
	})
	require.NoError(t, err)
	return bs
}

// firstPart returns the octets between the first two lines of msg that
// are a delimiter of boundary (RFC 2046 §5.1.1, transport padding
// allowed), line ending before the second included: the part a
// multipart/signed of that boundary signs.
func firstPart(t *testing.T, msg []byte, boundary string) []byte {
	t.Helper()
	start := -1
	for off, line := range lines(msg) {
		text := bytes.TrimRight(line, " \t\r\n")
		if !bytes.HasPrefix(text, []byte("--"+boundary)) {
			continue
		}
		if rest := text[2+len(boundary):]; len(rest) != 0 && string(rest) != "--" {
			continue
		}
		if start >= 0 {
			return msg[start:off]
		}
		start = off + len(line)
	}
	t.Fatalf("no two delimiters of boundary %q", boundary)
	return nil
}

// lines yields each line of b with its offset, line ending included.
func lines(b []byte) func(yield func(int, []byte) bool) {
	return func(yield func(int, []byte) bool) {
		for off := 0; off < len(b); {
			n := bytes.IndexByte(b[off:], '\n') + 1
			if n == 0 {
				n = len(b) - off
			}
			if !yield(off, b[off:off+n]) {
				return
			}
			off += n
		}
	}
}

// TestMailSignedPartsKept: in the corpus message and in a real-world
// PGP/MIME message of CPython's e-mail tests, every part a
// multipart/signed signs is the same octets after a rewrite to URI labels
// and after the way back, so that its signature still verifies.
func TestMailSignedPartsKept(t *testing.T) {
	msgs := map[string][]byte{"signed.eml": mailCorpus(t)["signed.eml"]}
	// msg_33.txt is signed too, but its boundary is in an RFC 2231
	// charset Go's mime package does not know, so neither go-message nor
	// mailhdr reads its parts.
	if b, err := os.ReadFile(filepath.Join(pythonEmailData, "msg_45.txt")); err == nil {
		msgs["msg_45.txt"] = b
	} else if os.Getenv("CI") != "" {
		t.Fatalf("%v: install libpython3.11-testsuite (.ci/run does)", err)
	}
	for name, in := range msgs {
		t.Run(name, func(t *testing.T) {
			boundaries := signedBoundaries(t, in)
			require.NotEmpty(t, boundaries)
			uri, rep := mailRewrite(t, in, mailhdr.ToURI)
			back, repBack := mailRewrite(t, uri, mailhdr.ToContentType)
			assert.ErrorIs(t, rep.Err(), mailhdr.ErrSigned)
			assert.ErrorIs(t, repBack.Err(), mailhdr.ErrSigned)
			assert.NotEqual(t, string(in), string(uri), "the fields around the signed part are rewritten")
			for _, b := range boundaries {
				signed := firstPart(t, in, b)
				assert.Equal(t, string(signed), string(firstPart(t, uri, b)), "to URI labels")
				assert.Equal(t, string(signed), string(firstPart(t, back, b)), "and back")
			}
		})
	}
}
