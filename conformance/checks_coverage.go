package conformance

// The coverage check, the last of a run: an operation is exercised when it
// answered a request with the credentials (or one to an open operation)
// with something other than a server error or a refusal of them. A
// deployment that implements nothing (every answer a 5xx, 501 Not
// Implemented) fails; with --require-coverage every operation must be
// exercised. It is a check like the others, so the counts of the console,
// the reports and the exit status agree.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

func (s *suite) coverageCheck(add func(*check)) {
	text := "at least one operation of the document is exercised (answered without a 5xx)"
	if s.cfg.RequireCoverage {
		text = "every operation of the document is exercised (--require-coverage)"
	}
	add(&check{group: groupCoverage, always: true, text: text, fn: func(t *T) {
		s.mu.Lock()
		exercised := map[string]int{}
		for _, op := range s.spec.Operations {
			if n := s.answered[op]; n > 0 {
				exercised[op.ID] = s.sent[op]
			}
		}
		missing := s.notExercised()
		created := append([]Record{}, s.created...)
		s.mu.Unlock()
		entry("run", map[string]any{
			"base URL":     redactURL(s.base.String()),
			"document":     s.spec.Source,
			"run id":       s.cfg.RunID,
			"now":          s.now.Format(time.RFC3339),
			"label filter": s.cfg.LabelFilter,
			"read-only":    s.cfg.ReadOnly,
		})
		entry("operations exercised (requests)", exercised)
		entry("operations not exercised", missing)
		entry("records created", created)
		var parts []string
		for _, id := range slices.Sorted(maps.Keys(missing)) {
			parts = append(parts, fmt.Sprintf("%s (%s)", id, missing[id]))
		}
		switch {
		case s.cfg.RequireCoverage && len(missing) > 0:
			t.failf(nil, "every operation exercised; %d of %d operations of the document were not: %s",
				len(missing), len(s.spec.Operations), strings.Join(parts, ", "))
		case len(exercised) == 0:
			t.failf(nil, "at least one operation exercised; none of the %d was: %s", len(s.spec.Operations), strings.Join(parts, ", "))
		}
	}})
}

// notExercised names the operations no request exercised, with why: the
// reasons given at plan time (--read-only, the label filter, a credential
// the run lacks), requests lost in transport, answers that were all server
// errors, else the reasons the checks gave when they skipped, else that no
// check sends one. The caller holds s.mu.
func (s *suite) notExercised() map[string]string {
	out := map[string]string{}
	for _, op := range s.spec.Operations {
		if s.answered[op] > 0 {
			continue
		}
		var reasons []string
		for _, c := range s.checks {
			if c.op == op && !c.always && c.skip != "" && !slices.Contains(reasons, c.skip) {
				reasons = append(reasons, c.skip)
			}
		}
		if n := s.lost[op]; n > 0 {
			reasons = append(reasons, fmt.Sprintf("its %d requests got no answer", n))
		}
		if errs := s.notServed[op]; len(errs) > 0 {
			var parts []string
			for _, st := range slices.Sorted(maps.Keys(errs)) {
				parts = append(parts, fmt.Sprintf("%d ×%d", st, errs[st]))
			}
			reasons = append(reasons, "every answer to a request with the credentials was a server error or a refusal: "+strings.Join(parts, ", "))
		}
		if len(reasons) == 0 {
			reasons = slices.Clone(s.skipped[op])
		}
		if len(reasons) == 0 {
			reasons = []string{"no check sends a request to it"}
		}
		sort.Strings(reasons)
		out[op.ID] = strings.Join(reasons, "; ")
	}
	return out
}
