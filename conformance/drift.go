package conformance

// Drift: the same checks and the same profile against two deployments
// (typically the mock and staging), and every behaviour in which they
// differ, with both answers side by side.

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/conformance/junit"
)

// DriftSide is one deployment's run.
type DriftSide struct {
	URL    string
	Result *Result
}

// Difference is one behaviour in which the deployments differ.
type Difference struct {
	// Group is "check" for a check's outcome, else the behaviour's group
	// (lists, defaults, errors, unpublished, headers, latency).
	Group string `json:"group"`
	Key   string `json:"key"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// DriftReport is what two runs showed.
type DriftReport struct {
	A, B DriftSide
	// Compared counts the behaviours and checks compared.
	Compared    int
	Differences []Difference
	// LatencyTolerance is how far latency medians were let be apart (see
	// DefaultLatencyTolerance).
	LatencyTolerance time.Duration
	// same lists what was compared and found alike, for the JUnit report.
	same     []Difference
	Duration time.Duration
}

// OK reports whether the deployments behave alike.
func (d *DriftReport) OK() bool { return len(d.Differences) == 0 }

// notRecorded stands for a behaviour one side has and the other lacks.
const notRecorded = "(not recorded)"

// Drift runs the checks against a, then b, each recording its profile,
// and compares them, latency medians alike within latencyTolerance
// (DefaultLatencyTolerance, unless the run says otherwise) or half the
// larger. A run that cannot start or reach its deployment stops the drift
// with that run's error.
func Drift(ctx context.Context, a, b Config, latencyTolerance time.Duration) (*DriftReport, error) {
	start := time.Now()
	d := &DriftReport{LatencyTolerance: latencyTolerance}
	for _, side := range []struct {
		cfg Config
		to  *DriftSide
	}{{a, &d.A}, {b, &d.B}} {
		side.cfg.Profile = true
		res, err := Run(ctx, side.cfg)
		if err != nil {
			return nil, err
		}
		*side.to = DriftSide{URL: redactURL(side.cfg.BaseURL), Result: res}
		if res.Interrupted {
			return d, fmt.Errorf("the run against %s stopped: %s", side.to.URL, res.StopReason)
		}
	}
	d.compare()
	d.Duration = time.Since(start)
	return d, nil
}

func (d *DriftReport) compare() {
	note := func(group, key, a, b string, alike bool) {
		diff := Difference{Group: group, Key: key, A: a, B: b}
		d.Compared++
		if alike {
			d.same = append(d.same, diff)
		} else {
			d.Differences = append(d.Differences, diff)
		}
	}
	ca, cb := checkOutcomes(d.A.Result), checkOutcomes(d.B.Result)
	for _, k := range unionKeys(ca, cb) {
		a, b := orNotRecorded(ca[k]), orNotRecorded(cb[k])
		note("check", k, a, b, verdict(a) == verdict(b))
	}
	ba, bb := behaviours(d.A.Result), behaviours(d.B.Result)
	for _, k := range unionKeys(ba, bb) {
		x, okA := ba[k]
		y, okB := bb[k]
		switch {
		case okA && okB:
			note(x.Group, strings.TrimPrefix(k, x.Group+" "), x.Value, y.Value, x.Similar(y, d.LatencyTolerance))
		case okA && x.Paired() || okB && y.Paired():
			// Compared where both have it; its absence is another's difference.
		case okA:
			note(x.Group, strings.TrimPrefix(k, x.Group+" "), x.Value, notRecorded, false)
		default:
			note(y.Group, strings.TrimPrefix(k, y.Group+" "), notRecorded, y.Value, false)
		}
	}
}

// checkOutcomes maps each check's full name to its outcome: passed,
// skipped, or failed with the first line of why.
func checkOutcomes(r *Result) map[string]string {
	out := map[string]string{}
	for _, sr := range r.Report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		name := strings.TrimPrefix(sr.FullText(), "conform ")
		switch {
		case sr.State.Is(types.SpecStatePassed):
			out[name] = "passed"
		case sr.State.Is(types.SpecStateFailureStates):
			out[name] = "failed: " + firstLine(sr.Failure.Message)
		default:
			out[name] = "skipped: " + firstLine(sr.Failure.Message)
		}
	}
	return out
}

// verdict is an outcome without its reason: two checks that failed for
// reasons worded with each deployment's own URL still agree.
func verdict(outcome string) string {
	v, _, _ := strings.Cut(outcome, ":")
	return v
}

func behaviours(r *Result) map[string]Behaviour {
	out := map[string]Behaviour{}
	if r.Profile == nil {
		return out
	}
	for _, b := range r.Profile.Behaviours() {
		out[b.Key] = b
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func orNotRecorded(s string) string {
	if s == "" {
		return notRecorded
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Print writes the report for people: the two runs, then every
// difference with both answers, then a verdict.
func (d *DriftReport) Print(w io.Writer) {
	fmt.Fprintln(w, "petctl drift")
	for _, s := range []struct {
		name string
		side DriftSide
	}{{"A", d.A}, {"B", d.B}} {
		r := s.side.Result
		fmt.Fprintf(w, "  %s  %s: %d checks passed, %d failed, %d skipped\n", s.name, s.side.URL, r.Passed, r.Failed, r.Skipped)
	}
	fmt.Fprintf(w, "  %d checks and behaviours compared, %d differ (latency medians alike within %s or half the larger)\n", d.Compared, len(d.Differences), d.LatencyTolerance)
	for _, diff := range d.Differences {
		fmt.Fprintf(w, "\n  %-11s %s\n", diff.Group, diff.Key)
		fmt.Fprintf(w, "              A  %s\n", diff.A)
		fmt.Fprintf(w, "              B  %s\n", diff.B)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, d.Summary())
}

// Summary is the verdict in one line.
func (d *DriftReport) Summary() string {
	if d.OK() {
		return fmt.Sprintf("PASS: no drift: %d checks and behaviours alike", d.Compared)
	}
	groups := map[string]int{}
	for _, diff := range d.Differences {
		groups[diff.Group]++
	}
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		parts = append(parts, fmt.Sprintf("%d %s", groups[g], g))
	}
	return fmt.Sprintf("FAIL: %d of %d differ (%s)", len(d.Differences), d.Compared, strings.Join(parts, ", "))
}

// JUnit is the report as a JUnit suite: a case per check and behaviour
// compared, failed where the deployments differ.
func (d *DriftReport) JUnit() junit.Suite {
	s := junit.Suite{Name: fmt.Sprintf("petctl drift %s %s", d.A.URL, d.B.URL), Time: d.Duration}
	add := func(diff Difference, failed bool) {
		c := junit.Case{Class: diff.Group, Name: diff.Key, Output: fmt.Sprintf("A %s: %s\nB %s: %s", d.A.URL, diff.A, d.B.URL, diff.B)}
		if failed {
			c.Failure = "the deployments differ"
			c.Detail = c.Output
		}
		s.Cases = append(s.Cases, c)
	}
	for _, diff := range d.Differences {
		add(diff, true)
	}
	for _, diff := range d.same {
		add(diff, false)
	}
	return s
}
