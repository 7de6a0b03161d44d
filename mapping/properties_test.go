package mapping

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The closure properties of SPEC N4 and the output guarantees of SPEC S,
// written once and used by the fuzz targets and by TestPropertiesOnVectors.

// checkURIOutput asserts what every URI this package returns must satisfy.
func checkURIOutput(t testing.TB, u string, strict bool) {
	t.Helper()
	for i := 0; i < len(u); i++ {
		c := u[i]
		require.Falsef(t, c <= 0x20 || c >= 0x7F, "URI %q has octet 0x%02X at %d", u, c, i)
		if strict {
			require.NotEqualf(t, byte('"'), c, "StrictURI output %q has a '\"'", u)
		}
	}
	_, err := url.Parse(u)
	require.NoErrorf(t, err, "url.Parse rejects %q", u)
	require.NotEqual(t, DirectionToURI, Detect(u), "output %q is not detected as a URI", u)
	if strings.HasPrefix(u, "ContentType:") {
		// N4: ct2uri never outputs a wrapping form.
		p, err := ParseURI(u)
		require.NoError(t, err)
		require.False(t, hasURIPrefix(strings.SplitN(Unescape(p.Body), "/", 2)[len(strings.SplitN(Unescape(p.Body), "/", 2))-1]),
			"ContentType: URI %q wraps a uri. subtype", u)
	}
}

// checkCTOutput asserts what every Content-Type this package returns must
// satisfy: no control character but HTAB (S), none of Unicode's C1
// controls, U+2028 or U+2029 (unicodectl.go), and it parses strictly.
func checkCTOutput(t testing.TB, c string) {
	t.Helper()
	for i := 0; i < len(c); i++ {
		ch := c[i]
		require.Falsef(t, ch < 0x20 && ch != '\t' || ch == 0x7F, "Content-Type %q has control 0x%02X at %d", c, ch, i)
	}
	for i, r := range c {
		require.Falsef(t, r >= 0x80 && r <= 0x9F || r == 0x2028 || r == 0x2029, "Content-Type %q has U+%04X at %d", c, r, i)
	}
	ct, err := ParseContentType(c)
	require.NoErrorf(t, err, "output %q does not parse", c)
	require.Equalf(t, c, ct.String(), "output %q is not in canonical form", c)
	require.Equal(t, DirectionToURI, Detect(c), "output %q is detected as a URI", c)
}

// checkToURI checks N4 for ct2uri from input ct with options opts.
func checkToURI(t testing.TB, ct string, opts ...Option) {
	t.Helper()
	u, err := ToURI(ct, opts...)
	if err != nil {
		checkError(t, err)
		return
	}
	strict := optionsOf(opts)&StrictURI != 0
	checkURIOutput(t, u, strict)
	back, err := ToContentType(u, opts...)
	require.NoErrorf(t, err, "ToURI(%q) = %q, which does not map back", ct, u)
	checkCTOutput(t, back)
	again, err := ToURI(back, opts...)
	require.NoError(t, err, "ToURI(ToContentType(%q))", u)
	require.Equalf(t, u, again, "not idempotent: %q -> %q -> %q -> %q", ct, u, back, again)
	// N4: StrictURI does not change the Content-Type it maps back to.
	other, err := ToURI(ct, optionsOf(opts)^StrictURI)
	require.NoError(t, err)
	back2, err := ToContentType(other)
	require.NoError(t, err)
	require.Equal(t, back, back2, "StrictURI changed the round trip of %q", ct)
}

// checkToContentType checks N4 for uri2ct from input u.
func checkToContentType(t testing.TB, u string, opts ...Option) {
	t.Helper()
	c, err := ToContentType(u, opts...)
	if err != nil {
		checkError(t, err)
		return
	}
	checkCTOutput(t, c)
	for _, strict := range []Option{0, StrictURI} {
		back, err := ToURI(c, strict|optionsOf(opts))
		require.NoErrorf(t, err, "ToContentType(%q) = %q, which does not map back", u, c)
		checkURIOutput(t, back, strict != 0)
		again, err := ToContentType(back, opts...)
		require.NoError(t, err)
		require.Equalf(t, c, again, "not idempotent: %q -> %q -> %q -> %q", u, c, back, again)
	}
}

func TestPropertiesOnVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		checkToURI(t, v.input)
		checkToURI(t, v.input, StrictURI)
		checkToURI(t, v.input, Lenient)
		checkToURI(t, v.input, NoControlled)
		checkToContentType(t, v.input)
		checkToContentType(t, v.input, NoControlled)
	}
}

// TestPropertyCheckersCanFail makes sure the checkers are not vacuous.
func TestPropertyCheckersCanFail(t *testing.T) {
	ft := &fakeT{}
	func() { defer func() { recover() }(); checkURIOutput(ft, "x:a b", false) }()
	assert.True(t, ft.failed, "space in a URI must fail the check")
	ft = &fakeT{}
	func() { defer func() { recover() }(); checkCTOutput(ft, "text/plain; a=\"\r\"") }()
	assert.True(t, ft.failed, "CR in a Content-Type must fail the check")
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) FailNow()              { f.failed = true; panic("failnow") }
func (f *fakeT) Name() string          { return "fake" }
func (f *fakeT) Log(...any)            {}
func (f *fakeT) Logf(string, ...any)   {}
