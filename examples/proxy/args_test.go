package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The proxy listens on the loopback interface unless told otherwise, and
// a bad command line is a usage error with the usage.
func TestParseArgs(t *testing.T) {
	var stderr strings.Builder
	cfg, err := parseArgs(nil, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:0", cfg.addr)
	assert.Empty(t, cfg.backend, "the embedded demo backend")
	assert.Equal(t, 256, cfg.maxConnections)
	assert.Empty(t, stderr.String())

	cfg, err = parseArgs([]string{"-addr", "127.0.0.1:8080", "-backend", "http://127.0.0.1:9", "-max-connections", "1"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", cfg.addr)
	assert.Equal(t, "http://127.0.0.1:9", cfg.backend)
	assert.Equal(t, 1, cfg.maxConnections)

	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-max-connections", "0"}, "proxy: -max-connections must be at least 1"},
		{[]string{"x"}, `proxy: unexpected argument "x"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
	} {
		stderr.Reset()
		_, err := parseArgs(tt.args, &stderr)
		require.Error(t, err, "%q", tt.args)
		assert.NotErrorIs(t, err, flag.ErrHelp)
		assert.Contains(t, stderr.String(), tt.msg)
		assert.Contains(t, stderr.String(), "-max-connections int", "the usage follows")
	}

	stderr.Reset()
	cfg, err = parseArgs([]string{"-h"}, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr.String(), `(default "127.0.0.1:0")`)
	stderr.Reset()
	cfg.usage() // what main writes after run's usageError
	assert.Contains(t, stderr.String(), "-backend string")
}
