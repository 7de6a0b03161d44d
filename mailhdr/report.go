package mailhdr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cturi/cturi/mapping"
)

// Kind is the kind of a Problem: why a Content-Type field was not
// rewritten, or why part of a message was passed through unexamined.
type Kind uint8

// The problem kinds. Every one leaves the input bytes it concerns
// unchanged in the output.
const (
	// KindMapping: a Content-Type field whose value does not map (the
	// Problem's Err is the *mapping.Error). The field is not rewritten;
	// if its value cannot even be parsed, the entity's body is passed
	// through unexamined. So a Content-Type that does not parse is
	// reported even where the target leaves it as it is (ToContentType),
	// with the parse error.
	KindMapping Kind = iota + 1
	// KindLineTooLong: the rewritten field cannot be folded into lines of
	// at most 998 octets (RFC 5322 §2.1.1), because a run without white
	// space is too long, or the field's name, colon and the white space
	// after it are; the field is not rewritten.
	KindLineTooLong
	// KindMalformedHeader: a header line that is neither a field nor a
	// continuation (no colon, a bad field name, or a continuation with no
	// field before it). As in RFC 5322 parsers such as Python's email, the
	// header ends there and the line is the first line of the body. A last
	// line cut off by the end of the input before any colon (the start of
	// a field's name, the CR of the empty line) is KindTruncatedHeader.
	KindMalformedHeader
	// KindTruncatedHeader: a header cut off by the end of the input in the
	// middle of a line, or by a multipart delimiter before its empty line.
	// A field cut off by the end of the input might have gone on, so it
	// goes out as it was read, not rewritten.
	KindTruncatedHeader
	// KindNoBoundary: a multipart Content-Type without a usable boundary
	// parameter (missing, empty or longer than 996 octets, so that a
	// delimiter line fits in 998); the body is passed through unexamined.
	// The boundary is read as Go's mime.ParseMediaType reads it, RFC 2231
	// forms (boundary*=utf-8''..., boundary*0=, boundary*1*=) and its
	// backslash rule included.
	KindNoBoundary
	// KindMissingDelimiter: a multipart body without its close delimiter,
	// ended by the end of the input or by an outer delimiter.
	KindMissingDelimiter
	// KindBadDelimiter: a line that starts like a delimiter of the
	// innermost multipart but has other text after it ("--b--junk"); it is
	// kept as body text, as RFC 2046 §5.1.1 defines delimiter lines.
	KindBadDelimiter
	// KindHeaderTooLarge: a header block longer than MaxHeaderBytes; the
	// rest of it and the entity's body are passed through unexamined.
	KindHeaderTooLarge
	// KindFieldTooLarge: a Content-Type or Content-Transfer-Encoding field
	// longer than MaxFieldBytes; it and the entity's body are passed
	// through unexamined.
	KindFieldTooLarge
	// KindTooDeep: a multipart or encapsulated message nested deeper than
	// MaxDepth; it is passed through unexamined (Walk, which cannot pass
	// a part through, stops there instead).
	KindTooDeep
	// KindStructureChange: a Content-Type field whose rewritten form
	// would have its body read as another structure: a multipart with
	// another boundary, or a multipart, an encapsulated message and a
	// single part turned into one another, as the mapping can (SPEC K1
	// drops the top-level type of a uri. subtype, so multipart/uri.a%3Ab
	// comes back as application/uri.a%3Ab). The field is not rewritten, and
	// the body is read as the field says.
	KindStructureChange
	// KindOpaqueMessage: a part whose body carries message headers, with
	// Content-Type fields in them, that cannot be read as they stand: a
	// message/rfc822 or message/global part with a
	// Content-Transfer-Encoding other than 7bit, 8bit or binary (RFC 2046
	// §5.2.1 forbids one for message/rfc822; RFC 6532 §3.5 allows base64
	// and quoted-printable for message/global), a message/partial (§5.2.2:
	// a fragment of a message), a message/external-body (§5.2.3: its
	// body starts with the external body's header), or a message header
	// on its own (text/rfc822-headers, RFC 6522, as delivery status
	// notifications return it; message/global-headers, RFC 6533). The
	// body is passed through unexamined.
	KindOpaqueMessage
	// KindSigned: the first part of a multipart/signed, which its
	// signature covers header and all (RFC 1847 §2.1; PGP/MIME, RFC 3156,
	// and S/MIME, RFC 8551, sign it so): rewriting a single octet of it
	// would make the signature fail to verify, so the part, with every
	// part nested in it, is passed through unexamined, unless
	// Options.RewriteSigned. The signature part after it is rewritten as
	// any other part.
	KindSigned
)

