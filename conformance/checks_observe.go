package conformance

// The observe checks record what the deployment does where the
// description leaves it open (an unpublished payload, the order of a
// list, pagination beyond the limit, fields beyond the schemas); they
// pass, and the report shows what they saw.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

func (s *suite) observeChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		if !op.Unpublished {
			continue
		}
		add(&check{group: groupObserve, op: op, writes: !safe(op), labels: []string{labelObserve},
			text: "the answer to a request with a valid key is observed (the description does not show its payload)", fn: func(t *T) {
				ex := t.send(s.validRequest(op, authKey))
				t.observe(fmt.Sprintf("answer of %s %s", op.Method, op.Path), fmt.Sprintf("%d, Content-Type %q, body %s", ex.Status, ex.Header.Get("Content-Type"), shortExcerpt(s, ex)))
			}})
	}
	for _, coll := range s.spec.Collections {
		if coll.List == nil {
			continue
		}
		op := coll.List
		add(&check{group: groupObserve, op: op, labels: []string{labelObserve}, text: "the order of the list is observed", fn: func(t *T) {
			l := t.listing(coll)
			if l.err != "" {
				t.skipf("no list to observe: %s", l.err)
			}
			t.observe(coll.Name+" order", listOrder(coll, l.items))
		}})
		add(&check{group: groupObserve, op: op, labels: []string{labelObserve}, text: "pagination beyond the limit is observed", fn: func(t *T) {
			l := t.listing(coll)
			if l.err != "" {
				t.skipf("no list to observe: %s", l.err)
			}
			t.observe(coll.Name+" pagination beyond the limit", paginationHints(l.ex.Header))
		}})
		add(&check{group: groupObserve, op: op, labels: []string{labelObserve}, text: "fields beyond the schemas are observed", fn: func(t *T) {
			item, errs := s.extraFields(coll)
			t.observe(fmt.Sprintf("fields of %s items beyond the schema", coll.Name), orNone(strings.Join(item, ", ")))
			t.observe(fmt.Sprintf("fields of %s error bodies beyond the schema", coll.Name), orNone(strings.Join(errs, ", ")))
		}})
	}
}

func shortExcerpt(s *suite, ex *Exchange) string {
	e := s.excerpt(ex)
	if len(e) > 120 {
		e = e[:120] + "…"
	}
	return e
}

func listOrder(coll *spec.Collection, got []map[string]any) string {
	if len(got) < 2 {
		return fmt.Sprintf("not observable: %d items listed", len(got))
	}
	asc, desc := true, true
	for i := 1; i < len(got); i++ {
		c := compareIDs(got[i-1][coll.IDField], got[i][coll.IDField])
		asc = asc && c < 0
		desc = desc && c > 0
	}
	switch {
	case asc:
		return fmt.Sprintf("ascending by %s (%d items)", coll.IDField, len(got))
	case desc:
		return fmt.Sprintf("descending by %s, newest first (%d items)", coll.IDField, len(got))
	}
	return fmt.Sprintf("not ordered by %s (%d items)", coll.IDField, len(got))
}

func compareIDs(a, b any) int {
	x, y := scalarString(a), scalarString(b)
	xi, errx := strconv.ParseInt(x, 10, 64)
	yi, erry := strconv.ParseInt(y, 10, 64)
	if errx == nil && erry == nil {
		switch {
		case xi < yi:
			return -1
		case xi > yi:
			return 1
		}
		return 0
	}
	return strings.Compare(x, y)
}

var paginationHeader = regexp.MustCompile(`(?i)link|total|next|prev|cursor|page|offset|continuation|more`)

func paginationHints(h map[string][]string) string {
	var found []string
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if paginationHeader.MatchString(k) {
			found = append(found, k+": "+strings.Join(h[k], ", "))
		}
	}
	if len(found) == 0 {
		return "none shown in the headers; the body is a bare array"
	}
	return strings.Join(found, "; ")
}

// extraFields lists the fields the run's responses of coll held beyond
// the item schema and the error schema.
func (s *suite) extraFields(coll *spec.Collection) (item, errs []string) {
	declared := map[string]bool{}
	for _, f := range coll.Fields {
		declared[f.Name] = true
	}
	errDeclared := map[string]bool{}
	if es := s.spec.ErrorSchema(); es != nil {
		names, _, _ := spec.ObjectProperties(es)
		for _, n := range names {
			errDeclared[n] = true
		}
	}
	itemSet, errSet := map[string]bool{}, map[string]bool{}
	for _, op := range []*spec.Operation{coll.List, coll.Create, coll.Read} {
		if op == nil {
			continue
		}
		for _, ex := range s.exchangesFor(op) {
			switch v := decodeJSON(ex.Body).(type) {
			case []any:
				if ex.Status < 300 {
					for _, it := range v {
						if obj, ok := it.(map[string]any); ok {
							for _, k := range extraFields(obj, declared) {
								itemSet[k] = true
							}
						}
					}
				}
			case map[string]any:
				set, decl := itemSet, declared
				if ex.Status >= 400 {
					set, decl = errSet, errDeclared
				}
				for _, k := range extraFields(v, decl) {
					set[k] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(itemSet)), slices.Sorted(maps.Keys(errSet))
}

// extraFields lists the properties of obj the schema does not declare.
func extraFields(obj map[string]any, declared map[string]bool) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !declared[k] {
			out = append(out, k)
		}
	}
	return out
}
