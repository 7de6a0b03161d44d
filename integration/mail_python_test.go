package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cturi/cturi/internal/servertest"
	"github.com/cturi/cturi/mailhdr"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pythonMIMETree prints the MIME tree Python's email package reads in a
// message (see the script's own comment).
const pythonMIMETree = "testdata/mimetree.py"

// pyPart is one entity of a message as pythonMIMETree prints it.
type pyPart struct {
	Path        string   `json:"path"` // "top", "1", "2.msg.1", as mailhdr.Path writes them
	ContentType *string  `json:"content_type"`
	Maintype    string   `json:"maintype"`
	Subtype     string   `json:"subtype"`
	Multipart   bool     `json:"multipart"`
	Boundary    *string  `json:"boundary"`
	SHA256      *string  `json:"sha256"`   // of a leaf's payload as it is in the message
	Preamble    *string  `json:"preamble"` // SHA-256, of a multipart
	Epilogue    *string  `json:"epilogue"`
	Defects     []string `json:"defects"`
}

type pyTree struct {
	File  string   `json:"file"`
	Parts []pyPart `json:"parts"`
	Error string   `json:"error"`
}

// pyURILabel reports whether the entity's Content-Type field holds a URI
// label. Python's email package reads media types, so it resolves a
// label as an unknown type (ContentType:multipart/mixed?boundary="b" is
// "contenttype:multipart" with a subtype of the rest) and reads no
// structure under it, as the docs say of go-message.
func pyURILabel(p pyPart) bool {
	return p.ContentType != nil && mapping.Detect(*p.ContentType) == mapping.DirectionToContentType
}

// pyMessage is one message and its three rewrites, each a file for
// pythonMIMETree.
type pyMessage struct {
	name                   string
	orig, uri, back, canon string // files
	repURI, repCanonical   mailhdr.Report
}

// pythonReadsOtherwise lists what Python's email package reads otherwise
// than package mailhdr in messages that break RFC 2046, where a rewrite
// then changes octets that are a Content-Type field to mailhdr and body
// text to Python. The checks named (path: what) are left out for that
// message; every other one is made.
//
// msg_15.txt (Outlook Express for the Mac) nests a multipart/alternative
// in a multipart/mixed of the same boundary, which RFC 2046 §5.1.1
// forbids. mailhdr matches a delimiter line to the innermost open
// multipart, as docs/mail.md says, and so reads the parts the sender
// meant: the alternative's two, ended by the first close delimiter,
// then an image/gif part of the mixed. Python matches it to the
// outermost: the alternative holds nothing (StartBoundaryNotFoundDefect),
// the two text parts are parts of the mixed, the first close delimiter
// ends the mixed, and the image/gif part is the mixed's epilogue. The
// round trip folds that part's Content-Type anew, which changes the
// epilogue Python reads. (Canonical leaves it: it is canonical already.)
// The corpus's ambiguous-boundary.eml is read the two ways too, but the
// field in what Python reads as an epilogue is canonical, so no rewrite
// but ToURI changes it, and ToURI labels the multipart around it.
var pythonReadsOtherwise = map[string][]string{
	"msg_15.txt": {"top: epilogue"},
}

