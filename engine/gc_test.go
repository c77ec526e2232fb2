package engine

import (
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"testing"

	"github.com/petctl/petctl/internal/race"
	"github.com/petctl/petctl/spec"
)

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, held int64
		want       int
	}{
		{90 * mb, 70 * mb, 42}, // the rest, 20 MB, and a quarter of 70
		{88 * mb, 86 * mb, 27}, // a million generated animals
		{10 * mb, 0, 100},      // no records: the default
		{10 * mb, 8 * mb, 40},  // the rest and a quarter, 4 MB: the least
		{1000 * mb, 990 * mb, 26},
		{50 * mb, 60 * mb, 25}, // held miscounted past live: a quarter of live
		{5 * mb, 5 * mb, 80},   // a quarter is under the least headroom
		{0, 0, 100},
	} {
		if got := gcPercent(c.live, c.held); got != c.want {
			t.Errorf("gcPercent(%d MB, %d MB) = %d, want %d", c.live/mb, c.held/mb, got, c.want)
		}
	}
}

// unsetEnv removes name from the environment for the test.
func unsetEnv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "") // restored after the test
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

// TestTuneGC: a store of many records lowers the collector's percent, a
// small one leaves the default, and GOGC or GOMEMLIMIT in the environment
// is left to rule.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	unsetEnv(t, "GOGC")
	unsetEnv(t, "GOMEMLIMIT")
	small := newPetstore(t).srv
	if got := TuneGC(small); got != 100 {
		t.Errorf("small store: percent %d, want 100", got)
	}
	t.Setenv("GOGC", "400")
	if got := TuneGC(small); got != 0 {
		t.Errorf("with GOGC set: percent %d, want 0 (left alone)", got)
	}
	unsetEnv(t, "GOGC")
	t.Setenv("GOMEMLIMIT", "1GiB")
	if got := TuneGC(small); got != 0 {
		t.Errorf("with GOMEMLIMIT set: percent %d, want 0 (left alone)", got)
	}
	unsetEnv(t, "GOMEMLIMIT")
	if testing.Short() {
		t.Skip("a store past minTunedBytes takes seconds to generate under -race; -short leaves it out")
	}
	if forcePlain {
		// The largest test of the suite, and nothing in it goes through a
		// validator: make test's run without -race runs it.
		t.Skip("TuneGC reads the store's size, which the plain validator does not change")
	}
	// Generating the store is computation on one goroutine alone.
	race.Heavy(t)
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	large, err := New(Options{Spec: s, Keys: []string{testKey}, Generate: 420000, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if held := large.data.HeldBytes(); held < minTunedBytes {
		t.Fatalf("the large store holds %d bytes, under minTunedBytes", held)
	}
	got := TuneGC(large)
	if got <= 0 || got >= 100 {
		t.Fatalf("large store: percent %d, want between 0 and 100", got)
	}
	if set := debug.SetGCPercent(100); set != got {
		t.Errorf("the collector's percent is %d, TuneGC said %d", set, got)
	}
}
