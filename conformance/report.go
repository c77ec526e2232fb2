package conformance

// What a run reports: the Result, counted from Ginkgo's report; the
// coverage of the document's operations; the report of a run that stopped
// at the probe; and the JUnit and JSON files.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// result counts the final report.
func (s *suite) result(d time.Duration) *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &Result{
		Report:       s.client.scrubReport(stripStacks(s.final)),
		Requests:     s.requests,
		Waited:       s.waited,
		Created:      append([]Record(nil), s.created...),
		Observations: append([]Observation(nil), s.observations...),
		NotExercised: s.notExercised(s.final),
		Duration:     d,
	}
	for _, sr := range s.final.SpecReports {
		switch {
		case sr.State.Is(types.SpecStateInterrupted | types.SpecStateAborted):
			res.Interrupted = true
			res.Failed++
		case sr.State.Is(types.SpecStateFailureStates) && sr.LeafNodeType != types.NodeTypeIt:
			res.SuiteFailures = append(res.SuiteFailures, s.client.redact(sr.Failure.Message))
		case sr.State.Is(types.SpecStateFailureStates):
			res.Failed++
		case sr.LeafNodeType != types.NodeTypeIt:
		case sr.State.Is(types.SpecStatePassed):
			res.Passed++
		default:
			res.Skipped++
		}
	}
	for _, reason := range s.final.SpecialSuiteFailureReasons {
		if strings.Contains(strings.ToLower(reason), "interrupt") {
			res.Interrupted = true
		}
	}
	res.StopReason = s.stopped
	if res.StopReason != "" {
		res.Interrupted = true
	} else if res.Interrupted {
		res.StopReason = errInterrupted.Error()
	}
	return res
}

// stripStacks drops Go stack traces from the report: they locate petctl's
// code, not the deployment's departure, which the messages describe.
func stripStacks(r types.Report) types.Report {
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, sr := range r.SpecReports {
		sr.Failure.Location.FullStackTrace = ""
		sr.Failure.FailureNodeLocation.FullStackTrace = ""
		sr.LeafNodeLocation.FullStackTrace = ""
		specs[i] = sr
	}
	r.SpecReports = specs
	return r
}

// notRunReason says why Ginkgo skipped a check without a message: the run
// was interrupted, or --fail-fast stopped it after a failure.
func (s *suite) notRunReason() string {
	if s.ctx != nil && s.ctx.Err() != nil {
		return "not run: " + stopCause(s.ctx).Error()
	}
	if s.cfg.FailFast {
		return "not run: --fail-fast stopped the run at the first failure"
	}
	return "not run"
}

// notExercised names the operations no request reached, with why: the
// reasons given at plan time (--read-only, the label filter), else those
// the checks gave when they skipped, else that no check sends one.
func (s *suite) notExercised(report types.Report) map[string]string {
	out := map[string]string{}
	for _, op := range s.spec.Operations {
		if s.sent[op] > 0 {
			continue
		}
		var planned, ran []string
		for _, c := range s.checks {
			if c.op == op && !c.always && c.skip != "" && !slices.Contains(planned, c.skip) {
				planned = append(planned, c.skip)
			}
		}
		for _, sr := range report.SpecReports {
			if sr.State == types.SpecStateSkipped && slices.Contains(sr.Labels(), opLabel(op)) && !slices.Contains(sr.Labels(), groupResponses) {
				r := sr.Failure.Message
				if r == "" {
					r = s.notRunReason()
				}
				if !slices.Contains(ran, r) {
					ran = append(ran, r)
				}
			}
		}
		reasons := planned
		if n := s.lost[op]; n > 0 {
			reasons = append(reasons, fmt.Sprintf("its %d requests got no answer", n))
		}
		if len(reasons) == 0 {
			reasons = ran
		}
		if len(reasons) == 0 {
			reasons = []string{"no check sends a request to it"}
		}
		sort.Strings(reasons)
		out[op.ID] = strings.Join(reasons, "; ")
	}
	return out
}

// coverage is a ReportAfterSuite node: it records which operations were
// exercised and the records created, and fails the run when
// --require-coverage is set and an operation was not exercised.
func (s *suite) coverage(report types.Report) {
	s.mu.Lock()
	exercised := map[string]int{}
	for _, op := range s.spec.Operations {
		if n := s.sent[op]; n > 0 {
			exercised[op.ID] = n
		}
	}
	missing := s.notExercised(report)
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
	if s.cfg.RequireCoverage && len(missing) > 0 {
		var parts []string
		for _, id := range slices.Sorted(maps.Keys(missing)) {
			parts = append(parts, fmt.Sprintf("%s (%s)", id, missing[id]))
		}
		s.fail(fmt.Sprintf("--require-coverage: %d of %d operations of the document were not exercised: %s",
			len(missing), len(s.spec.Operations), strings.Join(parts, ", ")), 0)
	}
}

// probeReport is the report of a run that stopped at the probe: one
// failed "reachability" check saying why.
func (s *suite) probeReport(err error, start time.Time) types.Report {
	end := time.Now()
	sc := types.NewDefaultSuiteConfig()
	sc.LabelFilter = s.cfg.LabelFilter
	sc.RandomSeed, sc.FailFast = 1, s.cfg.FailFast
	return types.Report{
		SuiteDescription: "petctl conform: " + s.title(),
		SuiteSucceeded:   false,
		PreRunStats:      types.PreRunStats{TotalSpecs: 1, SpecsThatWillRun: 1},
		StartTime:        start,
		EndTime:          end,
		RunTime:          end.Sub(start),
		SuiteConfig:      sc,
		SpecReports: types.SpecReports{{
			ContainerHierarchyTexts:  []string{"conform"},
			ContainerHierarchyLabels: [][]string{{}},
			LeafNodeType:             types.NodeTypeIt,
			LeafNodeText:             "reachability: the deployment answers",
			LeafNodeLabels:           []string{"reachability"},
			State:                    types.SpecStateFailed,
			StartTime:                start,
			EndTime:                  end,
			RunTime:                  end.Sub(start),
			NumAttempts:              1,
			Failure: types.Failure{
				Message:            s.client.redact(err.Error()) + "\nno check ran: the deployment must answer first",
				FailureNodeType:    types.NodeTypeIt,
				FailureNodeContext: types.FailureNodeIsLeafNode,
				TimelineLocation:   types.TimelineLocation{Time: end},
			},
		}},
	}
}

// writeReports writes the JUnit and JSON reports.
func (s *suite) writeReports(report types.Report) error {
	if s.cfg.JSONReport != "" {
		if err := reporters.GenerateJSONReport(report, s.cfg.JSONReport); err != nil {
			return fmt.Errorf("--json-report: %v", unwrapPathError(err))
		}
	}
	if s.cfg.JUnitReport != "" {
		err := reporters.GenerateJUnitReportWithConfig(report, s.cfg.JUnitReport, reporters.JunitReportConfig{
			OmitTimelinesForSpecState: types.SpecStatePassed | types.SpecStateSkipped,
			OmitCapturedStdOutErr:     true,
			OmitLeafNodeType:          true,
		})
		if err != nil {
			return fmt.Errorf("--junit-report: %v", unwrapPathError(err))
		}
	}
	return nil
}
