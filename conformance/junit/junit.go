// Package junit writes JUnit XML reports, the format CI systems (GitHub
// Actions, GitLab, Jenkins) show as test results. petctl diff and petctl
// drift write one, and so does conform, a test case per check.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Case is one test case: a change of the document, a behaviour compared.
type Case struct {
	// Class groups the case ("breaking", "auth"); Name says what it is.
	Class, Name string
	// Failure, when set, fails the case with this message; Detail is the
	// longer text under it.
	Failure, Detail string
	// Skipped, when set, says why the case was not judged.
	Skipped string
	// Output is what the case saw, shown as its system-out.
	Output string
	Time   time.Duration
}

// Suite is one suite of cases.
type Suite struct {
	Name  string
	Cases []Case
	Time  time.Duration
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Skipped  int        `xml:"skipped,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Skipped  int       `xml:"skipped,attr"`
	Time     string    `xml:"time,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlFailure `xml:"failure,omitempty"`
	Skipped   *xmlSkipped `xml:"skipped,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type xmlSkipped struct {
	Message string `xml:"message,attr"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Write writes s as a JUnit XML document.
func Write(w io.Writer, s Suite) error {
	xs := xmlSuite{Name: s.Name, Time: seconds(s.Time)}
	for _, c := range s.Cases {
		xc := xmlCase{Name: c.Name, Classname: c.Class, Time: seconds(c.Time), SystemOut: c.Output}
		switch {
		case c.Failure != "":
			xc.Failure = &xmlFailure{Message: c.Failure, Type: "failure", Text: c.Detail}
			xs.Failures++
		case c.Skipped != "":
			xc.Skipped = &xmlSkipped{Message: c.Skipped}
			xs.Skipped++
		}
		xs.Cases = append(xs.Cases, xc)
	}
	xs.Tests = len(s.Cases)
	doc := xmlSuites{Name: s.Name, Tests: xs.Tests, Failures: xs.Failures, Skipped: xs.Skipped, Time: xs.Time, Suites: []xmlSuite{xs}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteFile writes s to path, creating its folder.
func WriteFile(path string, s Suite) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
