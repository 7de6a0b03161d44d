package mailhdr

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const nilTestMessage = "Content-Type: text/plain\r\n\r\nbody\r\n"

func nilTestEntity(t *testing.T) *message.Entity {
	t.Helper()
	e, err := message.Read(strings.NewReader(nilTestMessage))
	require.NoError(t, err)
	return e
}

// A nil reader, writer, header or walk function is a programming error:
// each function panics on one, with a message naming it, before it reads,
// writes or rewrites anything, whatever the options (as io.Copy and
// go-message's own Header methods and Walk panic on theirs, but at once
// rather than at the first octet, field or part).
func TestNilArgumentsPanicFirst(t *testing.T) {
	walkFn := func([]int, *message.Entity, error) error { return nil }
	var src *strings.Reader // the message, made afresh for each case
	var out bytes.Buffer
	for _, tt := range []struct {
		name, panic string
		call        func(*testing.T)
	}{
		{"Rewrite nil dst", "mailhdr: Rewrite: nil dst", func(*testing.T) { _, _ = Rewrite(nil, src, Options{}) }},
		{"Rewrite nil dst, empty src", "mailhdr: Rewrite: nil dst", func(*testing.T) { _, _ = Rewrite(nil, strings.NewReader(""), Options{}) }},
		{"Rewrite nil dst, bad To", "mailhdr: Rewrite: nil dst", func(*testing.T) { _, _ = Rewrite(nil, src, Options{To: 9}) }},
		{"Rewrite nil src", "mailhdr: Rewrite: nil src", func(*testing.T) { _, _ = Rewrite(&out, nil, Options{}) }},
		{"NewReader nil src", "mailhdr: NewReader: nil src", func(*testing.T) { NewReader(nil, Options{}) }},
		{"NewReader nil src, bad To", "mailhdr: NewReader: nil src", func(*testing.T) { NewReader(nil, Options{To: 9}) }},
		{"RewriteHeader nil", "mailhdr: RewriteHeader: nil header", func(*testing.T) { _, _ = RewriteHeader(nil, Options{}) }},
		{"RewriteHeader nil, bad To", "mailhdr: RewriteHeader: nil header", func(*testing.T) { _, _ = RewriteHeader(nil, Options{To: 9}) }},
		{"Label nil", "mailhdr: Label: nil header", func(*testing.T) { _, _ = Label(nil) }},
		{"Walk nil fn", "mailhdr: Walk: nil fn", func(t *testing.T) {
			e := nilTestEntity(t)
			defer func() {
				assert.Equal(t, "text/plain", e.Header.Get("Content-Type"), "the header is not rewritten")
			}()
			_, _ = Walk(e, Options{}, nil)
		}},
		{"Walk nil fn, bad To", "mailhdr: Walk: nil fn", func(t *testing.T) { _, _ = Walk(nilTestEntity(t), Options{To: 9}, nil) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src = strings.NewReader(nilTestMessage)
			out.Reset()
			assert.PanicsWithValue(t, tt.panic, func() { tt.call(t) })
			assert.Equal(t, len(nilTestMessage), src.Len(), "src is not read")
			assert.Zero(t, out.Len(), "nothing is written")
		})
	}
	// A nil entity is walked as go-message's Walk walks it: as no entity.
	called := false
	rep, err := Walk(nil, Options{}, func([]int, *message.Entity, error) error { called = true; return nil })
	require.NoError(t, err)
	assert.False(t, called)
	assert.Equal(t, Report{}, rep)
	require.NoError(t, (*message.Entity)(nil).Walk(walkFn), "go-message's own")
}

// Zero values of the types a caller can make are ready to use, except
// Reader (make it with NewReader) and a nil *Problem, whose methods are
// value methods.
func TestZeroValues(t *testing.T) {
	var h textproto.Header
	n, err := RewriteHeader(&h, Options{})
	assert.NoError(t, err)
	assert.Zero(t, n)
	label, err := Label(&h)
	assert.NoError(t, err)
	assert.Empty(t, label)

	rep, err := Walk(&message.Entity{}, Options{}, func([]int, *message.Entity, error) error { return nil })
	assert.NoError(t, err)
	assert.Equal(t, Report{Entities: 1}, rep)

	var out bytes.Buffer
	rep, err = Rewrite(&out, strings.NewReader(""), Options{})
	assert.NoError(t, err)
	assert.True(t, rep.OK())
	assert.Zero(t, out.Len())

	assert.True(t, Report{}.OK())
	assert.NoError(t, Report{}.Err())
	assert.Equal(t, "mailhdr: top: Kind(0)", Problem{}.Error())
	assert.Empty(t, Problem{}.Unwrap())
	assert.Equal(t, "top", Path(nil).String())
	assert.Equal(t, "Kind(0)", Kind(0).String())
	assert.Equal(t, "Target(9)", Target(9).String())
	err = Report{Problems: []Problem{{}}}.Err()
	assert.EqualError(t, err, "mailhdr: top: Kind(0)")
	for _, s := range []error{ErrMapping, ErrSigned, ErrTooDeep} {
		assert.NotErrorIs(t, err, s, "a kind made by hand matches no sentinel")
	}

	// Zero Options are the defaults; negative limits are no limits.
	for _, o := range []Options{{}, {MaxHeaderBytes: -1, MaxFieldBytes: -1, MaxDepth: -1, MaxProblems: -1, MaxReportBytes: -1}} {
		out.Reset()
		rep, err = Rewrite(&out, strings.NewReader(nilTestMessage), o)
		require.NoError(t, err)
		assert.Equal(t, Report{Entities: 1, Rewritten: 1}, rep)
		assert.Equal(t, "Content-Type: ContentType:text/plain\r\n\r\nbody\r\n", out.String())
	}

	var r Reader
	assert.Panics(t, func() { _, _ = r.Read(make([]byte, 8)) }, "a Reader is made with NewReader")
	assert.Panics(t, func() { r.Report() })
	assert.Panics(t, func() { _, _ = r.WriteTo(io.Discard) })

	// A nil *Problem is no error: Problem's methods are value methods, so
	// calling one through a nil pointer panics, in errors.Is too.
	var p *Problem
	assert.Panics(t, func() { _ = errors.Is(p, ErrSigned) })
}
