package middleware

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cturi/cturi/mapping"
)

var fuzzSeeds = []string{
	"text/plain", "http://example.com/tag42", "ContentType:image/jpeg",
	"ContentType:text/plain%0D%0AX-Evil:%201", `ContentType:text/plain?a="%00"`,
	"http://x?MIME-type=text%2Fplain%0D%0AX:1", `application/xml; URI-body="http://xml.example/foo"`,
	"application/uri.ContentType%3Atext%2Fplain", "ContentType:application/uri.http%253A%252F%252Fx",
	"text/plain; a=\"x\ty\"", "multipart/form-data; boundary=----x", `multipart/form-data; boundary="a\b"`,
	`multipart/mixed; boundary="x y"; URI-body="http://a/b"`, "multipart/uri.a%3Ab; boundary=x", "", " \t",
}

// optionsFor derives Options from a fuzzed byte, covering every mode,
// mapping option, a scheme list and a small length limit.
func optionsFor(b byte) (Options, Mode) {
	o := Options{MaxLabelLen: -1}
	if b&0x04 != 0 {
		o.Mapping = append(o.Mapping, mapping.StrictURI)
	}
	if b&0x08 != 0 {
		o.Mapping = append(o.Mapping, mapping.Lenient)
	}
	if b&0x10 != 0 {
		o.Mapping = append(o.Mapping, mapping.NoControlled)
	}
	if b&0x20 != 0 {
		o.Schemes = []string{"https", "urn"}
	}
	if b&0x40 != 0 {
		o.MaxLabelLen = 64
	}
	if b&0x80 != 0 {
		o.Unmappable = PassThrough
	}
	return o, Mode(b & 0x03)
}

// FuzzMapLabel: whatever the label, mapping a label gives a valid header
// value or an error that leaves it unchanged; the result maps to itself
// again (SPEC N4: no label grows or changes under repeated rewriting);
// and the scheme rule holds.
func FuzzMapLabel(f *testing.F) {
	for _, s := range fuzzSeeds {
		for _, b := range []byte{0, 1, 2, 3, 0x31, 0x52} {
			f.Add(s, b)
		}
	}
	f.Fuzz(func(t *testing.T, label string, b byte) {
		o, m := optionsFor(b)
		rw := newRewriter(o)
		out, _, err := rw.mapLabel(label, m)
		if err != nil {
			if out != label {
				t.Fatalf("error %v changed the label %q to %q", err, label, out)
			}
			var me *mapping.Error
			if !errors.As(err, &me) && !errors.Is(err, ErrLabelTooLong) && !errors.Is(err, ErrSchemeNotAllowed) && !errors.Is(err, ErrStructureChange) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if out == label {
			return // left alone: not emitted by the middleware
		}
		if !validHeaderValue(out) {
			t.Fatalf("%s %q gave %q, not a header value", m, label, out)
		}
		again, _, err := rw.mapLabel(out, m)
		if errors.Is(err, ErrLabelTooLong) && len(out) > o.MaxLabelLen {
			return // the mapped label outgrew the limit; it is not mapped again
		}
		if err != nil || again != out {
			t.Fatalf("%s not stable: %q -> %q -> %q, %v", m, label, out, again, err)
		}
		if o.Schemes != nil {
			u := out
			if m != ToURI {
				if u, err = mapping.ToURI(out); err != nil {
					t.Fatalf("output %q does not map back: %v", out, err)
				}
			}
			if s := uriScheme(u); s != "ContentType" && s != "https" && s != "urn" {
				t.Fatalf("%q passed the scheme check as %q", label, u)
			}
		}
	})
}

// FuzzServe runs a request and a response label through the middleware:
// it never panics, never changes the caller's header, and everything the
// handler and the client see is a valid header value or the peer's own.
func FuzzServe(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "http://example.com/tag42", byte(0))
		f.Add("text/plain", s, byte(0x82))
	}
	f.Fuzz(func(t *testing.T, reqLabel, respLabel string, b byte) {
		o, m := optionsFor(b)
		o.Request, o.Response = m, Mode((b>>2)&0x03)
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header["Content-Type"] = []string{reqLabel}
		var ran bool
		h := Rewrite(o)(http.HandlerFunc(func(w http.ResponseWriter, r2 *http.Request) {
			ran = true
			if got := r2.Header.Get("Content-Type"); got != reqLabel && !validHeaderValue(got) {
				t.Fatalf("handler sees %q", got)
			}
			w.Header()["Content-Type"] = []string{respLabel}
			w.WriteHeader(http.StatusOK)
		}))
		w := newRecordingWriter()
		h.ServeHTTP(w, r)
		if r.Header["Content-Type"][0] != reqLabel || len(r.Header["Content-Type"]) != 1 {
			t.Fatalf("caller's header changed")
		}
		if !ran {
			if w.status != http.StatusUnsupportedMediaType || o.Unmappable != Reject {
				t.Fatalf("handler skipped with status %d", w.status)
			}
			return
		}
		sent := w.sent()
		if len(sent) != 1 || (sent[0] != respLabel && !validHeaderValue(sent[0])) {
			t.Fatalf("client gets %q", sent)
		}
		// A response that goes out with a URI label forbids sniffing, and
		// only such a one: browsers cannot read it as a type.
		_, nosniff := w.h["X-Content-Type-Options"]
		if want := o.Response != Leave && mapping.Detect(sent[0]) == mapping.DirectionToContentType; nosniff != want {
			t.Fatalf("client gets %q with nosniff %v under %v", sent[0], nosniff, o.Response)
		}
	})
}
