package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server listens on the loopback interface unless told otherwise, and
// a bad command line is a usage error with the usage.
func TestParseArgs(t *testing.T) {
	var stderr strings.Builder
	addr, conns, err := parseArgs(nil, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:0", addr)
	assert.Equal(t, 256, conns)
	assert.Empty(t, stderr.String())

	addr, conns, err = parseArgs([]string{"-addr", "127.0.0.1:8080", "-max-connections", "1"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", addr)
	assert.Equal(t, 1, conns)

	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-max-connections", "0"}, "server: -max-connections must be at least 1"},
		{[]string{"x"}, `server: unexpected argument "x"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
	} {
		stderr.Reset()
		_, _, err := parseArgs(tt.args, &stderr)
		require.Error(t, err, "%q", tt.args)
		assert.NotErrorIs(t, err, flag.ErrHelp)
		assert.Contains(t, stderr.String(), tt.msg)
		assert.Contains(t, stderr.String(), "-max-connections int", "the usage follows")
	}

	stderr.Reset()
	_, _, err = parseArgs([]string{"-h"}, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr.String(), `-addr string`)
	assert.Contains(t, stderr.String(), `(default "127.0.0.1:0")`)
}
