//go:build race

// Package race tells a test whether its binary was built with -race, so
// that a test the detector slows the most can leave its heavy part to
// make test's run without it (Makefile: NORACE_TESTS).
package race

// Enabled reports whether the binary was built with -race.
const Enabled = true
