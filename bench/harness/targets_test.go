package harness

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestTargetVerdict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target Target
		row    Row
		want   string
	}{
		{"ratio met", Target{MinRatio: 0.9}, Row{Value: 90, Baseline: 100}, "met"},
		{"ratio missed", Target{MinRatio: 0.9}, Row{Value: 89, Baseline: 100}, "missed"},
		{"ratio without a baseline", Target{MinRatio: 0.9}, Row{Value: 89}, "missed"},
		{"upper ratio met", Target{MaxRatio: 1.2}, Row{Value: 0.0012, Baseline: 0.001}, "met"},
		{"upper ratio missed", Target{MaxRatio: 1.2}, Row{Value: 0.0013, Baseline: 0.001}, "missed"},
		{"absolute met", Target{Max: 1}, Row{Value: 1}, "met"},
		{"absolute missed", Target{Max: 1}, Row{Value: 1.01}, "missed"},
		{"reported", Target{}, Row{Value: 5, Baseline: 1}, "reported"},
	} {
		if got := tc.target.Verdict(tc.row); got != tc.want {
			t.Errorf("%s: Verdict = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTargetsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range Targets {
		if seen[tg.ID] {
			t.Errorf("target %s declared twice", tg.ID)
		}
		seen[tg.ID] = true
		if tg.What == "" || tg.Producer == "" {
			t.Errorf("target %s: want What and Producer", tg.ID)
		}
		bounds := 0
		for _, b := range []float64{tg.MinRatio, tg.MaxRatio, tg.Max} {
			if b > 0 {
				bounds++
			}
		}
		if bounds > 1 {
			t.Errorf("target %s: %d bounds, want at most one", tg.ID, bounds)
		}
	}
}

func TestUnitFormat(t *testing.T) {
	for _, tc := range []struct {
		unit Unit
		v    float64
		want string
	}{
		{PerSecond, 16808.4, "16,808 req/s"},
		{PerSecond, 999, "999 req/s"},
		{Seconds, 0.000489, "489 µs"},
		{Seconds, 0.006, "6.00 ms"},
		{Seconds, 1.302, "1.30 s"},
		{Bytes, 200 << 20, "200.0 MB"},
	} {
		if got := tc.unit.Format(tc.v); got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestRowsRoundTrip(t *testing.T) {
	rs := &Rows{}
	rs.Add(Row{ID: "list.rps", Value: 90, Baseline: 100, BaselineName: "net/http", Runs: 5})
	rs.Skip("mockoon.list.rps", "npm is not installed")
	path := filepath.Join(t.TempDir(), "rows.json")
	if err := rs.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRows(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != rs.list[0] || got[1].Skipped != "npm is not installed" {
		t.Errorf("ReadRows = %+v, want %+v", got, rs.list)
	}
	var out strings.Builder
	if missed := rs.Report(&out); missed != 0 {
		t.Errorf("Report: %d missed, want 0 (90 of 100 meets 0.9×)\n%s", missed, out.String())
	}
	if !strings.Contains(out.String(), "not measured: npm is not installed") {
		t.Errorf("Report does not say why a row is not measured:\n%s", out.String())
	}
}

func TestRowsRefuseAnUnknownTarget(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Add of an unknown target id did not panic")
		}
	}()
	(&Rows{}).Add(Row{ID: "list.rsp"})
}
