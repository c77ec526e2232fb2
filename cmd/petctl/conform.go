package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
)

type conformOptions struct {
	url              string
	apiKey           string
	apiKeySet        bool
	bearer           string
	basic            string
	headers          []string
	cookies          []string
	query            []string
	clientID         string
	clientSecret     string
	tokenURL         string
	recordPrefix     string
	specPath         string
	strict           bool
	serverVars       []string
	refFolders       []string
	junitReport      string
	jsonReport       string
	labelFilter      string
	readOnly         bool
	failFast         bool
	timeout          time.Duration
	maxResponseBytes int64
	deadline         time.Duration
	retryAfterMax    time.Duration
	retryBudget      time.Duration
	verbose          bool
	now              string
	sunsets          []string
	requireCoverage  bool
	runID            string
	// profileOut, compare, apiKeyB and latencyTolerance are the profile
	// and drift flags (drift.go).
	profileOut       string
	compare          string
	apiKeyB          string
	latencyTolerance time.Duration
}

func newConformCmd(a *app, runF func(*conformOptions) error) *cobra.Command {
	opts := &conformOptions{}
	cmd := &cobra.Command{
		Use:   "conform",
		Short: "Check a deployment of the API against the spec",
		Long: `Check a deployment against the spec (the embedded Petstore by default): auth on
every operation, every error in the format the spec declares for it,
pagination bounds, filters, create, read, update and delete of a record,
deprecation headers, and every response against the spec's schemas. Where
the description leaves behaviour open, what the deployment does is recorded
in the report, not judged.

Credentials, for every kind of security scheme: --api-key (PETCTL_API_KEY),
--bearer (PETCTL_BEARER), --basic USER:PASSWORD (PETCTL_BASIC), --header,
--cookie and --query by name, and OAuth 2 client credentials
(--oauth2-client-id, --oauth2-client-secret or PETCTL_OAUTH2_CLIENT_SECRET).
They go to the origin of --url only (the client secret to the token
endpoint only) and are never printed. An operation whose scheme has no
credential given is skipped, saying which flag would give it.
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
	f.StringVar(&opts.apiKey, "api-key", "", "API key, for apiKey schemes and http bearer (default: $PETCTL_API_KEY)")
	f.StringVar(&opts.bearer, "bearer", "", "bearer token for http bearer, oauth2 and openIdConnect schemes (default: $PETCTL_BEARER)")
	f.StringVar(&opts.basic, "basic", "", "USER:PASSWORD for http basic schemes (default: $PETCTL_BASIC)")
	f.StringArrayVar(&opts.headers, "header", nil, "'Name: value': the credential of the apiKey scheme in that header, else sent with every request (repeatable)")
	f.StringArrayVar(&opts.cookies, "cookie", nil, "name=value: the credential of the apiKey scheme in that cookie, else sent with every request (repeatable)")
	f.StringArrayVar(&opts.query, "query", nil, "name=value: the credential of the apiKey scheme in that query parameter, else sent with every request (repeatable)")
	f.StringVar(&opts.clientID, "oauth2-client-id", "", "OAuth 2 client id: tokens are fetched with the client credentials grant, with the scopes each operation requires")
	f.StringVar(&opts.clientSecret, "oauth2-client-secret", "", "OAuth 2 client secret (default: $PETCTL_OAUTH2_CLIENT_SECRET)")
	f.StringVar(&opts.tokenURL, "token-url", "", "token endpoint, instead of the document's tokenUrl (or openIdConnect discovery)")
	f.StringVar(&opts.recordPrefix, "record-name-prefix", conformance.DefaultRecordNamePrefix, "letters and spaces that start the text of the records the run creates")
	f.StringVar(&opts.specPath, "spec", "", "OpenAPI document to check against (default: the embedded Petstore)")
	f.BoolVar(&opts.strict, "strict", false, "refuse documents with the quirks of generated ones instead of warning, as petctl serve --strict does")
	f.StringArrayVar(&opts.serverVars, "server-variable", nil, "NAME=VALUE: the value of a {variable} of the document's server URLs (repeatable)")
	f.StringArrayVar(&opts.refFolders, "ref-folder", nil, "a local folder, besides the document's own, that its $refs may read (repeatable)")
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
	f.StringArrayVar(&opts.sunsets, "sunset", nil, "OPERATION_ID=DATE: the removal date of an operation the document deprecates without one (x-sunset), so its deprecation headers are checked, not only recorded (repeatable)")
	f.BoolVar(&opts.requireCoverage, "require-coverage", false, "fail when an operation of the spec was not exercised")
	f.StringVar(&opts.runID, "run-id", "", "the run's id, written in letters in the records it creates (default: random)")
	f.Int64Var(&opts.maxResponseBytes, "max-response-bytes", conformance.MaxBodyBytes, "most of a response body read; a larger one fails the response checks (an unpaginated list of a large deployment may need more)")
	addProfileFlags(f, opts)
	return cmd
}

func conformRun(a *app, opts *conformOptions) error {
	var problems []error
	if opts.maxResponseBytes == 0 {
		// Config's 0 is the default; given on the command line, it is a mistake.
		problems = append(problems, errors.New("--max-response-bytes 0: want a positive number of bytes"))
	}
	cfg := conformance.Config{
		BaseURL:            opts.url,
		APIKey:             opts.apiKey,
		LabelFilter:        opts.labelFilter,
		ReadOnly:           opts.readOnly,
		FailFast:           opts.failFast,
		Timeout:            opts.timeout,
		Deadline:           opts.deadline,
		RetryAfterMax:      opts.retryAfterMax,
		RetryBudget:        opts.retryBudget,
		RequireCoverage:    opts.requireCoverage,
		RunID:              opts.runID,
		MaxResponseBytes:   opts.maxResponseBytes,
		Bearer:             opts.bearer,
		Basic:              opts.basic,
		OAuth2ClientID:     opts.clientID,
		OAuth2ClientSecret: opts.clientSecret,
		TokenURL:           opts.tokenURL,
		RecordNamePrefix:   opts.recordPrefix,
		JUnitReport:        opts.junitReport,
		JSONReport:         opts.jsonReport,
		Verbose:            opts.verbose,
		Color:              isTerminal(a.out) && a.getenv("NO_COLOR") == "" && a.getenv("TERM") != "dumb",
		Out:                a.out,
		Err:                a.err,
	}
	if !opts.apiKeySet {
		cfg.APIKey = a.getenv(conformance.EnvAPIKey)
	} else if opts.apiKey == "" {
		problems = append(problems, errors.New("--api-key is empty"))
	}
	// Secrets from the environment, where CI keeps them out of process lists.
	for _, e := range []struct {
		v   *string
		env string
	}{{&cfg.Bearer, conformance.EnvBearer}, {&cfg.Basic, conformance.EnvBasic}, {&cfg.OAuth2ClientSecret, conformance.EnvClientSecret}} {
		if *e.v == "" {
			*e.v = a.getenv(e.env)
		}
	}
	for _, h := range opts.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			problems = append(problems, fmt.Errorf("--header %q: want 'Name: value'", h))
			continue
		}
		cfg.Headers = append(cfg.Headers, conformance.NamedValue{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	for _, set := range []struct {
		flag string
		in   []string
		out  *[]conformance.NamedValue
	}{{"--cookie", opts.cookies, &cfg.Cookies}, {"--query", opts.query, &cfg.Query}} {
		for _, v := range set.in {
			name, value, ok := strings.Cut(v, "=")
			if !ok {
				problems = append(problems, fmt.Errorf("%s %q: want name=value", set.flag, v))
				continue
			}
			*set.out = append(*set.out, conformance.NamedValue{Name: name, Value: value})
		}
	}
	load := spec.LoadOptions{Strict: opts.strict, RefFolders: opts.refFolders}
	for _, v := range opts.serverVars {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			problems = append(problems, fmt.Errorf("--server-variable %q: want NAME=VALUE", v))
			continue
		}
		if load.ServerVariables == nil {
			load.ServerVariables = map[string]string{}
		}
		load.ServerVariables[name] = value
	}
	now, more := runFlagProblems(opts.timeout, opts.deadline, opts.now)
	problems = append(problems, more...)
	cfg.Now = now
	if opts.retryAfterMax <= 0 {
		problems = append(problems, fmt.Errorf("--retry-after-max %s: want a positive duration such as 10s", opts.retryAfterMax))
	}
	if opts.retryBudget <= 0 {
		problems = append(problems, fmt.Errorf("--retry-budget %s: want a positive duration such as 1m", opts.retryBudget))
	}
	sunsets := map[string]time.Time{}
	for _, v := range opts.sunsets {
		id, date, _ := strings.Cut(v, "=")
		at, ok := spec.ParseInstant(date)
		if id == "" || !ok {
			problems = append(problems, fmt.Errorf("--sunset %q: want OPERATION_ID=DATE, the date such as 2031-01-01 or 2031-01-01T00:00:00Z", v))
			continue
		}
		sunsets[id] = at.UTC()
	}
	problems = append(problems, profileFlagProblems(opts)...)
	if len(problems) > 0 {
		return usageError(errors.Join(problems...))
	}
	// The document is read as petctl serve reads it: split over files,
	// server variables filled, the quirks of generated documents served
	// with a warning (refused with --strict).
	s, err := spec.LoadWith(opts.specPath, load)
	if err != nil {
		return usageError(err)
	}
	for _, id := range slices.Sorted(maps.Keys(sunsets)) {
		op, at := s.Operation(id), sunsets[id]
		if op == nil {
			problems = append(problems, fmt.Errorf("--sunset %s: the document has no operation %s", id, id))
		} else if err := op.SetSunset(at); err != nil {
			problems = append(problems, fmt.Errorf("--sunset %s: %w", id, err))
		}
	}
	if len(problems) > 0 {
		return usageError(errors.Join(problems...))
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
	switch {
	case err != nil:
		return runError(err)
	case res.Interrupted:
		return failure(fmt.Errorf("%s: stopped after %d of %d checks (%d failed, %d skipped)", res.StopReason, res.Passed+res.Failed, res.Passed+res.Failed+res.Skipped, res.Failed, res.Skipped))
	case !res.OK():
		msg := fmt.Sprintf("%d of %d checks failed (%d skipped)", res.Failed, res.Passed+res.Failed, res.Skipped)
		if len(res.FailedChecks) == 1 {
			msg += ": " + res.FailedChecks[0]
		} else {
			msg += "; the summary above lists them"
		}
		return failure(errors.New(msg))
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

// runFlagProblems checks the flags conform and drift share: the time-out
// of a request, the deadline of a run and --now, which it returns read
// (zero when not given).
func runFlagProblems(timeout, deadline time.Duration, now string) (time.Time, []error) {
	var problems []error
	if timeout <= 0 {
		problems = append(problems, fmt.Errorf("--timeout %s: want a positive duration such as 10s", timeout))
	}
	if deadline <= 0 {
		problems = append(problems, fmt.Errorf("--deadline %s: want a positive duration such as 5m", deadline))
	}
	var t time.Time
	if now != "" {
		parsed, ok := spec.ParseInstant(now)
		if !ok {
			problems = append(problems, fmt.Errorf("--now %q: want a date such as 2031-01-01 or 2031-01-01T00:00:00Z", now))
		}
		t = parsed.UTC()
	}
	return t, problems
}

// runError is the exit of a run of the checks (conform, conform --compare,
// drift) that could not give a verdict: 2 for a usage error, 3 for a
// target it could not reach, 1 for anything else.
func runError(err error) error {
	var ue *conformance.UsageError
	var unreachable *conformance.UnreachableError
	switch {
	case errors.As(err, &ue):
		return usageError(err)
	case errors.As(err, &unreachable):
		return &exitError{code: exitUnreachable, err: err}
	}
	return failure(err)
}
