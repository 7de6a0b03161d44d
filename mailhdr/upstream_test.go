package mailhdr

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/emersion/go-message"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpstreamMessages runs messages that users of other MIME readers
// reported as misread through a round trip, to URI labels and back: the
// result must be the message with its Content-Type fields in canonical
// form and every other octet as it came, with the problems the scanner
// saw, and go-message must read the structure the test names in it.
// Each case cites the report it comes from.
func TestUpstreamMessages(t *testing.T) {
	const nodemailer = "----NODEMAILER-?=_1-1327405538300"
	for _, tt := range []struct {
		name, in  string
		back      string      // "" when the round trip gives in back
		rewritten int         // Content-Type fields rewritten in each of the two passes
		problems  []problemAt // in each of the two passes
		shape     string      // of back as go-message reads it (gomessageShape)
	}{{
		// rwf2/multer#25, kisli/vmime#38: RFC 2046 §5.1.1's transport
		// padding, white space after a delimiter and a close delimiter,
		// which readers must take.
		name:      "transport padding",
		in:        "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b \t\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--  \r\n",
		back:      "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b \t\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--  \r\n",
		rewritten: 2,
		shape:     "multipart/mixed(b)[text/plain]",
	}, {
		// libwww-perl/libwww-perl#223: a message that ends at its close
		// delimiter, without a line break after it.
		name:      "close delimiter at the end of the input",
		in:        "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--",
		rewritten: 2,
		shape:     "multipart/mixed(b)[text/plain]",
	}, {
		// staktrace/mailparse#127: RFC 2046 §5.1.1's own example; the
		// CRLF before a delimiter belongs to the delimiter, so the first
		// part, implicitly typed, does not end with a line break.
		name: "RFC 2046 sample",
		in: "Content-type: multipart/mixed; boundary=\"simple boundary\"\r\n\r\nThis is the preamble.\r\n\r\n--simple boundary\r\n\r\n" +
			"This is implicitly typed plain US-ASCII text.\r\nIt does NOT end with a linebreak.\r\n--simple boundary\r\n" +
			"Content-type: text/plain; charset=us-ascii\r\n\r\nThis is explicitly typed plain US-ASCII text.\r\nIt DOES end with a linebreak.\r\n\r\n" +
			"--simple boundary--\r\n\r\nThis is the epilogue.\r\n",
		back: "Content-type: multipart/mixed; boundary=\"simple boundary\"\r\n\r\nThis is the preamble.\r\n\r\n--simple boundary\r\n\r\n" +
			"This is implicitly typed plain US-ASCII text.\r\nIt does NOT end with a linebreak.\r\n--simple boundary\r\n" +
			"Content-type: text/plain; charset=\"us-ascii\"\r\n\r\nThis is explicitly typed plain US-ASCII text.\r\nIt DOES end with a linebreak.\r\n\r\n" +
			"--simple boundary--\r\n\r\nThis is the epilogue.\r\n",
		rewritten: 2,
		shape:     "multipart/mixed(simple boundary)[text/plain,text/plain]",
	}, {
		// deitch/smtp-tester#2, janestreet/email_message#2: the boundary
		// on a continuation line of its own, as mailcomposer folds it.
		name:      "boundary on a continuation line",
		in:        "Content-Type: multipart/alternative;\r\n           boundary=\"----mailcomposer-?=_1-1345819600251\"\r\n\r\n------mailcomposer-?=_1-1345819600251\r\nContent-Type: text/plain\r\n\r\nx\r\n------mailcomposer-?=_1-1345819600251--\r\n",
		back:      "Content-Type: multipart/alternative;\r\n boundary=\"----mailcomposer-?=_1-1345819600251\"\r\n\r\n------mailcomposer-?=_1-1345819600251\r\nContent-Type: text/plain\r\n\r\nx\r\n------mailcomposer-?=_1-1345819600251--\r\n",
		rewritten: 2,
		shape:     "multipart/alternative(----mailcomposer-?=_1-1345819600251)[text/plain]",
	}, {
		// ProtonMail/proton-bridge#121, golang/go#19498: nodemailer's
		// unquoted boundary holds "?" and "=", which Go's
		// mime.ParseMediaType refuses, so go-message reads no parts.
		// Read leniently (mapping.Lenient), the field comes back with the
		// boundary quoted, the one the delimiters use, which go-message
		// then reads.
		name:      "unquoted boundary with tspecials",
		in:        "Content-Type: multipart/alternative; boundary=" + nodemailer + "\r\n\r\n--" + nodemailer + "\r\nContent-Type: text/plain\r\n\r\nx\r\n--" + nodemailer + "--\r\n",
		back:      "Content-Type: multipart/alternative;\r\n boundary=\"" + nodemailer + "\"\r\n\r\n--" + nodemailer + "\r\nContent-Type: text/plain\r\n\r\nx\r\n--" + nodemailer + "--\r\n",
		rewritten: 2,
		shape:     "multipart/alternative(" + nodemailer + ")[text/plain]",
	}, {
		// emersion/go-message#19: empty fields run together, so that
		// "Content-Type:" stands inside the value of a Bcc field. That
		// is no Content-Type field: nothing is rewritten and the body is
		// not read as a multipart, as go-message reads it.
		name:  "Content-Type inside another field's value",
		in:    "Bcc: Cc: Content-Type: multipart/mixed;\r\n boundary=0443\r\nSubject: s\r\n\r\n--0443\r\nContent-Type: text/plain\r\n\r\nx\r\n--0443--\r\n",
		shape: "text/plain",
	}, {
		// emersion/go-message#129: a multipart whose close delimiter never
		// comes, common in spam; the parts before the end are rewritten
		// and the message is copied whole, with the problem reported.
		name:      "missing close delimiter",
		in:        "Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n",
		problems:  []problemAt{{"top", KindMissingDelimiter}},
		rewritten: 2,
		shape:     "multipart/mixed(b)[text/html] error",
	}, {
		// kisli/vmime#227: a body line that starts with the boundary
		// (RFC 2046 §5.1 forbids composers to write one; some gateways
		// do) is body text, not a delimiter: the part goes on.
		name:      "boundary as a prefix of body lines",
		in:        "Content-Type: multipart/mixed; boundary=\"simple\"\r\n\r\n--simple\r\nContent-Type: text/plain\r\n\r\n--simple-not a delimiter\r\n--simple--x\r\n--simple--\r\n",
		problems:  []problemAt{{"1", KindBadDelimiter}, {"1", KindBadDelimiter}},
		rewritten: 2,
		shape:     "multipart/mixed(simple)[text/plain] error",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			uri, rep := rewriteBytes(t, []byte(tt.in), Options{To: ToURI})
			assert.Equal(t, tt.rewritten, rep.Rewritten, "to URI labels")
			assert.Equal(t, tt.problems, problemsOf(rep), "to URI labels")
			back, rep := rewriteBytes(t, uri, Options{To: ToContentType})
			assert.Equal(t, tt.rewritten, rep.Rewritten, "back to Content-Types")
			assert.Equal(t, tt.problems, problemsOf(rep), "back to Content-Types")
			want := tt.back
			if want == "" {
				want = tt.in
			}
			assert.Equal(t, want, string(back))
			assert.Equal(t, tt.shape, gomessageShape(t, string(back)))
		})
	}
}

// gomessageShape is the structure go-message reads in msg: each entity's
// type, a multipart's boundary in parentheses and its parts in brackets,
// and " error" after it if go-message stopped on an error.
func gomessageShape(t *testing.T, msg string) string {
	t.Helper()
	e, err := message.Read(strings.NewReader(msg))
	require.NoError(t, err)
	var shape func(e *message.Entity) (string, error)
	shape = func(e *message.Entity) (string, error) {
		typ, params, _ := e.Header.ContentType()
		mr := e.MultipartReader()
		if mr == nil {
			return typ, nil
		}
		var parts []string
		for {
			p, err := mr.NextPart()
			if err != nil {
				s := typ + "(" + params["boundary"] + ")[" + strings.Join(parts, ",") + "]"
				if errors.Is(err, io.EOF) {
					return s, nil
				}
				return s, err
			}
			s, err := shape(p)
			parts = append(parts, s)
			if err != nil {
				return typ + "(" + params["boundary"] + ")[" + strings.Join(parts, ",") + "]", err
			}
		}
	}
	s, err := shape(e)
	if err != nil {
		s += " error"
	}
	return s
}
