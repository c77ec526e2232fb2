package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
)

type conformOptions struct {
	url             string
	apiKey          string
	apiKeySet       bool
	specPath        string
	junitReport     string
	jsonReport      string
	labelFilter     string
	readOnly        bool
	failFast        bool
	timeout         time.Duration
	deadline        time.Duration
	retryAfterMax   time.Duration
	retryBudget     time.Duration
	verbose         bool
	now             string
	requireCoverage bool
	runID           string
	// profileOut, compare and apiKeyB are the profile and drift flags (drift.go).
	profileOut string
	compare    string
	apiKeyB    string
}

func newConformCmd(a *app, runF func(*conformOptions) error) *cobra.Command {
	opts := &conformOptions{}
	cmd := &cobra.Command{
		Use:   "conform",
		Short: "Check a deployment of the API against the spec",
		Long: `Check a deployment against the spec (the embedded Petstore by default): auth on
every operation, the Error body of every error, pagination bounds, filters,
create and read back, deprecation headers, and every response against the
spec's schemas. Where the description leaves behaviour open, what the
deployment does is recorded in the report, not judged.

The key comes from --api-key or PETCTL_API_KEY; it is never printed.
Exit status: 0 every check passed, 1 a check failed or the run stopped early
(--deadline, an interrupt), 2 a usage, configuration or spec error, 3 the
target could not be reached at all.`,
		Example: `  PETCTL_API_KEY=... petctl conform --url https://staging.example.com/v1
  petctl conform --url http://127.0.0.1:4010/v1 --api-key petctl-dev-key -v
  petctl conform --url "$BASE" --read-only --junit-report conform.xml
  petctl conform --url "$BASE" --label-filter 'auth || pagination'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.apiKeySet = cmd.Flags().Changed("api-key")
			if runF != nil {
				return runF(opts)
			}
			return conformRun(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.url, "url", "", "base URL of the deployment, with its version prefix (https://staging.example.com/v1)")
	f.StringVar(&opts.apiKey, "api-key", "", "API key (default: $PETCTL_API_KEY)")
	f.StringVar(&opts.specPath, "spec", "", "OpenAPI document to check against (default: the embedded Petstore)")
	f.StringVar(&opts.junitReport, "junit-report", "", "write a JUnit XML report to this file")
	f.StringVar(&opts.jsonReport, "json-report", "", "write a JSON report (Ginkgo's format) to this file")
	f.StringVar(&opts.labelFilter, "label-filter", "", "run only the checks whose labels match (Ginkgo syntax: 'auth || pagination', '!write')")
	f.BoolVar(&opts.readOnly, "read-only", false, "skip every check that sends a request that may write")
	f.BoolVar(&opts.failFast, "fail-fast", false, "stop at the first failed check")
	f.DurationVar(&opts.timeout, "timeout", conformance.DefaultTimeout, "time-out of each request")
	f.DurationVar(&opts.deadline, "deadline", conformance.DefaultDeadline, "most time the whole run takes; then it stops, writes the reports and exits 1")
	f.DurationVar(&opts.retryAfterMax, "retry-after-max", conformance.DefaultRetryAfterMax, "longest Retry-After of a 429 that is waited out")
	f.DurationVar(&opts.retryBudget, "retry-budget", conformance.DefaultRetryBudget, "most time the whole run waits out 429s")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "print every check with its requests, not only failures")
	f.StringVar(&opts.now, "now", "", "judge deprecation and removal dates as of this date (2031-01-01 or RFC 3339; default: the clock)")
	f.BoolVar(&opts.requireCoverage, "require-coverage", false, "fail when an operation of the spec was not exercised")
	f.StringVar(&opts.runID, "run-id", "", "name the records the run creates petctl-conform-<run-id>-N (default: random)")
	addProfileFlags(f, opts)
	return cmd
}

func conformRun(a *app, opts *conformOptions) error {
	var problems []error
	cfg := conformance.Config{
		BaseURL:         opts.url,
		APIKey:          opts.apiKey,
		LabelFilter:     opts.labelFilter,
		ReadOnly:        opts.readOnly,
		FailFast:        opts.failFast,
		Timeout:         opts.timeout,
		Deadline:        opts.deadline,
		RetryAfterMax:   opts.retryAfterMax,
		RetryBudget:     opts.retryBudget,
		RequireCoverage: opts.requireCoverage,
		RunID:           opts.runID,
		JUnitReport:     opts.junitReport,
		JSONReport:      opts.jsonReport,
		Verbose:         opts.verbose,
		Color:           isTerminal(a.out) && a.getenv("NO_COLOR") == "" && a.getenv("TERM") != "dumb",
		Out:             a.out,
		Err:             a.err,
	}
	if !opts.apiKeySet {
		cfg.APIKey = a.getenv("PETCTL_API_KEY")
	} else if opts.apiKey == "" {
		problems = append(problems, errors.New("--api-key is empty"))
	}
	if opts.timeout <= 0 {
		problems = append(problems, fmt.Errorf("--timeout %s: want a positive duration such as 10s", opts.timeout))
	}
	if opts.deadline <= 0 {
		problems = append(problems, fmt.Errorf("--deadline %s: want a positive duration such as 5m", opts.deadline))
	}
	if opts.retryAfterMax <= 0 {
		problems = append(problems, fmt.Errorf("--retry-after-max %s: want a positive duration such as 10s", opts.retryAfterMax))
	}
	if opts.retryBudget <= 0 {
		problems = append(problems, fmt.Errorf("--retry-budget %s: want a positive duration such as 1m", opts.retryBudget))
	}
	if opts.now != "" {
		t, ok := spec.ParseInstant(opts.now)
		if !ok {
			problems = append(problems, fmt.Errorf("--now %q: want a date such as 2031-01-01 or 2031-01-01T00:00:00Z", opts.now))
		}
		cfg.Now = t.UTC()
	}
	problems = append(problems, profileFlagProblems(opts)...)
	if len(problems) > 0 {
		return usageError(errors.Join(problems...))
	}
	s, err := spec.Load(opts.specPath)
	if err != nil {
		return usageError(err)
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(a.err, "warning:", w)
	}
	cfg.Spec = s
	if opts.compare != "" {
		return compareRun(a, opts, cfg)
	}
	cfg.Profile = opts.profileOut != ""
	res, err := conformance.Run(a.ctx, cfg)
	if err := writeProfile(a, opts.profileOut, res); err != nil {
		return err
	}
	var ue *conformance.UsageError
	var unreachable *conformance.UnreachableError
	switch {
	case errors.As(err, &ue):
		return usageError(err)
	case errors.As(err, &unreachable):
		return &exitError{code: exitUnreachable, err: err}
	case err != nil:
		return failure(err)
	case res.Interrupted:
		return failure(fmt.Errorf("%s: stopped after %d of %d checks (%d failed, %d skipped)", res.StopReason, res.Passed+res.Failed, res.Passed+res.Failed+res.Skipped, res.Failed, res.Skipped))
	case !res.OK():
		var parts []string
		if res.Failed > 0 || len(res.SuiteFailures) == 0 {
			parts = append(parts, fmt.Sprintf("%d of %d checks failed (%d skipped)", res.Failed, res.Passed+res.Failed, res.Skipped))
		}
		for _, f := range res.SuiteFailures {
			parts = append(parts, oneLine(f))
		}
		return failure(errors.New(strings.Join(parts, "; ")))
	}
	return nil
}

// isTerminal reports whether w is a terminal, for colour.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
