package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/petctl/petctl/config"
	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/conformance/junit"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addProfileFlags declares conform's --profile-out, --compare, --api-key-b
// and --latency-tolerance.
func addProfileFlags(f *pflag.FlagSet, opts *conformOptions) {
	f.StringVar(&opts.profileOut, "profile-out", "", "record what the deployment does where the spec leaves behaviour open, as petctl.yaml settings, to this file (serve it with petctl serve --profile)")
	f.StringVar(&opts.compare, "compare", "", "run the same checks against this second deployment too and report every behaviour that differs (as petctl drift --url-b)")
	f.StringVar(&opts.apiKeyB, "api-key-b", "", "API key of the --compare deployment (default: $PETCTL_API_KEY_B, else the first deployment's key)")
	addLatencyToleranceFlag(f, &opts.latencyTolerance)
}

// addLatencyToleranceFlag declares --latency-tolerance, for conform
// --compare and drift alike.
func addLatencyToleranceFlag(f *pflag.FlagSet, d *time.Duration) {
	f.DurationVar(d, "latency-tolerance", conformance.DefaultLatencyTolerance, "latency medians this far apart, or within half the larger, count as alike: raise it to the noise of the network and machine the runs share")
}

// latencyToleranceProblem is the problem of a --latency-tolerance below 0.
func latencyToleranceProblem(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--latency-tolerance %s: want 0 or a positive duration such as 100ms", d)
	}
	return nil
}

// profileFlagProblems are the problems of the profile and drift flags,
// found before anything is sent.
func profileFlagProblems(opts *conformOptions) []error {
	var problems []error
	if opts.profileOut != "" && opts.compare != "" {
		problems = append(problems, errors.New("--profile-out records one deployment; record each with a run of its own, then compare them with --compare"))
	}
	if err := checkOutputFile(opts.profileOut); err != nil {
		problems = append(problems, fmt.Errorf("--profile-out: %v", err))
	}
	if err := latencyToleranceProblem(opts.latencyTolerance); err != nil {
		problems = append(problems, err)
	} else if opts.compare == "" && opts.latencyTolerance != conformance.DefaultLatencyTolerance {
		problems = append(problems, errors.New("--latency-tolerance judges a comparison of two deployments; give --compare too"))
	}
	return problems
}

// checkOutputFile makes sure a file can be written at path, creating its
// folder, so that a bad path stops the run before it starts.
func checkOutputFile(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return unwrapPathErr(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return unwrapPathErr(err)
	}
	return f.Close()
}

