package harness

import (
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	in := []float64{3, 1, 2}
	Median(in)
	if in[0] != 3 {
		t.Error("Median sorted its argument")
	}
	if got := MedianDuration([]time.Duration{time.Second, 3 * time.Second, 2 * time.Second}); got != 2*time.Second {
		t.Errorf("MedianDuration = %v, want 2s", got)
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tpetctl\nVmPeak:\t  900 kB\nVmHWM:\t   2048 kB\nVmRSS:\t   1024 kB\nThreads:\t5\n"
	m, err := parseStatus(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS != 1024<<10 || m.HWM != 2048<<10 {
		t.Errorf("got %+v, want RSS 1 MiB, HWM 2 MiB", m)
	}
	if _, err := parseStatus(strings.NewReader("VmRSS:\t1 kB\n")); err == nil {
		t.Error("no error without VmHWM")
	}
	if _, err := parseStatus(strings.NewReader("VmRSS:\t1 MB\nVmHWM:\t1 kB\n")); err == nil {
		t.Error("no error for an unexpected unit")
	}
}

func TestRatioAndTable(t *testing.T) {
	if got := Ratio(1, 4); got != "25%" {
		t.Errorf("Ratio(1, 4) = %q", got)
	}
	if got := Ratio(1, 0); got != "n/a" {
		t.Errorf("Ratio(1, 0) = %q", got)
	}
	var tb Table
	tb.Row("a", "bb")
	tb.Row("ccc", "d")
	var b strings.Builder
	tb.Write(&b)
	if want := "a    bb\nccc  d\n"; b.String() != want {
		t.Errorf("table %q, want %q", b.String(), want)
	}
}

func TestParseStat(t *testing.T) {
	// A command name with a space and a parenthesis, as the kernel writes it.
	stat := "1234 (pet ctl) S 1 1234 1234 0 -1 4194560 1500 0 0 0 250 37 0 0 20 0 9 0 100 0 0"
	got, err := parseStat(stat)
	if want := 2870 * time.Millisecond; err != nil || got != want {
		t.Errorf("parseStat = %v, %v, want %v", got, err, want)
	}
	if _, err := parseStat("1234 (x) S 1"); err == nil {
		t.Error("parseStat of a short line: no error")
	}
}
