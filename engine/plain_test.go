package engine

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/internal/parallel"
	"github.com/petctl/petctl/internal/race"
)

// TestMain lets the four tests that run side by side (TestPlainSuite, which
// waits on its child, and the corpus tests) all run at once, not two at a
// time on two CPUs with one slot held by the waiting TestPlainSuite.
func TestMain(m *testing.M) {
	forcePlain = os.Getenv("PETCTL_PLAIN") == "1"
	parallel.AtLeast(4)
	os.Exit(m.Run())
}

// TestPlainSuite runs the whole engine suite again with every Server plain
// (Options.Plain): every request, record and response through
// libopenapi-validator alone. A speed-only path that answers otherwise than
// the validator fails one of the runs.
//
// It runs without -race, beside the other tests: it checks what the plain
// path answers, which no setting offers outside tests, and the detector
// would double the suite's time; make test runs it in its run without
// -race (the Makefile's NORACE_TESTS), where the detector's run has
// checked the same server with its fast paths.
func TestPlainSuite(t *testing.T) {
	if forcePlain {
		t.Skip("this is the plain run")
	}
	if race.Enabled {
		t.Skip("the plain run is left to make test's run without -race (NORACE_TESTS)")
	}
	t.Parallel()
	args := []string{"-test.skip=^(TestPlainSuite|Fuzz.*)$", "-test.count=1"}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(d).String())
	}
	cmd := exec.Command(os.Args[0], args...)
	// The plain run is a run of its own: what race.Light and RaceSkip
	// leave out of make test's run without -race, the race run served
	// through the memos and plans, never plain.
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, race.NoRacePassEnv+"=")
	}), "PETCTL_PLAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if len(out) > 8000 {
			out = out[len(out)-8000:]
		}
		t.Fatalf("the engine suite fails through the plain validator (%v):\n%s", err, out)
	}
}

// skipIfPlain skips a test of a speed-only path in the plain run, which has none.
func skipIfPlain(t *testing.T) {
	t.Helper()
	if forcePlain {
		t.Skip("tests a speed-only path, which a plain server does not take")
	}
}

// TestPlainTakesNoFastPath: a plain Server has none of the speed-only
// paths that TestPlainSuite means to leave out, so that its run is a run
// through the validator alone and not the fast paths a second time: no
// list, create or read proved valid at start-up, no envelope's items
// proved, no record held to a compiled item schema instead of the
// validator's (spec's TestPlainValidatorHasNoMemo holds the request memo
// and body plans). The same documents served not plain take each path, so
// that the test sees a switch, not documents without fast paths.
func TestPlainTakesNoFastPath(t *testing.T) {
	plain := func(o *Options) { o.Plain = true }
	for _, env := range []*testEnv{newPetstore(t, plain), newLibrary(t, plain)} {
		for op, o := range env.srv.ops {
			if o.proven || o.itemsProven {
				t.Errorf("plain: %s is proved valid at start-up (proven %v, itemsProven %v)", op, o.proven, o.itemsProven)
			}
		}
		for name, c := range env.srv.colls {
			if c.schema != nil {
				t.Errorf("plain: the records of %s are held to a compiled item schema", name)
			}
		}
	}
	if forcePlain {
		return // every Server is plain in this run
	}
	for _, env := range []*testEnv{newPetstore(t), newLibrary(t)} {
		proven, compiled := 0, 0
		for _, o := range env.srv.ops {
			if o.proven || o.itemsProven {
				proven++
			}
		}
		for _, c := range env.srv.colls {
			if c.schema != nil {
				compiled++
			}
		}
		if proven == 0 || compiled == 0 {
			t.Errorf("%s not plain: %d operations proved, %d collections with a compiled schema; want some of each", env.srv.spec.Source, proven, compiled)
		}
	}
}
