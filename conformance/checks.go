package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// The groups of checks, in the order they run. Checks that create records
// come before the pagination checks, which may need more records; the
// checks that judge every response seen come last.
const (
	groupAuth        = "auth"
	groupCreate      = "create"
	groupRead        = "read"
	groupPagination  = "pagination"
	groupFilters     = "filters"
	groupDeprecation = "deprecation"
	groupObserve     = "observe"
	groupResponses   = "responses"
)

// Labels besides the groups and the operation ids.
const (
	labelWrite   = "write"   // the check sends a request that may create a record
	labelObserve = "observe" // the check records open behaviour and passes
	labelSchema  = "schema"
	labelShape   = "error-shape"
)

var labelUnsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// opLabel is an operation id usable as a Ginkgo label.
func opLabel(op *spec.Operation) string {
	l := strings.Trim(labelUnsafe.ReplaceAllString(op.ID, "-"), "-")
	if l == "" {
		l = "operation"
	}
	return l
}

// catalogue enumerates the checks from the document, in a fixed order: the
// same document gives the same checks sending the same requests.
func (s *suite) catalogue() []*check {
	var out []*check
	add := func(c *check) {
		c.labels = append([]string{c.group, opLabel(c.op)}, c.labels...)
		if c.writes {
			c.labels = append(c.labels, labelWrite)
		}
		out = append(out, c)
	}
	s.authChecks(add)
	for _, coll := range s.spec.Collections {
		s.createChecks(coll, add)
	}
	for _, coll := range s.spec.Collections {
		s.readChecks(coll, add)
	}
	for _, coll := range s.spec.Collections {
		s.paginationChecks(coll, add)
	}
	for _, coll := range s.spec.Collections {
		s.filterChecks(coll, add)
	}
	s.deprecationChecks(add)
	s.observeChecks(add)
	s.responseChecks(add)
	return out
}

func safe(op *spec.Operation) bool {
	return op.Method == http.MethodGet || op.Method == http.MethodHead || op.Method == http.MethodOptions
}

// validRequest is a request to op the document accepts: path parameters
// from their schemas (the sample id for a read), required query
// parameters, and a body with every field, named after the run.
func (s *suite) validRequest(op *spec.Operation, mode authMode) *request {
	r := &request{op: op, auth: mode, path: map[string]string{}, query: url.Values{}}
	coll := s.spec.Collection(op)
	for _, p := range op.Params {
		switch p.In {
		case "path":
			if coll != nil && coll.Read == op && p.Name == coll.IDParam {
				r.path[p.Name] = sampleID(coll)
			} else {
				r.path[p.Name] = scalarString(sample(p.Schema, "petctl-conform", 0))
			}
		case "query":
			if p.Required {
				r.query.Set(p.Name, scalarString(sample(p.Schema, "petctl-conform", 0)))
			}
		}
	}
	if op.Body != nil && op.Body.Schema != nil {
		r.recordName = s.nextName()
		r.body = marshal(sample(op.Body.Schema, r.recordName, 0))
	}
	return r
}

func sampleID(c *spec.Collection) string {
	if f := c.Field(c.IDField); f != nil && f.Schema != nil && strings.EqualFold(f.Schema.Format, "uuid") {
		return sampleUUID
	}
	return "1"
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

func notFoundStatuses(op *spec.Operation) []int {
	if op.Response(http.StatusNotFound) != nil {
		return []int{http.StatusNotFound}
	}
	return []int{http.StatusNotFound, http.StatusGone}
}

func statusList(ss []int) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, " or ")
}

// ---- auth

func (s *suite) authChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		if !op.Secured() {
			continue
		}
		kinds := map[string]bool{}
		for _, name := range firstAlternative(op) {
			kinds[s.schemes[name].kind] = true
		}
		type authCase struct {
			mode authMode
			text string
		}
		cases := []authCase{{authNone, "without credentials gives 401"}}
		if kinds["bearer"] {
			cases = append(cases, authCase{authEmpty, "with an empty bearer token gives 401"}, authCase{authOtherScheme, "with another scheme (Basic) gives 401"})
		} else if kinds["header"] || kinds["query"] || kinds["cookie"] {
			cases = append(cases, authCase{authEmpty, "with an empty key gives 401"})
		}
		if len(kinds) > 0 && !kinds[""] {
			cases = append(cases, authCase{authWrongKey, "with a wrong key gives 401"})
		}
		for _, ac := range cases {
			add(&check{group: groupAuth, op: op, text: ac.text, writes: !safe(op), fn: func(t *T) {
				r := s.validRequest(op, ac.mode)
				ex := t.send(r)
				want := []int{http.StatusUnauthorized}
				what := "401: the request must be refused"
				if s.removed(op) {
					want = []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusGone}
					what = fmt.Sprintf("401, or 404 or 410 since %s was removed on %s", op.ID, op.Sunset.Format(dateText))
				}
				t.expectStatus(ex, want, what)
			}})
		}
	}
}

// dateText is how dates read in check names and messages.
const dateText = "2 January 2006"
