package mailhdr

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cturi/cturi/internal/printable"
	message "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// RewriteHeader rewrites the Content-Type fields of h in place, as opts.To
// says, and returns how many it rewrote. The order of the fields and the
// raw bytes of every other field are kept, and so is the value of one
// made with Header.Set or Add. (go-message cannot replace a field where
// it stands, so the fields from the top down to the last one rewritten
// are taken off and added back, or, when more than a few are, every
// field is added to a new header that replaces *h. Like Header.Set, this
// may change a header copied by assignment too: keep an original with
// Header.Copy.) A rewritten field is folded with the field's own line
// ending (CRLF for a field go-message created, which is what it writes).
//
// The error, if not nil, is one of two sorts. It may join a *Problem for
// each Content-Type field that does not map, fold or keep its structure
// (KindMapping, KindLineTooLong or KindStructureChange, with an empty
// Path and an Offset of -1; unlike Rewrite, not for a Content-Type that
// does not parse where the target leaves it as it is, since go-message
// reads the body): those fields are left as they are, and the other
// Content-Type fields are still rewritten and counted. Or it wraps the
// error go-message returned for a field it cannot format, or wraps
// ErrUnknownTarget (errors.Is): then h is unchanged and the count is 0. The limits
// of opts do not apply: h is in memory already. RewriteHeader panics if h
// is nil.
func RewriteHeader(h *textproto.Header, opts Options) (int, error) {
	if h == nil {
		panic("mailhdr: RewriteHeader: nil header")
	}
	if err := opts.check(); err != nil {
		return 0, err
	}
	n, problems, err := rewriteHeader(h, newFieldRewriter(&opts))
	if err != nil {
		return 0, err
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return n, errors.Join(errs...)
}

// Label returns the label of h's Content-Type field (of the first, if
// there are several, as go-message's Header.Get does) as this package
// reads one: unfolded, with the white space at either end trimmed, and,
// for a URI label folded over several lines, without the white space
// around each line break, which RFC 3986 Appendix C has readers drop. The
// package folds URI labels longer than a line that way, and go-message's
// Header.Get keeps that white space, which makes such a label an invalid
// URI to package mapping; Label gives the URI back. It returns "" if h
// has no Content-Type field, and an error only for a field made with
// Header.Set that go-message cannot format. The label is not checked: map
// it with package mapping. Label panics if h is nil.
func Label(h *textproto.Header) (string, error) {
	if h == nil {
		panic("mailhdr: Label: nil header")
	}
	raw, err := h.Raw("Content-Type")
	if err != nil {
		return "", fmt.Errorf("mailhdr: %w", err)
	}
	_, after, ok := bytes.Cut(raw, []byte{':'})
	if !ok {
		return "", nil
	}
	label, _, _ := readLabel(nil, after)
	return label, nil
}

// isMultipartSigned reports whether h, not yet rewritten, says
// multipart/signed as go-message read it when it made the part
// (Header.ContentType). That parse allocates about five times, so it is
// done only for a value that can give "signed": one holding "gned" in
// any ASCII case. mime.ParseMediaType lowers the media type rune by rune
// (strings.ToLower), and no rune other than these letters lowers to one
// of them (TestGnedLowersFromASCIIOnly); the "i" of "signed", which
// U+0130 also lowers to, is why the check leaves it out.
func isMultipartSigned(h *message.Header) bool {
	v := h.Get("Content-Type")
	if !containsFoldASCII(v, "gned") {
		return false
	}
	mt, _, _ := h.ContentType()
	return mt == "multipart/signed"
}

// containsFoldASCII reports whether s contains lower, which is lower-case
// ASCII letters only, in any ASCII case.
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) && s[i+j]|0x20 == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// hasPathPrefix reports whether path starts with prefix.
func hasPathPrefix(path, prefix []int) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

// onePlus returns go-message's 0-based part indices as a Path.
func onePlus(path []int) Path {
	p := make(Path, len(path))
	for i, n := range path {
		p[i] = n + 1
	}
	return p
}

