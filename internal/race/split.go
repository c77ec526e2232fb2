package race

import (
	"os"
	"testing"
)

// NoRacePassEnv is set by make test for its run without -race (the
// Makefile's TEST_NORACE). That run runs what the run with -race left out
// (Heavy), and leaves out what that run ran already (Light).
const NoRacePassEnv = "PETCTL_NORACE_PASS"

// Heavy skips t under -race. It is for a test, or a case of one, whose
// cost is computation the detector multiplies by four or five while its
// goroutines are ones other tests already show the detector: make test
// runs it in its run without -race, where the test is named in the
// Makefile's NORACE_TESTS (TestLeftOutTestsRunWithoutRace holds every
// caller to that).
func Heavy(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("under -race: make test runs it in its run without -race (NORACE_TESTS)")
	}
}

// Light skips t in make test's run without -race, which the run with it
// ran already. A plain go test, with or without -race, runs it.
func Light(t testing.TB) {
	t.Helper()
	if !Enabled && os.Getenv(NoRacePassEnv) != "" {
		t.Skip("make test ran it in its run with -race")
	}
}

// Split places case i of a table of cases that all take one path with
// different inputs: the first under -race, so that the detector watches
// that path, and the others in make test's run without it, where they
// cost a quarter as much.
func Split(t testing.TB, i int) {
	t.Helper()
	if i == 0 {
		Light(t)
	} else {
		Heavy(t)
	}
}
