package conformance

// The JUnit report: one test case per check and nothing else, written by
// the writer petctl's other reports use (conformance/junit). Ginkgo's own
// writer adds a test case for each reporting node (empty) and the place in
// petctl's code of each failure, neither of which says anything about the
// deployment.

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/conformance/junit"
)

// checkName is how the reports name a check: "auth · listPets (GET /pets):
// without credentials gives 401".
func checkName(sr types.SpecReport) string {
	h := sr.ContainerHierarchyTexts
	if len(h) >= 3 {
		return h[1] + " · " + h[2] + ": " + sr.LeafNodeText
	}
	return strings.TrimSpace(strings.Join(append(h[min(len(h), 1):], sr.LeafNodeText), " "))
}

// writeJUnit writes report as JUnit XML to path: a failure's gist as its
// message and the whole message under it, a skip with its reason, and what
// a check recorded as its output.
func writeJUnit(report types.Report, path string) error {
	suite := junit.Suite{Name: report.SuiteDescription, Time: report.RunTime}
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		c := junit.Case{Name: checkName(sr), Time: sr.RunTime}
		if len(sr.ContainerHierarchyTexts) > 1 {
			c.Class = sr.ContainerHierarchyTexts[1]
		}
		var out []string
		for _, e := range sr.ReportEntries {
			out = append(out, fmt.Sprintf("%s: %s", e.Name, e.StringRepresentation()))
		}
		c.Output = strings.Join(out, "\n")
		msg := sr.Failure.Message
		switch {
		case sr.State.Is(types.SpecStateFailureStates):
			c.Failure, c.Detail = gist(msg), msg
			if sr.State != types.SpecStateFailed {
				c.Failure = sr.State.String() + ": " + c.Failure
			}
		case sr.State == types.SpecStateSkipped:
			c.Skipped = "skipped"
			if msg != "" {
				c.Skipped += " - " + msg
			}
		}
		suite.Cases = append(suite.Cases, c)
	}
	return junit.WriteFile(path, suite)
}

// gist is the line of a failure message that says what went wrong: its
// "got:" line, else its "want:" line, else its first.
func gist(msg string) string {
	lines := strings.Split(msg, "\n")
	for _, prefix := range []string{"got:", "want:", "the request failed:"} {
		for _, l := range lines {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, prefix) {
				return t
			}
		}
	}
	return strings.TrimSpace(lines[0])
}
