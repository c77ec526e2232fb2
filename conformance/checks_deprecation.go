package conformance

// The deprecation checks. A deprecated operation with a removal date
// carries Deprecation (RFC 9745) and Sunset (RFC 8594) on its own answers
// (2xx, 404, 400, …); on its refusals of credentials, which a gateway often
// gives before the operation is reached, the headers are recorded, not
// required. For an operation that is only deprecated: true the headers are
// recorded. An operation past its removal date is gone; one not deprecated
// carries neither header.

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

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
		case op.Deprecated && op.Sunset.IsZero():
			add(&check{group: groupDeprecation, op: op, labels: []string{labelObserve},
				text: "its Deprecation and Sunset headers are observed (deprecated without a removal date, the document requires neither)",
				fn: func(t *T) {
					exs := t.answers(op)
					t.observe(fmt.Sprintf("Deprecation of %s", op.ID), headerSeen(exs, "Deprecation"))
					t.observe(fmt.Sprintf("Sunset of %s", op.ID), headerSeen(exs, "Sunset"))
				}})
		case op.Deprecated:
			text := fmt.Sprintf("every answer of its own carries Deprecation as @ and Unix seconds (RFC 9745), no later than the removal date, %s", op.Sunset.Format(dateText))
			add(&check{group: groupDeprecation, op: op, text: text, fn: func(t *T) {
				t.everyOwnAnswer(op, "Deprecation as @ and Unix seconds (RFC 9745)", "Deprecation", func(ex *Exchange) string { return deprecationProblem(ex, op) })
			}})
			sunset := op.Sunset.UTC().Format(http.TimeFormat)
			add(&check{group: groupDeprecation, op: op, text: fmt.Sprintf("every answer of its own carries Sunset: %s (RFC 8594)", sunset), fn: func(t *T) {
				t.everyOwnAnswer(op, "Sunset: "+sunset+" (RFC 8594)", "Sunset", func(ex *Exchange) string { return sunsetProblem(ex, op) })
			}})
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
	req := t.s.validRequest(op, authKey)
	if r, ro := t.s.resourceOf(op); ro != nil && ro.Kind == spec.KindRead && r.Op(spec.KindList) != nil {
		if l := t.listing(r); l.err == "" && len(l.items) > 0 {
			if id := idOfItem(r, l.items[0]); id != "" {
				for k, v := range l.parents {
					req.path[k] = v
				}
				req.path[r.IDParam] = id
			}
		}
	} else if r != nil {
		t.parents(r, req)
	}
	return req
}

// answers are the responses of op the run has seen, after making sure
// there is a successful one when a safe request can get it.
func (t *T) answers(op *spec.Operation) []*Exchange {
	s := t.s
	seenOK := false
	for _, ex := range s.exchangesFor(op) {
		seenOK = seenOK || ex.Status < 300
	}
	if !seenOK && safe(op) && s.access[op].missing == "" {
		if ex, err := t.try(t.requestWithListedID(op)); err == nil {
			t.notImplemented(ex)
		}
	}
	exs := s.exchangesFor(op)
	if len(exs) == 0 {
		t.skipf("no response of %s was seen: its checks were skipped or not selected", op.ID)
	}
	return exs
}

// everyResponse judges every response of op the run has seen.
func (t *T) everyResponse(op *spec.Operation, want string, problem func(*Exchange) string) {
	t.judgeAll(t.answers(op), fmt.Sprintf("every response of %s carries %s", op.ID, want), problem)
}

// everyOwnAnswer judges the answers of op that are its own, not refusals
// of credentials (401, 403); what those carry of header is recorded.
func (t *T) everyOwnAnswer(op *spec.Operation, want, header string, problem func(*Exchange) string) {
	var own, refusals []*Exchange
	for _, ex := range t.answers(op) {
		if ex.Status == http.StatusUnauthorized || ex.Status == http.StatusForbidden {
			refusals = append(refusals, ex)
		} else {
			own = append(own, ex)
		}
	}
	if len(refusals) > 0 {
		t.observe(fmt.Sprintf("%s on the refusals of credentials of %s", header, op.ID), headerSeen(refusals, header))
	}
	if len(own) == 0 {
		t.skipf("no answer of %s's own was seen, only refusals of credentials", op.ID)
	}
	t.judgeAll(own, fmt.Sprintf("every answer of %s's own carries %s", op.ID, want), problem)
}

// headerSeen summarises a header over responses: its values and on how
// many it was, or that none carried it.
func headerSeen(exs []*Exchange, name string) string {
	n := 0
	var values []string
	for _, ex := range exs {
		if vs := ex.Header.Values(name); len(vs) > 0 {
			n++
			v := strings.Join(vs, ", ")
			if !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	if n == 0 {
		return fmt.Sprintf("absent from all %d responses", len(exs))
	}
	return fmt.Sprintf("%s on %d of %d responses", strings.Join(values, " | "), n, len(exs))
}

var rfc9745 = regexp.MustCompile(`^@-?[0-9]+$`)

// deprecationProblem checks the Deprecation header of a response to a
// deprecated operation: RFC 9745's "@" and Unix seconds, no later than the
// removal date when the document gives one.
func deprecationProblem(ex *Exchange, op *spec.Operation) string {
	vs := ex.Header.Values("Deprecation")
	switch {
	case len(vs) == 0:
		return "no Deprecation header"
	case len(vs) > 1:
		return fmt.Sprintf("%d Deprecation headers, want one", len(vs))
	}
	v := strings.TrimSpace(vs[0])
	if strings.EqualFold(v, "true") {
		example := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if !op.DeprecatedAt.IsZero() {
			example = op.DeprecatedAt
		}
		return fmt.Sprintf("Deprecation: true is the expired draft's form; RFC 9745 wants @ and Unix seconds, such as @%d", example.Unix())
	}
	if !rfc9745.MatchString(v) {
		return fmt.Sprintf("Deprecation: %s is not RFC 9745's @ and Unix seconds", v)
	}
	secs, err := strconv.ParseInt(v[1:], 10, 64)
	if err != nil {
		return fmt.Sprintf("Deprecation: %s is out of range", v)
	}
	if !op.Sunset.IsZero() && secs > op.Sunset.Unix() {
		return fmt.Sprintf("Deprecation: %s (%s) is after the removal date %s", v, time.Unix(secs, 0).UTC().Format(time.RFC3339), op.Sunset.Format(time.DateOnly))
	}
	return ""
}

// sunsetProblem checks the Sunset header: RFC 8594's IMF-fixdate, equal to
// the removal date in the document.
func sunsetProblem(ex *Exchange, op *spec.Operation) string {
	vs := ex.Header.Values("Sunset")
	want := op.Sunset.UTC().Format(http.TimeFormat)
	switch {
	case len(vs) == 0:
		return "no Sunset header, want Sunset: " + want
	case len(vs) > 1:
		return fmt.Sprintf("%d Sunset headers, want one", len(vs))
	}
	v := strings.TrimSpace(vs[0])
	t, err := time.Parse(http.TimeFormat, v)
	if err != nil || t.Format(http.TimeFormat) != v {
		return fmt.Sprintf("Sunset: %s is not an IMF-fixdate (RFC 8594 via RFC 9110), want Sunset: %s", v, want)
	}
	if !t.Equal(op.Sunset) {
		return fmt.Sprintf("Sunset: %s, want %s (the removal date in the document)", v, want)
	}
	return ""
}
