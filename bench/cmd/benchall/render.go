package main

import (
	"fmt"
	"strings"

	"github.com/petctl/petctl/bench/harness"
)

// render writes the generated section: the table of every target, then the
// machine and the commands with the load average around each.
func render(m machine, results []result) string {
	byProducer := map[string]result{}
	for _, r := range results {
		byProducer[r.producer.name] = r
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on commit `%s`: %d CPUs (%s), %s memory, %s; load average (1, 5, 15 min) %s before the run, %s after.\n\n",
		m.date, m.commit, m.cpus, m.model, m.memory, m.goVersion, m.loadBefore, m.loadAfter)
	b.WriteString("| target | goal | measured (median) | baseline beside it | ratio | verdict | runs, note |\n")
	b.WriteString("|---|---|---:|---:|---:|---|---|\n")
	met, missed, unmeasured := 0, 0, 0
	for _, t := range harness.Targets {
		row, why := find(byProducer, t)
		if why != "" {
			unmeasured++
			fmt.Fprintf(&b, "| %s | %s | | | | not measured | %s |\n", t.What, t.Goal(), cell(why))
			continue
		}
		v := t.Verdict(row)
		switch v {
		case "met":
			met++
		case "missed":
			missed++
		}
		base := ""
		if row.Baseline > 0 {
			base = t.Unit.Format(row.Baseline)
			if row.BaselineName != "" {
				base += " (" + row.BaselineName + ")"
			}
		}
		note := fmt.Sprintf("%d", row.Runs)
		if row.Note != "" {
			note += "; " + row.Note
		}
		if v != "reported" {
			v = "**" + v + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", t.What, t.Goal(), t.Unit.Format(row.Value), base, row.Ratio(), v, cell(note))
	}
	fmt.Fprintf(&b, "\n%d met, %d missed, %d not measured.\n\n", met, missed, unmeasured)
	b.WriteString("| comparison | command | took | load average before → after |\n|---|---|---:|---|\n")
	for _, r := range results {
		took := ""
		if r.took > 0 {
			took = fmt.Sprintf("%.0f s", r.took.Seconds())
		}
		load := ""
		if r.loadBefore != "" {
			load = r.loadBefore + " → " + r.loadAfter
		}
		command := r.command
		if command != "" {
			command = "`" + command + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.producer.name, command, took, load)
	}
	return b.String()
}

// find is the row of t, or why there is none.
func find(byProducer map[string]result, t harness.Target) (harness.Row, string) {
	r, ok := byProducer[t.Producer]
	if !ok {
		return harness.Row{}, "no producer " + t.Producer + " in benchall's list"
	}
	if r.reason != "" {
		return harness.Row{}, r.reason
	}
	for _, row := range r.rows {
		if row.ID == t.ID {
			if row.Skipped != "" {
				return harness.Row{}, row.Skipped
			}
			return row, ""
		}
	}
	return harness.Row{}, t.Producer + " did not report it"
}

// cell keeps a table cell on one line and its pipes literal.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "\\|")
}
