package main

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/cturi/cturi/mapping"
	"github.com/cturi/cturi/middleware"
)

//go:embed page.html
var page []byte

// pagePolicy lets the page run its own inline script and style, named by
// their hashes, and nothing else: no other inline code (so text that ever
// reached the page as markup could not run), nothing from elsewhere, no
// <base>, and no framing (the page has buttons to click).
var pagePolicy = "default-src 'self'" +
	"; script-src " + inlineHash(page, "script") +
	"; style-src " + inlineHash(page, "style") +
	"; base-uri 'none'; frame-ancestors 'none'"

// inlineHash returns the CSP source ('sha256-...') of the text of the
// first <tag> element of html. The page has exactly one of each; without
// one the server would serve a page that cannot work, so it panics at
// start-up instead. A browser hashes the text its HTML parser made of
// the element, in which CRLF and CR are LF: so does inlineHash, or a
// page saved with CRLF would have its script and style blocked.
func inlineHash(html []byte, tag string) string {
	_, rest, ok := bytes.Cut(html, []byte("<"+tag+">"))
	text, _, closed := bytes.Cut(rest, []byte("</"+tag+">"))
	if !ok || !closed {
		panic("page.html has no <" + tag + "> element")
	}
	text = bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	sum := sha256.Sum256(text)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pagePolicy)
	_, _ = w.Write(page)
}

// maxLabel bounds the labels the JSON API maps.
const maxLabel = 4096

// result is one mapping of a label.
type result struct {
	Output string `json:"output,omitempty"`
	Kind   string `json:"error_kind,omitempty"`
	Error  string `json:"error,omitempty"`
}

func resultOf(out string, err error) result {
	if err != nil {
		return result{Kind: mapping.KindOf(err).String(), Error: err.Error()}
	}
	return result{Output: out}
}

// mapResponse is what GET /api/map answers.
type mapResponse struct {
	Input     string `json:"input"`
	Detected  string `json:"detected"` // "content-type" or "uri"
	ToURI     result `json:"to_uri"`
	ToCT      result `json:"to_content_type"`
	Canonical result `json:"canonical"`
	// RoundTrip maps the input the way Detect says, maps the result
	// back, and maps that again: Stable says the last step gave the
	// first result again (SPEC N4).
	RoundTrip struct {
		Forward result `json:"forward"`
		Back    result `json:"back"`
		Again   result `json:"again"`
		Stable  bool   `json:"stable"`
	} `json:"round_trip"`
}

func serveMap(w http.ResponseWriter, r *http.Request) {
	// url.ParseQuery, unlike r.URL.Query, reports the pairs it drops: a
	// raw ';' in the query is one, and labels are full of them.
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || !q.Has("label") {
		writeJSONError(w, http.StatusBadRequest, "want ?label=<percent-encoded label> (write ';' as %3B)")
		return
	}
	label := q.Get("label")
	if len(label) > maxLabel {
		writeJSONError(w, http.StatusRequestEntityTooLarge, "label longer than 4096 bytes")
		return
	}
	var resp mapResponse
	resp.Input = label
	if mapping.Detect(label) == mapping.DirectionToURI {
		resp.Detected = "content-type"
	} else {
		resp.Detected = "uri"
	}
	resp.ToURI = resultOf(mapping.ToURI(label))
	resp.ToCT = resultOf(mapping.ToContentType(label))
	resp.Canonical = resultOf(mapping.Canonical(label))
	fwd, _, err := mapping.Map(label)
	resp.RoundTrip.Forward = resultOf(fwd, err)
	if err == nil {
		back, _, err := mapping.Map(fwd)
		resp.RoundTrip.Back = resultOf(back, err)
		if err == nil {
			again, _, err := mapping.Map(back)
			resp.RoundTrip.Again = resultOf(again, err)
			resp.RoundTrip.Stable = err == nil && again == fwd
		}
	}
	writeJSON(w, resp)
}

// maxBody bounds every request body (http.MaxBytesHandler, outside the
// whole chain: see newHandler), the body POST /echo reads and the form
// bodies the middleware reads for it included.
const maxBody = 1 << 20

// echoResponse is what POST /echo answers.
type echoResponse struct {
	Original string `json:"original"`
	Mapped   string `json:"mapped"`
	Changed  bool   `json:"changed"`
	Error    string `json:"error,omitempty"`
	// Form is the decoded application/www-form-urlencoded body, if the
	// request had one (Options.DecodeForms).
	Form       map[string][]string `json:"form,omitempty"`
	BodyBytes  int64               `json:"body_bytes"`
	BodySHA256 string              `json:"body_sha256"`
}

func serveEcho(w http.ResponseWriter, r *http.Request) {
	l, changed := middleware.RequestLabels(r)
	resp := echoResponse{Original: l.Original, Mapped: l.Mapped, Changed: changed}
	if l.Err != nil {
		resp.Error = l.Err.Error()
	}
	resp.Form = r.PostForm
	h := sha256.New()
	n, err := io.Copy(h, r.Body) // at most maxBody: see newHandler
	if err != nil {
		code := http.StatusBadRequest // a body that could not be read
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			code = http.StatusRequestEntityTooLarge
		}
		http.Error(w, err.Error(), code)
		return
	}
	resp.BodyBytes, resp.BodySHA256 = n, hex.EncodeToString(h.Sum(nil))
	writeJSON(w, resp)
}

// serveXMLEnc labels its answer with the XML Encryption type URI, as a
// backend that speaks URI labels would; the middleware hands clients the
// Content-Type it maps to.
func serveXMLEnc(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "http://www.w3.org/2001/04/xmlenc#Element")
	_, _ = io.WriteString(w, `<EncryptedData xmlns="http://www.w3.org/2001/04/xmlenc#" Type="http://www.w3.org/2001/04/xmlenc#Element"/>`+"\n")
}

// serveNoIcon answers the request for /favicon.ico that a browser makes
// with every page it opens. A 404 there is an error in the browser's
// console each time the page loads; an icon in the page (<link rel="icon"
// href="data:,">) would be one too, blocked by pagePolicy (img-src falls
// back to default-src 'self'). 204 is neither.
func serveNoIcon(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, v any) {
	writeJSONStatus(w, http.StatusOK, v)
}

// writeJSONError answers a request the JSON API cannot serve with its
// status and {"error": msg}, so that a client can read every answer of
// serveMap as JSON. (A method other than GET gets net/http's own 405, and
// a request whose Content-Type label cannot be mapped the middleware's
// 415, both in plain text.)
func writeJSONError(w http.ResponseWriter, code int, msg string) {
	writeJSONStatus(w, code, struct {
		Error string `json:"error"`
	}{msg})
}

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
