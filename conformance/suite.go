package conformance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/spec"
)

// The groups of checks, in the order they run. Checks that create records
// come before the pagination checks, which may need more records; the
// checks that judge every response seen come last.
const (
	groupAuth        = "auth"
	groupCreate      = "create"
	groupRead        = "read"
	groupStateful    = "stateful"
	groupPagination  = "pagination"
	groupFilters     = "filters"
	groupDeprecation = "deprecation"
	groupObserve     = "observe"
	groupResponses   = "responses"
	groupAccess      = "access"
	groupCoverage    = "coverage"
)

// Labels besides the groups and the operation ids.
const (
	labelWrite   = "write"   // the check sends a request that may create a record
	labelObserve = "observe" // the check records open behaviour and passes
	labelSchema  = "schema"
	labelShape   = "error-shape"
)

// suite is one run: the document, the client, the planned checks and what
// the run has seen so far. Checks run one after another, in the order
// plan gives them; mu guards what the reporting nodes read.
type suite struct {
	cfg    Config
	base   *url.URL
	spec   *spec.Spec
	val    *spec.Validator
	client *client
	now    time.Time
	ctx    context.Context

	checks   []*check
	byText   map[string]*check
	selected int
	// runnable counts the selected checks the plan does not skip.
	runnable int

	// access is how the run meets each operation's security.
	access map[*spec.Operation]access
	// resources names the resource and the kind of each operation that
	// has one (spec.Resources, the inference serve uses).
	resources map[*spec.Operation]resourceRef

	mu        sync.Mutex
	exchanges []*Exchange
	sent      map[*spec.Operation]int
	// answered counts the answers that were not 5xx: an operation that
	// only ever answered 5xx (501 Not Implemented) is not exercised.
	answered map[*spec.Operation]int
	// notServed counts, by status, the answers to requests with the
	// credentials that were server errors or refused them.
	notServed map[*spec.Operation]map[int]int
	lost      map[*spec.Operation]int // requests that got no answer
	// skipped are the reasons the checks of each operation were skipped
	// for, as they ran.
	skipped      map[*spec.Operation][]string
	requests     int
	created      []Record
	observations []Observation
	observedOnce map[string]bool
	seq          int
	waited       time.Duration
	listings     map[*spec.Resource]*listing
	creations    map[*spec.Resource]*creation
	nests        map[*spec.Resource]*nest
	lifecycles   map[*spec.Resource]*lifecycle
	populations  map[*spec.Resource]string // "" when there are enough items
	populated    map[*spec.Resource]bool
	final        types.Report

	// redirected marks the operations whose redirect to another origin
	// the report observed already.
	redirected map[*spec.Operation]bool
	// stopped is why the run's end cut it short ("" when it did not).
	stopped string
}

