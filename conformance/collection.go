package conformance

// The checks of a collection: create, read, pagination and filters, and the
// run's shared fixtures (one created item, one full page, enough items).

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// ---- create

func (s *suite) createChecks(coll *spec.Collection, add func(*check)) {
	op := coll.Create
	if op == nil {
		return
	}
	names, props, required := spec.ObjectProperties(coll.NewSchema)
	add(&check{group: groupCreate, op: op, writes: true,
		text: fmt.Sprintf("a valid body gives %d and the created item with its %s and the fields sent", coll.CreateStatus, coll.IDField),
		fn:   func(t *T) { t.checkCreate(coll) }})
	bad := badRequestStatuses(op)
	invalid := func(text string, mutate func(body []byte) []byte) {
		add(&check{group: groupCreate, op: op, writes: true, text: text + " gives " + statusList(bad), fn: func(t *T) {
			r := s.validRequest(op, authKey)
			r.body = mutate(r.body)
			ex := t.send(r)
			t.expectStatus(ex, bad, fmt.Sprintf("%s: the body is invalid", statusList(bad)))
		}})
	}
	edit := func(f func(obj map[string]any)) func([]byte) []byte {
		return func(body []byte) []byte {
			obj, _ := decodeJSON(body).(map[string]any)
			f(obj)
			return marshal(obj)
		}
	}
	for _, n := range names {
		if required[n] {
			invalid("without "+n, edit(func(obj map[string]any) { delete(obj, n) }))
		}
	}
	for _, n := range names {
		if v := wrongType(props[n]); v != nil {
			invalid(fmt.Sprintf("%s of the wrong type (%s)", n, typeName(v)), edit(func(obj map[string]any) { obj[n] = v }))
		}
	}
	for _, n := range names {
		if _, ok := firstEnum(props[n]); ok && spec.SchemaType(props[n]) == "string" {
			invalid(fmt.Sprintf("an unknown %s (%s)", n, unknownEnum), edit(func(obj map[string]any) { obj[n] = unknownEnum }))
		}
	}
	invalid("malformed JSON", func(body []byte) []byte { return body[:len(body)-1] })
	var optional []string
	for _, n := range names {
		if !required[n] {
			optional = append(optional, n)
		}
	}
	if len(optional) > 0 {
		add(&check{group: groupCreate, op: op, writes: true, labels: []string{labelObserve},
			text: fmt.Sprintf("with only the required fields gives %d; what it gives %s is observed", coll.CreateStatus, strings.Join(optional, ", ")),
			fn: func(t *T) {
				r := s.validRequest(op, authKey)
				obj, _ := decodeJSON(r.body).(map[string]any)
				for _, n := range optional {
					delete(obj, n)
				}
				r.body = marshal(obj)
				ex := t.send(r)
				t.expectStatus(ex, []int{coll.CreateStatus}, fmt.Sprintf("%d: a body with the required fields is valid", coll.CreateStatus))
				item, _ := decodeJSON(ex.Body).(map[string]any)
				for _, n := range optional {
					v, ok := item[n]
					text := "absent"
					if ok {
						text = jsonText(v, t.s.client.redact)
					}
					t.observe(fmt.Sprintf("%s given when none is sent", n), text)
				}
			}})
	}
}

func (t *T) checkCreate(coll *spec.Collection) {
	cr := t.creation(coll)
	if cr.ex.Status == 0 {
		t.failf(cr.ex, "%d with the created item (%s)", coll.CreateStatus, cr.err)
	}
	t.expectStatus(cr.ex, []int{coll.CreateStatus}, fmt.Sprintf("%d with the created item", coll.CreateStatus))
	if cr.item == nil {
		t.failf(cr.ex, "the created item as a JSON object")
	}
	if id, ok := cr.item[coll.IDField]; !ok || id == nil {
		t.failf(cr.ex, "the created item with its %s", coll.IDField)
	}
	var diffs []string
	for _, k := range sortedKeys(cr.sent) {
		got, ok := cr.item[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is missing (sent %s)", k, jsonText(cr.sent[k], t.s.client.redact)))
		case !jsonEqual(got, cr.sent[k]):
			diffs = append(diffs, fmt.Sprintf("%s is %s (sent %s)", k, jsonText(got, t.s.client.redact), jsonText(cr.sent[k], t.s.client.redact)))
		}
	}
	if len(diffs) > 0 {
		t.failf(cr.ex, "the created item holds the fields sent; %s", strings.Join(diffs, "; "))
	}
}

