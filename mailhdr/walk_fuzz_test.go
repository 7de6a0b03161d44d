package mailhdr

import (
	"bufio"
	"bytes"
	"slices"
	"testing"

	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
	"github.com/stretchr/testify/require"
)

// walkedPart is a part as a walk handed it to its function.
type walkedPart struct {
	path      []int
	header    []byte // as textproto.WriteHeader writes it
	mediaType string // as go-message read it
}

// goMessageWalk walks msg with go-message's own Walk, without Walk's
// rewrite, and returns each part it visits.
func goMessageWalk(msg []byte) []walkedPart {
	e, err := message.Read(bytes.NewReader(msg))
	if e == nil || (err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err)) {
		return nil
	}
	var parts []walkedPart
	_ = e.Walk(func(path []int, part *message.Entity, _ error) error {
		var b bytes.Buffer
		_ = textproto.WriteHeader(&b, part.Header.Header)
		mt, _, _ := part.Header.ContentType()
		parts = append(parts, walkedPart{slices.Clone(path), b.Bytes(), mt})
		return nil
	})
	return parts
}

// FuzzWalk: Walk never panics; the parts a multipart/signed signs, and
// the parts in them, reach fn with their header as go-message read it,
// each such part reported once (KindSigned, at its path), and every other
// part with its header as RewriteHeader rewrites it, counted in
// Entities. Which parts are signed is worked out from go-message's own
// walk of a second copy: a part whose path starts with that of a
// multipart/signed not itself inside a signed part, followed by 0.
func FuzzWalk(f *testing.F) {
	f.Add(readCorpus(f, "signed.eml"))
	f.Add(readCorpus(f, "nested.eml"))
	f.Add([]byte("Content-Type: multipart/signed; boundary=s\r\n\r\n--s\r\nContent-Type: multipart/signed; boundary=t\r\n\r\n--t\r\nContent-Type: text/plain\r\n\r\nx\r\n--t--\r\n--s\r\nContent-Type: a/b\r\n\r\n--s--\r\n"))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=o\r\n\r\n--o\r\nContent-Type: multipart/signed; boundary=s\r\n\r\n--s--\r\n--o\r\nContent-Type: text/plain\r\n\r\ny\r\n--o--\r\n"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		want := goMessageWalk(msg)
		if want == nil {
			return
		}
		var signedRoots [][]int
		isSigned := func(path []int) bool {
			for _, r := range signedRoots {
				if len(path) >= len(r) && slices.Equal(path[:len(r)], r) {
					return true
				}
			}
			return false
		}
		wantSigned := map[int]bool{}
		var wantProblems []string
		for i, p := range want {
			if isSigned(p.path) {
				wantSigned[i] = true
				continue
			}
			if p.mediaType == "multipart/signed" {
				signedRoots = append(signedRoots, append(slices.Clone(p.path), 0))
			}
		}
		for i, p := range want {
			if wantSigned[i] && slices.ContainsFunc(signedRoots, func(r []int) bool { return slices.Equal(r, p.path) }) {
				wantProblems = append(wantProblems, onePlus(p.path).String())
			}
		}

		e, _ := message.Read(bytes.NewReader(msg)) // as goMessageWalk read it
		var got []walkedPart
		rep, _ := Walk(e, Options{MaxProblems: -1, MaxReportBytes: -1}, func(path []int, part *message.Entity, _ error) error {
			var b bytes.Buffer
			_ = textproto.WriteHeader(&b, part.Header.Header)
			got = append(got, walkedPart{path: slices.Clone(path), header: b.Bytes()})
			return nil
		})
		require.Len(t, got, len(want))
		entities := 0
		for i, p := range want {
			require.Equal(t, p.path, got[i].path)
			if wantSigned[i] {
				require.Equal(t, string(p.header), string(got[i].header), "signed part %v", p.path)
				continue
			}
			entities++
			h, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(p.header)))
			require.NoError(t, err)
			_, _ = RewriteHeader(&h, Options{})
			var b bytes.Buffer
			require.NoError(t, textproto.WriteHeader(&b, h))
			require.Equal(t, b.String(), string(got[i].header), "part %v", p.path)
		}
		require.Equal(t, entities, rep.Entities)
		var gotProblems []string
		for _, p := range rep.Problems {
			if p.Kind == KindSigned {
				gotProblems = append(gotProblems, p.Path.String())
			}
		}
		require.Equal(t, wantProblems, gotProblems)
	})
}
