package conformance

// The console report: the header, a line for each failure as it happens
// (every check with -v) and the summary.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// printHeader opens the console report: the document, the target, the
// run id and how many checks there are.
func (s *suite) printHeader() {
	w := s.cfg.Out
	fmt.Fprintf(w, "petctl conform: %s (%s)\n", s.title(), s.spec.Source)
	fmt.Fprintf(w, "  target   %s\n", redactURL(s.base.String()))
	// The names as sent, so the records can be found and cleaned up.
	fmt.Fprintf(w, "  run id   %s (the text of the records it creates: %q, then the record's number in letters)\n", s.cfg.RunID, s.runText())
	var notes []string
	if s.cfg.LabelFilter != "" {
		notes = append(notes, fmt.Sprintf("%d selected by --label-filter %q, and the response checks", s.selected, s.cfg.LabelFilter))
	}
	if s.cfg.ReadOnly {
		notes = append(notes, "--read-only")
	}
	if !s.cfg.Now.IsZero() {
		notes = append(notes, "--now "+s.now.Format(time.RFC3339))
	}
	line := fmt.Sprintf("  checks   %d", len(s.checks))
	if len(notes) > 0 {
		line += " (" + strings.Join(notes, "; ") + ")"
	}
	fmt.Fprintln(w, line)
}

// reportSpec is a ReportAfterEach node: it prints failures as they happen,
// and with -v every check with its requests and observations.
func (s *suite) reportSpec(r types.SpecReport) {
	s.mu.Lock()
	c := s.byText[r.FullText()]
	var t *T
	if c != nil {
		t = c.t
	}
	s.mu.Unlock()
	p := painter(s.cfg.Color)
	w := s.cfg.Out
	name := r.FullText()
	if c != nil {
		name = c.name()
	}
	if c != nil && c.op != nil && !c.always && r.State == types.SpecStateSkipped {
		reason := r.Failure.Message
		if reason == "" {
			reason = s.notRunReason()
		}
		s.mu.Lock()
		if !slices.Contains(s.skipped[c.op], reason) {
			s.skipped[c.op] = append(s.skipped[c.op], reason)
		}
		s.mu.Unlock()
	}
	switch {
	case r.State.Is(types.SpecStateFailureStates):
		fmt.Fprintf(w, "%s %s\n", p.paint("31;1", "FAIL"), name)
		msg := r.Failure.Message
		if t != nil {
			msg = strings.TrimPrefix(msg, t.name()+"\n")
		}
		if r.State != types.SpecStateFailed {
			msg = r.State.String() + ": " + msg
		}
		fmt.Fprintln(w, indent(msg, "     "))
	case !s.cfg.Verbose:
		return
	case r.State == types.SpecStatePassed:
		fmt.Fprintf(w, "%s   %s %s\n", p.paint("32", "ok"), name, p.paint("2", fmt.Sprintf("(%s)", roundDuration(r.RunTime))))
	default:
		reason := r.Failure.Message
		if reason == "" {
			reason = s.notRunReason()
		}
		fmt.Fprintf(w, "%s %s: %s\n", p.paint("33", "skip"), name, reason)
	}
	if !s.cfg.Verbose || t == nil {
		return
	}
	for _, ex := range t.exchanges {
		fmt.Fprintf(w, "       %s %s → %d (%s)\n", ex.Method, ex.URL, ex.Status, roundDuration(ex.Duration))
	}
	for _, o := range t.observed {
		fmt.Fprintf(w, "       observed %s: %s\n", o.Name, o.Value)
	}
}

// painter colours console words when the output is a terminal.
type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(10 * time.Millisecond)
	case d > time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// printSummary ends the console report: counts, why checks were skipped,