// signedDetail is the Detail of a KindSigned problem.
const signedDetail = "the part a multipart/signed signs, header included; passed through unexamined"

var kindNames = [...]string{
	KindMapping:          "mapping",
	KindLineTooLong:      "line-too-long",
	KindMalformedHeader:  "malformed-header",
	KindTruncatedHeader:  "truncated-header",
	KindNoBoundary:       "no-boundary",
	KindMissingDelimiter: "missing-delimiter",
	KindBadDelimiter:     "bad-delimiter",
	KindHeaderTooLarge:   "header-too-large",
	KindFieldTooLarge:    "field-too-large",
	KindTooDeep:          "too-deep",
	KindStructureChange:  "structure-change",
	KindOpaqueMessage:    "opaque-message",
	KindSigned:           "signed",
}

// String returns the kind's name, e.g. "missing-delimiter".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Sentinels, one per kind: errors.Is(err, mailhdr.ErrMissingDelimiter)
// holds for a Problem of that kind and for Report.Err when it lists one.
var (
	ErrMapping          = errors.New("mailhdr: mapping")
	ErrLineTooLong      = errors.New("mailhdr: line-too-long")
	ErrMalformedHeader  = errors.New("mailhdr: malformed-header")
	ErrTruncatedHeader  = errors.New("mailhdr: truncated-header")
	ErrNoBoundary       = errors.New("mailhdr: no-boundary")
	ErrMissingDelimiter = errors.New("mailhdr: missing-delimiter")
	ErrBadDelimiter     = errors.New("mailhdr: bad-delimiter")
	ErrHeaderTooLarge   = errors.New("mailhdr: header-too-large")
	ErrFieldTooLarge    = errors.New("mailhdr: field-too-large")
	ErrTooDeep          = errors.New("mailhdr: too-deep")
	ErrStructureChange  = errors.New("mailhdr: structure-change")
	ErrOpaqueMessage    = errors.New("mailhdr: opaque-message")
	ErrSigned           = errors.New("mailhdr: signed")
)

var sentinels = [...]error{
	KindMapping:          ErrMapping,
	KindLineTooLong:      ErrLineTooLong,
	KindMalformedHeader:  ErrMalformedHeader,
	KindTruncatedHeader:  ErrTruncatedHeader,
	KindNoBoundary:       ErrNoBoundary,
	KindMissingDelimiter: ErrMissingDelimiter,
	KindBadDelimiter:     ErrBadDelimiter,
	KindHeaderTooLarge:   ErrHeaderTooLarge,
	KindFieldTooLarge:    ErrFieldTooLarge,
	KindTooDeep:          ErrTooDeep,
	KindStructureChange:  ErrStructureChange,
	KindOpaqueMessage:    ErrOpaqueMessage,
	KindSigned:           ErrSigned,
}

// Path locates an entity in a message. Each element is either the 1-based
// number of a part within a multipart (as in IMAP part specifiers) or 0,
// which steps into the message encapsulated in a message/rfc822 or
// message/global part. The top-level message has the empty path.
type Path []int

// String formats p with '.' between elements and "msg" for 0: "" is
// "top", {2, 0, 1} is "2.msg.1" (part 1 of the message carried in part 2).
func (p Path) String() string {
	if len(p) == 0 {
		return "top"
	}
	var b strings.Builder
	for i, n := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		if n == 0 {
			b.WriteString("msg")
		} else {
			b.WriteString(strconv.Itoa(n))
		}
	}
	return b.String()
}

