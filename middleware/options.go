package middleware

import (
	"net/http"
	"strconv"

	"github.com/cturi/cturi/mapping"
)

// Mode says how the middleware rewrites the labels going one way.
type Mode uint8

const (
	// ToContentType maps a URI label to its Content-Type
	// (mapping.ToContentType) and leaves a Content-Type as it is, without
	// parsing it. It is the zero Mode: net/http, ParseForm and most
	// clients speak Content-Types.
	ToContentType Mode = iota
	// ToURI maps a Content-Type to its URI label (mapping.ToURI) and
	// leaves a URI label as it is.
	ToURI
	// Canonical maps every label to its canonical Content-Type
	// (mapping.Canonical): URI labels are mapped, Content-Types are written
	// canonically and wrapped forms collapse. It parses every label, so it
	// costs a mapping call even when the label does not change (the first
	// two times a label is seen; after that it comes from the cache while
	// the cache keeps it, see the package documentation).
	Canonical
	// Leave leaves labels alone.
	Leave
)

// String returns the mode's name: "to-ct", "to-uri", "canonical" or
// "leave" (or "Mode(n)" for another value).
func (m Mode) String() string {
	switch m {
	case ToContentType:
		return "to-ct"
	case ToURI:
		return "to-uri"
	case Canonical:
		return "canonical"
	case Leave:
		return "leave"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Policy says what becomes of a request whose label cannot be mapped.
type Policy uint8

const (
	// Reject answers the request with 415 Unsupported Media Type and a
	// plain-text body naming the error kind; the handler does not run.
	// It is the zero Policy: a label the middleware was told to translate
	// but cannot is not what the handler expects.
	Reject Policy = iota
	// PassThrough hands the request to the handler with its label
	// unchanged; RequestLabels reports the error.
	PassThrough
)

// DefaultMaxLabelLen is the longest label, in bytes, that the middleware
// maps when Options.MaxLabelLen is zero. Real Content-Types are well under
// a hundred bytes; multipart boundaries and URI labels stay far below this.
const DefaultMaxLabelLen = 4096

// Options configure Rewrite, ProxyRewrite and ProxyModifyResponse. The
// zero value maps URI labels to Content-Types both ways, answers 415 to a
// request label that cannot be mapped, accepts every URI scheme the
// mapping accepts, and leaves form bodies to the handler. The
// constructors copy what they need of it, its slices included, so that
// changing an Options afterwards does not change a middleware built
// from it, and each middleware they return serves any number of requests
// at once.
type Options struct {
	// Request is how request labels are rewritten; the zero value is
	// ToContentType.
	Request Mode
	// Response is how response labels are rewritten; the zero value is
	// ToContentType.
	Response Mode

	// Unmappable says what becomes of a request whose label cannot be
	// mapped; the zero value is Reject (415). A response label that cannot
	// be mapped always goes out unchanged from Rewrite (the handler is
	// already answering); ProxyModifyResponse with Reject returns the error
	// to the proxy, whose ErrorHandler answers 502 Bad Gateway by default.
	Unmappable Policy

	// Mapping holds the options passed to every mapping call. For
	// untrusted input, include mapping.NoControlled: it refuses the
	// controlled mapping (URI-body, MIME-type; draft §6), with error kind
	// reserved-param. mapping.Lenient accepts the unquoted parameter
	// values some clients send with characters HTTP reserves for quoted
	// strings (profile=http://...); mapping.StrictURI makes URI labels
	// strict RFC 3986.
	Mapping []mapping.Option

	// Schemes, when not empty, lists the URI schemes (compared ignoring
	// ASCII case) that a label the middleware maps may name: the scheme of
	// a URI label it reads or writes, and that of the URI a Content-Type
	// it produces wraps (application/uri.<URI>, URI-body). The ContentType
	// scheme, which only carries a Content-Type, is always allowed. Labels
	// the mode leaves alone are not checked.
	Schemes []string

	// MaxLabelLen bounds the length in bytes of a label the middleware
	// maps; a longer one cannot be mapped (ErrLabelTooLong). Zero means
	// DefaultMaxLabelLen, a negative value no limit.
	MaxLabelLen int

	// DecodeForms decodes the body of a POST, PUT or PATCH request whose
	// one label (as the handler sees it; two Content-Type fields are
	// ambiguous and decode nothing) is application/www-form-urlencoded
	// (draft-hoehrmann-urlencoded: ';' or '&' between pairs, UTF-8 only)
	// into r.PostForm, as net/http's ParseForm does for the legacy
	// application/x-www-form-urlencoded type, which net/http keeps
	// handling itself. ParseForm, FormValue and PostFormValue then work as
	// usual, and the body stays readable. A body that does not decode or
	// cannot be read is answered 400 (413 if too large, without reading
	// it when its Content-Length (r.ContentLength, which a handler ahead
	// that replaces the body, to decompress it say, must update) says so,
	// so that a client that sent Expect: 100-continue sends nothing), or,
	// with
	// PassThrough, handed on undecoded, with the error in RequestLabels:
	// the handler reads the octets the middleware read, then the rest, or
	// the read error again.
	DecodeForms bool
	// MaxFormBytes bounds the form bodies DecodeForms reads. Zero means
	// net/http's limit for forms: DefaultMaxFormBytes (10 MiB), or for a
	// body that http.MaxBytesReader already limits, that limit alone. A
	// negative value means no limit, as for MaxLabelLen; the body is then
	// read into memory whatever its size, so limit it ahead (for example
	// with http.MaxBytesReader).
	MaxFormBytes int64

	// FreshWriters gives each request a response writer of its own
	// instead of one recycled from an earlier request, for one allocation
	// (112 bytes and 20 to 45 ns on amd64) per request. Recycling is safe for
	// handlers that keep net/http's rule that a ResponseWriter may not be
	// used after ServeHTTP returns; set FreshWriters when handlers you do
	// not control may break it (a goroutine left writing to w), so that
	// such a write reaches the writer of its own request, as it does
	// without the middleware, and never a later request's. One that
	// breaks it is http.TimeoutHandler placed inside Rewrite: after the
	// timeout its handler may still run, and while its writes are
	// dropped, a Push passes through to w; put TimeoutHandler outside
	// Rewrite, or set FreshWriters.
	FreshWriters bool

	// OnError, if not nil, is called with every label that cannot be
	// mapped, on either side, and every form body that DecodeForms cannot
	// decode, before the policy applies; err is an *Error. It must not
	// write to the response. Calls for different requests may run
	// concurrently. From the proxy hooks r is the outgoing
	// request: ProxyRequest.Out for ProxyRewrite, and for
	// ProxyModifyResponse the Response's Request, which is nil when the
	// proxy's Transport did not set it (a RoundTripper need not).
	OnError func(r *http.Request, err error)
}
