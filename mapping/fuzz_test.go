package mapping

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Fuzz targets. Their properties come from SPEC N4 (a result maps back,
// and mapping back and forth again reproduces it) and S (no control
// character but HTAB in a Content-Type, every URI accepted by url.Parse);
// see properties_test.go. The vectors' inputs are the seed corpus.

func addVectorSeeds(f *testing.F, withFlags bool) {
	vs := loadVectors(f)
	for _, v := range vs {
		if withFlags {
			for _, o := range []Option{0, StrictURI, Lenient, NoControlled} {
				f.Add(v.input, uint8(o))
			}
		} else {
			f.Add(v.input)
		}
	}
}

func FuzzToURI(f *testing.F) {
	addVectorSeeds(f, true)
	f.Fuzz(func(t *testing.T, ct string, flags uint8) {
		checkToURI(t, ct, Option(flags)&(StrictURI|Lenient|NoControlled))
	})
}

func FuzzToContentType(f *testing.F) {
	addVectorSeeds(f, true)
	f.Fuzz(func(t *testing.T, uri string, flags uint8) {
		checkToContentType(t, uri, Option(flags)&NoControlled)
	})
}

// FuzzParseContentType: a parsed Content-Type formats to text that parses
// to the same value, and formatting is idempotent; an error is precise
// (checkError) and the one ToURI gives.
func FuzzParseContentType(f *testing.F) {
	addVectorSeeds(f, true)
	f.Fuzz(func(t *testing.T, s string, flags uint8) {
		ct, err := ParseContentType(s, Option(flags)&Lenient)
		if err != nil {
			checkError(t, err)
			// ToURI parses first (C1-C3): it fails the same way.
			_, uerr := ToURI(s, Option(flags)&Lenient)
			require.Equal(t, err, uerr, "ParseContentType and ToURI disagree on %q", s)
			return
		}
		out := ct.String()
		again, err := ParseContentType(out)
		require.NoErrorf(t, err, "String() of %q gives %q, which does not parse", s, out)
		require.Equal(t, out, again.String())
		require.Len(t, again.Params, len(ct.Params))
		for i := range ct.Params {
			require.Equal(t, ct.Params[i].Value, again.Params[i].Value)
		}
	})
}

// FuzzParseURI: a parsed URI formats (both delimiter styles) to text that
// parses to the same value; an error is precise (checkError) and the one
// ToContentType gives.
func FuzzParseURI(f *testing.F) {
	addVectorSeeds(f, false)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURI(s)
		if err != nil {
			checkError(t, err)
			// ToContentType parses first (U1-U9): it fails the same way.
			_, cerr := ToContentType(s)
			require.Equal(t, err, cerr, "ParseURI and ToContentType disagree on %q", s)
			return
		}
		for _, o := range []Option{0, StrictURI} {
			out := u.Format(o)
			again, err := ParseURI(out)
			require.NoErrorf(t, err, "Format of %q gives %q, which does not parse", s, out)
			require.Equal(t, out, again.Format(o))
			require.Equal(t, u.Body, again.Body)
			require.Equal(t, u.Query, again.Query)
		}
	})
}

// FuzzCodec: the percent-encoder's laws (R0.7, R0.8, R0.10, R0.11).
func FuzzCodec(f *testing.F) {
	addVectorSeeds(f, false)
	sets := []ByteSet{setEncC, setEncU, setBody, setQuery, setQueryName, setQueryValue, {}}
	f.Fuzz(func(t *testing.T, s string) {
		for _, set := range sets {
			e := Escape(s, set)
			require.Equal(t, s, Unescape(e), "dec(ENC(s)) != s")
			require.Equal(t, -1, invalidIn(e, set), "ENC output not valid in its set")
			r := Repair(s, set)
			require.Equal(t, -1, invalidIn(r, set), "REPAIR output not valid")
			require.Equal(t, r, Repair(r, set), "REPAIR not idempotent")
			require.Equal(t, Unescape(s), Unescape(r), "dec(REPAIR(s)) != dec(s)")
		}
	})
}

// FuzzCanonical: Canonical's result is a canonical Content-Type and
// Canonical of it is itself, for every option (its doc comment, SPEC N4).
func FuzzCanonical(f *testing.F) {
	addVectorSeeds(f, true)
	f.Fuzz(func(t *testing.T, label string, flags uint8) {
		o := Option(flags) & (StrictURI | Lenient | NoControlled)
		got, err := Canonical(label, o)
		if err != nil {
			checkError(t, err)
			return
		}
		checkCTOutput(t, got)
		again, err := Canonical(got, o)
		require.NoErrorf(t, err, "Canonical(%q) = %q", label, got)
		require.Equal(t, got, again, "Canonical(%q) is not idempotent", label)
	})
}
