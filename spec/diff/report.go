package diff

// What a diff shows: the console report and the JUnit report.

import (
	"fmt"
	"io"
	"strings"

	"github.com/petctl/petctl/conformance/junit"
)

// Print writes the report for people: every breaking and flagged change,
// then the safe ones, each with where it is and why it is judged so, and a
// last line with the counts.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "petctl diff %s → %s (judged on %s; minimum notice %s)\n", r.Old, r.New, r.Policy.Now.Format(dateText), days(r.Policy.MinNotice))
	for _, c := range r.Changes {
		fmt.Fprintf(w, "  %-8s  %s: %s\n", strings.ToUpper(string(c.Severity)), c.Subject(), c.What)
		fmt.Fprintf(w, "            why: %s", c.Why)
		if c.At != "" {
			fmt.Fprintf(w, " (%s)", c.At)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, r.Summary())
}

// Summary is the report in one line.
func (r *Report) Summary() string {
	if len(r.Changes) == 0 {
		return "no changes"
	}
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	return fmt.Sprintf("%s: %d changes: %d breaking, %d flagged, %d safe", verdict, len(r.Changes), r.Count(Breaking), r.Count(Flagged), r.Count(Safe))
}

// JUnit is the report as a JUnit suite: a case per change, failed when the
// change is breaking or flagged.
func (r *Report) JUnit() junit.Suite {
	s := junit.Suite{Name: fmt.Sprintf("petctl diff %s → %s", r.Old, r.New)}
	for _, c := range r.Changes {
		jc := junit.Case{Class: string(c.Severity), Name: c.Subject() + ": " + c.What, Output: c.Why}
		if c.Severity != Safe {
			jc.Failure = c.Why
			jc.Detail = fmt.Sprintf("%s: %s\n%s\n%s", c.Subject(), c.What, c.Why, c.At)
		}
		s.Cases = append(s.Cases, jc)
	}
	return s
}