// rewriteHeader is RewriteHeader with fr, made from a checked Options
// (Walk makes one for all the headers it rewrites, whose scratch space
// they then share).
func rewriteHeader(h *textproto.Header, fr *fieldRewriter) (int, []*Problem, error) {
	var inline [8]headerField // a part's header, without an allocation
	raws := inline[:0]
	changed, last := 0, -1 // last: the index of the last field rewritten
	var problems []*Problem
	for fields := h.Fields(); fields.Next(); {
		raw, err := fields.Raw()
		if err != nil {
			return 0, nil, fmt.Errorf("mailhdr: %w", err)
		}
		if !strings.EqualFold(fields.Key(), "Content-Type") {
			raws = append(raws, headerField{raw, fields.Key(), fields.Value()})
			continue
		}
		out, oc := fr.rewrite(nil, raw, "\r\n")
		// A Content-Type that does not parse, left as the target says, is
		// not a problem here: go-message reads the body's structure on
		// its own.
		if k, detail, err := oc.problem(false); k != 0 && !oc.unparsed {
			problems = append(problems, &Problem{Kind: k, Offset: -1, Detail: detail, Err: err})
		}
		if oc.rewritten {
			changed, last = changed+1, len(raws)
			raws = append(raws, headerField{raw: out})
		} else {
			raws = append(raws, headerField{raw, fields.Key(), fields.Value()})
		}
	}
	if changed == 0 {
		return 0, problems, nil
	}
	// go-message has no way to replace a field where it stands, and
	// AddRaw (as Set) puts a field at the top: take off the fields from
	// the top down to the last one rewritten, and add them back last to
	// first. The fields below it stay where they are, untouched. Taking a
	// field off (HeaderFields.Del) costs time in proportion to the fields
	// of its name, so a header of n Received fields above its
	// Content-Type would cost O(n²): below more than a few fields, every
	// field goes into a new header instead.
	if last < len(inline) {
		del := h.Fields()
		for range last + 1 {
			del.Next()
			del.Del()
		}
		for i := last; i >= 0; i-- {
			addBack(h, h, raws[i])
		}
		return changed, problems, nil
	}
	var dst, probe textproto.Header
	for _, f := range slices.Backward(raws) {
		addBack(&dst, &probe, f)
	}
	*h = dst
	return changed, problems, nil
}

// headerField is a field rewriteHeader holds to add back: the raw bytes
// of a field rewritten, or of one kept as it was, with its key and value.
type headerField struct {
	raw        []byte
	key, value string // of a field kept as it was
}

// addBack adds f at the top of dst. A field made with Header.Set or Add
// has no raw bytes: Raw formats it, and AddRaw would read back its value
// without the white space at either end or around a fold, so such a
// field is added as it was made. Whether f's raw bytes read back is tried
// in try, which is dst itself or a header of that one field: taking a
// field off a header (HeaderFields.Del) costs time in proportion to its
// fields of that name.
func addBack(dst, try *textproto.Header, f headerField) {
	try.AddRaw(f.raw)
	readsBack := f.key == "" || try.Get(f.key) == f.value
	if try == dst && readsBack {
		return
	}
	top := try.Fields()
	top.Next() // the field just added
	top.Del()
	if readsBack {
		dst.AddRaw(f.raw)
	} else {
		dst.Add(f.key, f.value)
	}
}

