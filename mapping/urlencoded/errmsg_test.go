package urlencoded

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cturi/cturi/mapping"
)

// TestCharsetMessageBounded: a charset name, which may come from a peer
// (the charset parameter of a request's Content-Type), is quoted in a
// message cut to maxQuoted octets, however long it is; Input keeps it
// whole. htmlindex ignores white space around a name, so a long name can
// also be one it knows.
func TestCharsetMessageBounded(t *testing.T) {
	pad := strings.Repeat(" ", 1<<20)
	tests := []struct {
		name, charset, msg string
	}{
		{"unknown", strings.Repeat("x", 1<<20), `urlencoded: unknown charset "xxxx`},
		{"replacement", pad + "replacement", `urlencoded: charset "    `},
		{"not ASCII-compatible", "utf-16" + pad, `urlencoded: charset "utf-16   `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, derr := Decoder{LegacyCharset: tt.charset}.DecodeLegacy("a=b")
			_, eerr := EscapeCharset([]byte("a\x00"), tt.charset, DecodeFirst, mapping.ByteSet{})
			for i, err := range []error{derr, eerr} {
				if i == 1 && tt.name == "not ASCII-compatible" {
					require.NoError(t, err, "EscapeCharset takes UTF-16")
					continue
				}
				e, ok := errors.AsType[*Error](err)
				require.True(t, ok, "%v", err)
				assert.Equal(t, KindUnknownCharset, e.Kind)
				assert.Equal(t, tt.charset, e.Input, "Input keeps the whole name")
				msg := err.Error()
				assert.Less(t, len(msg), 300, "message of %d bytes: %.100s...", len(msg), msg)
				assert.True(t, strings.HasPrefix(msg, tt.msg), msg)
				assert.Contains(t, msg, `..."`, "the quoted name says it was cut")
			}
		})
	}
	_, err := Decoder{LegacyCharset: "no such\r\ncharset"}.DecodeLegacy("a=b")
	assert.EqualError(t, err, `urlencoded: unknown charset "no such\r\ncharset"`, "a short name is quoted whole")
}
