package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	gtypes "github.com/onsi/gomega/types"
	"github.com/petctl/petctl/spec"
)

// suite is one run: the document, the client, the planned checks and what
// the run has seen so far. Checks run one after another, in the order
// plan gives them; mu guards what the reporting nodes read.
type suite struct {
	cfg     Config
	base    *url.URL
	spec    *spec.Spec
	val     *spec.Validator
	client  *client
	schemes map[string]schemeInfo
	now     time.Time
	ctx     context.Context

	checks   []*check
	byText   map[string]*check
	selected int
	// runnable counts the selected checks the plan does not skip.
	runnable int

	mu           sync.Mutex
	exchanges    []*Exchange
	sent         map[*spec.Operation]int
	lost         map[*spec.Operation]int // requests that got no answer
	requests     int
	created      []Record
	observations []Observation
	seq          int
	waited       time.Duration
	listings     map[*spec.Collection]*listing
	creations    map[*spec.Collection]*creation
	populations  map[*spec.Collection]string // "" when there are enough items
	populated    map[*spec.Collection]bool
	final        types.Report

	// redirected marks the operations whose redirect to another origin
	// the report observed already.
	redirected map[*spec.Operation]bool
	// stopped is why the run's end cut it short ("" when it did not).
	stopped string
}

// check is one Ginkgo spec: a group ("auth"), an operation and what it checks.
type check struct {
	group  string
	op     *spec.Operation
	text   string
	labels []string
	// writes marks checks that send a request that may create a record.
	writes bool
	// always marks the response checks: they judge every response the
	// selected checks saw, whatever the label filter.
	always bool
	// skip, when set at plan time, is why the check does not run.
	skip string
	fn   func(t *T)

	t *T // set while and after it runs, for the console report
}

func (c *check) fullText() string {
	return "conform " + c.group + " " + c.op.String() + " " + c.text
}

func newSuite(cfg Config, base *url.URL, doc *spec.Spec, val *spec.Validator) *suite {
	now := cfg.Now
	if now.IsZero() {
		now = time.Now()
	}
	s := &suite{
		cfg:         cfg,
		base:        base,
		spec:        doc,
		val:         val,
		client:      newClient(base, cfg.APIKey, cfg.Timeout, cfg.RetryAfterMax, cfg.RetryBudget),
		schemes:     map[string]schemeInfo{},
		now:         now.UTC(),
		sent:        map[*spec.Operation]int{},
		lost:        map[*spec.Operation]int{},
		listings:    map[*spec.Collection]*listing{},
		creations:   map[*spec.Collection]*creation{},
		populations: map[*spec.Collection]string{},
		populated:   map[*spec.Collection]bool{},
		redirected:  map[*spec.Operation]bool{},
		byText:      map[string]*check{},
	}
	s.cfg.Out = redactingWriter{w: cfg.Out, redact: s.client.redact}
	s.cfg.Err = redactingWriter{w: cfg.Err, redact: s.client.redact}
	for name, sc := range doc.SecuritySchemes {
		info := schemeInfo{}
		switch {
		case strings.EqualFold(sc.Type, "http") && strings.EqualFold(sc.Scheme, "bearer"):
			info.kind = "bearer"
		case strings.EqualFold(sc.Type, "apiKey") && (sc.In == "header" || sc.In == "query" || sc.In == "cookie"):
			info.kind, info.name = sc.In, sc.Name
		}
		s.schemes[name] = info
	}
	return s
}

// plan builds the checks from the document and marks those the label
// filter or --read-only leave out, with the reason.
func (s *suite) plan(filter types.LabelFilter) {
	s.checks = s.catalogue()
	for _, c := range s.checks {
		s.byText[c.fullText()] = c
		switch {
		case c.always:
		case filter != nil && !filter(c.labels):
			c.skip = fmt.Sprintf("not selected by --label-filter %q", s.cfg.LabelFilter)
			continue
		}
		if !c.always {
			s.selected++
		}
		if c.writes && s.cfg.ReadOnly && c.skip == "" {
			c.skip = "--read-only: the check sends a request that may create a record"
		}
		if !c.always && c.skip == "" {
			s.runnable++
		}
	}
}

func (s *suite) labelList() []string {
	seen := map[string]bool{}
	for _, c := range s.checks {
		for _, l := range c.labels {
			seen[l] = true
		}
	}
	return sortedKeys(seen)
}

// T is what a check body works with: the suite, the spec's context and
// the exchanges it made.
type T struct {
	s         *suite
	c         *check
	ctx       context.Context
	g         gomega.Gomega
	exchanges []*Exchange
	observed  []Observation
}

