package conformance

// The response checks judge every response the run saw, by the document
// alone: a success by the status, media type and schema declared for it;
// an error by the media type and schema the document declares for that
// operation and status (or its default), and a status field by the HTTP
// status. An error status the document does not declare is recorded, and
// judged only by the check that expected another status: the document's
// declared responses are what makes it wrong, never petctl's conventions.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

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
		if !declaresErrorBody(op) {
			continue // no error of op has a format to judge
		}
		add(&check{group: groupResponses, op: op, always: true, labels: []string{labelShape},
			text: "every error response has the media type and schema the document declares for its status", fn: func(t *T) {
				var errs []*Exchange
				for _, ex := range s.exchangesFor(op) {
					if ex.Status >= 400 && s.spec.ErrorFormat(op, ex.Status).Declared {
						errs = append(errs, ex)
					}
				}
				if len(errs) == 0 {
					t.skipf("no error response of %s that the document declares a body for was seen", op.ID)
				}
				t.judgeAll(errs, "every error response is in the format the document declares for it", func(ex *Exchange) string {
					return strings.Join(ex.shapeProblems, "; ")
				})
			}})
	}
}

// judge applies the response checks to an exchange when it arrives; the
// "responses" checks at the end of the run report what they found. Each
// departure is reported once, by the most specific check: an error body is
// the error-shape check's, a success the schema check's.
func (s *suite) judge(ex *Exchange) {
	op := ex.Op
	switch {
	case ex.Truncated:
		ex.schemaProblems = []string{fmt.Sprintf("body: larger than %d bytes; not read in full (--max-response-bytes raises the bound)", s.client.maxBody)}
	case s.removed(op):
		// The operation is gone; the deprecation check expects 404 or 410.
	case !op.Declares(ex.Status) && ex.Status >= 400:
		// Not declared, so not wrong by the document: the check that
		// expected another status says so, and the report records it.
		ex.notes = append(ex.notes, fmt.Sprintf("status %d of %s, which the document does not declare", ex.Status, op.ID))
	case ex.Status >= 400:
		ex.shapeProblems = s.errorProblems(ex)
	default:
		for _, p := range s.val.Response(ex.httpReq, op, ex.Status, ex.Header, ex.Body) {
			if text := p.String(); !strings.Contains(text, "'"+formatProbe) {
				// A value the run sent to break only a format, kept and
				// answered back, is no departure of the deployment's: the
				// format is no assertion (mutation.format).
				ex.schemaProblems = append(ex.schemaProblems, text)
			}
		}
	}
}

// errorProblems judges an error response by the format the document
// declares for its operation and status: the media type, the schema, and
// the field its name (or configuration) says carries the status, which
// must be the HTTP status.
func (s *suite) errorProblems(ex *Exchange) []string {
	f := s.spec.ErrorFormat(ex.Op, ex.Status)
	if !f.Declared {
		return nil // declared without a body: nothing to judge
	}
	var out []string
	for _, p := range s.val.Response(ex.httpReq, ex.Op, ex.Status, ex.Header, ex.Body) {
		out = append(out, p.String())
	}
	if len(out) > 0 || !spec.IsJSON(f.MediaType) {
		return out
	}
	obj, _ := decodeJSON(ex.Body).(map[string]any)
	path := f.HeldStatusField()
	if v := at(obj, path); v != nil && scalarString(v) != strconv.Itoa(ex.Status) {
		out = append(out, fmt.Sprintf("%s is %s, want %d (the HTTP status)", strings.Join(path, "."), jsonText(v, s.client.redact), ex.Status))
	}
	return out
}

// declaresErrorBody reports whether op declares a body for an error: a
// 4xx or 5xx response (exact, by range or default) with content.
func declaresErrorBody(op *spec.Operation) bool {
	resps := op.Responses
	if op.Default != nil {
		resps = append(slices.Clone(resps), op.Default)
	}
	for _, r := range resps {
		if len(r.MediaTypes) > 0 && (r.Status >= 400 || r.Status == 0) {
			return true
		}
	}
	return false
}
