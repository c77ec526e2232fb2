package conformance

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

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

func describeField(obj map[string]any, name string, redact func(string) string) string {
	v, ok := obj[name]
	if !ok {
		return "missing"
	}
	return jsonText(v, redact)
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

// extraFields lists the properties of obj the schema does not declare.
func extraFields(obj map[string]any, declared map[string]bool) []string {
	var out []string
	for _, k := range sortedKeys(obj) {
		if !declared[k] {
			out = append(out, k)
		}
	}
	return out
}
