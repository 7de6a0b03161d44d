package docsnippets

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..")

// documents are the Markdown files that have Go snippets, each at least
// one (so that a change that hid them from this test, a renamed file or
// another fence, fails it). Every Markdown file of the root and of docs/
// is checked: a ```go block added to one not listed fails the test until
// it is listed here.
var documents = []string{"README.md", "docs/mail.md", "docs/middleware.md", "docs/urlencoded.md"}

// markdownFiles returns the Markdown files of the root and of docs/,
// relative to the root, with slashes.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"*.md", "docs/*.md"} {
		files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		require.NoError(t, err)
		for _, f := range files {
			rel, err := filepath.Rel(root, f)
			require.NoError(t, err)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	require.Contains(t, out, "README.md")
	return out
}

// packages are the library's packages, each of whose package comment
// shows Go code (an indented block), all of which is checked.
var packages = []string{"mailhdr", "mapping", "mapping/urlencoded", "middleware"}

// imports are the packages a snippet may use without importing them. A
// snippet is a fragment, as a reader would paste it into their code.
var imports = []string{
	"errors", "fmt", "io", "log", "net/http", "os",
	"github.com/cturi/cturi/mailhdr",
	"github.com/cturi/cturi/mapping",
	"github.com/cturi/cturi/mapping/urlencoded",
	"github.com/cturi/cturi/middleware",
	"github.com/emersion/go-message",
	"github.com/gorilla/handlers",
}

// prelude declares what the snippets take as given: the reader's own
// values, which the text around each snippet describes.
const prelude = `
var (
	dst      io.Writer        // where a rewritten message goes
	src      io.Reader        // a message
	body     []byte           // a request body
	entity   *message.Entity  // a message go-message has read
	walkFunc message.WalkFunc // the caller's function for each part
	mux      *http.ServeMux   // the caller's handlers
	h        http.Handler     // one of them
	opts     middleware.Options
)
`

// snippet is one fenced Go block of a Markdown file.
type snippet struct {
	file string // relative to the root, with slashes
	line int    // of the block's first line of code
	code []string
}

// TestGoSnippetsTypeCheck type-checks each Go snippet of the documents
// and of the package comments against the module's packages as they are. The statements of a snippet
// become a function's body and its top-level functions stay top-level;
// a line "..." (code the reader fills in) is dropped. Unused variables
// and imports are allowed, since a fragment shows a call and not what the
// reader does with its result; any other error fails, at the Markdown
// file's line.
func TestGoSnippetsTypeCheck(t *testing.T) {
	var snippets []snippet
	for _, doc := range markdownFiles(t) {
		found := goSnippets(t, doc)
		if slices.Contains(documents, doc) {
			require.NotEmpty(t, found, "%s has no ```go block", doc)
		} else {
			require.Empty(t, found, "%s has ```go blocks: list it in documents", doc)
		}
		snippets = append(snippets, found...)
	}
	for _, doc := range documents {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(doc)))
		require.NoError(t, err, "a document listed is missing")
	}
	for _, pkg := range packages {
		found := packageSnippets(t, pkg)
		require.NotEmpty(t, found, "the package comment of %s shows no code", pkg)
		snippets = append(snippets, found...)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", exportLookup(t))
	for _, s := range snippets {
		t.Run(fmt.Sprintf("%s:%d", s.file, s.line), func(t *testing.T) {
			src := s.source()
			// A //line comment's relative file name is taken relative to
			// the directory of the file that holds it, which has none.
			f, err := parser.ParseFile(fset, "snippet.go", src, parser.SkipObjectResolution)
			require.NoError(t, err, "the snippet does not parse; as checked:\n%s", src)
			var errs []string
			conf := types.Config{Importer: imp, Error: func(err error) {
				if te, ok := err.(types.Error); ok && te.Soft && unusedAllowed(te.Msg) {
					return
				}
				errs = append(errs, err.Error())
			}}
			_, _ = conf.Check("snippet", fset, []*ast.File{f}, nil)
			assert.Empty(t, errs, "the snippet does not compile")
		})
	}
}

