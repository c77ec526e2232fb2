package engine

import (
	"os"
	"os/exec"
	"testing"
)

func TestMain(m *testing.M) {
	forcePlain = os.Getenv("PETCTL_PLAIN") == "1"
	os.Exit(m.Run())
}

// TestPlainSuite runs the whole engine suite again with every Server plain
// (Options.Plain): every request, record and response through
// libopenapi-validator alone. A speed-only path that answers otherwise than
// the validator fails one of the runs.
func TestPlainSuite(t *testing.T) {
	if forcePlain {
		t.Skip("this is the plain run")
	}
	cmd := exec.Command(os.Args[0], "-test.skip=^(TestPlainSuite|Fuzz.*)$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PETCTL_PLAIN=1")
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
