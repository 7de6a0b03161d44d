package integration

import (
	"mime"
	"slices"
	"strings"
	"testing"

	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Go client reads a Content-Type with mime.ParseMediaType, which follows
// RFC 2045 and RFC 2231 as Go has it, not SPEC. The classes below are the
// ways in which its reading of a Content-Type the mapping produces differs
// from the mapping's own (ParseContentType).
const (
	// mime's token excludes '?', which SPEC R0.4 admits in a type or
	// subtype (the draft's x-FOO?bar): mime refuses the Content-Type.
	goClassQuestionMark = "'?' in the type or subtype: refused"
	// mime lower-cases names and refuses a name repeated with another
	// value; the mapping keeps both (SPEC C3, R2.4).
	goClassDuplicate = "parameter name repeated with another value: refused"
	// A name repeated with the same value, which mime keeps once.
	goClassSameDuplicate = "parameter name repeated with the same value: kept once"
	// mime decodes RFC 2231 parameters (name*, name*0, ...) under their
	// base name; to the mapping they are text (docs/mapping.md).
	goClassRFC2231 = "RFC 2231 parameter: decoded under its base name"
)

// goMIMEClasses returns the classes that apply to ct, as the mapping
// parses it.
func goMIMEClasses(ct mapping.ContentType) []string {
	if strings.ContainsRune(ct.Type+ct.Subtype, '?') {
		return []string{goClassQuestionMark}
	}
	var classes []string
	values := map[string]string{}
	add := func(c string) {
		if slices.Contains(classes, c) {
			return
		}
		classes = append(classes, c)
	}
	for _, p := range ct.Params {
		name := strings.ToLower(p.Name)
		if strings.Contains(name, "*") {
			add(goClassRFC2231)
		}
		if v, ok := values[name]; ok {
			if v != p.Value {
				return []string{goClassDuplicate}
			}
			add(goClassSameDuplicate)
		}
		values[name] = p.Value
	}
	return classes
}

// TestGoMIMEReadsMappedContentTypes asks what Go's mime.ParseMediaType
// makes of the Content-Types the mapping produces (those of
// TestWHATWGMIMEType). Unless a class applies, it must read the media
// type and the parameters that ParseContentType reads, names lower-cased.
// Where one does, it must do what the class says; every class must be met.
func TestGoMIMEReadsMappedContentTypes(t *testing.T) {
	cts := whatwgContentTypes(t)
	require.Greater(t, len(cts), 5000, "the vectors and the corpus should give the whole set")
	met := map[string][]string{}
	var same int
	for _, ct := range cts {
		parsed, err := mapping.ParseContentType(ct)
		require.NoError(t, err, "the mapping's own output %q", ct)
		classes := goMIMEClasses(parsed)
		for _, c := range classes {
			met[c] = append(met[c], ct)
		}
		mt, params, err := mime.ParseMediaType(ct)
		if len(classes) == 1 && (classes[0] == goClassQuestionMark || classes[0] == goClassDuplicate) {
			assert.Error(t, err, "%q (%s): mime read %q %v", ct, classes[0], mt, params)
			continue
		}
		if !assert.NoError(t, err, "%q", ct) {
			continue
		}
		assert.Equal(t, strings.ToLower(parsed.Type+"/"+parsed.Subtype), mt, "media type of %q", ct)
		want := map[string]string{}
		for _, p := range parsed.Params {
			name := strings.ToLower(p.Name)
			if base, _, starred := strings.Cut(name, "*"); starred {
				// What mime decodes it to is mime's business: it must not
				// be there as written, and its base name must be.
				assert.NotContains(t, params, name, "%q", ct)
				assert.Contains(t, params, base, "%q", ct)
				want[base] = params[base]
				continue
			}
			want[name] = p.Value
		}
		assert.Equal(t, want, params, "parameters of %q", ct)
		if len(classes) == 0 {
			same++
		}
	}
	for _, c := range []string{goClassQuestionMark, goClassDuplicate, goClassSameDuplicate, goClassRFC2231} {
		assert.NotEmpty(t, met[c], "no Content-Type met the class %q", c)
		t.Logf("%s: %d, e.g. %q", c, len(met[c]), append(met[c], "")[0])
	}
	t.Logf("%d Content-Types; %d read alike by mime.ParseMediaType", len(cts), same)
}
