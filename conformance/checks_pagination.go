package conformance

// The pagination checks: the default, the minimum and the maximum of the
// page size hold, with enough items to tell; a value outside the bounds
// gets no 5xx, and the answer is observed; the page after the first, by
// the offset, page number or cursor the document declares, is another.

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

func (s *suite) paginationChecks(r *spec.Resource, add func(*check)) {
	lo := r.Op(spec.KindList)
	if lo == nil || r.List.Limit == nil {
		return
	}
	l := r.List.Limit
	op := lo.Op
	ok := successStatuses(op)
	list := func(t *T, value string) *Exchange {
		req := t.listRequest(r, lo)
		if value != "" {
			req.query.Set(l.Param, value)
		}
		return t.send(req)
	}
	atMost := func(t *T, ex *Exchange, n int64, what string) {
		t.expectStatus(ex, ok, statusList(ok)+" with at most "+strconv.FormatInt(n, 10)+" items")
		got, found := listItems(r, ex)
		if !found {
			t.failf(ex, "%s with %s", statusList(ok), itemsPath(r))
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
	if r.Op(spec.KindCreate) != nil {
		populates = []string{labelWrite}
	}
	if l.Default > 0 {
		required := ""
		if p := op.Param("query", l.Param); p != nil && p.Required {
			required = fmt.Sprintf("the document requires %s: no request leaves it out", l.Param)
		}
		add(&check{group: groupPagination, op: op, labels: populates, skip: required, text: fmt.Sprintf("without %s returns at most the default, %d", l.Param, l.Default), fn: func(t *T) {
			t.population(r)
			ex := list(t, "")
			atMost(t, ex, l.Default, "the default of "+l.Param)
		}})
	}
	// The smallest page of items: limit=1 where the minimum is 0, whose
	// meaning the document leaves open (no items, the default page, or
	// every item, as APIs differ); 0 must be accepted, and what it gives
	// is observed.
	least := max(l.Min, 1)
	add(&check{group: groupPagination, op: op, labels: populates, text: fmt.Sprintf("%s=%d returns at most %d", l.Param, least, least), fn: func(t *T) {
		t.population(r)
		ex := list(t, strconv.FormatInt(least, 10))
		atMost(t, ex, least, "the smallest page of "+l.Param)
	}})
	if l.Min < least {
		add(&check{group: groupPagination, op: op, labels: []string{labelObserve}, text: fmt.Sprintf("%s=%d, the minimum, is accepted; what it gives is observed", l.Param, l.Min), fn: func(t *T) {
			ex := list(t, strconv.FormatInt(l.Min, 10))
			t.observe(fmt.Sprintf("answer to %s=%d", l.Param, l.Min), t.s.answer(ex))
			t.expectStatus(ex, ok, fmt.Sprintf("%s: %s=%d is within the bounds the document declares", statusList(ok), l.Param, l.Min))
			if _, found := listItems(r, ex); !found {
				t.failf(ex, "%s with %s", statusList(ok), itemsPath(r))
			}
		}})
	}
	if l.Max > 0 {
		// No population here: whether the maximum is accepted does not
		// depend on the number of items, and the population is counted
		// with this very request.
		add(&check{group: groupPagination, op: op, text: fmt.Sprintf("%s=%d is accepted and returns at most %d", l.Param, l.Max, l.Max), fn: func(t *T) {
			ex := list(t, strconv.FormatInt(l.Max, 10))
			atMost(t, ex, l.Max, "the maximum of "+l.Param)
			// Said, so that a pass is not read as more than it proves.
			if got, _ := listItems(r, ex); int64(len(got)) < l.Max {
				t.observe(fmt.Sprintf("reach of %s=%d", l.Param, l.Max), fmt.Sprintf("%d items: the deployment lists fewer than %d, so the bound itself was not reached", len(got), l.Max))
			}
		}})
	}
	if how := pagedBy(r.List); how != "" {
		add(&check{group: groupPagination, op: op, labels: populates, text: fmt.Sprintf("the page after the first %s=%d (%s) holds other items", l.Param, least, how), fn: func(t *T) {
			t.population(r)
			t.nextPage(r, lo, least)
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
	bad := badRequestStatuses(op)
	for _, v := range outside {
		text := fmt.Sprintf("%s=%s is refused (%s) or ignored", l.Param, v, statusList(bad))
		if l.Max > 0 {
			text += fmt.Sprintf(" with at most %d items", l.Max)
		}
		add(&check{group: groupPagination, op: op, labels: []string{labelObserve}, text: text + "; which is observed", fn: func(t *T) {
			ex := list(t, v)
			t.observe(fmt.Sprintf("answer to %s=%s", l.Param, v), t.s.answer(ex))
			switch {
			case slices.Contains(bad, ex.Status):
			case ex.Status >= 200 && ex.Status < 300:
				if got, found := listItems(r, ex); found && l.Max > 0 && int64(len(got)) > l.Max {
					t.failf(ex, "never more than the maximum of %d items; got %d", l.Max, len(got))
				}
			default:
				t.failf(ex, "a value outside %s refused with %s (the Error body the document declares) or ignored with a 2xx; got %d", bounds(l), statusList(bad), ex.Status)
			}
		}})
	}
}

// pagedBy names how a list goes from one page to the next: its offset,
// page number or cursor parameter; "" for a list of a page size alone.
func pagedBy(l *spec.ListShape) string {
	switch l.Paging {
	case "offset", "page":
		return "by " + pagingParam(l)
	case "cursor":
		if spec.BackwardCursor(l.Cursor) {
			return ""
		}
		return "by the cursor " + pagingParam(l)
	}
	return ""
}

// pagingParam is the parameter that names a list's page after the first.
func pagingParam(l *spec.ListShape) string {
	switch l.Paging {
	case "offset":
		return l.OffsetParam
	case "page":
		return l.PageParam
	case "cursor":
		return l.Cursor
	}
	return ""
}

// nextPage asks for the first page of size items and then for the page
// after it, the way the document pages, and fails when the second answer
// holds the first's items again: the deployment ignored the offset, the
// page number or the cursor, and a client paging through it would loop
// on the first page or stop at it. An empty second page fails only where
// the first said more follow.
//
// A repeat is asked again once before it fails, one step further on: an
// offset or page number may count from 1 where the document declares no
// minimum (startIndex), so that the first step names the first page
// again; and another client's create can move a page's window by one.
func (t *T) nextPage(r *spec.Resource, lo *spec.ResourceOp, size int64) {
	ok := successStatuses(lo.Op)
	l := r.List
	var first, second *Exchange
	guessed := false // the cursor sent is the last item's id (cursorAfter)
	for step := int64(1); step <= 2; step++ {
		req := t.pageRequest(r, lo, size)
		first = t.send(req)
		t.expectStatus(first, ok, statusList(ok)+" with the first page")
		got, found := listItems(r, first)
		if !found {
			t.failf(first, "%s with %s", statusList(ok), itemsPath(r))
		}
		if int64(len(got)) < size {
			t.skipf("the first page holds %d items, fewer than %s=%d: there is no page after it to ask for", len(got), l.Limit.Param, size)
		}
		req = t.pageRequest(r, lo, size)
		switch l.Paging {
		case "offset":
			req.query.Set(l.OffsetParam, strconv.FormatInt(t.s.paramStart(lo, l.OffsetParam, 0)+step*int64(len(got)), 10))
		case "page":
			req.query.Set(l.PageParam, strconv.FormatInt(t.s.paramStart(lo, l.PageParam, 1)+step, 10))
		case "cursor":
			var next string
			next, guessed = cursorAfter(r, first, got)
			if next == "" && claimsMore(r, first, len(got)) == "" {
				t.skipf("the first page of %d says no more follow (no has-more flag, total, cursor or link): there is no page after it to ask for", len(got))
			}
			if next == "" {
				t.skipf("the first page gives no cursor to the next (no next field the document declares, no Link rel=\"next\", and %s takes no item's id): the cursor cannot be followed", l.Cursor)
			}
			req.query.Set(l.Cursor, next)
		}
		second = t.send(req)
		if guessed && second.Status >= 400 && second.Status < 500 {
			t.skipf("the first page gives no cursor, and %s refused its last item's id (%d): it takes another cursor, which the answer does not show", l.Cursor, second.Status)
		}
		t.expectStatus(second, ok, statusList(ok)+" with the page after the first")
		again, found := listItems(r, second)
		if !found {
			t.failf(second, "%s with %s", statusList(ok), itemsPath(r))
		}
		if len(again) == 0 {
			if more := claimsMore(r, first, len(got)); more != "" {
				t.failf(second, "the items after the first page, which says %s; got none", more)
			}
			return
		}
		if !samePage(r, got, again) {
			return
		}
	}
	asked := "asked one and two pages on"
	if l.Paging == "cursor" {
		asked = "asked twice"
	}
	t.failf(second, "other items than the first page's (%s); %s, the page after it answered the same items again: a client that follows %s gets them twice, and never the rest", first.URL, asked, pagingParam(l))
}

// listRequest is lo's request for the first page of r's items, under the
// parents the run lists r's items under (T.parents); the check is skipped
// where there are none.
func (t *T) listRequest(r *spec.Resource, lo *spec.ResourceOp) *request {
	req := t.s.validRequest(lo.Op, authKey)
	if why := t.parents(r, req); why != "" {
		t.skipf("%s", why)
	}
	t.s.firstPage(r, lo, req)
	return req
}

// samePage reports whether two pages hold the same items: by their ids
// where every item holds one (a field computed per request, a timestamp
// or a signed URL, does not tell a repeat from another page), else whole.
func samePage(r *spec.Resource, a, b []map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	ids := func(items []map[string]any) []string {
		out := make([]string, len(items))
		for i, it := range items {
			if out[i] = idOfItem(r, it); out[i] == "" {
				return nil
			}
		}
		return out
	}
	if x, y := ids(a), ids(b); x != nil && y != nil {
		return slices.Equal(x, y)
	}
	return reflect.DeepEqual(a, b)
}

// pageRequest is lo's list request for the first page of size items.
func (t *T) pageRequest(r *spec.Resource, lo *spec.ResourceOp, size int64) *request {
	req := t.listRequest(r, lo)
	req.query.Set(r.List.Limit.Param, strconv.FormatInt(size, 10))
	return req
}

// claimsMore is what a list answer of n items says of the items after
// it: a has-more flag that is true, a total past n (in the envelope, or
// in a total header the list declares: spec.Response.TotalHeaders), a
// cursor or link to the next page; "" when it says none of these.
func claimsMore(r *spec.Resource, ex *Exchange, n int) string {
	obj, _ := decodeJSON(ex.Body).(map[string]any)
	l := r.List
	if b, ok := at(obj, l.HasMore).(bool); ok && b {
		return strings.Join(l.HasMore, ".") + " is true"
	}
	if total, err := strconv.ParseFloat(scalarString(at(obj, l.Total)), 64); err == nil && total > float64(n) {
		return fmt.Sprintf("%s is %s", strings.Join(l.Total, "."), scalarString(at(obj, l.Total)))
	}
	if ex.Op != nil {
		items, _ := ex.Op.Response(ex.Status).TotalHeaders()
		for _, h := range items {
			if total, err := strconv.ParseFloat(ex.Header.Get(h), 64); err == nil && total > float64(n) {
				return h + " is " + ex.Header.Get(h)
			}
		}
	}
	if next := nextCursor(r, ex); next != "" {
		return "a next page follows (" + next + ")"
	}
	return ""
}

// bounds shows a page size's range: 1..100, or 1.. without a maximum.
func bounds(l *spec.Limit) string {
	if l.Max > 0 {
		return fmt.Sprintf("%d..%d", l.Min, l.Max)
	}
	return fmt.Sprintf("%d..", l.Min)
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
func (t *T) population(r *spec.Resource) {
	s := t.s
	s.mu.Lock()
	reason, done := s.populations[r], s.populated[r]
	s.mu.Unlock()
	if !done {
		reason = t.populate(r)
		s.mu.Lock()
		s.populations[r], s.populated[r] = reason, true
		s.mu.Unlock()
	}
	if reason != "" {
		t.skipf("%s", reason)
	}
}

func (t *T) populate(r *spec.Resource) string {
	s := t.s
	l := t.listing(r)
	if l.err != "" {
		return "cannot count the items: " + l.err
	}
	lim := r.List.Limit
	need := int(lim.Default) + 1
	if lim.Default <= 0 {
		need = 2
	}
	have := len(l.items)
	if have >= need {
		return ""
	}
	missing := need - have
	cr := r.Op(spec.KindCreate)
	switch {
	case cr == nil:
		return fmt.Sprintf("the deployment lists %d items, not more than the default page of %d, and the document declares no create operation to add more", have, need-1)
	case s.cfg.ReadOnly:
		return fmt.Sprintf("the deployment lists %d items, not more than the default page of %d, and --read-only forbids creating the %d missing", have, need-1, missing)
	}
	for i := 0; i < missing; i++ {
		c := t.create(r, cr)
		if c.err != "" {
			return "creating items to exceed the default page failed: " + c.err
		}
	}
	return ""
}

// answer summarises a response for an observation.
func (s *suite) answer(ex *Exchange) string {
	switch {
	case ex.Status >= 200 && ex.Status < 300:
		if r, _ := s.resourceOf(ex.Op); r != nil {
			if got, ok := listItems(r, ex); ok {
				return fmt.Sprintf("%d with %d items", ex.Status, len(got))
			}
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
