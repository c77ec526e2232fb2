package conformance

// The one place petctl drives Ginkgo. Ginkgo keeps its suite, its
// configuration and its console reporter's output in process globals, so
// every call into it is here, made under ginkgoMu: refusing the go test
// flags with which it would exit the process, resetting its globals,
// silencing its console reporter, registering the checks and running
// them, and the calls a running check makes (fail, skip, a report entry).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/extensions/globals"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// ginkgoMu serialises runs: Ginkgo keeps its suite in package globals, so
// one process runs one suite at a time (globals.Reset between them).
var ginkgoMu sync.Mutex

// ginkgoVetoes finds the go test flags with which RunSpecs would exit the
// process instead of running (Ginkgo's VetConfig reads them from the flag
// package's command line). petctl never parses that command line; a test
// binary does.
func ginkgoVetoes() error {
	var err error
	flag.CommandLine.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "test.count", "count":
			if f.Value.String() != "1" {
				err = fmt.Errorf("-count=%s: Ginkgo runs a suite once per process and exits on any other count; use -count=1", f.Value)
			}
		case "test.parallel", "parallel":
			err = fmt.Errorf("-parallel: Ginkgo exits when it is set; leave it out")
		}
	})
	return err
}

// testingT is what RunSpecs reports a failure to.
type testingT struct{ failed bool }

func (t *testingT) Fail() { t.failed = true }

// run registers the checks with Ginkgo and runs them.
func (s *suite) run(ctx context.Context) *Result {
	ginkgoMu.Lock()
	defer ginkgoMu.Unlock()
	globals.Reset()
	s.ctx = ctx
	s.register()

	suiteConfig := types.NewDefaultSuiteConfig()
	suiteConfig.RandomSeed = 1 // the order is the document's; nothing is shuffled
	suiteConfig.RandomizeAllSpecs = false
	suiteConfig.FailFast = s.cfg.FailFast
	suiteConfig.Timeout = 24 * time.Hour
	suiteConfig.GracePeriod = 5 * time.Second
	reporterConfig := types.NewDefaultReporterConfig()
	reporterConfig.NoColor = true

	// Ginkgo's console reporter writes to these; petctl prints its own
	// report to the injected writer instead.
	stdout, stderr := formatter.ColorableStdOut, formatter.ColorableStdErr
	formatter.ColorableStdOut, formatter.ColorableStdErr = io.Discard, io.Discard
	defer func() { formatter.ColorableStdOut, formatter.ColorableStdErr = stdout, stderr }()

	start := time.Now()
	s.printHeader()
	ginkgo.RunSpecs(&testingT{}, "petctl conform: "+s.title(), suiteConfig, reporterConfig)
	return s.result(time.Since(start))
}

// register declares the checks to Ginkgo: one Ordered container, so they
// run in the order plan gave (the document's), continuing after a failure.
func (s *suite) register() {
	ginkgo.Describe("conform", ginkgo.Ordered, ginkgo.ContinueOnFailure, func() {
		for i := 0; i < len(s.checks); {
			group := s.checks[i].group
			j := i
			for j < len(s.checks) && s.checks[j].group == group {
				j++
			}
			inGroup := s.checks[i:j]
			ginkgo.Describe(group, func() {
				for k := 0; k < len(inGroup); {
					op := inGroup[k].op
					l := k
					for l < len(inGroup) && inGroup[l].op == op {
						l++
					}
					forOp := inGroup[k:l]
					ginkgo.Describe(forOp[0].subject(), func() {
						for _, c := range forOp {
							ginkgo.It(c.text, ginkgo.Label(c.labels...), func(ctx ginkgo.SpecContext) {
								s.runCheck(ctx, c)
							})
						}
					})
					k = l
				}
			})
			i = j
		}
	})
	ginkgo.ReportAfterEach(s.reportSpec)
	ginkgo.ReportAfterSuite("petctl report", func(r ginkgo.Report) {
		s.mu.Lock()
		s.final = r
		s.mu.Unlock()
	})
}

func (s *suite) runCheck(ctx context.Context, c *check) {
	t := &T{s: s, c: c, ctx: ctx}
	t.g = gomega.NewGomega(func(message string, callerSkip ...int) {
		skip := 1
		if len(callerSkip) > 0 {
			skip += callerSkip[0]
		}
		s.fail(message, skip)
	})
	s.mu.Lock()
	c.t = t
	s.mu.Unlock()
	if c.skip != "" {
		s.skip(c.skip, 0)
	}
	if s.ctx != nil && s.ctx.Err() != nil {
		s.noteStop()
		s.skip(s.notRunReason(), 0)
	}
	c.fn(t)
}

// fail and skip end the running check with msg, the key redacted: every
// failure and skip message goes through them, Gomega's included.
func (s *suite) fail(msg string, callerSkip int) {
	ginkgo.Fail(s.client.redact(msg), callerSkip+1)
}

func (s *suite) skip(msg string, callerSkip int) {
	ginkgo.Skip(s.client.redact(msg), callerSkip+1)
}

// entry adds a named value to the report of the running check, or of the
// suite in a ReportAfterSuite node.
func entry(name string, value any) {
	ginkgo.AddReportEntry(name, value)
}
