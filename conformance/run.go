// Package conformance checks a deployment of an API against its OpenAPI
// description. The checks are a Ginkgo v2 suite built from the document
// (operations, security, parameters, schemas, deprecation) and run in the
// calling process: petctl conform is the only way in, so the suite ships in
// the binary and needs no Go toolchain where it runs.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/spec"
)

// DefaultTimeout bounds one request when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// DefaultDeadline bounds a whole run when Config.Deadline is zero: a
// deployment that answers every request just within the time-out would
// otherwise cost requests × Timeout.
const DefaultDeadline = 5 * time.Minute

// Config is one conformance run.
type Config struct {
	// BaseURL is the deployment's base URL with its version prefix
	// ("https://staging.example.com/v1").
	BaseURL string
	// APIKey is sent as the operations' apiKey schemes require, and as the
	// bearer token of an http bearer scheme when Bearer is empty. It is
	// never printed: requests show it as $PETCTL_API_KEY.
	APIKey string
	// Bearer is the token of http bearer schemes, and of oauth2 and
	// openIdConnect ones when no client credentials are given.
	Bearer string
	// Basic is "user:password" for http basic schemes.
	Basic string
	// Headers, Cookies and Query are credentials given by name: an apiKey
	// scheme that travels under that name takes it; any other goes with
	// every request to --url's origin (a gateway's key, a tenant header).
	Headers, Cookies, Query []NamedValue
	// OAuth2ClientID and OAuth2ClientSecret fetch access tokens with the
	// client credentials grant, from the scheme's tokenUrl (an
	// openIdConnect scheme's token_endpoint) or TokenURL, with the scopes
	// each operation requires.
	OAuth2ClientID, OAuth2ClientSecret string
	TokenURL                           string
	// RecordNamePrefix starts the text the run writes in the free-text
	// fields of the records it creates; empty means DefaultRecordNamePrefix.
	RecordNamePrefix string
	// Spec is the document to check against; nil means the embedded Petstore.
	Spec *spec.Spec
	// Validator is Spec's validator when the caller built it already, to
	// share it between runs (it is costly to build); nil builds one.
	Validator *spec.Validator
	// LabelFilter selects checks by label (Ginkgo's label filter syntax).
	LabelFilter string
	// ReadOnly skips every check that sends a request that may write.
	ReadOnly bool
	// FailFast stops at the first failed check.
	FailFast bool
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// Deadline bounds the run from its first request; zero means
	// DefaultDeadline. When it passes the request in flight is abandoned,
	// the checks not run yet are skipped with the reason, and the reports
	// are written as for any run.
	Deadline time.Duration
	// RetryAfterMax bounds one wait for a 429's Retry-After; zero means DefaultRetryAfterMax.
	RetryAfterMax time.Duration
	// RetryBudget bounds the time the whole run waits out 429s; zero means DefaultRetryBudget.
	RetryBudget time.Duration
	// Now is the date the deprecation checks judge by; zero means the clock.
	Now time.Time
	// RequireCoverage fails the run when an operation of the document was not exercised.
	RequireCoverage bool
	// Profile records, after the checks, what the deployment does where
	// the document leaves behaviour open (Result.Profile; see profile.go).
	Profile bool
	// RunID names the records the run creates; empty means a random one.
	RunID string
	// MaxResponseBytes is the most of a response body the run reads; 0
	// means MaxBodyBytes. A larger body fails the response checks.
	MaxResponseBytes int64
	// JUnitReport and JSONReport are files to write the report to.
	JUnitReport, JSONReport string
	// Verbose prints every check and every request, not only failures.
	Verbose bool
	// Color colours the console output.
	Color bool
	// Out receives the console report; Err receives warnings.
	Out, Err io.Writer
}

// UsageError is a problem with the configuration, the document or the
// label filter, found before anything was sent.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// UnreachableError means the deployment could not be reached at all.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach %s: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Result is what a run found.
type Result struct {
	// Report is Ginkgo's report of the run, as the JSON report holds it.
	Report types.Report
	// Passed, Failed and Skipped count the checks.
	Passed, Failed, Skipped int
	// FailedChecks name the checks that failed, in the order they ran.
	FailedChecks []string
	// Requests counts the requests sent; Waited is the time spent waiting
	// out 429 responses.
	Requests int
	Waited   time.Duration
	// Created lists the records the run created.
	Created []Record
	// Observations are what the deployment did where the description leaves it open.
	Observations []Observation
	// Profile is the deployment's profile, when Config.Profile asked for it.
	Profile *Profile
	// NotExercised names the operations no request reached, with why.
	NotExercised map[string]string
	// Interrupted is set when the run was stopped before its end;
	// StopReason says why (an interrupt, or Config.Deadline passed).
	Interrupted bool
	StopReason  string
	Duration    time.Duration
}