// TestMailPython reads every message of the mailhdr corpus and of
// CPython's e-mail test data, and its rewrites, with Python's email
// package, a second MIME implementation independent of Go's, and checks
// that Python reads in each rewrite the structure it reads in the
// original: the same parts, nested the same way, the same boundaries,
// the same octets in every leaf's payload and every preamble and
// epilogue, the same defects, and the same media types where a
// Content-Type is written as a Content-Type. The rewrites are ToURI,
// ToURI then ToContentType, and Canonical of the original.
//
// Python reads media types, not URI labels: where the original or the
// rewrite has a URI label for a Content-Type, the test checks a leaf's
// payload and goes no deeper (pyReadsSame). So in a ToURI output, every
// multipart Python reads in the original is still the same multipart
// or has a URI label; the round trip shows that the labels mean the
// multiparts they replaced.
//
// python3 runs once for all the messages. Without it the test is
// skipped, except under CI (the CI environment variable is set, as
// .ci/run sets it), where it fails; so does a missing CPython corpus
// (see TestMailRoundTripRealWorld).
func TestMailPython(t *testing.T) {
	python := servertest.Command(t, "python3")
	dir := t.TempDir()
	var files []string
	newMessage := func(group, name string, msg []byte) *pyMessage {
		base := filepath.Join(dir, group+"-"+name)
		write := func(ext string, b []byte) string {
			f := base + "." + ext
			require.NoError(t, os.WriteFile(f, b, 0o600))
			files = append(files, f)
			return f
		}
		uri, repURI := mailRewrite(t, msg, mailhdr.ToURI)
		back, _ := mailRewrite(t, uri, mailhdr.ToContentType)
		canon, repCanonical := mailRewrite(t, msg, mailhdr.Canonical)
		return &pyMessage{
			name: name,
			orig: write("orig", msg), uri: write("uri", uri), back: write("back", back), canon: write("canon", canon),
			repURI: repURI, repCanonical: repCanonical,
		}
	}

	corpus := mailCorpus(t)
	var corpusMsgs []*pyMessage
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		corpusMsgs = append(corpusMsgs, newMessage("corpus", name, corpus[name]))
	}
	cpythonFiles, _ := filepath.Glob(filepath.Join(pythonEmailData, "msg_*.txt"))
	var cpythonMsgs []*pyMessage
	for _, f := range cpythonFiles {
		msg, err := os.ReadFile(f)
		require.NoError(t, err)
		cpythonMsgs = append(cpythonMsgs, newMessage("cpython", filepath.Base(f), msg))
	}

	trees := runMIMETree(t, python, files)
	check := func(t *testing.T, msgs []*pyMessage) {
		for _, m := range msgs {
			t.Run(m.name, func(t *testing.T) {
				checkPython(t, m, trees)
			})
		}
	}
	t.Run("corpus", func(t *testing.T) { check(t, corpusMsgs) })
	t.Run("cpython", func(t *testing.T) {
		if len(cpythonMsgs) == 0 {
			if os.Getenv("CI") != "" {
				t.Fatalf("no messages in %s: install libpython3.11-testsuite (.ci/run does)", pythonEmailData)
			}
			t.Skipf("no messages in %s (apt-get install libpython3.11-testsuite)", pythonEmailData)
		}
		require.Greater(t, len(cpythonMsgs), 40)
		check(t, cpythonMsgs)
	})
}

// runMIMETree runs pythonMIMETree once over files and returns the tree
// of each, by file name.
func runMIMETree(t *testing.T, python string, files []string) map[string][]pyPart {
	t.Helper()
	list, err := json.Marshal(files)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, pythonMIMETree)
	cmd.Stdin = bytes.NewReader(list)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s failed:\n%s", pythonMIMETree, stderr.String())

	trees := make(map[string][]pyPart, len(files))
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var tr pyTree
		if err := dec.Decode(&tr); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		require.Empty(t, tr.Error, "Python's email package fails on %s", tr.File)
		require.NotEmpty(t, tr.Parts, tr.File)
		trees[tr.File] = tr.Parts
	}
	require.Len(t, trees, len(files), "one tree per file")
	return trees
}

func checkPython(t *testing.T, m *pyMessage, trees map[string][]pyPart) {
	orig, except := trees[m.orig], pythonReadsOtherwise[m.name]
	t.Run("ToURI", func(t *testing.T) {
		pyReadsSame(t, orig, trees[m.uri], except)
	})
	t.Run("ToURI+ToContentType", func(t *testing.T) {
		pyReadsSame(t, orig, trees[m.back], except)
		// A field the first pass reports it did not rewrite stays as it
		// was: the second leaves a Content-Type alone.
		pyFieldsKept(t, orig, trees[m.back], m.repURI)
	})
	t.Run("Canonical", func(t *testing.T) {
		pyReadsSame(t, orig, trees[m.canon], except)
		pyFieldsKept(t, orig, trees[m.canon], m.repCanonical)
	})
}

