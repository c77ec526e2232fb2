package conformance

// The JUnit report, one test case per check and nothing else: Ginkgo's own
// writer adds a test case for each reporting node (empty) and the place in
// petctl's code of each failure, neither of which says anything about the
// deployment. Its XML types are reused, so the file reads as Ginkgo's does.

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
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

// writeJUnit writes report as JUnit XML to path.
func writeJUnit(report types.Report, path string) error {
	suite := reporters.JUnitTestSuite{
		Name:      report.SuiteDescription,
		Time:      report.RunTime.Seconds(),
		Timestamp: report.StartTime.Format("2006-01-02T15:04:05"),
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
			{Name: "SuiteSucceeded", Value: boolText(report.SuiteSucceeded)},
			{Name: "LabelFilter", Value: report.SuiteConfig.LabelFilter},
		}},
	}
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		tc := reporters.JUnitTestCase{
			Name:      checkName(sr),
			Classname: report.SuiteDescription,
			Status:    sr.State.String(),
			Time:      sr.RunTime.Seconds(),
		}
		if len(sr.ReportEntries) > 0 {
			props := &reporters.JUnitProperties{}
			for _, e := range sr.ReportEntries {
				v, err := json.Marshal(e.GetRawValue())
				if err != nil {
					v = []byte(e.StringRepresentation())
				}
				props.Properties = append(props.Properties, reporters.JUnitProperty{Name: e.Name, Value: string(v)})
			}
			tc.Properties = props
		}
		suite.Tests++
		msg := sr.Failure.Message
		switch {
		case sr.State == types.SpecStateSkipped:
			text := "skipped"
			if msg != "" {
				text += " - " + msg
			}
			tc.Skipped = &reporters.JUnitSkipped{Message: text}
			suite.Skipped++
		case sr.State.Is(types.SpecStateInterrupted | types.SpecStateAborted | types.SpecStatePanicked):
			tc.Error = &reporters.JUnitError{Message: gist(msg), Type: sr.State.String(), Description: msg}
			suite.Errors++
		case sr.State.Is(types.SpecStateFailureStates):
			tc.Failure = &reporters.JUnitFailure{Message: gist(msg), Type: "failed", Description: msg}
			suite.Failures++
		}
		suite.TestCases = append(suite.TestCases, tc)
	}
	doc := reporters.JUnitTestSuites{
		Tests:      suite.Tests,
		Disabled:   suite.Skipped,
		Errors:     suite.Errors,
		Failures:   suite.Failures,
		Time:       suite.Time,
		TestSuites: []reporters.JUnitTestSuite{suite},
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(xml.Header); err != nil {
		f.Close()
		return err
	}
	enc := xml.NewEncoder(f)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
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
