package conformance

// The checks that judge responses already seen (deprecation headers, the
// response checks) and those that record open behaviour.

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// ---- deprecation

func (s *suite) deprecationChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		switch {
		case op.Deprecated && s.removed(op):
			want := []int{http.StatusNotFound, http.StatusGone}
			add(&check{group: groupDeprecation, op: op,
				text: fmt.Sprintf("removed on %s: the operation is gone (404 or 410)", op.Sunset.Format(dateText)),
				fn: func(t *T) {
					ex := t.send(t.requestWithListedID(op))
					t.expectStatus(ex, want, fmt.Sprintf("404 or 410: %s was removed on %s (judged by %s)", op.ID, op.Sunset.Format(dateText), s.now.Format(dateText)))
				}})
		case op.Deprecated:
			text := "every response carries Deprecation as @ and Unix seconds (RFC 9745)"
			if !op.Sunset.IsZero() {
				text += fmt.Sprintf(", no later than the removal date, %s", op.Sunset.Format(dateText))
			}
			add(&check{group: groupDeprecation, op: op, text: text, fn: func(t *T) {
				t.everyResponse(op, "Deprecation as @ and Unix seconds (RFC 9745)", func(ex *Exchange) string { return deprecationProblem(ex, op) })
			}})
			if !op.Sunset.IsZero() {
				sunset := op.Sunset.UTC().Format(http.TimeFormat)
				add(&check{group: groupDeprecation, op: op, text: fmt.Sprintf("every response carries Sunset: %s (RFC 8594)", sunset), fn: func(t *T) {
					t.everyResponse(op, "Sunset: "+sunset+" (RFC 8594)", func(ex *Exchange) string { return sunsetProblem(ex, op) })
				}})
			}
		default:
			add(&check{group: groupDeprecation, op: op, text: "no response carries Deprecation or Sunset (the operation is not deprecated)", fn: func(t *T) {
				t.everyResponse(op, "no Deprecation or Sunset header", func(ex *Exchange) string {
					var found []string
					for _, h := range []string{"Deprecation", "Sunset"} {
						// Presence, not value: an empty header is still sent.
						if vs := ex.Header.Values(h); len(vs) > 0 {
							found = append(found, fmt.Sprintf("%s: %q", h, strings.Join(vs, ", ")))
						}
					}
					if len(found) > 0 {
						return strings.Join(found, ", ")
					}
					return ""
				})
			}})
		}
	}
}

// requestWithListedID is a valid request to op with, for a read, the id
// of a listed item when there is one.
func (t *T) requestWithListedID(op *spec.Operation) *request {
	r := t.s.validRequest(op, authKey)
	if coll := t.s.spec.Collection(op); coll != nil && coll.Read == op && coll.List != nil {
		if l := t.listing(coll); l.err == "" && len(l.items) > 0 {
			if id := scalarString(l.items[0][coll.IDField]); id != "" {
				r.path[coll.IDParam] = id
			}
		}
	}
	return r
}

// everyResponse judges every response of op the run has seen, after making
// sure there is a successful one when a safe request can get it.
func (t *T) everyResponse(op *spec.Operation, want string, problem func(*Exchange) string) {
	s := t.s
	seenOK := false
	for _, ex := range s.exchangesFor(op) {
		seenOK = seenOK || ex.Status < 300
	}
	if !seenOK && safe(op) {
		t.send(t.requestWithListedID(op))
	}
	exs := s.exchangesFor(op)
	if len(exs) == 0 {
		t.skipf("no response of %s was seen: its checks were skipped or not selected", op.ID)
	}
	t.judgeAll(exs, fmt.Sprintf("every response of %s carries %s", op.ID, want), problem)
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
	list := bad
	if len(list) > 8 {
		list = append(list[:8:8], fmt.Sprintf("and %d more", len(bad)-8))
	}
	t.failf(first, "%s; %d of %d responses do not:\n    - %s\n  the first of them:", want, len(bad), len(exs), strings.Join(list, "\n    - "))
}

// ---- observe

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
	for _, k := range sortedKeys(h) {
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
	return sortedKeys(itemSet), sortedKeys(errSet)
}

// ---- responses

func (s *suite) responseChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		add(&check{group: groupResponses, op: op, always: true, labels: []string{labelSchema},
			text: "every response matches the document (declared status, content type, body schema)", fn: func(t *T) {
				exs := s.exchangesFor(op)
				if len(exs) == 0 {
					t.skipf("no response of %s was seen: its checks were skipped or not selected", op.ID)
				}
				t.judgeAll(exs, "every response matches the document", func(ex *Exchange) string {
					return strings.Join(ex.schemaProblems, "; ")
				})
			}})
		add(&check{group: groupResponses, op: op, always: true, labels: []string{labelShape},
			text: "every error response is the Error body: application/json, code, message, status equal to the HTTP status", fn: func(t *T) {
				var errs []*Exchange
				for _, ex := range s.exchangesFor(op) {
					if ex.Status >= 400 {
						errs = append(errs, ex)
					}
				}
				if len(errs) == 0 {
					t.skipf("no error response of %s was seen", op.ID)
				}
				t.judgeAll(errs, "every error response is the Error body", func(ex *Exchange) string {
					return strings.Join(ex.shapeProblems, "; ")
				})
			}})
	}
}