// pyReadsSame checks that Python reads in out the structure it reads in
// orig: the same parts at the same paths, and for each, the same media
// type, the same boundary, preamble and epilogue if a multipart, the
// same payload octets if a leaf, and the same defects (what Python
// finds broken in the structure: no boundary, no start or close
// delimiter, a header line that is no field, ...; one more or less
// would mean that Python read another structure).
//
// The media type compared is the one Python resolves from the raw field
// (get_content_type), so a round trip that rewrites a field must give
// one Python resolves the same. Where Python cannot resolve the original
// (msg_14.txt's "text; charset=us-ascii", which Python takes for
// text/plain, as RFC 2045 §5.2 has it), package mapping cannot parse it
// either: the field is reported (KindMapping) and kept as it was, and
// Python resolves it the same again.
//
// Where either side has a URI label for a Content-Type, Python cannot
// read the type, so it is not compared: an entity whose other side is a
// single body (not multipart/* or message/*, which Python reads even
// where it finds no parts in them) must be a single body with the same
// payload, since the rewrite changes no body; one whose other side is
// a multipart or a message, or a label too, is compared no deeper,
// because mailhdr rewrites the fields in it, which are body octets to
// Python.
func pyReadsSame(t *testing.T, orig, out []pyPart, except []string) {
	t.Helper()
	require.NotEmpty(t, orig)
	require.NotEmpty(t, out)
	byPath := func(ps []pyPart) map[string]pyPart {
		m := make(map[string]pyPart, len(ps))
		for _, p := range ps {
			m[p.Path] = p
		}
		return m
	}
	outByPath := byPath(out)

	// Where one side has a URI label, Python's tree ends on both sides.
	var cut []string
	under := func(path string) bool {
		return slices.ContainsFunc(cut, func(c string) bool {
			return c == "top" && path != "top" || strings.HasPrefix(path, c+".")
		})
	}
	for _, a := range orig {
		b, ok := outByPath[a.Path]
		if under(a.Path) || !ok {
			continue // compared below
		}
		if pyURILabel(a) || pyURILabel(b) {
			cut = append(cut, a.Path)
		}
	}
	paths := func(ps []pyPart) []string {
		var s []string
		for _, p := range ps {
			if !under(p.Path) {
				s = append(s, p.Path)
			}
		}
		return s
	}
	require.Equal(t, paths(orig), paths(out), "Python reads the same parts, nested the same way (URI-labelled parts not looked into)")

	for _, a := range orig {
		if under(a.Path) {
			continue
		}
		b := outByPath[a.Path]
		la, lb := pyURILabel(a), pyURILabel(b)
		if la || lb {
			readable := a
			if la {
				readable = b
			}
			if la != lb && !readable.Multipart && readable.Maintype != "multipart" && readable.Maintype != "message" {
				assert.False(t, a.Multipart || b.Multipart, "%s: a single body", a.Path)
				assert.Equal(t, a.SHA256, b.SHA256, "%s: the payload of a part whose field is a URI label on one side", a.Path)
			}
			continue
		}
		same := func(what string, x, y any) {
			if !slices.Contains(except, a.Path+": "+what) {
				assert.Equal(t, x, y, "%s: %s (fields %s and %s)", a.Path, what, fmtField(a), fmtField(b))
			}
		}
		same("media type", a.Maintype+"/"+a.Subtype, b.Maintype+"/"+b.Subtype)
		same("multipart", a.Multipart, b.Multipart)
		same("boundary", a.Boundary, b.Boundary)
		same("payload", a.SHA256, b.SHA256)
		same("preamble", a.Preamble, b.Preamble)
		same("epilogue", a.Epilogue, b.Epilogue)
		same("defects", a.Defects, b.Defects)
	}
}

// pyFieldsKept checks that the Content-Type of each part rep says was
// not rewritten (KindMapping, KindLineTooLong, KindStructureChange) is,
// as Python reads it from out at the part's path, the original's.
func pyFieldsKept(t *testing.T, orig, out []pyPart, rep mailhdr.Report) {
	t.Helper()
	find := func(ps []pyPart, path string) (pyPart, bool) {
		i := slices.IndexFunc(ps, func(p pyPart) bool { return p.Path == path })
		if i < 0 {
			return pyPart{}, false
		}
		return ps[i], true
	}
	for _, p := range rep.Problems {
		switch p.Kind {
		case mailhdr.KindMapping, mailhdr.KindLineTooLong, mailhdr.KindStructureChange:
		default:
			continue
		}
		a, ok := find(orig, p.Path.String())
		require.True(t, ok, "Python finds no part %s, where mailhdr reports %v", p.Path, p)
		b, ok := find(out, p.Path.String())
		require.True(t, ok, "Python finds no part %s in the output", p.Path)
		assert.Equal(t, fmtField(a), fmtField(b), "%s: a field reported not rewritten (%v)", p.Path, p)
	}
}

func fmtField(p pyPart) string {
	if p.ContentType == nil {
		return "(none)"
	}
	return fmt.Sprintf("%q", *p.ContentType)
}
