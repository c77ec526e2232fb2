package spec

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestErrorFormats: each operation's error is written in the format it
// declares, its fields filled by meaning, and valid against the document.
func TestErrorFormats(t *testing.T) {
	s, err := Load(styles + "errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	e := ErrorFields{Code: "not_found", Message: "pets: no item has petId 7", Instance: "/errs/problems/7", Now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	tests := []struct {
		op        string
		status    int
		mediaType string
		want      string // the body, or a JSON fragment of it
	}{
		{"problemJSON", 404, "application/problem+json", `{"type":"about:blank","title":"Not Found","status":404,"detail":"pets: no item has petId 7","instance":"/errs/problems/7"}`},
		{"problemJSON", 401, "application/problem+json", `"title":"Unauthorized","status":401`},
		{"nestedError", 404, JSON, `{"error":{"code":404,"status":"Not Found","message":"pets: no item has petId 7","reason":"not_found"}}`},
		{"plainText", 401, "text/plain", `pets: no item has petId 7`},
		{"plainText", 404, "text/plain", `pets: no item has petId 7`},
		{"otherNames", 422, JSON, `"errorCode":"NOT_FOUND","errorMessage":"pets: no item has petId 7","httpStatus":422,"timestamp":"2030-01-02T03:04:05Z"`},
		{"otherNames", 401, JSON, `"errorCode":"NOT_FOUND"`},
		{"noErrorBody", 401, "application/problem+json", `"status":401`},
		// The field named message takes the message, though error comes
		// first; error is then the code.
		{"errorAndMessage", 404, JSON, `{"status":404,"error":"not_found","message":"pets: no item has petId 7"}`},
	}
	for _, tc := range tests {
		op := s.Operation(tc.op)
		f := s.ErrorFormat(op, tc.status)
		e.Status = tc.status
		body := f.Body(e)
		if f.MediaType != tc.mediaType || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s %d: %s %s, want %s with %s", tc.op, tc.status, f.MediaType, body, tc.mediaType, tc.want)
		}
		if !f.Declared && op.Response(tc.status) != nil && len(op.Response(tc.status).MediaTypes) > 0 {
			t.Errorf("%s %d: not declared, but the operation declares it", tc.op, tc.status)
		}
		if !op.Declares(tc.status) {
			continue
		}
		r := httptest.NewRequest(op.Method, "http://x/errs"+op.Path, nil)
		h := http.Header{"Content-Type": {f.MediaType}}
		if ps := v.Response(r, op, tc.status, h, body); len(ps) > 0 {
			t.Errorf("%s %d: %s is not valid: %v", tc.op, tc.status, body, ps)
		}
	}
	if got := s.Operation("otherNames").ValidationStatus(); got != 422 {
		t.Errorf("otherNames answers validation failures with %d, want 422 (it declares no 400)", got)
	}
	if got := s.Operation("problemJSON").ValidationStatus(); got != 400 {
		t.Errorf("problemJSON answers validation failures with %d, want 400", got)
	}
}

