package translate_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/cturi/cturi/examples/proxy/translate"
)

// A backend that speaks URI labels, behind the proxy: it receives the
// client's Content-Type as a URI label, and its own URI label reaches the
// client as a Content-Type.
func ExampleProxy() {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("backend got:", r.Header.Get("Content-Type"))
		w.Header().Set("Content-Type", "http://www.w3.org/2000/09/xmldsig#")
	}))
	defer backend.Close()
	target, err := url.Parse(backend.URL)
	if err != nil {
		panic(err)
	}
	proxy := httptest.NewServer(translate.Proxy(target))
	defer proxy.Close()

	res, err := http.Post(proxy.URL, "text/plain; charset=utf-8", strings.NewReader("hi"))
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	fmt.Println("client got: ", res.Header.Get("Content-Type"))
	// Output:
	// backend got: ContentType:text/plain?charset="utf-8"
	// client got:  application/uri.http%3A%2F%2Fwww.w3.org%2F2000%2F09%2Fxmldsig; URI-fragment=""
}
