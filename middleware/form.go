package middleware

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"

	"github.com/cturi/cturi/mapping/urlencoded"
)

// DefaultMaxFormBytes is the largest application/www-form-urlencoded body
// the middleware decodes when Options.MaxFormBytes is zero and the body is
// not an http.MaxBytesReader: net/http's limit for
// application/x-www-form-urlencoded bodies, which it too lifts for a body
// that MaxBytesReader already limits.
const DefaultMaxFormBytes = 10 << 20

// maxBytesReaderType is the type of the bodies http.MaxBytesReader
// returns, which net/http's ParseForm reads without its own limit.
var maxBytesReaderType = reflect.TypeOf(http.MaxBytesReader(nil, http.NoBody, 0))

var (
	// ErrFormTooLarge: an application/www-form-urlencoded body longer
	// than Options.MaxFormBytes, or than a limit set upstream with
	// http.MaxBytesReader (http.MaxBytesHandler); the *Error's Err is then
	// ErrFormTooLarge for errors.Is and unwraps to the read error, in
	// which errors.As finds the *http.MaxBytesError.
	ErrFormTooLarge = errors.New("middleware: form body larger than the limit")
	// ErrFormUnreadable: an application/www-form-urlencoded body that
	// could not be read (a broken chunked encoding, a read timeout, a
	// client gone). The *Error's Err is ErrFormUnreadable for errors.Is
	// and unwraps to the read error.
	ErrFormUnreadable = errors.New("middleware: form body cannot be read")
)

// formBodyError is the error of a form body whose read failed: it is
// sentinel for errors.Is (ErrFormTooLarge for a limit set upstream, which
// the read error is or wraps an *http.MaxBytesError of; ErrFormUnreadable
// otherwise) and unwraps to the read error, whose message it keeps as its
// own, a body wrapper's context included, since the *Error around it
// already says what is wrong with the body.
type formBodyError struct{ sentinel, err error }

func (e formBodyError) Error() string        { return e.err.Error() }
func (e formBodyError) Is(target error) bool { return target == e.sentinel }
func (e formBodyError) Unwrap() error        { return e.err }

// failedReader returns err from every Read.
type failedReader struct{ err error }

func (r failedReader) Read([]byte) (int, error) { return 0, r.err }

// formMediaType is the type draft-hoehrmann-urlencoded registers (§11).
const formMediaType = "application/www-form-urlencoded"

// isFormLabel reports whether a Content-Type's media type is
// application/www-form-urlencoded, ignoring case and parameters (the type
// has none, and a charset parameter has no significance: §11).
func isFormLabel(label string) bool {
	mt, _, _ := strings.Cut(label, ";")
	return strings.EqualFold(strings.Trim(mt, " \t"), formMediaType)
}

// wantsForm reports whether the middleware decodes r's body as a form
// when the handler will see label: the option is on, the method is one
// whose body net/http's ParseForm reads, and the label is the form type.
func (rw *rewriter) wantsForm(r *http.Request, label string) bool {
	if !rw.forms || r.Body == nil || r.Body == http.NoBody {
		return false
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return isFormLabel(label)
	}
	return false
}

// replayBody gives the bytes the middleware read back to the handler,
// followed by whatever it did not read, and closes the original body.
type replayBody struct {
	io.Reader
	io.Closer
}

// decodeForm reads the body of r, the middleware's own copy of the
// request, decodes it (draft-hoehrmann-urlencoded §4) and sets r.PostForm,
// as ParseForm does for application/x-www-form-urlencoded; r.Form is set
// to nil, so ParseForm (FormValue, ...) builds it from PostForm and the
// URL's query as usual. It may not be nil before: a handler ahead of the
// middleware that read a form value (gorilla's HTTPMethodOverrideHandler
// does on every POST) had net/http parse the form, which, for a type it
// does not know, leaves the body unread and r.Form the query alone.
// The handler can still read the body: it is replayed from the bytes
// read. On error r.PostForm is left as it was (nil, unless a handler
// ahead parsed the form) and the body is replayed: the octets
// read, then the rest of a body over the limit, or the same error again
// for a body whose read failed. A body whose Content-Length is over the
// limit is not read at all.
func (rw *rewriter) decodeForm(r *http.Request) error {
	orig := r.Body
	limit := rw.maxForm
	if rw.maxFormDefault && reflect.TypeOf(orig) == maxBytesReaderType {
		limit = math.MaxInt64 // limited already, as parsePostForm sees it
	}
	if r.ContentLength > limit {
		// Too large by its header alone (net/http delivers exactly
		// ContentLength octets or fails): answered without reading any,
		// so that a client that sent Expect: 100-continue gets the final
		// status instead of 100 Continue (RFC 9110 §10.1.1) and sends
		// no body; the handler of PassThrough reads it all.
		return ErrFormTooLarge
	}
	n := limit
	if n < math.MaxInt64 {
		n++ // one octet more than the limit tells a body over it
	}
	buf, readErr := io.ReadAll(io.LimitReader(orig, n))
	err := readErr
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		err = formBodyError{ErrFormTooLarge, err}
	case err != nil:
		err = formBodyError{ErrFormUnreadable, err}
	case int64(len(buf)) > limit:
		err = ErrFormTooLarge
	}
	if err == nil {
		var ds urlencoded.DataSet
		if ds, err = urlencoded.Decode(string(buf)); err == nil {
			r.PostForm, r.Form = ds.Values(), nil
			r.Body = replayBody{bytes.NewReader(buf), orig}
			return nil
		}
	}
	var rest io.Reader = orig
	if readErr != nil {
		// Not orig again: net/http's body reports a body cut short
		// (io.ErrUnexpectedEOF) once and then ends cleanly, which would
		// hand the handler a truncated body as a complete one.
		rest = failedReader{readErr}
	}
	r.Body = replayBody{io.MultiReader(bytes.NewReader(buf), rest), orig}
	return err
}