func newSuite(cfg Config, base *url.URL, doc *spec.Spec, val *spec.Validator) *suite {
	now := cfg.Now
	if now.IsZero() {
		now = time.Now()
	}
	creds := newCredentials(cfg)
	client := newClient(base, creds, cfg.Timeout, cfg.RetryAfterMax, cfg.RetryBudget)
	if cfg.MaxResponseBytes > 0 {
		client.maxBody = cfg.MaxResponseBytes
	}
	s := &suite{
		cfg:          cfg,
		base:         base,
		spec:         doc,
		val:          val,
		client:       client,
		now:          now.UTC(),
		access:       map[*spec.Operation]access{},
		resources:    map[*spec.Operation]resourceRef{},
		sent:         map[*spec.Operation]int{},
		answered:     map[*spec.Operation]int{},
		notServed:    map[*spec.Operation]map[int]int{},
		lost:         map[*spec.Operation]int{},
		skipped:      map[*spec.Operation][]string{},
		observedOnce: map[string]bool{},
		listings:     map[*spec.Resource]*listing{},
		creations:    map[*spec.Resource]*creation{},
		nests:        map[*spec.Resource]*nest{},
		lifecycles:   map[*spec.Resource]*lifecycle{},
		populations:  map[*spec.Resource]string{},
		populated:    map[*spec.Resource]bool{},
		redirected:   map[*spec.Operation]bool{},
		byText:       map[string]*check{},
	}
	s.client.extras = creds.extras(doc)
	for _, op := range doc.Operations {
		s.access[op] = creds.accessFor(op)
	}
	for _, r := range doc.Resources {
		for _, ro := range r.Ops {
			if _, ok := s.resources[ro.Op]; !ok {
				s.resources[ro.Op] = resourceRef{r, ro}
			}
		}
	}
	s.cfg.Out = redactingWriter{w: cfg.Out, redact: s.client.redact}
	s.cfg.Err = redactingWriter{w: cfg.Err, redact: s.client.redact}
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

// catalogue enumerates the checks from the document, in a fixed order: the
// same document gives the same checks sending the same requests.
func (s *suite) catalogue() []*check {
	var out []*check
	add := func(c *check) {
		c.labels = append([]string{c.group, opLabel(c.op)}, c.labels...)
		if c.writes {
			c.labels = append(c.labels, labelWrite)
		}
		out = append(out, c)
	}
	s.authChecks(add)
	for _, r := range s.spec.Resources {
		s.createChecks(r, add)
	}
	for _, r := range s.spec.Resources {
		s.readChecks(r, add)
	}
	for _, r := range s.spec.Resources {
		s.statefulChecks(r, add)
	}
	for _, r := range s.spec.Resources {
		s.paginationChecks(r, add)
	}
	for _, r := range s.spec.Resources {
		s.filterChecks(r, add)
	}
	s.deprecationChecks(add)
	s.observeChecks(add)
	s.responseChecks(add)
	s.accessChecks(add)
	s.coverageCheck(add)
	return out
}

func (s *suite) labelList() []string {
	seen := map[string]bool{}
	for _, c := range s.checks {
		for _, l := range c.labels {
			seen[l] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

var labelUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// opLabel is an operation id usable as a Ginkgo label; "document" for the
// checks of the whole run.
func opLabel(op *spec.Operation) string {
	if op == nil {
		return "document"
	}
	l := strings.Trim(labelUnsafe.ReplaceAllString(op.ID, "-"), "-")
	if l == "" {
		l = "operation"
	}
	return l
}

func (s *suite) title() string {
	t := strings.TrimSpace(s.spec.Title + " " + s.spec.Version)
	if t == "" {
		t = s.spec.Source
	}
	return t
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

// resourceRef is an operation's resource and its kind there.
type resourceRef struct {
	res *spec.Resource
	ro  *spec.ResourceOp
}

// resourceOf returns op's resource and its kind there; nil for an
// operation on none.
func (s *suite) resourceOf(op *spec.Operation) (*spec.Resource, *spec.ResourceOp) {
	ref := s.resources[op]
	return ref.res, ref.ro
}

// resourceOp returns op's kind on its resource, or nil.
func (s *suite) resourceOp(op *spec.Operation) *spec.ResourceOp {
	return s.resources[op].ro
}

// removed reports whether op's removal date has passed (by --now or the clock).
func (s *suite) removed(op *spec.Operation) bool {
	return op.Deprecated && !op.Sunset.IsZero() && !s.now.Before(op.Sunset)
}

func safe(op *spec.Operation) bool {
	return op.Method == http.MethodGet || op.Method == http.MethodHead || op.Method == http.MethodOptions
}

// dateText is how dates read in check names and messages.
const dateText = "2 January 2006"

// probe checks that the deployment answers at all, before any check runs,
// and that --url is where the document's operations are: a deployment
// where every probe answers 404, even without credentials, is at another
// base URL, and the run would only report a departure per check.
func (s *suite) probe(ctx context.Context) error {
	var ops []*spec.Operation
	for _, o := range s.spec.Operations {
		if o.Method == http.MethodGet && !strings.Contains(o.Path, "{") && !o.Unpublished && s.access[o].missing == "" {
			ops = append(ops, o)
		}
	}
	if len(ops) == 0 {
		ops = []*spec.Operation{{ID: "probe", Method: http.MethodGet, Path: "/"}}
	}
	send := func(op *spec.Operation, mode authMode) (*Exchange, error) {
		r := s.validRequest(op, mode)
		s.client.credentialQuery(r)
		ex, err := s.client.do(ctx, r)
		s.requests++
		s.waited += ex.Waited
		return ex, err
	}
	ex, err := send(ops[0], authKey)
	// A status line arrived: the deployment is reachable, and a body that
	// fails to arrive is for the checks to report, not exit 3.
	if err != nil && ex.Status == 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("%v while probing %s", stopCause(ctx), redactURL(s.base.String()))
		}
		return &UnreachableError{URL: s.client.redact(redactURL(s.base.String())), Err: s.client.redactError(err)}
	}
	if ex.Status == http.StatusUnauthorized || ex.Status == http.StatusForbidden {
		fmt.Fprintf(s.cfg.Err, "warning: the deployment answered %d to %s %s with the credentials given; the checks that need them will fail\n", ex.Status, ex.Method, ex.URL)
	}
	if ex.Redirect != "" {
		fmt.Fprintf(s.cfg.Err, "warning: the deployment answered %d to %s %s, a redirect %s\n", ex.Status, ex.Method, ex.URL, ex.Redirect)
	}
	if ex.Status != http.StatusNotFound || ops[0].ID == "probe" {
		return nil
	}
	n := 2
	if ex, err := send(ops[0], authNone); err != nil || ex.Status != http.StatusNotFound {
		return nil
	}
	for _, op := range ops[1:min(len(ops), 5)] {
		if ex, err := send(op, authKey); err != nil || ex.Status != http.StatusNotFound {
			return nil
		}
		n++
	}
	return s.notHere(n)
}

// wrongBase is the usage error of a run in which every answer was 404.
func (s *suite) wrongBase() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.exchanges) == 0 {
		return nil
	}
	for _, ex := range s.exchanges {
		if ex.Status != http.StatusNotFound {
			return nil
		}
	}
	return s.notHere(len(s.exchanges))
}

// notHere says that --url is not where the document's operations are.
func (s *suite) notHere(n int) error {
	msg := fmt.Sprintf("is the base URL right? every operation answered 404 (%d requests to %s)", n, redactURL(s.base.String()))
	switch bp := s.spec.BasePath; {
	case bp != "" && !strings.HasSuffix(s.base.Path, bp):
		msg += fmt.Sprintf("; the document's base path is %s, which --url does not end with", bp)
	case bp != "":
		msg += fmt.Sprintf("; the document's base path is %s", bp)
	case len(s.spec.Servers) > 0:
		msg += fmt.Sprintf("; the document's servers: %s", strings.Join(s.spec.Servers, ", "))
	}
	return &UsageError{Err: errors.New(msg)}
}

// warnShortKey says once per short secret that it is easy to guess and
// that the output hides it only where it stands alone (see redact).
func (s *suite) warnShortKey() {
	for _, sec := range s.client.secrets.shortOnes() {
		fmt.Fprintf(s.cfg.Err, "warning: the secret shown as %s is shorter than %d characters: easy to guess, and hidden in the output only where it stands alone, not inside longer words or paths\n", sec.variable, minKeyLength)
	}
}

func (s *suite) warnBasePath() {
	bp := s.spec.BasePath
	if bp != "" && !strings.HasSuffix(s.base.Path, bp) {
		fmt.Fprintf(s.cfg.Err, "warning: --url %s does not end with the document's base path %s; the paths are appended to it as given\n", redactURL(s.base.String()), bp)
	}
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
