package mailhdr

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMechanism(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"7bit", "7bit"},
		{"  8BIT \t", "8bit"},
		{"7bit (plain text)", "7bit"},
		{"(comment) Binary", "binary"},
		{"7bit(a (nested) comment)", "7bit"},
		{`8bit (a \) in a comment)`, "8bit"},
		{"", ""},
		{"(only a comment)", "(only a comment)"},
		{"7bit x", "7bit x"},
		{"7bit (unclosed", "7bit (unclosed"},
		{"7b(split)it", "7b(split)it"},
		{"base64 (binary)", "base64"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, mechanism([]byte(tc.in)))
		})
	}
}

// TestMessageWithCommentedEncoding: a message/rfc822 part whose
// Content-Transfer-Encoding carries a comment is still read as the
// identity encoding it names, and its header rewritten; an encoding that
// a comment cannot make an identity one still passes through, reported
// (KindOpaqueMessage).
func TestMessageWithCommentedEncoding(t *testing.T) {
	for _, tc := range []struct {
		cte       string
		rewritten int
	}{
		{"7bit (no encoding)", 2},
		{"(none) 8BIT", 2},
		{"base64 (7bit)", 1},
		{"7bit 8bit", 1},
		{"binary", 2},
		{"BINARY", 2},
		{"8bit", 2},
		{"quoted-printable", 1},
		{"(only a comment)", 1},
	} {
		t.Run(tc.cte, func(t *testing.T) {
			in := "Content-Type: message/rfc822\r\nContent-Transfer-Encoding: " + tc.cte + "\r\n\r\n" +
				"Content-Type: text/plain\r\n\r\nhi\r\n"
			out, rep := rewriteBytes(t, []byte(in), Options{})
			if tc.rewritten == 2 {
				require.Empty(t, rep.Problems)
			} else {
				assert.Equal(t, []problemAt{{"top", KindOpaqueMessage}}, problemsOf(rep))
			}
			assert.Equal(t, tc.rewritten, rep.Rewritten)
			assert.Contains(t, string(out), "Content-Transfer-Encoding: "+tc.cte+"\r\n", "the field itself is copied")
		})
	}
}

// FuzzMechanism: reading a mechanism is idempotent and its result is lower
// case without white space at either end; white space and a comment
// around any value read as one token read as that token.
func FuzzMechanism(f *testing.F) {
	for _, s := range []string{"7bit", " 8BIT (c) ", `(a \) b) binary`, "7bit x", "(", ")", "a(b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		m := mechanism([]byte(v))
		require.Equal(t, m, mechanism([]byte(m)), "idempotent")
		require.Equal(t, strings.ToLower(m), m)
		require.Equal(t, string(trimWSP([]byte(m))), m)
		if m != "" && !strings.ContainsAny(m, " \t()\\") {
			require.Equal(t, m, mechanism([]byte(" \t"+v+" (comment)\t")), "around %q", v)
		}
	})
}
