package conformance

// What a run reports: the Result, counted from Ginkgo's report; the
// coverage of the document's operations; the report of a run that stopped
// at the probe; and the JUnit and JSON files.

import (
	"fmt"
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
		Report:       s.client.scrubReport(stripLocations(s.final)),
		Requests:     s.requests,
		Waited:       s.waited,
		Created:      append([]Record(nil), s.created...),
		Observations: append([]Observation(nil), s.observations...),
		NotExercised: s.notExercised(),
		Duration:     d,
	}
	for _, sr := range s.final.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue // the reporting nodes are not checks
		}
		switch {
		case sr.State.Is(types.SpecStateInterrupted | types.SpecStateAborted):
			res.Interrupted = true
			res.Failed++
		case sr.State.Is(types.SpecStateFailureStates):
			res.Failed++
			res.FailedChecks = append(res.FailedChecks, checkName(sr))
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

// stripLocations drops the places in petctl's code from the report (Go
// stack traces, file and line of each check and failure): they locate
// petctl, not the deployment's departure, which the messages describe.
func stripLocations(r types.Report) types.Report {
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, sr := range r.SpecReports {
		sr.Failure.Location = types.CodeLocation{}
		sr.Failure.FailureNodeLocation = types.CodeLocation{}
		sr.LeafNodeLocation = types.CodeLocation{}
		sr.ContainerHierarchyLocations = nil
		if sr.ReportEntries != nil {
			entries := make(types.ReportEntries, len(sr.ReportEntries))
			for j, e := range sr.ReportEntries {
				e.Location = types.CodeLocation{}
				entries[j] = e
			}
			sr.ReportEntries = entries
		}
		sr.SpecEvents = nil // they locate petctl's nodes, and say nothing of the deployment
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
		if err := writeJUnit(report, s.cfg.JUnitReport); err != nil {
			return fmt.Errorf("--junit-report: %v", unwrapPathError(err))
		}
	}
	return nil
}
