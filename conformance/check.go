package conformance

// One check: what it is, and T, what its body works with: sending
// requests, judging their answers, failing, skipping and observing.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/gomega"
	gtypes "github.com/onsi/gomega/types"
	"github.com/petctl/petctl/spec"
)

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

// mayCreate reports whether the check may create records: it writes, or
// it creates what it needs to tell (the pagination and filter checks that
// populate, which --read-only still runs, creating nothing).
func (c *check) mayCreate() bool {
	return c.writes || slices.Contains(c.labels, labelWrite)
}

func (c *check) fullText() string {
	return "conform " + c.group + " " + c.subject() + " " + c.text
}

// subject names what the check is about: its operation, or the document
// for the checks of the whole run.
func (c *check) subject() string {
	if c.op == nil {
		return "the document"
	}
	return c.op.String()
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
	return t.c.name()
}

func (c *check) name() string {
	return c.group + " · " + c.subject() + ": " + c.text
}

// try sends r and records the exchange; a transport error is returned.
func (t *T) try(r *request) (*Exchange, error) {
	s := t.s
	if r.broken != "" {
		t.skipf("%s: %s", r.op.ID, r.broken)
	}
	if r.auth == authKey && r.unmade != "" {
		t.skipf("%s: %s", r.op.ID, r.unmade)
	}
	s.client.credentialQuery(r)
	ctx, stop := t.ctx, func() bool { return false }
	if s.ctx != nil {
		// The run's cause goes along, so an abandoned request says why.
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(t.ctx)
		stop = context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
		defer cancel(nil)
	}
	defer stop()
	ex, err := s.client.do(ctx, r)
	if err != nil && s.ctx != nil && s.ctx.Err() != nil {
		s.noteStop()
	}
	s.mu.Lock()
	s.requests++
	// Exercised means that the operation itself answered: a request with
	// the credentials (or to an open operation) got an answer that is no
	// server error (a 501 says the operation is not there) and no refusal
	// of the credentials. A request lost in transport tells nothing.
	switch {
	case err != nil:
		s.lost[r.op]++
	case r.auth != authKey:
		s.sent[r.op]++
	case ex.Status >= 500 || refusedCredential(ex):
		s.sent[r.op]++
		if s.notServed[r.op] == nil {
			s.notServed[r.op] = map[int]int{}
		}
		s.notServed[r.op][ex.Status]++
	default:
		s.sent[r.op]++
		s.answered[r.op]++
	}
	s.waited += ex.Waited
	s.mu.Unlock()
	ex.Check = t.name()
	ex.Auth = r.auth
	if err != nil {
		return ex, err
	}
	s.judge(ex)
	for _, n := range ex.notes {
		t.observeOnce(n, "answered to "+ex.Check)
	}
	t.exchanges = append(t.exchanges, ex)
	s.mu.Lock()
	s.exchanges = append(s.exchanges, ex)
	res, ro := s.resourceOf(r.op)
	switch {
	case ro == nil || ex.Status < 200 || ex.Status > 299:
	case creates(ro) && r.recordName != "":
		id := idOfAnswer(res, ro, ex)
		if id == "" && ro.Kind == spec.KindReplace {
			id = r.path[res.IDParam]
		}
		s.created = append(s.created, Record{Name: r.recordName, ID: s.client.redact(id), Check: t.name()})
	case ro.Kind == spec.KindDelete:
		for i := range s.created {
			if s.created[i].ID == s.client.redact(r.path[res.IDParam]) {
				s.created[i].Deleted = true
			}
		}
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
// fails the check, naming the request, and a 501 (Not Implemented) skips
// it: the operation is not there to check, and the coverage says so.
func (t *T) send(r *request) *Exchange {
	ex, err := t.try(r)
	if err != nil {
		t.s.fail(fmt.Sprintf("%s\n  the request failed: %v\n  request:  %s", t.name(), err, t.s.curl(ex)), 1)
	}
	t.notImplemented(ex)
	return ex
}

// notImplemented skips the check when ex is a 501.
func (t *T) notImplemented(ex *Exchange) {
	if ex.Status == http.StatusNotImplemented {
		t.skipf("%s answered 501 Not Implemented: not exercised", ex.Op.ID)
	}
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

// statusList names statuses for messages: "401", "400 or 422", and "a
// 4xx" for most of them.
func statusList(ss []int) string {
	if len(ss) > 4 && !slices.ContainsFunc(ss, func(s int) bool { return s < 400 || s > 499 }) {
		return "a 4xx"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, " or ")
}

// judgeAll fails the check when problem finds something in any of exs,
// naming each offending response and describing the first in full.
func (t *T) judgeAll(exs []*Exchange, want string, problem func(*Exchange) string) {
	var bad []string
	var first *Exchange
	for _, ex := range exs {
		if p := problem(ex); p != "" {
			if first == nil {
				first = ex
			}
			bad = append(bad, fmt.Sprintf("%d to %s %s (%s): %s", ex.Status, ex.Method, ex.URL, ex.Check, p))
		}
	}
	if len(bad) == 0 {
		return
	}
	// Every one, in full: a CI log shows nothing the message leaves out.
	t.failf(first, "%s; %d of %d responses do not:\n    - %s\n  the first of them:", want, len(bad), len(exs), strings.Join(bad, "\n    - "))
}

func (t *T) skipf(format string, args ...any) {
	t.s.skip(fmt.Sprintf(format, args...), 1)
}

// observeOnce is observe for what the run records once however often it
// sees it (an undeclared status of an operation).
func (t *T) observeOnce(name, value string) {
	t.s.mu.Lock()
	seen := t.s.observedOnce[name]
	t.s.observedOnce[name] = true
	t.s.mu.Unlock()
	if !seen {
		t.observe(name, value)
	}
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
