package conformance

// The pagination checks: the default, the minimum and the maximum of the
// page size hold, with enough items to tell; a value outside the bounds
// gets no 5xx, and the answer is observed.

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/petctl/petctl/spec"
)

func (s *suite) paginationChecks(coll *spec.Collection, add func(*check)) {
	l := coll.Limit
	if coll.List == nil || l == nil {
		return
	}
	op := coll.List
	list := func(t *T, value string) *Exchange {
		r := s.validRequest(op, authKey)
		if value != "" {
			r.query.Set(l.Param, value)
		}
		return t.send(r)
	}
	atMost := func(t *T, ex *Exchange, n int64, what string) {
		t.expectStatus(ex, []int{http.StatusOK}, "200 with at most "+strconv.FormatInt(n, 10)+" items")
		got, ok := items(ex)
		if !ok {
			t.failf(ex, "200 with a JSON array of items")
		}
		if int64(len(got)) > n {
			t.failf(ex, "at most %d items (%s); got %d", n, what, len(got))
		}
	}
	// The checks that need more items than a page may create them: they
	// carry the write label, so '!write' leaves them out. They are not
	// skipped by --read-only, under which population creates nothing and
	// skips them when the items are too few.
	var populates []string
	if coll.Create != nil {
		populates = []string{labelWrite}
	}
	if l.Default > 0 {
		add(&check{group: groupPagination, op: op, labels: populates, text: fmt.Sprintf("without %s returns at most the default, %d", l.Param, l.Default), fn: func(t *T) {
			t.population(coll)
			ex := list(t, "")
			atMost(t, ex, l.Default, "the default of "+l.Param)
		}})
	}
	add(&check{group: groupPagination, op: op, labels: populates, text: fmt.Sprintf("%s=%d returns at most %d", l.Param, l.Min, max(l.Min, 1)), fn: func(t *T) {
		t.population(coll)
		ex := list(t, strconv.FormatInt(l.Min, 10))
		atMost(t, ex, max(l.Min, 1), "the minimum of "+l.Param)
	}})
	if l.Max > 0 {
		// No population here: whether the maximum is accepted does not
		// depend on the number of items, and the population is counted
		// with this very request.
		add(&check{group: groupPagination, op: op, text: fmt.Sprintf("%s=%d is accepted and returns at most %d", l.Param, l.Max, l.Max), fn: func(t *T) {
			ex := list(t, strconv.FormatInt(l.Max, 10))
			atMost(t, ex, l.Max, "the maximum of "+l.Param)
			// Said, so that a pass is not read as more than it proves.
			if got, _ := items(ex); int64(len(got)) < l.Max {
				t.observe(fmt.Sprintf("reach of %s=%d", l.Param, l.Max), fmt.Sprintf("%d items: the deployment lists fewer than %d, so the bound itself was not reached", len(got), l.Max))
			}
		}})
	}
	var outside []string
	seen := map[string]bool{}
	for _, v := range []string{strconv.FormatInt(l.Min-1, 10), maxPlusOne(l), "-1", "abc"} {
		if v != "" && !seen[v] {
			seen[v] = true
			outside = append(outside, v)
		}
	}
	for _, v := range outside {
		text := fmt.Sprintf("%s=%s gets no 5xx", l.Param, v)
		if l.Max > 0 {
			text += fmt.Sprintf(" and at most %d items", l.Max)
		}
		add(&check{group: groupPagination, op: op, labels: []string{labelObserve}, text: text + "; the answer is observed", fn: func(t *T) {
			ex := list(t, v)
			t.observe(fmt.Sprintf("answer to %s=%s", l.Param, v), t.s.answer(ex))
			if ex.Status >= 500 {
				t.failf(ex, "no 5xx: a value outside %d..%d may be refused (4xx with the Error body) or clamped, not fail the server", l.Min, l.Max)
			}
			if ex.Status >= 200 && ex.Status < 300 && l.Max > 0 {
				if got, ok := items(ex); ok && int64(len(got)) > l.Max {
					t.failf(ex, "never more than the maximum of %d items; got %d", l.Max, len(got))
				}
			}
		}})
	}
}

func maxPlusOne(l *spec.Limit) string {
	if l.Max <= 0 {
		return ""
	}
	return strconv.FormatInt(l.Max+1, 10)
}

// population makes sure the collection holds more items than the default
// page, creating what is missing when writes are allowed; otherwise the
// check is skipped with the reason, never passed.
func (t *T) population(coll *spec.Collection) {
	s := t.s
	s.mu.Lock()
	reason, done := s.populations[coll], s.populated[coll]
	s.mu.Unlock()
	if !done {
		reason = t.populate(coll)
		s.mu.Lock()
		s.populations[coll], s.populated[coll] = reason, true
		s.mu.Unlock()
	}
	if reason != "" {
		t.skipf("%s", reason)
	}
}

func (t *T) populate(coll *spec.Collection) string {
	s := t.s
	l := t.listing(coll)
	if l.err != "" {
		return "cannot count the items: " + l.err
	}
	need := int(coll.Limit.Default) + 1
	if coll.Limit.Default <= 0 {
		need = 2
	}
	have := len(l.items)
	if have >= need {
		return ""
	}
	missing := need - have
	switch {
	case coll.Create == nil:
		return fmt.Sprintf("the deployment lists %d items, not more than the default page of %d, and the document declares no create operation to add more", have, need-1)
	case s.cfg.ReadOnly:
		return fmt.Sprintf("the deployment lists %d items, not more than the default page of %d, and --read-only forbids creating the %d missing", have, need-1, missing)
	}
	for i := 0; i < missing; i++ {
		r := s.validRequest(coll.Create, authKey)
		ex, err := t.try(r)
		if err != nil {
			return fmt.Sprintf("creating items to exceed the default page failed: %v", err)
		}
		if ex.Status != coll.CreateStatus {
			return fmt.Sprintf("creating items to exceed the default page failed: %s answered %d", coll.Create.ID, ex.Status)
		}
	}
	return ""
}

// answer summarises a response for an observation.
func (s *suite) answer(ex *Exchange) string {
	switch {
	case ex.Status >= 200 && ex.Status < 300:
		if got, ok := items(ex); ok {
			return fmt.Sprintf("%d with %d items", ex.Status, len(got))
		}
		return fmt.Sprintf("%d", ex.Status)
	default:
		if obj, ok := decodeJSON(ex.Body).(map[string]any); ok {
			if code, ok := obj["code"].(string); ok {
				return fmt.Sprintf("%d %s", ex.Status, code)
			}
		}
		return fmt.Sprintf("%d", ex.Status)
	}
}