// Walk walks e as message.Entity.Walk does (consuming it), rewriting each
// entity's header with RewriteHeader before fn sees it. Walk descends
// where go-message does: into multiparts whose Content-Type go-message
// parsed when it read the entity, and not into message/rfc822 parts. So
// Walk suits Content-Types to URI labels; to read a message labelled with
// URIs, pass it through NewReader with ToContentType before message.Read.
// The part a multipart/signed signs, and the parts in it, fn gets as
// go-message read them, not rewritten (KindSigned, unless
// opts.RewriteSigned), and they are not counted in Report.Entities.
//
// Since fn sees the header rewritten, part.Header.ContentType() may no
// longer read a media type there (a URI label does not parse as one). To
// tell a multipart from a part whose body fn may read, ask
// part.MultipartReader() != nil, as go-message's Walk itself does: fn
// that reads a multipart's body consumes the parts Walk is about to visit.
//
// Walk sees each header as go-message parsed it, and go-message takes a
// header cut off by the end of the input for a whole one, so Walk
// rewrites a Content-Type that Rewrite would pass through as read
// (KindTruncatedHeader).
//
// The Report lists the fields not rewritten, with go-message's 0-based
// part indices turned into Path's 1-based numbers. The error is the one
// fn or go-message returned, a *Problem of KindTooDeep for a part nested
// deeper than MaxDepth (below), or one wrapping ErrUnknownTarget for an
// Options.To that names no Target (then fn is not called). go-message's
// error for a malformed part header quotes the line as it is, so when its
// message holds characters that do not print (a CR or LF, ESC, a bidi
// control, an octet that is not UTF-8), Walk returns it wrapped, with
// those escaped as in a Go string literal; errors.Unwrap gives it back.
//
// Of the limits of opts, MaxDepth, MaxProblems and MaxReportBytes apply;
// go-message has read each header already. go-message reads a part
// through one reader for each multipart around it, so a walk takes time
// in proportion to the message's size times its depth: without a depth
// limit, a message of nested multiparts takes the square of its size
// (720 KiB nested 10,707 deep kept a core busy for 35 s). So Walk stops
// at a part nested deeper than MaxDepth, before fn sees it, and returns
// a *Problem of KindTooDeep (errors.Is(err, ErrTooDeep)), listed in the
// Report too, with the path of the multipart at the limit; the parts
// after it are not walked. Rewrite and NewReader pass such a part
// through instead, and go on.
//
// Walk panics if fn is nil, before it rewrites anything. A nil e is
// walked as go-message's Walk walks it, as no entity: fn is not called,
// and the Report is empty.
func Walk(e *message.Entity, opts Options, fn message.WalkFunc) (Report, error) {
	if fn == nil {
		panic("mailhdr: Walk: nil fn")
	}
	if err := opts.check(); err != nil {
		return Report{}, err
	}
	var rep Report
	lim := opts.limits()
	log := reportBuilder{rep: &rep, lim: lim}
	fr := newFieldRewriter(&opts)
	// go-message walks depth first, parents before children: the part a
	// multipart/signed signs comes right after it, and the parts in that
	// part right after it in turn, until one that is not theirs.
	var signed []int  // the path of that part, from its multipart/signed on
	fnFailed := false // the walk stopped at an error of fn's
	call := func(path []int, part *message.Entity, err error) error {
		err = fn(path, part, err)
		fnFailed = err != nil
		return err
	}
	err := e.Walk(func(path []int, part *message.Entity, err error) error {
		if len(path) > lim.depth {
			// go-message has read this part through a reader for each
			// multipart around it; the next would cost more still.
			p := &Problem{Path: onePlus(path[:len(path)-1]), Kind: KindTooDeep, Offset: -1, Detail: tooDeepWalkDetail}
			log.add(*p)
			return p
		}
		if signed != nil && hasPathPrefix(path, signed) {
			if len(path) == len(signed) {
				log.add(Problem{Path: onePlus(path), Kind: KindSigned, Offset: -1, Detail: signedDetail})
			}
			return call(path, part, err)
		}
		signed = nil
		if !opts.RewriteSigned && isMultipartSigned(&part.Header) {
			signed = append(slices.Clip(path), 0)
		}
		rep.Entities++
		n, problems, herr := rewriteHeader(&part.Header.Header, fr)
		if herr != nil {
			return herr
		}
		rep.Rewritten += n
		for _, p := range problems {
			p.Path = onePlus(path)
			log.add(*p)
		}
		return call(path, part, err)
	})
	if err != nil && !fnFailed && !printable.Is(err.Error()) {
		err = escapedError{err}
	}
	return rep, err
}

// tooDeepWalkDetail is the Detail of the KindTooDeep problem Walk stops
// at.
const tooDeepWalkDetail = "a part nested deeper than the depth limit; walk stopped"

// escapedError is an error of go-message's whose message quotes input
// holding characters that do not print; its message has them escaped.
type escapedError struct{ err error }

func (e escapedError) Error() string { return printable.Escape(e.err.Error()) }
func (e escapedError) Unwrap() error { return e.err }
