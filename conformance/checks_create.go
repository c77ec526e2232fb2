package conformance

// The create checks: a valid body creates the item as sent; an invalid one
// (a required field missing, a field of the wrong type, an unknown enum
// value, malformed JSON) is refused. The run's one valid create is shared
// with the read-back check.

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

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
	for _, k := range slices.Sorted(maps.Keys(cr.sent)) {
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

// badRequestStatuses are the statuses an invalid request to op may get: 400
// when op declares it, else its declared 4xx other than 401, 403 and 404.
func badRequestStatuses(op *spec.Operation) []int {
	if op.Response(http.StatusBadRequest) != nil {
		return []int{http.StatusBadRequest}
	}
	var out []int
	for _, r := range op.Responses {
		if r.Status >= 400 && r.Status < 500 && r.Status != 401 && r.Status != 403 && r.Status != 404 {
			out = append(out, r.Status)
		}
	}
	if len(out) == 0 {
		out = []int{http.StatusBadRequest, http.StatusUnprocessableEntity}
	}
	return out
}
