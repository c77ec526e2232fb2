package conformance

import (
	"context"
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
	groupPagination  = "pagination"
	groupFilters     = "filters"
	groupDeprecation = "deprecation"
	groupObserve     = "observe"
	groupResponses   = "responses"
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
	for _, coll := range s.spec.Collections {
		s.createChecks(coll, add)
	}
	for _, coll := range s.spec.Collections {
		s.readChecks(coll, add)
	}
	for _, coll := range s.spec.Collections {
		s.paginationChecks(coll, add)
	}
	for _, coll := range s.spec.Collections {
		s.filterChecks(coll, add)
	}
	s.deprecationChecks(add)
	s.observeChecks(add)
	s.responseChecks(add)
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

// opLabel is an operation id usable as a Ginkgo label.
func opLabel(op *spec.Operation) string {
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

func safe(op *spec.Operation) bool {
	return op.Method == http.MethodGet || op.Method == http.MethodHead || op.Method == http.MethodOptions
}

// dateText is how dates read in check names and messages.
const dateText = "2 January 2006"

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
	s.client.credentialQuery(r)
	ex, err := s.client.do(ctx, r)
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

// noteStop records that the run's end cut it short: a request was
// abandoned or a check was not run.
func (s *suite) noteStop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == "" {
		s.stopped = stopCause(s.ctx).Error()
	}
}