// creation is the run's one valid create per collection, shared by the
// create check and the read-back check.
type creation struct {
	ex   *Exchange
	sent map[string]any
	item map[string]any
	err  string // why there is no created item
}

func (t *T) creation(coll *spec.Collection) *creation {
	s := t.s
	s.mu.Lock()
	cr := s.creations[coll]
	s.mu.Unlock()
	if cr != nil {
		return cr
	}
	r := s.validRequest(coll.Create, authKey)
	sent, _ := decodeJSON(r.body).(map[string]any)
	ex, err := t.try(r)
	cr = &creation{ex: ex, sent: sent}
	switch {
	case err != nil:
		cr.err = fmt.Sprintf("the request failed: %v", err)
	case ex.Status != coll.CreateStatus:
		cr.err = fmt.Sprintf("%s answered %d", coll.Create.ID, ex.Status)
	default:
		if cr.item, _ = decodeJSON(ex.Body).(map[string]any); cr.item == nil {
			cr.err = fmt.Sprintf("%s answered %d without a JSON object", coll.Create.ID, ex.Status)
		}
	}
	s.mu.Lock()
	s.creations[coll] = cr
	s.mu.Unlock()
	return cr
}

// ---- read

func (s *suite) readChecks(coll *spec.Collection, add func(*check)) {
	op := coll.Read
	if op == nil {
		return
	}
	gone := ""
	if s.removed(op) {
		gone = fmt.Sprintf("%s was removed on %s (the date judged by is %s); the deprecation check expects it gone", op.ID, op.Sunset.Format(dateText), s.now.Format(dateText))
	}
	if coll.List != nil {
		add(&check{group: groupRead, op: op, skip: gone, text: "an item from the list reads back the same", fn: func(t *T) {
			l := t.listing(coll)
			if l.err != "" {
				t.skipf("no listed item to read: %s", l.err)
			}
			if len(l.items) == 0 {
				t.skipf("no listed item to read: the list is empty")
			}
			item := l.items[0]
			id := scalarString(item[coll.IDField])
			if id == "" {
				t.skipf("the first listed item has no %s (the response checks report it)", coll.IDField)
			}
			t.readBack(coll, id, item, nil)
		}})
	}
	if coll.Create != nil {
		add(&check{group: groupRead, op: op, skip: gone, writes: true, text: "the created item reads back the same", fn: func(t *T) {
			cr := t.creation(coll)
			if cr.err != "" {
				t.skipf("no item was created to read back: %s", cr.err)
			}
			id := scalarString(cr.item[coll.IDField])
			if id == "" {
				t.skipf("the created item has no %s", coll.IDField)
			}
			t.readBack(coll, id, cr.item, cr.sent)
		}})
	}
	add(&check{group: groupRead, op: op, skip: gone, text: "an unknown id gives " + statusList(notFoundStatuses(op)), fn: func(t *T) {
		r := s.validRequest(op, authKey)
		r.path[coll.IDParam] = unknownID(coll)
		ex := t.send(r)
		t.expectStatus(ex, notFoundStatuses(op), statusList(notFoundStatuses(op))+": no item has this id")
	}})
}

