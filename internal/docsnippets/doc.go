// Package docsnippets has no API: its test type-checks the Go snippets
// of the README, of docs/ and of the library's package comments, so that
// a renamed function, option or field fails the tests rather than the
// reader who copies the snippet.
package docsnippets