// name is how reports and messages name the check.
func (t *T) name() string {
	return t.c.group + " · " + t.c.op.String() + ": " + t.c.text
}

// try sends r and records the exchange; a transport error is returned.
func (t *T) try(r *request) (*Exchange, error) {
	s := t.s
	s.client.credentialQuery(r, s.schemes)
	ctx, stop := t.ctx, func() bool { return false }
	if s.ctx != nil {
		// The run's cause goes along, so an abandoned request says why.
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(t.ctx)
		stop = context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
		defer cancel(nil)
	}
	defer stop()
	ex, err := s.client.do(ctx, r, s.schemes)
	if err != nil && s.ctx != nil && s.ctx.Err() != nil {
		s.noteStop()
	}
	s.mu.Lock()
	s.requests++
	if err == nil {
		// Exercised means answered: a request lost in transport tells
		// nothing about the operation.
		s.sent[r.op]++
	} else {
		s.lost[r.op]++
	}
	s.waited += ex.Waited
	s.mu.Unlock()
	ex.Check = t.name()
	if err != nil {
		return ex, err
	}
	s.judge(ex)
	t.exchanges = append(t.exchanges, ex)
	s.mu.Lock()
	s.exchanges = append(s.exchanges, ex)
	if c := s.spec.Collection(r.op); c != nil && c.Create == r.op && ex.Status >= 200 && ex.Status < 300 {
		s.created = append(s.created, Record{Name: r.recordName, ID: s.client.redact(idOf(ex, c)), Check: t.name()})
	}
	s.mu.Unlock()
	s.mu.Lock()
	// Once an operation: a deployment that redirects it does so to every check.
	first := ex.Redirect != "" && !s.redirected[r.op]
	if first {
		s.redirected[r.op] = true
	}
	s.mu.Unlock()
	if first {
		t.observe(fmt.Sprintf("redirect of %s to another origin", r.op.ID), fmt.Sprintf("%s %s → %d, %s", ex.Method, ex.URL, ex.Status, ex.Redirect))
	}
	if ex.RateLimited != "" && ex.Status == http.StatusTooManyRequests {
		// Not the deployment's answer to the check: judging it would
		// report a status mismatch the check did not find.
		t.s.fail(t.about(ex, "an answer, not judged: rate limited, the 429 was not waited out: "+ex.RateLimited), 1)
	}
	return ex, nil
}

// send is try for checks whose subject the request is: a transport error
// fails the check, naming the request.
func (t *T) send(r *request) *Exchange {
	ex, err := t.try(r)
	if err != nil {
		t.s.fail(fmt.Sprintf("%s\n  the request failed: %v\n  request:  %s", t.name(), err, t.s.curl(ex)), 1)
	}
	return ex
}

// failf fails the check with a message about ex.
func (t *T) failf(ex *Exchange, format string, args ...any) {
	t.s.fail(t.about(ex, fmt.Sprintf(format, args...)), 1)
}

// about is a failure message: the check and operation, what was wanted,
// and the request and response.
func (t *T) about(ex *Exchange, want string) string {
	var b strings.Builder
	b.WriteString(t.name())
	b.WriteString("\n  want:     " + want + "\n")
	if ex != nil {
		b.WriteString(t.s.describe(ex))
	}
	return strings.TrimRight(b.String(), "\n")
}

// expectStatus fails unless ex.Status is one of want.
func (t *T) expectStatus(ex *Exchange, want []int, what string) {
	// A func, not a string: Gomega formats a lone string description with
	// Sprintf, which would garble a % in a URL or a body excerpt.
	t.g.Expect(ex.Status).To(beStatus(want), func() string { return t.about(ex, what) })
}

// statusMatcher is a Gomega matcher whose failure message is one line
// ("got 200, want 401"): the description above it shows the exchange.
type statusMatcher struct{ want []int }

func beStatus(want []int) gtypes.GomegaMatcher { return statusMatcher{want: want} }

func (m statusMatcher) Match(actual any) (bool, error) {
	got, ok := actual.(int)
	if !ok {
		return false, fmt.Errorf("beStatus wants an int, got %T", actual)
	}
	return slices.Contains(m.want, got), nil
}

func (m statusMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("  got:      %v, want %s", actual, statusList(m.want))
}

func (m statusMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("  got:      %v, want anything but %s", actual, statusList(m.want))
}

func (t *T) skipf(format string, args ...any) {
	t.s.skip(fmt.Sprintf(format, args...), 1)
}

// observe records what the deployment does where the description is open.
func (t *T) observe(name, value string) {
	value = t.s.client.redact(value)
	entry(name, value)
	o := Observation{Check: t.name(), Name: name, Value: value}
	t.observed = append(t.observed, o)
	t.s.mu.Lock()
	t.s.observations = append(t.s.observations, o)
	t.s.mu.Unlock()
}