// TestErrorFieldMap: configuration names the fields petctl cannot read.
func TestErrorFieldMap(t *testing.T) {
	s, err := Load(styles + "errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.SetErrorFields(FieldMap{"message": "error.request", "code": "error.status"})
	body := s.ErrorFormat(s.Operation("nestedError"), 409).Body(ErrorFields{Status: 409, Code: "conflict", Message: "taken"})
	var got struct{ Error map[string]any }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Error["request"] != "taken" || got.Error["status"] != "conflict" || got.Error["code"] != float64(409) {
		t.Errorf("body %s, want message in error.request and code in error.status", body)
	}
}

// TestPetctlErrorFormat: a document that declares no error body gets
// petctl's {code, message, status}.
func TestPetctlErrorFormat(t *testing.T) {
	s, err := Parse([]byte(`openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /x:
    get:
      responses:
        '200': {description: ok}
`), "no-errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := s.ErrorFormat(s.Operations[0], 404)
	want := `{"code":"route_not_found","message":"no","status":404}`
	if body := string(f.Body(ErrorFields{Status: 404, Code: "route_not_found", Message: "no"})); f.Schema != nil || body != want {
		t.Errorf("body %s, want %s", body, want)
	}
}

// TestErrorBodyFitsSchema: a field's value is fitted to its schema (a text
// type's maxLength, a status out of bounds, a format the text breaks, a
// const), fields keep the schema's order, and <, > and & are written as
// they are.
func TestErrorBodyFitsSchema(t *testing.T) {
	s, err := Parse([]byte(`openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /x:
    get:
      operationId: getX
      responses:
        '200': {description: ok}
        '404':
          description: Not found.
          content:
            text/plain:
              schema: {type: string, maxLength: 12}
        default:
          description: Error.
          content:
            application/json:
              schema:
                type: object
                required: [status, message, instance, kind, when]
                properties:
                  status: {type: integer, minimum: 100, maximum: 299}
                  message: {type: string}
                  instance: {type: string, format: uri}
                  kind: {type: string, const: failure}
                  when: {type: string, format: date}
`), "fit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	op := s.Operation("getX")
	e := ErrorFields{Code: "not_found", Message: "send it as <API_KEY> & more", Instance: "/x", Now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	tests := []struct {
		status    int
		mediaType string
		want      string
	}{
		{404, "text/plain", "send it as <"},
		{400, JSON, `{"status":100,"message":"send it as <API_KEY> & more","instance":"https://example.com/0","kind":"failure","when":"2025-01-01"}`},
	}
	for _, tc := range tests {
		f := s.ErrorFormat(op, tc.status)
		e.Status = tc.status
		body := f.Body(e)
		if f.MediaType != tc.mediaType || string(body) != tc.want {
			t.Errorf("%d: %s %s, want %s %s", tc.status, f.MediaType, body, tc.mediaType, tc.want)
		}
		r := httptest.NewRequest(op.Method, "http://x/x", nil)
		if ps := v.Response(r, op, tc.status, http.Header{"Content-Type": {f.MediaType}}, body); len(ps) > 0 {
			t.Errorf("%d: %s is not valid: %v", tc.status, body, ps)
		}
	}
	if got, want := fmt.Sprint(s.ErrorFormat(op, 400).Slots()), "map[code:kind instance:instance message:message status:status]"; got != want {
		t.Errorf("slots %s, want %s", got, want)
	}
	own := ErrorFormat{MediaType: JSON}
	if got, want := string(own.Body(e)), `{"code":"not_found","message":"send it as <API_KEY> & more","status":400}`; got != want {
		t.Errorf("petctl's own body %s, want %s", got, want)
	}
}

// TestNearestEnumOrder: the member that is the code or status first, then
// one sharing a word with the code (the example's among them first), then
// the example, then a word of the status's text, then the first member.
func TestNearestEnumOrder(t *testing.T) {
	enum := []any{"api_key_already_exists", "api_key_not_found", "bad_request", "index_not_found", "invalid_json", "validation_error", "missing_authorization_header"}
	tests := []struct {
		code    string
		status  int
		example string
		want    any
	}{
		{"validation_failed", 400, "invalid_json", "bad_request"},                             // the status's text is a member
		{"validation_failed", 422, "invalid_json", "validation_error"},                        // a word of the code beats the example
		{"not_found", 404, "index_not_found", "index_not_found"},                              // the example among the members sharing a word
		{"not_found", 404, "", "api_key_not_found"},                                           // the first of them without one
		{"unauthorized", 401, "missing_authorization_header", "missing_authorization_header"}, // no word shared: the example
		{"unauthorized", 401, "", "api_key_already_exists"},                                   // nothing at all: the first
	}
	for _, tc := range tests {
		if got := nearestEnum(enum, tc.code, tc.status, tc.example); got != tc.want {
			t.Errorf("%s %d (example %q): %v, want %v", tc.code, tc.status, tc.example, got, tc.want)
		}
	}
}
