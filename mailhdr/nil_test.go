package mailhdr

import (
	"bytes"
	"strings"
	"testing"

	message "github.com/emersion/go-message"
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
