package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cturi/cturi/mapping"
)

// The demo backend speaks URI labels only, as software that types its
// payloads with XML namespaces, algorithm URIs or RDF classes does.
const (
	labelDSig   = "http://www.w3.org/2000/09/xmldsig#"
	labelPerson = "https://schema.org/Person"
	labelJSON   = "ContentType:application/json"
	labelEvents = "ContentType:text/event-stream"
)

const (
	maxDocuments = 100
	maxDocument  = 1 << 20
)

type document struct {
	label string
	body  []byte
}

type backend struct {
	mu   sync.Mutex
	docs []document
}

func newBackend() http.Handler {
	b := &backend{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /signature", b.signature)
	mux.HandleFunc("GET /person", b.person)
	mux.HandleFunc("GET /events", b.events)
	mux.HandleFunc("POST /documents", b.store)
	mux.HandleFunc("GET /documents/{id}", b.load)
	return mux
}

func (b *backend) signature(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", labelDSig)
	_, _ = io.WriteString(w, `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature>`+"\n")
}

func (b *backend) person(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", labelPerson)
	_, _ = io.WriteString(w, `{"@context": "https://schema.org", "@type": "Person", "name": "Ada"}`+"\n")
}

// events streams five server-sent events, one every 300 ms.
func (b *backend) events(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", labelEvents)
	rc := http.NewResponseController(w)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(w, "data: event %d of 5\n\n", i)
		if rc.Flush() != nil {
			return
		}
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
}

// store keeps a document with its label, which must be a URI label.
func (b *backend) store(w http.ResponseWriter, r *http.Request) {
	label := r.Header.Get("Content-Type")
	if _, err := mapping.ParseURI(label); err != nil || mapping.Detect(label) != mapping.DirectionToContentType {
		uriHTTPError(w, "this backend speaks URI labels only, not "+strconv.Quote(label), http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDocument))
	if err != nil {
		code := http.StatusBadRequest // a body that could not be read
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			code = http.StatusRequestEntityTooLarge
		}
		uriHTTPError(w, err.Error(), code)
		return
	}
	b.mu.Lock()
	if len(b.docs) >= maxDocuments {
		b.mu.Unlock()
		uriHTTPError(w, "the demo keeps 100 documents at most", http.StatusInsufficientStorage)
		return
	}
	b.docs = append(b.docs, document{label: label, body: body})
	id := len(b.docs)
	b.mu.Unlock()
	w.Header().Set("Content-Type", labelJSON)
	w.Header().Set("Location", "/documents/"+strconv.Itoa(id))
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "backend_saw_label": label, "bytes": len(body)})
}

func (b *backend) load(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	b.mu.Lock()
	var d document
	ok := err == nil && id >= 1 && id <= len(b.docs)
	if ok {
		d = b.docs[id-1]
	}
	b.mu.Unlock()
	if !ok {
		uriHTTPError(w, "no such document", http.StatusNotFound)
		return
	}
	// A client chose the label and the body: served as it is, a
	// text/html or image/svg+xml document would run its scripts with the
	// proxy's origin (and 127.0.0.1's cookies, which any port shares).
	h := w.Header()
	h.Set("Content-Type", d.label)
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(d.body)
}

// uriHTTPError is http.Error in the backend's label syntax.
func uriHTTPError(w http.ResponseWriter, msg string, code int) {
	h := w.Header()
	h.Set("Content-Type", `ContentType:text/plain?charset="utf-8"`)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}
