package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cturi/cturi/internal/printable"
	"github.com/cturi/cturi/mapping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzRun holds the command to its contract on any standard input and
// choice of flags: one line of output per value (a line of the input, LF
// or CR LF ended, the last one with no ending included), which is what
// package mapping gives for that value, or ERROR:<kind>; with -json, an
// object per value with the same answer; one message on standard error
// per failure; status 0 if every value mapped, else 1.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"image/JPEG\r\nContentType:image/jpeg\n",
		"x-FOO?bar/biZZare#sUb#tYpe\nmailto:U@example.net?subject=\"misc\"\n",
		"text/plain; a=b\r\r\n\r\n\n ",
		"ContentType:text/plain?x=%0D%0A\n\xff\n",
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, in string, flags uint8) {
		var args []string
		to := []string{"auto", "uri", "ct"}[int(flags&3)%3]
		args = append(args, "-to", to)
		var opts []mapping.Option
		if flags&4 != 0 {
			args, opts = append(args, "-strict-uri"), append(opts, mapping.StrictURI)
		}
		if flags&8 != 0 {
			args, opts = append(args, "-lenient"), append(opts, mapping.Lenient)
		}
		asJSON := flags&16 != 0
		if asJSON {
			args = append(args, "-json")
		}
		stdout, stderr, code := runCLI(t, in, args...)

		values := strings.SplitAfter(in, "\n")
		if values[len(values)-1] == "" {
			values = values[:len(values)-1]
		}
		lines := strings.SplitAfter(stdout, "\n")
		require.Equal(t, "", lines[len(lines)-1], "output ends with a line ending")
		lines = lines[:len(lines)-1]
		require.Len(t, lines, len(values), "one line of output per value")
		failures := 0
		for i, v := range values {
			v = strings.TrimSuffix(strings.TrimSuffix(v, "\n"), "\r")
			var want string
			var err error
			switch to {
			case "uri":
				want, err = mapping.ToURI(v, opts...)
			case "ct":
				want, err = mapping.ToContentType(v, opts...)
			default:
				want, _, err = mapping.Map(v, opts...)
			}
			kind := ""
			if err != nil {
				failures++
				kind, want = mapping.KindOf(err).String(), ""
			}
			line := strings.TrimSuffix(lines[i], "\n")
			if !asJSON {
				if kind != "" {
					want = "ERROR:" + kind
				}
				assert.Equal(t, want, line, "value %q", v)
				continue
			}
			require.True(t, printable.Is(line), "%q prints", line)
			var r result
			require.NoError(t, json.Unmarshal([]byte(line), &r), "%q", line)
			assert.Equal(t, want, r.Output, "value %q", v)
			assert.Equal(t, kind, r.Kind, "value %q", v)
			assert.Equal(t, kind == "", r.Error == "", "value %q: error %q", v, r.Error)
			// JSON shows each octet that is not UTF-8 as U+FFFD.
			assert.Equal(t, string([]rune(v)), r.Input, "input")
		}
		assert.Equal(t, failures, strings.Count(stderr, "\n"), "one message per failure:\n%s", stderr)
		if failures > 0 {
			assert.Equal(t, exitFailed, code)
		} else {
			assert.Equal(t, exitOK, code)
		}
	})
}