// Problem is one thing a rewrite could not do. It is an error; it unwraps
// to the sentinel of its Kind and to Err. Its methods are value methods
// (see Error), so a nil *Problem is no error: calling one of them through
// it panics, and so do errors.Is and errors.As on an error that holds one.
type Problem struct {
	// Path is the entity the problem is in.
	Path Path
	// Kind says what went wrong.
	Kind Kind
	// Offset is the byte offset in the input of the field or line
	// concerned, or -1 where there is no input stream (RewriteHeader and
	// Walk, whose headers go-message has read already).
	Offset int64
	// Err is the underlying error, a *mapping.Error for KindMapping, and
	// nil for the other kinds.
	Err error
	// Detail is a short description for people.
	Detail string
}

// Error returns "mailhdr: <path>: <kind>: <detail>", with the
// underlying error appended. Problem has value methods, so that a Problem
// taken from Report.Problems is an error as it stands; the errors
// RewriteHeader and Report.Err return hold *Problem, which
// errors.AsType[*Problem] (or errors.As with a *Problem target) finds.
func (p Problem) Error() string {
	s := "mailhdr: " + p.Path.String() + ": " + p.Kind.String()
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	if p.Err != nil {
		s += ": " + p.Err.Error()
	}
	return s
}

// Unwrap returns the sentinel of p.Kind and p.Err.
func (p Problem) Unwrap() []error {
	var errs []error
	if int(p.Kind) < len(sentinels) && sentinels[p.Kind] != nil {
		errs = append(errs, sentinels[p.Kind])
	}
	if p.Err != nil {
		errs = append(errs, p.Err)
	}
	return errs
}

// Report says what a rewrite did.
type Report struct {
	// Entities counts the header blocks examined: the message, its parts
	// and the messages encapsulated in it, at any depth. Those passed
	// through unexamined, such as a signed part's (KindSigned), are not
	// counted.
	Entities int
	// Rewritten counts the Content-Type fields rewritten.
	Rewritten int
	// Problems lists, in input order, what could not be rewritten or
	// examined, up to Options.MaxProblems entries.
	Problems []Problem
	// Omitted counts the problems after the listed ones: those beyond
	// Options.MaxProblems, or from the first that would take the listed
	// problems past Options.MaxReportBytes.
	Omitted int
}

// OK reports whether the rewrite met no problem.
func (r Report) OK() bool { return len(r.Problems) == 0 && r.Omitted == 0 }

// Err returns nil if r is OK, and otherwise an error joining a *Problem
// for every listed problem (errors.Is and errors.As see each one) and,
// if r.Omitted is not 0, a last error saying "mailhdr: N more not
// listed", which matches no sentinel.
func (r Report) Err() error {
	if r.OK() {
		return nil
	}
	errs := make([]error, 0, len(r.Problems)+1)
	for i := range r.Problems {
		errs = append(errs, &r.Problems[i])
	}
	if r.Omitted > 0 {
		errs = append(errs, fmt.Errorf("mailhdr: %d more not listed", r.Omitted))
	}
	return errors.Join(errs...)
}

// reportBuilder lists problems in a Report within the limits, and keeps
// count of the memory they hold.
type reportBuilder struct {
	rep  *Report
	lim  limits
	size int // what rep.Problems holds, as problemSize counts it
}

// add lists p, with a copy of its path, unless the report is full: it
// lists lim.problems already, it omitted one before (so that the list
// has no gap), or p would take it past lim.reportBytes.
func (b *reportBuilder) add(p Problem) {
	r := b.rep
	if r.Omitted > 0 || len(r.Problems) >= b.lim.problems {
		r.Omitted++
		return
	}
	n := problemSize(&p)
	if n > b.lim.reportBytes-b.size {
		r.Omitted++
		return
	}
	b.size += n
	p.Path = append(Path(nil), p.Path...)
	r.Problems = append(r.Problems, p)
}

// problemSize is about what p holds in memory: its own fields, its
// detail and path, and its error's message and, for a mapping error, the
// label it holds.
func problemSize(p *Problem) int {
	n := int(unsafe.Sizeof(*p)) + len(p.Detail) + len(p.Path)*int(unsafe.Sizeof(0))
	if p.Err != nil {
		n += len(p.Err.Error())
		if me, ok := errors.AsType[*mapping.Error](p.Err); ok {
			n += int(unsafe.Sizeof(*me)) + len(me.Input)
		}
	}
	return n
}
