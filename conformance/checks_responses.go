package conformance

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
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

// judge applies the response checks to an exchange when it arrives; the
// "responses" checks at the end of the run report what they found. Each
// departure is reported once, by the most specific check: an error body
// that is not the Error shape is the error-shape check's, not the schema's.
func (s *suite) judge(ex *Exchange) {
	if ex.Status >= 400 {
		ex.shapeProblems = errorShape(ex, s.client.redact)
	}
	ex.schemaProblems = s.schemaProblems(ex)
}

func (s *suite) schemaProblems(ex *Exchange) []string {
	op := ex.Op
	if ex.Truncated {
		return []string{fmt.Sprintf("body: larger than %d bytes; not read in full", MaxBodyBytes)}
	}
	if s.removed(op) {
		return nil // the operation is gone; the deprecation check expects 404 or 410
	}
	if (ex.Status == http.StatusTooManyRequests || ex.Status >= 500) && !op.Declares(ex.Status) {
		// "Other status codes (for example for rate limiting or server
		// failure): not shown": the checks that expect a status judge these.
		return nil
	}
	var out []string
	for _, p := range s.val.Response(ex.httpReq, op, ex.Status, ex.Header, ex.Body) {
		if ex.Status >= 400 && len(ex.shapeProblems) > 0 && p.Where != "status" {
			continue
		}
		out = append(out, p.String())
	}
	return out
}

// errorShape checks an error response: application/json with code (a
// non-empty string), message (a string) and status (an integer equal to
// the HTTP status).
func errorShape(ex *Exchange, redact func(string) string) []string {
	ct := ex.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !strings.EqualFold(mt, spec.JSON) {
		return []string{fmt.Sprintf("Content-Type is %q, want application/json", ct)}
	}
	obj, ok := decodeJSON(ex.Body).(map[string]any)
	if !ok {
		if len(strings.TrimSpace(string(ex.Body))) == 0 {
			return []string{"the body is empty, want the Error object"}
		}
		return []string{"the body is not a JSON object"}
	}
	var out []string
	switch code, ok := obj["code"].(string); {
	case !ok:
		out = append(out, fmt.Sprintf("code is %s, want a string", describeField(obj, "code", redact)))
	case code == "":
		out = append(out, "code is empty")
	}
	if _, ok := obj["message"].(string); !ok {
		out = append(out, fmt.Sprintf("message is %s, want a string", describeField(obj, "message", redact)))
	}
	n, ok := obj["status"].(json.Number)
	i, err := strconv.ParseInt(string(n), 10, 64)
	switch {
	case !ok || err != nil:
		out = append(out, fmt.Sprintf("status is %s, want the integer %d", describeField(obj, "status", redact), ex.Status))
	case i != int64(ex.Status):
		out = append(out, fmt.Sprintf("status is %d, want %d (the HTTP status)", i, ex.Status))
	}
	return out
}