// readBack reads the item with id and compares it with what the run knows
// of it: the fields sent (when it created it) must read back as sent, and
// every field both answers hold must be equal.
func (t *T) readBack(coll *spec.Collection, id string, known, sent map[string]any) {
	r := t.s.validRequest(coll.Read, authKey)
	r.path[coll.IDParam] = id
	ex := t.send(r)
	t.expectStatus(ex, []int{http.StatusOK}, "200 with the item")
	got, ok := decodeJSON(ex.Body).(map[string]any)
	if !ok {
		t.failf(ex, "200 with the item as a JSON object")
	}
	var diffs []string
	if v := scalarString(got[coll.IDField]); v != id {
		diffs = append(diffs, fmt.Sprintf("%s is %s, want %s", coll.IDField, jsonText(got[coll.IDField], t.s.client.redact), id))
	}
	for _, k := range sortedKeys(sent) {
		if v, ok := got[k]; !ok || !jsonEqual(v, sent[k]) {
			diffs = append(diffs, fmt.Sprintf("%s is %s (sent %s)", k, describeField(got, k, t.s.client.redact), jsonText(sent[k], t.s.client.redact)))
		}
	}
	for _, f := range coll.Fields {
		if _, wasSent := sent[f.Name]; wasSent || f.Name == coll.IDField {
			continue
		}
		a, inKnown := known[f.Name]
		b, inGot := got[f.Name]
		if inKnown && inGot && !jsonEqual(a, b) {
			diffs = append(diffs, fmt.Sprintf("%s is %s, was %s", f.Name, jsonText(b, t.s.client.redact), jsonText(a, t.s.client.redact)))
		}
	}
	if len(diffs) > 0 {
		t.failf(ex, "the item as the run knows it; %s", strings.Join(diffs, "; "))
	}
}

// listing is the run's first full page of a collection, shared by the
// checks that need items: the read-back, the pagination population, the
// order and pagination observations.
type listing struct {
	ex    *Exchange
	items []map[string]any
	err   string
}

func (t *T) listing(coll *spec.Collection) *listing {
	s := t.s
	s.mu.Lock()
	l := s.listings[coll]
	s.mu.Unlock()
	if l != nil {
		return l
	}
	r := s.validRequest(coll.List, authKey)
	if coll.Limit != nil && coll.Limit.Max > 0 {
		r.query.Set(coll.Limit.Param, strconv.FormatInt(coll.Limit.Max, 10))
	}
	ex, err := t.try(r)
	l = &listing{ex: ex}
	switch {
	case err != nil:
		l.err = fmt.Sprintf("%s %s failed: %v", ex.Method, ex.URL, err)
	case ex.Status != http.StatusOK:
		l.err = fmt.Sprintf("%s %s answered %d", ex.Method, ex.URL, ex.Status)
	default:
		var ok bool
		if l.items, ok = items(ex); !ok {
			l.err = fmt.Sprintf("%s %s did not answer a JSON array of objects", ex.Method, ex.URL)
		}
	}
	s.mu.Lock()
	s.listings[coll] = l
	s.mu.Unlock()
	return l
}

// ---- pagination

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

// ---- filters

