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
	assert.Nil(t, cfg.backend, "the embedded demo backend")
	assert.Equal(t, 256, cfg.maxConnections)
	assert.Equal(t, int64(500), cfg.minBodyRate)
	assert.Empty(t, stderr.String())

	cfg, err = parseArgs([]string{"-addr", "127.0.0.1:8080", "-backend", "http://127.0.0.1:9", "-max-connections", "1", "-min-body-rate", "0"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", cfg.addr)
	require.NotNil(t, cfg.backend)
	assert.Equal(t, "http://127.0.0.1:9", cfg.backend.String())
	assert.Equal(t, 1, cfg.maxConnections)
	assert.Equal(t, int64(0), cfg.minBodyRate, "no minimum")

	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-max-connections", "0"}, "proxy: -max-connections must be at least 1"},
		{[]string{"-min-body-rate", "-1"}, "proxy: -min-body-rate must be 0 or more"},
		{[]string{"x"}, `proxy: unexpected argument "x"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"-backend", "ftp://x"}, `proxy: -backend "ftp://x" is not an http(s) URL`},
		{[]string{"-backend", "127.0.0.1:8080"}, "proxy: -backend is not a URL; give an http(s) URL such as http://127.0.0.1:8080"},
		{[]string{"-backend", "/x"}, `proxy: -backend "/x" is not an http(s) URL`},
		// httputil.ProxyRequest.SetURL does not carry the URL's user
		// information, and the proxy's transport does not turn it into
		// an Authorization field: credentials would be dropped silently.
		{[]string{"-backend", "http://user:secret@127.0.0.1:1"}, `proxy: -backend "http://user:xxxxx@127.0.0.1:1": credentials in the URL are not sent to the backend`},
		{[]string{"-backend", "ftp://user:secret@x"}, `proxy: -backend "ftp://user:xxxxx@x" is not an http(s) URL`},
	} {
		stderr.Reset()
		_, err := parseArgs(tt.args, &stderr)
		require.Error(t, err, "%q", tt.args)
		assert.NotErrorIs(t, err, flag.ErrHelp)
		assert.Contains(t, stderr.String(), tt.msg)
		assert.Contains(t, stderr.String(), "-max-connections int", "the usage follows")
		assert.NotContains(t, stderr.String(), "secret")
	}

	stderr.Reset()
	_, err = parseArgs([]string{"-h"}, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr.String(), `(default "127.0.0.1:0")`)
}
