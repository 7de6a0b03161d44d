package mapping

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorMessageBounded: a message quotes at most maxQuoted octets of
// what it shows of the input, however long the input, so that a 1 MiB
// label does not make a 1 MiB message (in a log line, a 415 body, a mail
// report); the kind, the offset and Input are unchanged.
func TestErrorMessageBounded(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	tests := []struct {
		name   string
		toURI  bool // else ToContentType
		in     string
		kind   Kind
		offset int
		msg    string // the start of the message
	}{
		{"R1.2: a long decoded type without '/'", false, "ContentType:" + big, KindBadMIMEType, 12 + len(big), `mapping: decoded "aaaa`},
		{"R1.2: a long decoded type with ';'", false, "ContentType:" + big + "%3B/b", KindBadMIMEType, 12 + len(big), `mapping: decoded "aaaa`},
		{"R1.4: a long decoded parameter name", false, "ContentType:a/b?" + big + "%3B=1", KindBadParamName, 16 + len(big), `mapping: decoded parameter name "aaaa`},
		{"R2.2: a long MIME-type value", false, "x:y?MIME-type=" + big, KindBadMIMEType, 14 + len(big), `mapping: MIME-type "aaaa`},
		{"R2.2: a long MIME-type value, quoted", false, `x:y?MIME-type="` + big + `%3B/b"`, KindBadMIMEType, 15 + len(big), `mapping: MIME-type "aaaa`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mapOneWay(tt.toURI, tt.in)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.kind, e.Kind)
			assert.Equal(t, tt.offset, e.Offset)
			assert.Equal(t, tt.in, e.Input, "Input keeps the whole label")
			msg := err.Error()
			assert.Less(t, len(msg), 300, "message of %d bytes: %.100s...", len(msg), msg)
			assert.True(t, strings.HasPrefix(msg, tt.msg), msg)
			assert.Contains(t, msg, strings.Repeat("a", maxQuoted-4)+`..."`, "the quoted text says it was cut")
		})
	}
}
