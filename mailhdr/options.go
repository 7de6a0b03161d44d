package mailhdr

import (
	"errors"
	"fmt"

	"github.com/cturi/cturi/mapping"
)

// Target says what a rewrite turns each Content-Type field into.
type Target uint8

const (
	// ToURI rewrites each Content-Type field that holds a Content-Type to
	// its URI label (mapping.ToURI). A field that already holds a URI
	// label is left as it is.
	ToURI Target = iota
	// ToContentType rewrites each Content-Type field that holds a URI
	// label back to a Content-Type (mapping.ToContentType). A field that
	// already holds a Content-Type is left as it is; if it does not parse,
	// the Report says so (KindMapping), as its body is not examined.
	ToContentType
	// Canonical rewrites each Content-Type field, of either syntax, to its
	// canonical Content-Type (mapping.Canonical), and leaves a field that
	// is canonical already as it is.
	Canonical
)

// String returns "uri", "ct" or "canonical", the names the cturi command
// takes after -to.
func (t Target) String() string {
	switch t {
	case ToURI:
		return "uri"
	case ToContentType:
		return "ct"
	case Canonical:
		return "canonical"
	}
	return fmt.Sprintf("Target(%d)", uint8(t))
}

// ParseTarget returns the Target named "uri", "ct" or "canonical"; any
// other name gives an error wrapping ErrUnknownTarget.
func ParseTarget(s string) (Target, error) {
	for _, t := range [...]Target{ToURI, ToContentType, Canonical} {
		if s == t.String() {
			return t, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want uri, ct or canonical)", ErrUnknownTarget, s)
}

// ErrUnknownTarget is the error ParseTarget wraps for a name it does not
// know, and the one Rewrite, a Reader, RewriteHeader and Walk wrap for an
// Options.To that is none of ToURI, ToContentType and Canonical (they then
// read and write nothing).
var ErrUnknownTarget = errors.New("mailhdr: unknown target")

// check returns an error wrapping ErrUnknownTarget if o.To is not a Target.
func (o *Options) check() error {
	switch o.To {
	case ToURI, ToContentType, Canonical:
		return nil
	}
	return fmt.Errorf("%w: Options.To is %v", ErrUnknownTarget, o.To)
}

// Default limits; see Options.
const (
	DefaultMaxHeaderBytes = 1 << 20   // 1 MiB, as go-message's reader
	DefaultMaxFieldBytes  = 100 << 10 // 100 KiB
	DefaultMaxDepth       = 100
	DefaultMaxProblems    = 1000
	DefaultMaxReportBytes = 1 << 20 // 1 MiB
)

// Options control a rewrite. The zero value rewrites Content-Types to URI
// labels, parses mail's unquoted parameter values leniently, and applies
// the default limits.
type Options struct {
	// To is the direction of the rewrite; the zero value is ToURI.
	To Target

	// StrictParsing turns off mapping.Lenient, which is otherwise used
	// for every Content-Type read from a message, so that unquoted values
	// such as boundary=----=_Part_0 are refused as the SPEC's default
	// grammar refuses them. The structure of the message (boundaries) is
	// always read leniently.
	StrictParsing bool
	// StrictURI writes URI labels with %22 value delimiters
	// (mapping.StrictURI).
	StrictURI bool
	// NoControlled refuses the controlled mapping (mapping.NoControlled),
	// for messages from untrusted senders.
	NoControlled bool
	// RewriteSigned rewrites the first part of a multipart/signed too,
	// which is otherwise passed through unexamined (KindSigned), since
	// its signature covers its header: a message rewritten so no longer
	// verifies. It is for messages whose labels matter more than their
	// signatures.
	RewriteSigned bool

	// MaxHeaderBytes bounds one header block (the fields of the message or
	// of one part), its ending empty line included. Past it, the rest of
	// that header and the entity's body pass through unexamined; a
	// Content-Type field that ended within the limit is still rewritten.
	// 0 means DefaultMaxHeaderBytes; a negative value means no limit.
	MaxHeaderBytes int
	// MaxFieldBytes bounds one Content-Type or Content-Transfer-Encoding
	// field, the only fields held in memory. A longer one passes through
	// unchanged and the entity's body is not examined. 0 means
	// DefaultMaxFieldBytes; a negative value means no limit.
	//
	// Both limits bound what is read. Rewritten, a field can grow: in a
	// Content-Type written as a URI label and in a URI label written as
	// an application/uri. type, each octet that must be percent-encoded
	// becomes three, and a non-ASCII octet of a URI label (an IRI) five
	// (%25HH). So a reader of the output, mailhdr included, may need
	// limits four times as large, six for IRIs.
	MaxFieldBytes int
	// MaxDepth bounds how deeply multiparts and encapsulated messages are
	// descended into; the top-level message is depth 0. An entity at the
	// limit still has its header rewritten, but its body is passed
	// through unexamined. 0 means DefaultMaxDepth; a negative value means
	// no limit. Walk, which cannot pass a part through, stops at a part
	// nested deeper, with an error.
	MaxDepth int
	// MaxProblems bounds how many problems a Report lists; the others are
	// only counted (Report.Omitted). 0 means DefaultMaxProblems; a
	// negative value means no limit.
	MaxProblems int
	// MaxReportBytes bounds the memory the listed problems hold: their
	// details, paths (an int per element, so a 32-bit platform lists
	// more problems in the same bytes) and errors (a mapping error holds
	// the whole label, up to MaxFieldBytes, and a message quoting it).
	// From the first problem that would pass it, problems are only
	// counted (Report.Omitted), as beyond MaxProblems. 0 means
	// DefaultMaxReportBytes; a negative value means no limit.
	MaxReportBytes int
}

// limits are Options with the defaults applied; "no limit" is maxInt.
type limits struct {
	header, field, depth, problems, reportBytes int
}

const maxInt = int(^uint(0) >> 1)

func limitOf(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return maxInt
	}
	return v
}

func (o *Options) limits() limits {
	return limits{
		header:   limitOf(o.MaxHeaderBytes, DefaultMaxHeaderBytes),
		field:    limitOf(o.MaxFieldBytes, DefaultMaxFieldBytes),
		depth:    limitOf(o.MaxDepth, DefaultMaxDepth),
		problems: limitOf(o.MaxProblems, DefaultMaxProblems),

		reportBytes: limitOf(o.MaxReportBytes, DefaultMaxReportBytes),
	}
}

// mappingOptions returns the mapping options for field values.
func (o *Options) mappingOptions() []mapping.Option {
	opts := make([]mapping.Option, 0, 3)
	if !o.StrictParsing {
		opts = append(opts, mapping.Lenient)
	}
	if o.StrictURI {
		opts = append(opts, mapping.StrictURI)
	}
	if o.NoControlled {
		opts = append(opts, mapping.NoControlled)
	}
	return opts
}
