// Package mapping maps MIME Content-Types to URIs and back, so that either
// syntax can carry a type label written in the other (draft-eastlake-cturi,
// "Mapping Between MIME Types, Content-Types, and URIs", versions -08 and
// June 2023).
//
// The draft has typos, a buggy Perl appendix and gaps; this package follows
// the project's binding interpretation, SPEC.md, whose rule letters the
// documentation cites: R0 (definitions, character sets, error kinds), C and
// K (Content-Type to URI, draft §2), U and R (URI to Content-Type, draft
// §3), N (closure and idempotence) and S (security, draft §6).
//
// # Mapping
//
// ToURI and ToContentType map one label; Map detects the syntax of its
// input (Detect) and maps it the other way:
//
//	mapping.ToURI(`text/plain; charset="us-ascii"`)
//	    // ContentType:text/plain?charset="us-ascii"
//	mapping.ToContentType("http://example.com/tag42")
//	    // application/uri.http%3A%2F%2Fexample.com%2Ftag42
//	mapping.ToContentType("ContentType:image/jpeg")
//	    // image/jpeg
//
// Two codecs do the work (SPEC "Design in one paragraph"). A ContentType:
// URI holds a Content-Type percent-encoded, and decoding it gives the
// Content-Type back. Every other URI is carried in a Content-Type (as
// application/uri.<URI>, or in URI-body) with one more level of
// percent-encoding, so its body, query items and fragment come back byte
// for byte; only the normalisations of SPEC N1 apply (the scheme is
// lower-cased, values get '"' delimiters, empty query items are dropped).
// A label that merely wraps the other syntax's form collapses to that
// form, so repeated mapping never grows a label (draft §1.3): for every
// option setting, if f(x) succeeds then the reverse mapping of f(x)
// succeeds and mapping that again gives f(x) (SPEC N4).
//
// # Options
//
// StrictURI writes query-value delimiters as %22 (strict RFC 3986 output);
// Lenient accepts the unquoted parameter values common in mail;
// NoControlled refuses the controlled mapping (URI-body, MIME-type) for
// untrusted input.
//
// # Security
//
// No decoded control character reaches a Content-Type (HTAB inside a
// quoted value is the one exception HTTP and MIME allow), nor does a C1
// control or a line or paragraph separator (see Beyond SPEC). A decoded
// type or subtype must be a media type, so %3B cannot add parameters. URIs
// produced contain no control character, white space or non-ASCII octet.
// Every call is linear in its input; wrapping is unwrapped at most
// MaxCollapseDepth layers deep.
//
// # Beyond SPEC
//
// A hierarchical URI's authority must be well formed (RFC 3986 §3.2), in
// both directions, else KindInvalidURI: a port of digits only, '[' and ']'
// only around an IPv6 literal (IPvFuture is refused, as net/url refuses
// it), and percent-encoding in a host only for octets 0x80 and above (the
// UTF-8 of non-ASCII text; %41 is refused). SPEC U7 checks the body's
// characters only; without this, a://:x would map to a URI that net/url
// refuses. The check is part of U7 (of decoding the URI, for a uri.
// Content-Type), so it precedes the later rules: a://:x?URI-fragment=1 is
// KindInvalidURI, not KindReservedParam. In a decoded parameter name a
// control character anywhere is KindCTL, even when another non-token octet
// comes before it.
//
// SPEC's control characters are ASCII's. ToURI, ToContentType, Map and
// Canonical also refuse, with KindCTL, a Content-Type they produce or map
// to a URI that holds a C1 control (U+0080-U+009F) or U+2028 or U+2029:
// decoded from an ASCII label, these would reach a header, where some
// readers break lines at them (Python's str.splitlines at U+0085, U+2028
// and U+2029) and terminals take C1 controls for escape sequences. The
// check follows the rules of SPEC in each mapping step, a collapse's steps
// (K6, R3) included, so any other error of a step is reported first.
// ParseContentType and ParseURI, which only parse, accept them.
//
// # Errors
//
// Every error is an *Error carrying a Kind (the twelve kinds of SPEC
// R0.16), the input and a byte offset; it unwraps to a sentinel, so
// errors.Is(err, mapping.ErrCTL) works.
//
// # Structured forms and percent-encoding
//
// ParseContentType and ParseURI return the parsed forms (ordered
// parameters and query items, duplicates and case kept) with String
// methods that format them canonically. Escape, EscapeText, Unescape and
// Repair are the package's percent-encoder, driven by a ByteSet; the
// exported sets (Unreserved, ComponentSafe, TokenSafe, BodyChars,
// QueryChars, ...) are the ones SPEC R0.7-R0.9 defines, for callers
// encoding their own URI components (octets or UTF-8 text, as the seed
// post on percent-encoding arbitrary data describes in its cases A and B).
//
// The package uses the standard library only and neither mime.ParseMediaType
// (it lower-cases names, rejects duplicates and returns an unordered map)
// nor net/url's query helpers (they treat '+' as space and drop ';').
package mapping
