package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cturi/cturi/mapping"
)

// mapper applies the direction and options chosen on the command line.
type mapper struct {
	dir  mapping.Direction // 0 for auto
	opts []mapping.Option
}

func newMapper(to string, strict, lenient bool) (*mapper, error) {
	m := &mapper{}
	switch to {
	case "auto":
	case "uri":
		m.dir = mapping.DirectionToURI
	case "ct":
		m.dir = mapping.DirectionToContentType
	default:
		return nil, fmt.Errorf("-to must be uri, ct or auto, not %q", to)
	}
	if strict {
		m.opts = append(m.opts, mapping.StrictURI)
	}
	if lenient {
		m.opts = append(m.opts, mapping.Lenient)
	}
	return m, nil
}

// result is what the command prints for one value.
type result struct {
	Input     string `json:"input"`
	Direction string `json:"direction"`
	Output    string `json:"output"`
	Kind      string `json:"kind"`
	Error     string `json:"error"`
}

func (m *mapper) direction(v string) mapping.Direction {
	if m.dir != 0 {
		return m.dir
	}
	return mapping.Detect(v)
}

func (m *mapper) apply(v string) result {
	dir := m.direction(v)
	var out string
	var err error
	if dir == mapping.DirectionToURI {
		out, err = mapping.ToURI(v, m.opts...)
	} else {
		out, err = mapping.ToContentType(v, m.opts...)
	}
	r := result{Input: v, Direction: dir.String(), Output: out}
	if err != nil {
		r.Kind = mapping.KindOf(err).String()
		r.Error = err.Error()
	}
	return r
}

// tooLong is the result for a line over maxLineSize, of which v is the
// start; uri says whether the whole value starts with a URI scheme and ':'.
func (m *mapper) tooLong(v string, uri bool) result {
	dir := m.dir
	if dir == 0 {
		dir = mapping.DirectionToURI
		if uri {
			dir = mapping.DirectionToContentType
		}
	}
	kind := mapping.KindSyntax
	if dir == mapping.DirectionToContentType {
		kind = mapping.KindInvalidURI
	}
	cut := min(len(v), 64)
	// Whole characters only, which JSON can show as they are; a character
	// starts at most UTFMax-1 octets back, else v is not UTF-8 there.
	for back := 0; back < utf8.UTFMax-1 && cut < len(v) && !utf8.RuneStart(v[cut]); back++ {
		cut--
	}
	return result{
		Input:     v[:cut] + "...",
		Direction: dir.String(),
		Kind:      kind.String(),
		Error:     fmt.Sprintf("value longer than %d bytes, not mapped", maxLineSize),
	}
}

// resultWriter prints results as plain lines or JSON objects, and the
// message of each failure on the error stream.
type resultWriter struct {
	out  *bufio.Writer
	errs *bufio.Writer
	enc  *json.Encoder // nil for plain output; writes to out through jsonOut
	// interleave writes out what out holds, and then each message, before
	// the ERROR line that follows it: both streams go to one file.
	interleave bool
	failed     bool
}

func newResultWriter(out, errs *bufio.Writer, asJSON, interleave bool) *resultWriter {
	w := &resultWriter{out: out, errs: errs, interleave: interleave}
	if asJSON {
		w.enc = json.NewEncoder(jsonOut{out})
		w.enc.SetEscapeHTML(false)
	}
	return w
}

// write prints r, the result for the value on line n of the input (0 for
// an argument), which a message names. It returns the error writing to
// the output, if any.
func (w *resultWriter) write(r result, n int) error {
	if r.Kind != "" {
		w.failed = true
		var err error
		if w.interleave {
			err = w.out.Flush()
		}
		if n > 0 {
			fmt.Fprintf(w.errs, "cturi: line %d: %q: %s\n", n, r.Input, r.Error)
		} else {
			fmt.Fprintf(w.errs, "cturi: %q: %s\n", r.Input, r.Error)
		}
		if w.interleave {
			w.errs.Flush()
		}
		if err != nil {
			return err
		}
	}
	if w.enc != nil {
		return w.enc.Encode(r)
	}
	if r.Kind != "" {
		_, err := fmt.Fprintf(w.out, "ERROR:%s\n", r.Kind)
		return err
	}
	if _, err := io.WriteString(w.out, r.Output); err != nil {
		return err
	}
	_, err := io.WriteString(w.out, "\n")
	return err
}

// uriStart follows mapping.Detect (SPEC R0.17) through a value read in
// pieces, for a value too long to hold: after leading white space, an
// ALPHA, then ALPHA, DIGIT, '+', '-' or '.', then ':' make a URI.
type uriStart uint8

const (
	startWSP    uriStart = iota // white space only, so far
	startScheme                 // white space and a scheme, so far
	startURI                    // a scheme and ':': a URI
	startOther                  // anything else: a Content-Type
)

// next returns the state after the octets of b.
func (s uriStart) next(b []byte) uriStart {
	for _, c := range b {
		alpha := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
		switch {
		case s == startWSP && (c == ' ' || c == '\t'):
		case s == startWSP && alpha:
			s = startScheme
		case s == startScheme && c == ':':
			return startURI
		case s == startScheme && (alpha || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case s == startWSP || s == startScheme:
			return startOther
		default:
			return s
		}
	}
	return s
}

// jsonOut writes the JSON text a json.Encoder writes to out, with each
// character that encoding/json leaves as it is but that does not print
// written as a \u escape (a UTF-16 surrogate pair past U+FFFF): DEL, the
// C1 controls (U+0080-U+009F), the bidi and other format characters and
// the rest that strconv.IsPrint rejects. encoding/json escapes the ASCII
// controls, U+2028 and U+2029 itself, and writes U+FFFD for an octet that
// is not UTF-8, so these can only stand in strings, whose value the
// escape keeps. The Encoder writes each value, valid UTF-8, with one
// Write, so no character is split between two; escaping as it copies, with
// no buffer of its own, keeps -json's peak memory for a long value as it
// was.
type jsonOut struct{ out *bufio.Writer }

func (j jsonOut) Write(js []byte) (int, error) {
	start := 0 // js[start:i] is still to be copied as it is
	for i := 0; i < len(js); {
		if js[i] < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(js[i:])
		if n > 1 && strconv.IsPrint(r) {
			i += n
			continue
		}
		j.out.Write(js[start:i])
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(j.out, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(j.out, `\u%04x`, r) // DEL, or U+FFFD for an octet that is not UTF-8
		}
		i += n
		start = i
	}
	// A bufio.Writer's error sticks: this Write returns any earlier one.
	if _, err := j.out.Write(js[start:]); err != nil {
		return 0, err
	}
	return len(js), nil
}
