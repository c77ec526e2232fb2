package conformance

// The filter checks: each value of an enum filter returns only the items
// that have it (one is created when none does); a value outside the enum
// may be refused with a status the document declares or ignored, and
// which of the two the deployment does is recorded.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

func (s *suite) filterChecks(r *spec.Resource, add func(*check)) {
	lo := r.Op(spec.KindList)
	if lo == nil || len(r.ParentParams) > 0 {
		return
	}
	op := lo.Op
	ok := successStatuses(op)
	for _, f := range r.List.Filters {
		if len(f.Enum) == 0 {
			continue // what a free-form filter matches (exact, prefix, case) is not said
		}
		// A filter that matches nothing proves nothing; the check then
		// creates an item with the value when it can, so it may create.
		var creates []string
		if s.canCreateWith(r, f.Field) {
			creates = []string{labelWrite}
		}
		for _, v := range f.Enum {
			add(&check{group: groupFilters, op: op, labels: creates, text: fmt.Sprintf("%s=%s returns only items whose %s is %s", f.Param, v, f.Field, v), fn: func(t *T) {
				ex := t.send(s.filterRequest(r, f, v))
				t.expectStatus(ex, ok, statusList(ok)+" with the matching items")
				got, found := listItems(r, ex)
				if !found {
					t.failf(ex, "%s with %s", statusList(ok), itemsPath(r))
				}
				if len(got) == 0 {
					if reason := t.createWith(r, f.Field, v); reason != "" {
						t.skipf("no item has %s %s, so the filter cannot be judged, and %s", f.Field, v, reason)
					}
					ex = t.send(s.filterRequest(r, f, v))
					t.expectStatus(ex, ok, statusList(ok)+" with the matching items")
					if got, found = listItems(r, ex); !found {
						t.failf(ex, "%s with %s", statusList(ok), itemsPath(r))
					}
					if len(got) == 0 {
						t.failf(ex, "the item just created with %s %s among the items; got none", f.Field, v)
					}
				}
				if wrong := mismatches(r, got, f.Field, v, s.client.redact); len(wrong) > 0 {
					t.failf(ex, "every item has %s %s; %d of %d do not: %s", f.Field, v, len(wrong), len(got), strings.Join(wrong, ", "))
				}
			}})
		}
		bad := badRequestStatuses(op)
		add(&check{group: groupFilters, op: op, labels: []string{labelObserve},
			text: fmt.Sprintf("a %s value outside its enum is refused (%s) or ignored; which is observed", f.Param, statusList(bad)), fn: func(t *T) {
				ex := t.send(s.filterRequest(r, f, unknownEnum))
				switch {
				case slices.Contains(bad, ex.Status):
					t.observe(fmt.Sprintf("answer to %s=%s", f.Param, unknownEnum), s.answer(ex)+": refused")
				case ex.Status >= 200 && ex.Status < 300:
					got, found := listItems(r, ex)
					if !found {
						t.failf(ex, "%s with %s", statusList(ok), itemsPath(r))
					}
					what := "ignored"
					if len(got) == 0 {
						what = "matched nothing"
					}
					t.observe(fmt.Sprintf("answer to %s=%s", f.Param, unknownEnum), s.answer(ex)+": "+what)
				default:
					t.failf(ex, "a value outside the enum refused with %s (the Error body the document declares) or ignored with a 2xx; got %d", statusList(bad), ex.Status)
				}
			}})
	}
}

func (s *suite) filterRequest(r *spec.Resource, f *spec.Filter, v string) *request {
	req := s.validRequest(r.Op(spec.KindList).Op, authKey)
	req.query.Set(f.Param, v)
	if lim := r.List.Limit; lim != nil && lim.Max > 0 {
		req.query.Set(lim.Param, strconv.FormatInt(lim.Max, 10))
	}
	return req
}

func mismatches(r *spec.Resource, got []map[string]any, field, want string, redact func(string) string) []string {
	var out []string
	for _, it := range got {
		if v, ok := it[field]; !ok || scalarString(v) != want {
			out = append(out, fmt.Sprintf("id %s has %s %s", jsonText(idOfItem(r, it), redact), field, describeField(it, field, redact)))
		}
	}
	return out
}

// canCreateWith reports whether r's create body declares field, so that
// an item with a given value of it can be created.
func (s *suite) canCreateWith(r *spec.Resource, field string) bool {
	cr := r.Op(spec.KindCreate)
	if cr == nil || cr.Op.Body == nil || cr.Request.Kind != "item" {
		return false
	}
	return s.spec.BodySchema(cr.Op).Prop(field) != nil
}

// createWith creates an item whose field has value v; it returns why it
// could not, or "".
func (t *T) createWith(r *spec.Resource, field, v string) string {
	s := t.s
	switch {
	case !s.canCreateWith(r, field):
		return "the create body does not declare " + field
	case s.cfg.ReadOnly:
		return "--read-only forbids creating one"
	}
	cr := r.Op(spec.KindCreate)
	req := s.validRequest(cr.Op, authKey)
	obj, ok := decodeJSON(req.body).(map[string]any)
	if !ok {
		return "the create body is not an object"
	}
	obj[field] = v
	if s.spec.BodySchema(cr.Op).Prop(field).Type() != "string" {
		if n := decodeJSON([]byte(v)); n != nil {
			obj[field] = n // an enum of numbers or booleans, given as text
		}
	}
	req.body = marshal(obj)
	if c := t.sendCreate(r, cr, req, ""); c.err != "" {
		return "creating one failed: " + c.err
	}
	return ""
}