// OK reports whether every check passed.
func (r *Result) OK() bool { return r.Failed == 0 && !r.Interrupted }

// Record is a record the run created.
type Record struct {
	Name  string `json:"name"`  // the text of its free-text fields: "petctl conform <run id in letters> <N in letters>"
	ID    string `json:"id"`    // as the deployment returned it; empty when it returned none
	Check string `json:"check"` // the check whose request created it
	// Deleted is set when the run deleted it again.
	Deleted bool `json:"deleted,omitempty"`
}

// Observation is what the deployment does where the description is open.
type Observation struct {
	Check string
	Name  string
	Value string
}

var (
	runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$`)
	// A prefix of letters and spaces keeps the invented text conservative.
	prefixPattern = regexp.MustCompile(`^[A-Za-z]+( [A-Za-z]+)*$`)
)

// prepared is a validated configuration.
type prepared struct {
	cfg    Config
	base   *url.URL
	filter types.LabelFilter
}

// validate reports every problem with cfg at once.
func validate(cfg Config) (*prepared, error) {
	var problems []string
	p := &prepared{cfg: cfg}
	if cfg.BaseURL == "" {
		problems = append(problems, "--url is required (the base URL with its version prefix, such as https://staging.example.com/v1)")
	} else if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		problems = append(problems, fmt.Sprintf("--url %q: want an http or https URL such as https://staging.example.com/v1", redactURL(cfg.BaseURL)))
	} else if u.RawQuery != "" || u.Fragment != "" {
		problems = append(problems, fmt.Sprintf("--url %q: a base URL has no query or fragment", redactURL(cfg.BaseURL)))
	} else if u.User.String() != "" {
		// Go's client sends a URL's user info as Basic credentials on
		// every request: the checks' requests without credentials too,
		// which could then never be refused. The URL is shown without
		// it: a token is often written as the user name.
		u.User = nil
		problems = append(problems, fmt.Sprintf("--url %q: give the credentials with --basic USER:PASSWORD, not in the URL, so that the refusal checks can leave them out", u.Redacted()))
	} else {
		u.Path = strings.TrimRight(u.Path, "/")
		u.RawPath = ""
		p.base = u
	}
	for _, c := range []struct{ what, v string }{{"the API key", cfg.APIKey}, {"--bearer", cfg.Bearer}, {"--basic", cfg.Basic}} {
		if strings.ContainsAny(c.v, " \t\r\n") {
			problems = append(problems, c.what+" contains white space, which a credential cannot carry")
		}
	}
	if cfg.Basic != "" && !strings.Contains(cfg.Basic, ":") {
		problems = append(problems, "--basic: want USER:PASSWORD")
	}
	for _, h := range cfg.Headers {
		switch {
		case !validToken(h.Name):
			problems = append(problems, fmt.Sprintf("--header %q: want 'Name: value' with a header name", h.Name))
		case strings.EqualFold(h.Name, "Authorization"):
			problems = append(problems, "--header Authorization: give the credential with --bearer or --basic, so the refusal checks can vary it")
		case strings.ContainsAny(h.Value, "\r\n"):
			problems = append(problems, fmt.Sprintf("--header %s: the value holds a line break", h.Name))
		}
	}
	for _, set := range []struct {
		flag string
		vs   []NamedValue
	}{{"--cookie", cfg.Cookies}, {"--query", cfg.Query}} {
		for _, v := range set.vs {
			if v.Name == "" || strings.ContainsAny(v.Name, "=;& \t\r\n") || strings.ContainsAny(v.Value, ";\r\n") {
				problems = append(problems, fmt.Sprintf("%s %q: want name=value", set.flag, v.Name+"="))
			}
		}
	}
	if (cfg.OAuth2ClientID == "") != (cfg.OAuth2ClientSecret == "") {
		problems = append(problems, "--oauth2-client-id and --oauth2-client-secret go together")
	}
	if cfg.TokenURL != "" {
		if u, err := url.Parse(cfg.TokenURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("--token-url %q: want an http or https URL", redactURL(cfg.TokenURL)))
		} else if cfg.OAuth2ClientID == "" {
			problems = append(problems, "--token-url needs --oauth2-client-id and --oauth2-client-secret")
		}
	}
	if cfg.RecordNamePrefix != "" && (!prefixPattern.MatchString(cfg.RecordNamePrefix) || len(cfg.RecordNamePrefix) > 40) {
		problems = append(problems, fmt.Sprintf("--record-name-prefix %q: want 1 to 40 letters, words separated by one space (a deployment stricter than its document takes letters and spaces)", cfg.RecordNamePrefix))
	}
	if cfg.Timeout < 0 {
		problems = append(problems, fmt.Sprintf("--timeout %s: want a positive duration", cfg.Timeout))
	}
	if cfg.Deadline < 0 {
		problems = append(problems, fmt.Sprintf("--deadline %s: want a positive duration", cfg.Deadline))
	}
	if cfg.RetryAfterMax < 0 {
		problems = append(problems, fmt.Sprintf("--retry-after-max %s: want a positive duration", cfg.RetryAfterMax))
	}
	if cfg.RetryBudget < 0 {
		problems = append(problems, fmt.Sprintf("--retry-budget %s: want a positive duration", cfg.RetryBudget))
	}
	if cfg.MaxResponseBytes < 0 || cfg.MaxResponseBytes > maxResponseBytesLimit {
		problems = append(problems, fmt.Sprintf("--max-response-bytes %d: want a positive number of bytes, at most %d (1 GiB: a body is held in memory whole)", cfg.MaxResponseBytes, maxResponseBytesLimit))
	}
	if cfg.RunID != "" && !runIDPattern.MatchString(cfg.RunID) {
		problems = append(problems, fmt.Sprintf("--run-id %q: want 1 to 40 letters, digits, '-' or '_'", cfg.RunID))
	}
	if cfg.LabelFilter != "" {
		f, err := types.ParseLabelFilter(cfg.LabelFilter)
		if err != nil {
			problems = append(problems, fmt.Sprintf("--label-filter %q: %s", cfg.LabelFilter, labelFilterReason(err)))
		}
		p.filter = f
	}
	if cfg.Validator != nil && cfg.Spec == nil {
		problems = append(problems, "a validator is given without the spec it was built from")
	}
	if cfg.JUnitReport != "" && cfg.JUnitReport == cfg.JSONReport {
		problems = append(problems, "--junit-report and --json-report name the same file")
	}
	if len(problems) > 0 {
		return nil, &UsageError{Err: errors.New(strings.Join(problems, "; "))}
	}
	if p.cfg.Timeout == 0 {
		p.cfg.Timeout = DefaultTimeout
	}
	if p.cfg.Deadline == 0 {
		p.cfg.Deadline = DefaultDeadline
	}
	if p.cfg.RetryAfterMax == 0 {
		p.cfg.RetryAfterMax = DefaultRetryAfterMax
	}
	if p.cfg.RetryBudget == 0 {
		p.cfg.RetryBudget = DefaultRetryBudget
	}
	if p.cfg.Out == nil {
		p.cfg.Out = io.Discard
	}
	if p.cfg.Err == nil {
		p.cfg.Err = io.Discard
	}
	if p.cfg.RunID == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		p.cfg.RunID = hex.EncodeToString(b[:])
	}
	if p.cfg.RecordNamePrefix == "" {
		p.cfg.RecordNamePrefix = DefaultRecordNamePrefix
	}
	return p, nil
}

// validToken reports whether s is an HTTP token (RFC 9110 §5.6.2), as a
// header name must be.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 126 || r <= 32 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// labelFilterReason is the last line of Ginkgo's message, without its markup.
func labelFilterReason(err error) string {
	msg := err.Error()
	var ge types.GinkgoError
	if errors.As(err, &ge) && ge.Message != "" {
		msg = ge.Message
	}
	msg = strings.TrimSpace(msg)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	return regexp.MustCompile(`\{\{[^}]*\}\}`).ReplaceAllString(msg, "")
}

// Run checks the deployment at cfg.BaseURL. It returns a UsageError before
// sending anything when the configuration, the document or the label
// filter is wrong, an UnreachableError when the deployment does not answer
// at all, and otherwise the Result (whose OK says whether every check passed).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	p, err := validate(cfg)
	if err != nil {
		return nil, err
	}
	cfg = p.cfg
	doc := cfg.Spec
	if doc == nil {
		if doc, err = spec.Default(); err != nil {
			return nil, &UsageError{Err: err}
		}
	}
	if newCredentials(cfg).none() && slices.ContainsFunc(doc.Operations, (*spec.Operation).Secured) {
		return nil, &UsageError{Err: errors.New("no API key or other credential, and the document's operations require them: give --api-key (or PETCTL_API_KEY), --bearer, --basic, --header, --cookie, --query or --oauth2-client-id and --oauth2-client-secret")}
	}
	if err := ginkgoVetoes(); err != nil {
		return nil, &UsageError{Err: err}
	}
	if _, err := os.Getwd(); err != nil {
		// Ginkgo exits the process when it cannot read the working directory.
		return nil, &UsageError{Err: fmt.Errorf("the working directory cannot be read: %v", err)}
	}
	val := cfg.Validator
	if val == nil {
		if val, err = doc.NewValidator(); err != nil {
			return nil, &UsageError{Err: err}
		}
	}
	s := newSuite(cfg, p.base, doc, val)
	defer s.client.close()
	if cfg.RequireCoverage {
		if err := s.uncoverable(); err != nil {
			return nil, err
		}
	}
	s.plan(p.filter)
	if s.selected == 0 {
		return nil, &UsageError{Err: fmt.Errorf("--label-filter %q selects none of the %d checks (labels: %s)", cfg.LabelFilter, len(s.checks), strings.Join(s.labelList(), ", "))}
	}
	if s.runnable == 0 {
		// A run that can only skip would pass having checked nothing.
		return nil, &UsageError{Err: fmt.Errorf("--read-only skips all %d checks --label-filter %q selects: each sends a request that may create a record", s.selected, cfg.LabelFilter)}
	}
	for _, f := range []struct{ flag, path string }{{"--junit-report", cfg.JUnitReport}, {"--json-report", cfg.JSONReport}} {
		if err := checkWritable(f.path); err != nil {
			return nil, &UsageError{Err: fmt.Errorf("%s: %v", f.flag, err)}
		}
	}
	s.warnShortKey()
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.Deadline, &deadlineError{cfg.Deadline})
	defer cancel()
	if err := s.fetchTokens(ctx); err != nil {
		return nil, err
	}
	if err := s.probe(ctx); err != nil {
		// CI keeps the reports of a failed job: they must parse, and say why.
		if werr := s.writeReports(s.probeReport(err, start)); werr != nil {
			fmt.Fprintf(s.cfg.Err, "warning: %v\n", werr)
		}
		return nil, err
	}
	s.warnBasePath()
	res := s.run(ctx)
	if cfg.Profile {
		res.Profile = s.profile(ctx, res)
	}
	if err := s.writeReports(res.Report); err != nil {
		s.printSummary(res)
		return res, err
	}
	s.printSummary(res)
	if err := s.wrongBase(); err != nil {
		return res, err
	}
	return res, nil
}

// uncoverable is the usage error of a run that --require-coverage would
// fail before it starts: an operation whose security the run has no
// credential for.
func (s *suite) uncoverable() error {
	var parts []string
	for _, op := range s.spec.Operations {
		if m := s.access[op].missing; m != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", op.ID, m))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return &UsageError{Err: fmt.Errorf("--require-coverage: %d of %d operations cannot be exercised: %s", len(parts), len(s.spec.Operations), strings.Join(parts, ", "))}
}

// deadlineError is why a run whose Config.Deadline passed stopped.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string { return fmt.Sprintf("the run's --deadline of %s passed", e.d) }

// errInterrupted is why a run stopped by its caller stopped.
var errInterrupted = errors.New("the run was interrupted")

// stopCause says why ctx, the run's or one derived from it, ended: the
// deadline passed or the caller interrupted the run.
func stopCause(ctx context.Context) error {
	var d *deadlineError
	if errors.As(context.Cause(ctx), &d) {
		return d
	}
	return errInterrupted
}

// checkWritable creates the report file (and its folder) early, so a bad
// path is a usage error before the run, not a lost report after it.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return unwrapPathError(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return unwrapPathError(err)
	}
	return f.Close()
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