// writeProfile writes the run's profile to path as petctl.yaml settings.
func writeProfile(a *app, path string, res *conformance.Result) error {
	if path == "" || res == nil || res.Profile == nil {
		return nil
	}
	data, err := config.ProfileYAML(res.Profile, path)
	if err != nil {
		return failure(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return failure(fmt.Errorf("--profile-out: %v", unwrapPathErr(err)))
	}
	fmt.Fprintf(a.out, "profile written to %s: petctl serve --profile %s\n", path, path)
	return nil
}

// compareRun is conform --compare: a drift between --url and --compare.
func compareRun(a *app, opts *conformOptions, cfgA conformance.Config) error {
	cfgB := cfgA
	cfgB.BaseURL = opts.compare
	cfgB.APIKey = keyB(a, opts.apiKeyB, cfgA.APIKey)
	cfgA.JUnitReport, cfgA.JSONReport, cfgB.JUnitReport, cfgB.JSONReport = "", "", "", ""
	return driftRun(a, cfgA, cfgB, opts.latencyTolerance, opts.junitReport, opts.jsonReport, opts.verbose)
}

// keyB is the second deployment's key: the flag, PETCTL_API_KEY_B, or the first's.
func keyB(a *app, flag, keyA string) string {
	switch {
	case flag != "":
		return flag
	case a.getenv("PETCTL_API_KEY_B") != "":
		return a.getenv("PETCTL_API_KEY_B")
	}
	return keyA
}

type driftOptions struct {
	apiKey, apiKeyB         string
	specPath                string
	junitReport, jsonReport string
	readOnly                bool
	timeout, deadline       time.Duration
	latencyTolerance        time.Duration
	now                     string
	runID                   string
	verbose                 bool
}

func newDriftCmd(a *app, runF func(*driftOptions, string, string) error) *cobra.Command {
	opts := &driftOptions{}
	cmd := &cobra.Command{
		Use:   "drift A B",
		Short: "Run the same checks against two deployments and report every behaviour that differs",
		Long: `Run the conformance checks against two deployments, typically the mock and
staging, record each one's profile (what it does where the spec leaves
behaviour open), and report every check and behaviour in which they differ,
with both answers side by side. A and B are base URLs with the version
prefix. Latency medians count as alike within --latency-tolerance or half
the larger.

The key comes from --api-key or PETCTL_API_KEY; B's from --api-key-b or
PETCTL_API_KEY_B, else the same. See docs/drift.md.
Exit status: 0 no difference, 1 a difference (or a run stopped early), 2 a
usage or spec error, 3 a deployment could not be reached.`,
		Example: `  petctl drift http://127.0.0.1:4010/v1 https://staging.example.com/v1
  petctl drift "$MOCK" "$STAGING" --junit-report reports/drift.xml
  petctl conform --url "$MOCK" --compare "$STAGING"   # the same`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("drift takes two base URLs, A and B; got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("api-key") {
				opts.apiKey = a.getenv("PETCTL_API_KEY")
			}
			if runF != nil {
				return runF(opts, args[0], args[1])
			}
			return driftCmdRun(a, opts, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.apiKey, "api-key", "", "API key of A, and of B unless --api-key-b (default: $PETCTL_API_KEY)")
	f.StringVar(&opts.apiKeyB, "api-key-b", "", "API key of B (default: $PETCTL_API_KEY_B, else A's)")
	f.StringVar(&opts.specPath, "spec", "", "OpenAPI document to check against (default: the embedded Petstore)")
	f.StringVar(&opts.junitReport, "junit-report", "", "write a JUnit XML report: a test case per check and behaviour compared, failed where they differ")
	f.StringVar(&opts.jsonReport, "json-report", "", "write the differences and both profiles as JSON")
	f.BoolVar(&opts.readOnly, "read-only", false, "skip every check and probe that sends a request that may write")
	f.DurationVar(&opts.timeout, "timeout", conformance.DefaultTimeout, "time-out of each request")
	f.DurationVar(&opts.deadline, "deadline", conformance.DefaultDeadline, "most time each run takes")
	f.StringVar(&opts.now, "now", "", "judge deprecation and removal dates as of this date (2031-01-01 or RFC 3339)")
	f.StringVar(&opts.runID, "run-id", "", "name the records the runs create petctl-conform-<run-id>-N (default: random)")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "print both runs' reports too")
	addLatencyToleranceFlag(f, &opts.latencyTolerance)
	return cmd
}

func driftCmdRun(a *app, opts *driftOptions, urlA, urlB string) error {
	cfg := conformance.Config{BaseURL: urlA, APIKey: opts.apiKey, ReadOnly: opts.readOnly, Timeout: opts.timeout, Deadline: opts.deadline, RunID: opts.runID, Out: a.out, Err: a.err}
	now, problems := runFlagProblems(opts.timeout, opts.deadline, opts.now)
	cfg.Now = now
	if err := latencyToleranceProblem(opts.latencyTolerance); err != nil {
		problems = append(problems, err)
	}
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
	if cfg.Validator, err = s.NewValidator(); err != nil {
		return usageError(err)
	}
	cfgB := cfg
	cfgB.BaseURL, cfgB.APIKey = urlB, keyB(a, opts.apiKeyB, opts.apiKey)
	return driftRun(a, cfg, cfgB, opts.latencyTolerance, opts.junitReport, opts.jsonReport, opts.verbose)
}

// driftRun runs both sides, prints the differences and writes the reports.
func driftRun(a *app, cfgA, cfgB conformance.Config, latencyTolerance time.Duration, junitPath, jsonPath string, verbose bool) error {
	if junitPath != "" && junitPath == jsonPath {
		return usageErrorf("--junit-report and --json-report name the same file")
	}
	for _, p := range []struct{ flag, path string }{{"--junit-report", junitPath}, {"--json-report", jsonPath}} {
		if err := checkOutputFile(p.path); err != nil {
			return usageErrorf("%s: %v", p.flag, err)
		}
	}
	if !verbose {
		cfgA.Out, cfgB.Out = io.Discard, io.Discard
	}
	cfgA.Verbose, cfgB.Verbose = false, false
	if cfgA.Validator == nil && cfgA.Spec != nil {
		v, err := cfgA.Spec.NewValidator()
		if err != nil {
			return usageError(err)
		}
		cfgA.Validator, cfgB.Validator = v, v
	}
	d, err := conformance.Drift(a.ctx, cfgA, cfgB, latencyTolerance)
	if err != nil {
		return runError(err)
	}
	d.Print(a.out)
	if junitPath != "" {
		if err := junit.WriteFile(junitPath, d.JUnit()); err != nil {
			return failure(fmt.Errorf("--junit-report: %v", err))
		}
	}
	if jsonPath != "" {
		if err := writeJSON(jsonPath, map[string]any{
			"a": map[string]any{"url": d.A.URL, "profile": d.A.Result.Profile}, "b": map[string]any{"url": d.B.URL, "profile": d.B.Result.Profile},
			"compared": d.Compared, "latencyTolerance": d.LatencyTolerance.String(), "differences": d.Differences,
		}); err != nil {
			return failure(fmt.Errorf("--json-report: %v", err))
		}
	}
	if !d.OK() {
		return failure(errors.New(d.Summary()))
	}
	return nil
}
