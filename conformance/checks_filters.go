package conformance

// The filter checks: each value of an enum filter returns only the items
// that have it (one is created when none does); an unknown value gets a
// 4xx or no other items.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

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
