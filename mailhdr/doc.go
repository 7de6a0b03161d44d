// Package mailhdr rewrites the Content-Type fields of MIME mail between
// Content-Types and the URI labels of draft-eastlake-cturi (as the cturi
// SPEC resolves it, implemented by package mapping), in flight, leaving
// every other octet of the message as it was.
//
// It reads messages as RFC 5322 (with RFC 6532's UTF-8), RFC 2045 and
// RFC 2046 define them: header fields, folded or not, then a body; a
// multipart body split by delimiter lines (RFC 2046 §5.1.1), parts
// defaulting to message/rfc822 in a multipart/digest (§5.1.5); a
// message/rfc822 or message/global (RFC 6532 §3.5) body holding a
// message of its own. It leaves alone the part an RFC 1847
// multipart/signed signs (see Signed parts).
//
// # Rewriting a message
//
// Rewrite copies a message from an io.Reader to an io.Writer; NewReader
// wraps a source so that reading gives the rewritten message:
//
//	rep, err := mailhdr.Rewrite(os.Stdout, os.Stdin, mailhdr.Options{To: mailhdr.ToURI})
//
// The output equals the input octet for octet except the Content-Type
// fields rewritten. A rewritten field keeps its name as written and the
// white space after the colon, is folded at 78 columns with the field's
// own line ending, and never has a line over 998 octets. A URI label has
// no white space to fold at, so one longer than a line is folded by
// inserting line breaks at points after its scheme, as many as it needs
// (inside the scheme only when the scheme alone does not fit on the first
// line); readers drop the white space around them (RFC 3986
// Appendix C). This package does when it reads a URI label: it drops the
// white space around each line break, and reports a label with white
// space elsewhere as the invalid URI it is. go-message's Header.Get keeps
// that white space; Label reads a go-message header's label as this
// package does.
//
// The structure of a message is read from each entity's first
// Content-Type field, from its mapping when the field holds a URI label,
// and a field is rewritten only if its rewritten form gives its body the
// same structure: the mapping can turn a multipart into a single part or
// the other way round, or change a boundary (KindStructureChange). A
// boundary is read as Go's mime.ParseMediaType reads it, and so as
// go-message splits a body, but for RFC 2047 encoded words, which
// go-message decodes in it, for a boundary folded inside its quotes
// (this package unfolds as RFC 5322 §2.2.3 says, keeping the white space
// around the line break, where go-message replaces it with one space),
// and for a field mime.ParseMediaType refuses, such as mail's unquoted
// boundary=----=_Part_0 or a comment after a value: go-message reads no
// parts there, where this package reads the field by the RFC grammar
// (leniently, see Options.StrictParsing).
//
// # Signed parts
//
// The first part of a multipart/signed (RFC 1847 §2.1) is what its
// signature covers, header included, octet for octet after line-ending
// canonicalisation: PGP/MIME (RFC 3156) and S/MIME (RFC 8551) sign it so.
// Rewriting a Content-Type in it would make the signature fail, so that
// part, with every part nested in it, is copied unexamined and reported
// (KindSigned), whatever the target; a round trip to URI labels and back
// leaves it, and its signature, as they were. The multipart/signed's own
// field and its signature part are outside the signature and are
// rewritten. Options.RewriteSigned rewrites the signed part too. DKIM
// signatures (RFC 6376) usually cover the message's own Content-Type
// field (their h= tag): a gateway should rewrite before a message is
// DKIM-signed, or after its signature has been checked.
//
// The scanner is the package's own: go-message, which users of this
// package hold messages in, reads for a consumer and re-encodes what it
// writes, while a gateway must copy what it does not rewrite. Memory
// does not depend on the size of the message, and time is linear in it,
// however deep the nesting: delimiter lines are matched against every
// open multipart with one map look-up.
//
// # Malformed input and limits
//
// Nothing is refused and nothing is lost: input the scanner cannot make
// sense of is copied as it is, and the Report lists each Content-Type
// that was not rewritten and each part passed through unexamined, with
// its Path and Kind. Options bound the header block (1 MiB), one held
// field (100 KiB), the nesting depth (100) and the Report (1,000
// problems holding at most 1 MiB, the others only counted); past a limit
// the rest of the entity is copied unexamined, and the Report says so.
//
// # go-message
//
// RewriteHeader rewrites a github.com/emersion/go-message textproto.Header
// in place, keeping the order and raw bytes of its fields; Walk rewrites
// the headers of a message.Entity tree as it walks it.
package mailhdr
