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
	"unicode/utf8"

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
	for _, r := range s.spec.Resources {
		lo := r.Op(spec.KindList)
		if lo == nil || r.IDField == "" && r.SelfField == "" {
			continue
		}
		op := lo.Op
		add(&check{group: groupObserve, op: op, labels: []string{labelObserve}, text: "the order of the list is observed", fn: func(t *T) {
			l := t.listing(r)
			if l.err != "" {
				t.skipf("no list to observe: %s", l.err)
			}
			t.observe(r.Name+" order", listOrder(r, l.items))
		}})
		if r.List.Paging == "none" || r.List.Paging == "limit" {
			// Pagination beyond the page size the document does not show.
			add(&check{group: groupObserve, op: op, labels: []string{labelObserve}, text: "pagination beyond the limit is observed", fn: func(t *T) {
				l := t.listing(r)
				if l.err != "" {
					t.skipf("no list to observe: %s", l.err)
				}
				t.observe(r.Name+" pagination beyond the limit", paginationHints(l.ex.Header))
			}})
		}
		add(&check{group: groupObserve, op: op, labels: []string{labelObserve}, text: "fields beyond the schemas are observed", fn: func(t *T) {
			item, errs := s.extraFields(r)
			t.observe(fmt.Sprintf("fields of %s items beyond the schema", r.Name), orNone(strings.Join(item, ", ")))
			t.observe(fmt.Sprintf("fields of %s error bodies beyond the schema", r.Name), orNone(strings.Join(errs, ", ")))
		}})
	}
}

func shortExcerpt(s *suite, ex *Exchange) string {
	e := s.excerpt(ex)
	if len(e) > 120 {
		n := 120
		for n > 0 && !utf8.RuneStart(e[n]) {
			n-- // never through a character
		}
		e = e[:n] + "…"
	}
	return e
}

func listOrder(r *spec.Resource, got []map[string]any) string {
	if len(got) < 2 {
		return fmt.Sprintf("not observable: %d items listed", len(got))
	}
	field := r.IDField
	if field == "" {
		field = r.SelfField
	}
	asc, desc := true, true
	for i := 1; i < len(got); i++ {
		c := compareIDs(idOfItem(r, got[i-1]), idOfItem(r, got[i]))
		asc = asc && c < 0
		desc = desc && c > 0
	}
	switch {
	case asc:
		return fmt.Sprintf("ascending by %s (%d items)", field, len(got))
	case desc:
		return fmt.Sprintf("descending by %s, newest first (%d items)", field, len(got))
	}
	return fmt.Sprintf("not ordered by %s (%d items)", field, len(got))
}

// compareIDs orders two ids: as integers when both are, else as text.
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

// extraFields lists the fields the run's responses of r held beyond the
// item schema, and the error bodies beyond the error schema the document
// declares for them.
func (s *suite) extraFields(r *spec.Resource) (item, errs []string) {
	declared := map[string]bool{}
	props, _ := r.Item.Props()
	for _, p := range props {
		declared[p.Name] = true
	}
	itemSet, errSet := map[string]bool{}, map[string]bool{}
	for _, ro := range r.Ops {
		for _, ex := range s.exchangesFor(ro.Op) {
			switch {
			case ex.Status >= 400:
				f := s.spec.ErrorFormat(ro.Op, ex.Status)
				obj, ok := decodeJSON(ex.Body).(map[string]any)
				if !f.Declared || f.Schema == nil || !ok {
					continue
				}
				errDeclared := map[string]bool{}
				eprops, _ := f.Schema.Props()
				for _, p := range eprops {
					errDeclared[p.Name] = true
				}
				for _, k := range extraFields(obj, errDeclared) {
					errSet[k] = true
				}
			case ex.Status < 300 && ro.Kind == spec.KindList:
				items, _ := listItems(r, ex)
				for _, it := range items {
					for _, k := range extraFields(it, declared) {
						itemSet[k] = true
					}
				}
			case ex.Status < 300:
				for _, k := range extraFields(itemOf(ro, ex.Body), declared) {
					itemSet[k] = true
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
