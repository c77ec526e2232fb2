package conformance

// The read checks: an item from the list and the created item read back
// the same, and an unknown id is not found. The run's first full page of a
// collection (listing) is shared by the checks that need items.

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

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
	for _, k := range slices.Sorted(maps.Keys(sent)) {
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

func notFoundStatuses(op *spec.Operation) []int {
	if op.Response(http.StatusNotFound) != nil {
		return []int{http.StatusNotFound}
	}
	return []int{http.StatusNotFound, http.StatusGone}
}

func unknownID(c *spec.Collection) string {
	f := c.Field(c.IDField)
	switch {
	case c.IDType == "integer":
		return unknownIntID
	case f != nil && f.Schema != nil && strings.EqualFold(f.Schema.Format, "uuid"):
		return unknownUUID
	}
	return unknownString
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
