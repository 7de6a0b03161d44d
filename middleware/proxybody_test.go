package middleware

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedAfter is an inbound body whose reads after n octets fail as a
// closed server body's do, and which records whether that happened.
type closedAfter struct {
	r       io.Reader
	n       int
	late    bool
	closed  bool
	readErr error
}

func (b *closedAfter) Read(p []byte) (int, error) {
	if b.n <= 0 {
		b.late = true
		return 0, http.ErrBodyReadAfterClose
	}
	if len(p) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= n
	if err == nil {
		err = b.readErr
	}
	return n, err
}

func (b *closedAfter) Close() error { b.closed = true; return nil }

func TestGuardProxyBodyEndsAtDeclaredLength(t *testing.T) {
	tests := []struct {
		name   string
		reader func(string) io.Reader
	}{
		{"whole reads", func(s string) io.Reader { return strings.NewReader(s) }},
		{"one octet at a time", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
		{"data with EOF", func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &closedAfter{r: tt.reader("hello world"), n: 11}
			out := &http.Request{Body: in, ContentLength: 11}
			GuardProxyBody(out)
			got, err := io.ReadAll(out.Body)
			require.NoError(t, err)
			assert.Equal(t, "hello world", string(got))
			// The transport's check that nothing follows, after net/http
			// closed the inbound body.
			n, err := out.Body.Read(make([]byte, 1))
			assert.Equal(t, 0, n)
			assert.Equal(t, io.EOF, err)
			assert.True(t, in.late, "the check did not reach the inbound body")
			require.NoError(t, out.Body.Close())
			assert.True(t, in.closed)
		})
	}
}

// What the inbound body says before its declared length reaches the
// transport unchanged: a short body is the transport's to report.
func TestGuardProxyBodyPassesEarlyErrors(t *testing.T) {
	boom := errors.New("boom")
	out := &http.Request{Body: &closedAfter{r: strings.NewReader("abc"), n: 3, readErr: boom}, ContentLength: 10}
	GuardProxyBody(out)
	n, err := out.Body.Read(make([]byte, 10))
	assert.Equal(t, 3, n)
	assert.Equal(t, boom, err)

	out = &http.Request{Body: io.NopCloser(strings.NewReader("abc")), ContentLength: 10}
	GuardProxyBody(out)
	got, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(got))
}

// A body longer than it declares still fails the request: the transport
// sees the octets past the length.
func TestGuardProxyBodyKeepsTheLengthCheck(t *testing.T) {
	out := &http.Request{Body: io.NopCloser(strings.NewReader("hello world")), ContentLength: 5}
	GuardProxyBody(out)
	got, err := io.ReadAll(io.LimitReader(out.Body, 5))
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))
	n, err := out.Body.Read(make([]byte, 1))
	assert.Equal(t, 1, n, "the octet past the declared length was hidden")
	require.NoError(t, err)
}

// A body closed before its declared length is an error, not its end.
func TestGuardProxyBodyClosedEarly(t *testing.T) {
	out := &http.Request{Body: &closedAfter{r: strings.NewReader("abc"), n: 3}, ContentLength: 10}
	GuardProxyBody(out)
	got, err := io.ReadAll(out.Body)
	assert.Equal(t, "abc", string(got))
	assert.ErrorIs(t, err, http.ErrBodyReadAfterClose)
}

func TestGuardProxyBodyLeavesOtherBodies(t *testing.T) {
	chunked := io.NopCloser(strings.NewReader("x"))
	tests := []struct {
		name string
		body io.ReadCloser
		n    int64
	}{
		{"nil", nil, 0},
		{"NoBody", http.NoBody, 0},
		{"unknown length", chunked, -1},
		{"empty", chunked, 0},
	}
	for _, tt := range tests {
		out := &http.Request{Body: tt.body, ContentLength: tt.n}
		GuardProxyBody(out)
		assert.Equal(t, tt.body, out.Body, tt.name)
	}
}

// Past the declared length only http.ErrBodyReadAfterClose (wrapped or
// not) becomes the end of the body; any other error still reaches the
// transport, which fails the request.
func TestGuardProxyBodyMapsOnlyReadAfterClose(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"closed by the server", http.ErrBodyReadAfterClose, io.EOF},
		{"closed, wrapped", fmt.Errorf("reading: %w", http.ErrBodyReadAfterClose), io.EOF},
		{"another error", boom, boom},
		{"an unexpected EOF", io.ErrUnexpectedEOF, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &http.Request{Body: io.NopCloser(io.MultiReader(strings.NewReader("hello"), iotest.ErrReader(tt.err))), ContentLength: 5}
			GuardProxyBody(out)
			got := make([]byte, 5)
			_, err := io.ReadFull(out.Body, got)
			require.NoError(t, err)
			assert.Equal(t, "hello", string(got))
			n, err := out.Body.Read(make([]byte, 1))
			assert.Equal(t, 0, n)
			assert.Equal(t, tt.want, err)
		})
	}
}