// unusedAllowed reports whether a soft error is about an unused variable
// or import, which a fragment may have.
func unusedAllowed(msg string) bool {
	return strings.Contains(msg, "declared and not used") || strings.Contains(msg, "imported and not used")
}

// goSnippets returns the ```go blocks of the Markdown file doc.
func goSnippets(t *testing.T, doc string) []snippet {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
	require.NoError(t, err)
	var (
		out []snippet
		cur *snippet
		n   int
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		n++
		line := sc.Text()
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		switch {
		case cur == nil && fence && strings.TrimSpace(line) == "```go":
			cur = &snippet{file: doc, line: n + 1}
		case cur != nil && fence:
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code = append(cur.code, line)
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: the ```go block from line %d is not closed", doc, n)
	return out
}

// packageSnippets returns the code blocks of the package comment of the
// package in the directory pkg, with the line of each in its file.
func packageSnippets(t *testing.T, pkg string) []snippet {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pkg), "*.go"))
	require.NoError(t, err)
	var out []snippet
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.PackageClauseOnly)
		require.NoError(t, err)
		if f.Doc == nil {
			continue
		}
		file := pkg + "/" + filepath.Base(name)
		var p comment.Parser
		for _, block := range p.Parse(f.Doc.Text()).Content {
			code, ok := block.(*comment.Code)
			if !ok {
				continue
			}
			lines := strings.Split(strings.TrimSuffix(code.Text, "\n"), "\n")
			out = append(out, snippet{file: file, line: commentLine(fset, f.Doc, lines[0]), code: lines})
		}
	}
	return out
}

// commentLine returns the line of the comment group doc on which the
// text first appears, or doc's first line if it does not.
func commentLine(fset *token.FileSet, doc *ast.CommentGroup, text string) int {
	for _, c := range doc.List {
		if strings.HasSuffix(c.Text, text) {
			return fset.Position(c.Pos()).Line
		}
	}
	return fset.Position(doc.Pos()).Line
}

// source returns the snippet as a Go file: the imports and the prelude,
// then the snippet's top-level functions (a line "func ..." at the left
// margin up to the line "}"), then the rest as the body of a function.
// A //line comment before each of the snippet's lines makes positions
// those of the Markdown file.
func (s snippet) source() string {
	var decls, body strings.Builder
	inFunc := false
	for i, line := range s.code {
		if strings.TrimSpace(line) == "..." {
			continue
		}
		w := &body
		if strings.HasPrefix(line, "func ") {
			inFunc = true
		}
		if inFunc {
			w = &decls
		}
		fmt.Fprintf(w, "//line %s:%d\n%s\n", s.file, s.line+i, line)
		if inFunc && line == "}" {
			inFunc = false
		}
	}
	var b strings.Builder
	b.WriteString("package snippet\n\nimport (\n")
	for _, p := range imports {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString(")\n")
	b.WriteString(prelude)
	b.WriteString(decls.String())
	b.WriteString("\nfunc snippet() {\n")
	b.WriteString(body.String())
	b.WriteString("}\n")
	return b.String()
}

// exportLookup returns the importer's lookup of compiled export data for
// the imports and everything they import, which one "go list -export"
// builds (or finds in the build cache) with the toolchain running the
// tests: go test puts it first on PATH.
func exportLookup(t *testing.T) func(path string) (io.ReadCloser, error) {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}, imports...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export: %s", stderr.String())
	exports := map[string]string{}
	for line := range strings.Lines(string(out)) {
		path, file, ok := strings.Cut(strings.TrimSpace(line), "=")
		require.True(t, ok, "go list printed %q", line)
		exports[path] = file
	}
	for _, p := range imports {
		require.Contains(t, exports, p, "go list -export built no export data for %s", p)
	}
	return func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q (not among the imports' dependencies)", path)
		}
		return os.Open(file)
	}
}
