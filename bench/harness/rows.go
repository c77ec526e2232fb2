package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Row is one measured target, as a bench command hands it to benchall:
// the median of its rounds and, for a target against a baseline, the
// baseline's median measured beside it in the same rounds. A command that
// could not measure a target it owns writes the row with Skipped, saying why.
type Row struct {
	ID       string  `json:"id"`                 // a Target's ID
	Value    float64 `json:"value"`              // median, in the target's unit
	Baseline float64 `json:"baseline,omitempty"` // the baseline's median, in the same unit
	// BaselineName says what the baseline is ("net/http, marshal", "Prism 5.x").
	BaselineName string `json:"baselineName,omitempty"`
	Runs         int    `json:"runs"` // rounds (or starts) the median is of
	Skipped      string `json:"skipped,omitempty"`
	Note         string `json:"note,omitempty"`
}

// Rows collects a command's rows for its -rows file.
type Rows struct {
	list []Row
}

// Add records a row; its ID must be a Target's (a typo would otherwise
// leave the target "not measured" without a word).
func (rs *Rows) Add(r Row) {
	if _, ok := TargetByID(r.ID); !ok {
		panic("harness: no target " + r.ID)
	}
	rs.list = append(rs.list, r)
}

// Skip records that target id was not measured, and why.
func (rs *Rows) Skip(id, why string) { rs.Add(Row{ID: id, Skipped: why}) }

// Write writes the rows as JSON to path; an empty path writes nothing.
func (rs *Rows) Write(path string) error {
	if path == "" {
		return nil
	}
	data, err := json.MarshalIndent(rs.list, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadRows reads a file Rows.Write wrote.
func ReadRows(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []Row
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// Ratio is value / baseline as "0.87×", or "" without a baseline.
func (r Row) Ratio() string {
	if r.Baseline <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", r.Value/r.Baseline)
}

// Report prints each row with its target and verdict, for the command's own
// output, and returns how many targets were missed.
func (rs *Rows) Report(w io.Writer) (missed int) {
	t := &Table{}
	t.Row("target", "measured", "baseline", "ratio", "goal", "verdict")
	for _, r := range rs.list {
		tg, _ := TargetByID(r.ID)
		if r.Skipped != "" {
			t.Row(r.ID, "not measured: "+r.Skipped)
			continue
		}
		v := tg.Verdict(r)
		if v == "missed" {
			missed++
		}
		base := ""
		if r.Baseline > 0 {
			base = tg.Unit.Format(r.Baseline)
		}
		t.Row(r.ID, tg.Unit.Format(r.Value), base, r.Ratio(), tg.Goal(), v)
	}
	t.Write(w)
	return missed
}
