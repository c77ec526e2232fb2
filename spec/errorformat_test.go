package spec

import (
	"encoding/json"
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
		{"problemJSON", 404, "application/problem+json", `{"detail":"pets: no item has petId 7","instance":"/errs/problems/7","status":404,"title":"Not Found","type":"about:blank"}`},
		{"problemJSON", 401, "application/problem+json", `"status":401,"title":"Unauthorized"`},
		{"nestedError", 404, JSON, `{"error":{"code":404,"message":"pets: no item has petId 7","reason":"not_found","status":"Not Found"}}`},
		{"plainText", 401, "text/plain", `pets: no item has petId 7`},
		{"plainText", 404, "text/plain", `pets: no item has petId 7`},
		{"otherNames", 422, JSON, `"errorCode":"NOT_FOUND","errorMessage":"pets: no item has petId 7","httpStatus":422,"timestamp":"2030-01-02T03:04:05Z"`},
		{"otherNames", 401, JSON, `"errorCode":"NOT_FOUND"`},
		{"noErrorBody", 401, "application/problem+json", `"status":401`},
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
