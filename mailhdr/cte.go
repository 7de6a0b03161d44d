package mailhdr

import "strings"

// mechanism returns the mechanism of an unfolded Content-Transfer-Encoding
// value in lower case (RFC 2045 §6.1), without the comments and white
// space that RFC 5322 §3.2.2 allows around it in a structured field:
// "7BIT (plain text)" is "7bit". A value that is not one token once they
// are gone ("7bit x", an unclosed comment) is returned as it is, lower
// case, and so matches no mechanism the scanner knows.
func mechanism(v []byte) string {
	tok := make([]byte, 0, len(v))
	depth, tokens, inToken := 0, 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case depth > 0 && c == '\\' && i+1 < len(v):
			i++ // a quoted-pair inside a comment
		case c == '(':
			depth++
			inToken = false
		case depth > 0 && c == ')':
			depth--
		case depth > 0:
		case c == ' ' || c == '\t':
			inToken = false
		default:
			if !inToken {
				tokens++
				inToken = true
			}
			tok = append(tok, c)
		}
	}
	if depth != 0 || tokens != 1 {
		return strings.ToLower(string(trimWSP(v)))
	}
	return strings.ToLower(string(tok))
}