// exchangesFor returns the run's exchanges with op so far.
func (s *suite) exchangesFor(op *spec.Operation) []*Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Exchange
	for _, ex := range s.exchanges {
		if ex.Op == op {
			out = append(out, ex)
		}
	}
	return out
}

// nextName is the name of the next record the run may create.
func (s *suite) nextName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("petctl-conform-%s-%d", s.cfg.RunID, s.seq)
}

// removed reports whether op's removal date has passed (by --now or the clock).
func (s *suite) removed(op *spec.Operation) bool {
	return op.Deprecated && !op.Sunset.IsZero() && !s.now.Before(op.Sunset)
}

// probe checks that the deployment answers at all, before any check runs.
func (s *suite) probe(ctx context.Context) error {
	var op *spec.Operation
	for _, o := range s.spec.Operations {
		if o.Method == http.MethodGet && !strings.Contains(o.Path, "{") && !o.Unpublished {
			op = o
			break
		}
	}
	if op == nil {
		op = &spec.Operation{ID: "probe", Method: http.MethodGet, Path: "/"}
	}
	r := s.validRequest(op, authKey)
	s.client.credentialQuery(r, s.schemes)
	ex, err := s.client.do(ctx, r, s.schemes)
	s.requests++
	// A status line arrived: the deployment is reachable, and a body that
	// fails to arrive is for the checks to report, not exit 3.
	if err != nil && ex.Status == 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("%v while probing %s", stopCause(ctx), redactURL(s.base.String()))
		}
		return &UnreachableError{URL: s.client.redact(redactURL(s.base.String())), Err: s.client.redactError(err)}
	}
	if ex.Status == http.StatusUnauthorized || ex.Status == http.StatusForbidden {
		fmt.Fprintf(s.cfg.Err, "warning: the deployment answered %d to %s %s with the API key given; the checks that need the key will fail\n", ex.Status, op.Method, ex.URL)
	}
	if ex.Redirect != "" {
		fmt.Fprintf(s.cfg.Err, "warning: the deployment answered %d to %s %s, a redirect %s\n", ex.Status, op.Method, ex.URL, ex.Redirect)
	}
	return nil
}

// warnShortKey says once that a short key is easy to guess and that the
// output hides it only where it stands alone (see redact).
func (s *suite) warnShortKey() {
	if shortKey(s.cfg.APIKey) {
		fmt.Fprintf(s.cfg.Err, "warning: the API key is shorter than %d characters: easy to guess, and hidden in the output only where it stands alone, not inside longer words or paths\n", minKeyLength)
	}
}

func (s *suite) warnBasePath() {
	bp := s.spec.BasePath
	if bp != "" && !strings.HasSuffix(s.base.Path, bp) {
		fmt.Fprintf(s.cfg.Err, "warning: --url %s does not end with the document's base path %s; the paths are appended to it as given\n", redactURL(s.base.String()), bp)
	}
}

// idOf reads the id field of a created or read item.
func idOf(ex *Exchange, c *spec.Collection) string {
	obj, ok := decodeJSON(ex.Body).(map[string]any)
	if !ok {
		return ""
	}
	return scalarString(obj[c.IDField])
}

// decodeJSON decodes a body, numbers kept exact; nil when it is not JSON.
func decodeJSON(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	if dec.More() {
		return nil
	}
	return v
}

// scalarString renders a JSON scalar as it would appear in a path or query.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

// items decodes a JSON array of objects; ok is false when the body is not one.
func items(ex *Exchange) ([]map[string]any, bool) {
	arr, ok := decodeJSON(ex.Body).([]any)
	if !ok {
		return nil, false
	}
	out := make([]map[string]any, 0, len(arr))
	for _, it := range arr {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		out = append(out, obj)
	}
	return out, true
}

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

// noteStop records that the run's end cut it short: a request was
// abandoned or a check was not run.
func (s *suite) noteStop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == "" {
		s.stopped = stopCause(s.ctx).Error()
	}
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
		for _, id := range sortedKeys(missing) {
			parts = append(parts, fmt.Sprintf("%s (%s)", id, missing[id]))
		}
		s.fail(fmt.Sprintf("--require-coverage: %d of %d operations of the document were not exercised: %s",
			len(missing), len(s.spec.Operations), strings.Join(parts, ", ")), 0)
	}
}

func (s *suite) title() string {
	t := strings.TrimSpace(s.spec.Title + " " + s.spec.Version)
	if t == "" {
		t = s.spec.Source
	}
	return t
}
