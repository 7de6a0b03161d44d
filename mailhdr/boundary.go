package mailhdr

import (
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/cturi/cturi/mapping"
)

// boundaryOf returns the boundary parameter of the Content-Type raw,
// parsed as ct, as Go's mime.ParseMediaType, and so go-message, reads it:
// an RFC 2231 form wins over boundary=. The forms are
// boundary*=charset'language'value (percent-encoded; only the charsets
// us-ascii and utf-8 are read) and the continuations boundary*0,
// boundary*1, ... joined in order up to the first missing number, each one
// plain or, as boundary*N*, percent-encoded (boundary*0* with the
// charset'language' prefix), the plain one when a number has both. Names
// are matched ignoring case; of repeated names the first counts. An RFC
// 2231 form that does not decode leaves boundary=.
//
// Go departs from RFC 5322 in one place: in a quoted value it keeps a
// backslash that comes before an octet other than a tspecial ("a\b" is
// a\b, for MSIE's unescaped file names), where ct, parsed by the RFC,
// holds ab. So a raw value with a backslash in it is read by
// mime.ParseMediaType itself, if that parses it.
//
// go-message reads a boundary as mime.ParseMediaType does, with three
// differences: it decodes RFC 2047 encoded words in it (which RFC 2047
// §5 does not allow in a parameter; boundary="=?utf-8?q?a?=" is a to
// go-message, as it stands here), it unfolds a field by replacing each
// line break and the white space around it with one space (raw holds the
// field unfolded as RFC 5322 §2.2.3 says, so a fold inside a quoted
// boundary keeps its white space here), and where mime.ParseMediaType
// refuses the field it reads no parts, where this reads the field by the
// RFC.
func boundaryOf(raw string, ct mapping.ContentType) (string, bool) {
	const name = "boundary"
	if strings.IndexByte(raw, '\\') >= 0 {
		if _, params, err := mime.ParseMediaType(raw); err == nil {
			v, ok := params[name]
			return v, ok
		}
	}
	type part struct {
		value   string
		encoded bool // boundary*N*
	}
	var ext *string
	var parts map[int]part
	for i := range ct.Params {
		p := &ct.Params[i]
		if len(p.Name) <= len(name) || !strings.EqualFold(p.Name[:len(name)], name) || p.Name[len(name)] != '*' {
			continue
		}
		rest := p.Name[len(name)+1:]
		if rest == "" {
			if ext == nil {
				ext = &p.Value
			}
			continue
		}
		digits, enc := strings.CutSuffix(rest, "*")
		n, err := strconv.Atoi(digits)
		if err != nil || n < 0 || strconv.Itoa(n) != digits {
			continue
		}
		if parts == nil {
			parts = make(map[int]part)
		}
		// As mime.ParseMediaType: a plain boundary*N wins over a
		// boundary*N*, wherever each stands.
		if q, dup := parts[n]; !dup || q.encoded && !enc {
			parts[n] = part{p.Value, enc}
		}
	}
	if ext != nil {
		if v, ok := decode2231(*ext); ok {
			return v, true
		}
	} else if len(parts) > 0 {
		var b strings.Builder
		for n := 0; ; n++ {
			p, ok := parts[n]
			if !ok {
				break
			}
			switch {
			case !p.encoded:
				b.WriteString(p.value)
			case n == 0:
				v, _ := decode2231(p.value)
				b.WriteString(v)
			default:
				v, _ := unpercent(p.value)
				b.WriteString(v)
			}
		}
		if _, ok := parts[0]; ok {
			return b.String(), true
		}
	}
	return ct.Param(name)
}

// decode2231 decodes an RFC 2231 extended value, charset'language'value,
// with the charset us-ascii or utf-8 (in any case).
func decode2231(v string) (string, bool) {
	charset, rest, ok := strings.Cut(v, "'")
	if !ok {
		return "", false
	}
	_, enc, ok := strings.Cut(rest, "'")
	if !ok {
		return "", false
	}
	if !strings.EqualFold(charset, "us-ascii") && !strings.EqualFold(charset, "utf-8") {
		return "", false
	}
	return unpercent(enc)
}

// unpercent decodes each %HH of s; a '%' not followed by two hex digits
// fails, as in Go's mime.ParseMediaType. url.PathUnescape decodes just
// that (it leaves '+' alone).
func unpercent(s string) (string, bool) {
	v, err := url.PathUnescape(s)
	return v, err == nil
}