func (s *suite) filterChecks(coll *spec.Collection, add func(*check)) {
	if coll.List == nil {
		return
	}
	op := coll.List
	for _, f := range coll.Filters {
		if len(f.Enum) == 0 {
			continue // what a free-form filter matches (exact, prefix, case) is not said
		}
		// A filter that matches nothing proves nothing; the check then
		// creates an item with the value when it can, so it may create.
		var creates []string
		if s.canCreateWith(coll, f.Field) {
			creates = []string{labelWrite}
		}
		for _, v := range f.Enum {
			add(&check{group: groupFilters, op: op, labels: creates, text: fmt.Sprintf("%s=%s returns only items whose %s is %s", f.Param, v, f.Field, v), fn: func(t *T) {
				ex := t.send(s.filterRequest(coll, f, v))
				t.expectStatus(ex, []int{http.StatusOK}, "200 with the matching items")
				got, ok := items(ex)
				if !ok {
					t.failf(ex, "200 with a JSON array of items")
				}
				if len(got) == 0 {
					if reason := t.createWith(coll, f.Field, v); reason != "" {
						t.skipf("no item has %s %s, so the filter cannot be judged, and %s", f.Field, v, reason)
					}
					ex = t.send(s.filterRequest(coll, f, v))
					t.expectStatus(ex, []int{http.StatusOK}, "200 with the matching items")
					if got, ok = items(ex); !ok {
						t.failf(ex, "200 with a JSON array of items")
					}
					if len(got) == 0 {
						t.failf(ex, "the item just created with %s %s among the items; got none", f.Field, v)
					}
				}
				if wrong := mismatches(coll, got, f.Field, v, s.client.redact); len(wrong) > 0 {
					t.failf(ex, "every item has %s %s; %d of %d do not: %s", f.Field, v, len(wrong), len(got), capList(wrong, 5))
				}
			}})
		}
		add(&check{group: groupFilters, op: op, labels: []string{labelObserve},
			text: fmt.Sprintf("an unknown %s value gets a 4xx or no other items; the answer is observed", f.Param), fn: func(t *T) {
				ex := t.send(s.filterRequest(coll, f, unknownEnum))
				t.observe(fmt.Sprintf("answer to %s=%s", f.Param, unknownEnum), s.answer(ex))
				switch {
				case ex.Status >= 500:
					t.failf(ex, "no 5xx: an unknown value may be refused (4xx with the Error body) or match nothing")
				case ex.Status >= 200 && ex.Status < 300:
					got, ok := items(ex)
					if !ok {
						t.failf(ex, "a JSON array of items")
					}
					if wrong := mismatches(coll, got, f.Field, unknownEnum, s.client.redact); len(wrong) > 0 {
						t.failf(ex, "only items with %s %s, which none can have; %d items: %s", f.Field, unknownEnum, len(wrong), capList(wrong, 5))
					}
				case ex.Status < 400:
					t.failf(ex, "a 4xx, or a 2xx with no items")
				}
			}})
	}
}

// canCreateWith reports whether the collection's create body declares field,
// so that an item with a given value of it can be created.
func (s *suite) canCreateWith(coll *spec.Collection, field string) bool {
	if coll.Create == nil || coll.Create.Body == nil || coll.Create.Body.Schema == nil {
		return false
	}
	names, _, _ := spec.ObjectProperties(coll.Create.Body.Schema)
	return slices.Contains(names, field)
}

// createWith creates an item whose field has value v; it returns why it
// could not, or "".
func (t *T) createWith(coll *spec.Collection, field, v string) string {
	s := t.s
	switch {
	case !s.canCreateWith(coll, field):
		return "the create body does not declare " + field
	case s.cfg.ReadOnly:
		return "--read-only forbids creating one"
	}
	r := s.validRequest(coll.Create, authKey)
	obj, ok := decodeJSON(r.body).(map[string]any)
	if !ok {
		return "the create body is not an object"
	}
	obj[field] = v
	_, props, _ := spec.ObjectProperties(coll.Create.Body.Schema)
	if spec.SchemaType(props[field]) != "string" {
		if n := decodeJSON([]byte(v)); n != nil {
			obj[field] = n // an enum of numbers or booleans, given as text
		}
	}
	r.body = marshal(obj)
	ex, err := t.try(r)
	switch {
	case err != nil:
		return fmt.Sprintf("creating one failed: %v", err)
	case ex.Status != coll.CreateStatus:
		return fmt.Sprintf("creating one failed: %s answered %d", coll.Create.ID, ex.Status)
	}
	return ""
}

func (s *suite) filterRequest(coll *spec.Collection, f *spec.Filter, v string) *request {
	r := s.validRequest(coll.List, authKey)
	r.query.Set(f.Param, v)
	if coll.Limit != nil && coll.Limit.Max > 0 {
		r.query.Set(coll.Limit.Param, strconv.FormatInt(coll.Limit.Max, 10))
	}
	return r
}

func mismatches(coll *spec.Collection, got []map[string]any, field, want string, redact func(string) string) []string {
	var out []string
	for _, it := range got {
		if v, ok := it[field]; !ok || scalarString(v) != want {
			out = append(out, fmt.Sprintf("%s %s has %s %s", coll.IDField, jsonText(it[coll.IDField], redact), field, describeField(it, field, redact)))
		}
	}
	return out
}

func capList(list []string, n int) string {
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:n], ", ") + fmt.Sprintf(" and %d more", len(list)-n)
}
