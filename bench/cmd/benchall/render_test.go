package main

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/bench/harness"
)

func TestRender(t *testing.T) {
	results := []result{
		{producer: producer{name: "loadcmp"}, command: "go run ./bench/cmd/loadcmp", rows: []harness.Row{
			{ID: "list.rps", Value: 17000, Baseline: 20000, BaselineName: "net/http, marshal", Runs: 5},
			{ID: "create.rps", Value: 19000, Baseline: 20000, Runs: 5},
		}},
		{producer: producer{name: "crudcmp"}, reason: "bench/cmd/crudcmp does not exist yet: issue 17"},
		{producer: producer{name: "mockcmp"}, rows: []harness.Row{{ID: "mockoon.list.rps", Skipped: "npm is not installed"}}},
	}
	page := render(machine{cpus: 2, commit: "abc"}, results)
	lines := map[string]string{}
	for _, l := range strings.Split(page, "\n") {
		for _, tg := range harness.Targets {
			if strings.HasPrefix(l, "| "+tg.What+" |") {
				lines[tg.ID] = l
			}
		}
	}
	for id, want := range map[string][]string{
		"list.rps":         {"17,000 req/s", "20,000 req/s (net/http, marshal)", "0.85×", "**missed**"},
		"create.rps":       {"0.95×", "**met**"},
		"update.rps":       {"not measured", "bench/cmd/crudcmp does not exist yet"},
		"mockoon.list.rps": {"not measured", "npm is not installed"},
		"list.p99":         {"not measured", "loadcmp did not report it"},
		"test.time":        {"not measured", "maketest"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[id], w) {
				t.Errorf("row %s = %q, want it to contain %q", id, lines[id], w)
			}
		}
	}
	if len(lines) != len(harness.Targets) {
		t.Errorf("%d target rows, want one per target (%d)", len(lines), len(harness.Targets))
	}
	if !strings.Contains(page, "1 met, 1 missed,") {
		t.Errorf("summary line missing or wrong:\n%s", page)
	}
}

func TestReplaceSection(t *testing.T) {
	page := "# P\n\n" + beginMarker + "\nold table\n" + endMarker + "\n\nprose\n"
	got, err := replaceSection(page, "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# P\n\n" + beginMarker + "\n\nnew table\n\n" + endMarker + "\n\nprose\n"
	if got != want {
		t.Errorf("replaceSection = %q, want %q", got, want)
	}
	if _, err := replaceSection("# no markers\n", "x"); err == nil {
		t.Error("replaceSection without markers: no error")
	}
}

func TestEveryTargetHasAProducer(t *testing.T) {
	for _, tg := range harness.Targets {
		found := false
		for _, p := range producers {
			found = found || p.name == tg.Producer
		}
		if !found {
			t.Errorf("target %s: no producer %q in benchall's list", tg.ID, tg.Producer)
		}
	}
}
