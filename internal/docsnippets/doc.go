// Package docsnippets has no API: its test type-checks the Go snippets
// of the README and of docs/, so that a renamed function, option or field
// fails the tests rather than the reader who copies the snippet.
package docsnippets