// coverage, records created and observations.
func (s *suite) printSummary(res *Result) {
	w := s.cfg.Out
	p := painter(s.cfg.Color)
	verdict := p.paint("32;1", "PASS")
	if !res.OK() {
		verdict = p.paint("31;1", "FAIL")
	}
	fmt.Fprintf(w, "\n%s %d checks: %d passed, %d failed, %d skipped in %s; %d requests\n",
		verdict, res.Passed+res.Failed+res.Skipped, res.Passed, res.Failed, res.Skipped, roundDuration(res.Duration), res.Requests)
	s.printFailures(res)
	if res.Interrupted {
		fmt.Fprintf(w, "  stopped: %s; the checks after it did not run\n", res.StopReason)
	}
	if res.Waited > 0 {
		fmt.Fprintf(w, "  rate limited: waited %s in all for 429 answers' Retry-After\n", res.Waited)
	}
	reasons := map[string]int{}
	for _, sr := range res.Report.SpecReports {
		if sr.LeafNodeType == types.NodeTypeIt && sr.State == types.SpecStateSkipped {
			r := sr.Failure.Message
			if r == "" {
				r = s.notRunReason()
			}
			reasons[r]++
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintln(w, "  skipped:")
		keys := slices.Sorted(maps.Keys(reasons))
		sort.SliceStable(keys, func(i, j int) bool { return reasons[keys[i]] > reasons[keys[j]] })
		for _, r := range keys {
			fmt.Fprintf(w, "    %3d  %s\n", reasons[r], r)
		}
	}
	s.mu.Lock()
	var ops []string
	for _, op := range s.spec.Operations {
		if s.answered[op] > 0 {
			ops = append(ops, fmt.Sprintf("%s %d", op.ID, s.sent[op]))
		}
	}
	s.mu.Unlock()
	fmt.Fprintf(w, "  operations exercised (requests): %s\n", orNone(strings.Join(ops, ", ")))
	for _, id := range slices.Sorted(maps.Keys(res.NotExercised)) {
		fmt.Fprintf(w, "  not exercised: %s: %s\n", id, res.NotExercised[id])
	}
	if len(res.Created) > 0 {
		var names []string
		for _, r := range res.Created {
			switch {
			case r.ID != "" && r.Deleted:
				names = append(names, fmt.Sprintf("%s (id %s, deleted by the run)", r.Name, r.ID))
			case r.ID != "":
				names = append(names, fmt.Sprintf("%s (id %s)", r.Name, r.ID))
			default:
				names = append(names, r.Name)
			}
		}
		fmt.Fprintf(w, "  records created: %d: %s\n", len(names), strings.Join(names, ", "))
	}
	if len(res.Observations) > 0 {
		fmt.Fprintln(w, "  observed where the description is open:")
		for _, o := range res.Observations {
			fmt.Fprintf(w, "    %s: %s\n", o.Name, o.Value)
		}
	}
	for _, f := range []struct{ kind, path string }{{"JUnit", s.cfg.JUnitReport}, {"JSON", s.cfg.JSONReport}} {
		if f.path != "" {
			fmt.Fprintf(w, "  %s report: %s\n", f.kind, f.path)
		}
	}
}

// printFailures lists every failed check of the run, grouped by the group
// of checks, each with what went wrong: the messages above give each in
// full, as it happened; this list leaves none out.
func (s *suite) printFailures(res *Result) {
	w := s.cfg.Out
	var groups []string
	byGroup := map[string][]string{}
	for _, sr := range res.Report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt || !sr.State.Is(types.SpecStateFailureStates) {
			continue
		}
		g := "checks"
		if len(sr.ContainerHierarchyTexts) > 1 {
			g = sr.ContainerHierarchyTexts[1]
		}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		line := checkName(sr)
		if i := strings.Index(line, " · "); i >= 0 {
			line = line[i+len(" · "):]
		}
		byGroup[g] = append(byGroup[g], line+"\n        "+gist(sr.Failure.Message))
	}
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w, "  failed:")
	for _, g := range groups {
		fmt.Fprintf(w, "    %s (%d)\n", g, len(byGroup[g]))
		for _, l := range byGroup[g] {
			fmt.Fprintf(w, "      %s\n", l)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
