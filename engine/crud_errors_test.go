package engine

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/petctl/petctl/spec"
)

// crudProblemsDoc is a CRUD resource whose errors are RFC 9457 problem
// details: a client-chosen key (so a duplicate is a conflict), entity tags
// (so a stale If-Match is a precondition failure) and 422 for invalid
// writes.
const crudProblemsDoc = `openapi: 3.0.3
info: {title: CRUD problems, version: 1.0.0}
paths:
  /plans:
    post:
      operationId: createPlan
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Plan'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Plan'}
        '409': {$ref: '#/components/responses/Problem'}
        '422': {$ref: '#/components/responses/Problem'}
  /plans/{code}:
    parameters:
      - {name: code, in: path, required: true, schema: {type: string}}
    get:
      operationId: getPlan
      responses:
        '200':
          description: A plan.
          headers:
            ETag: {schema: {type: string}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Plan'}
        '404': {$ref: '#/components/responses/Problem'}
    put:
      operationId: putPlan
      parameters:
        - {name: If-Match, in: header, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Plan'}
      responses:
        '200':
          description: Replaced.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Plan'}
        '404': {$ref: '#/components/responses/Problem'}
        '412': {$ref: '#/components/responses/Problem'}
        '422': {$ref: '#/components/responses/Problem'}
    patch:
      operationId: patchPlan
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema: {type: object}
      responses:
        '200':
          description: Patched.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Plan'}
        '404': {$ref: '#/components/responses/Problem'}
        '422': {$ref: '#/components/responses/Problem'}
    delete:
      operationId: deletePlan
      responses:
        '204': {description: Deleted.}
        '404': {$ref: '#/components/responses/Problem'}
components:
  responses:
    Problem:
      description: RFC 9457 problem details.
      content:
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
  schemas:
    Plan:
      type: object
      required: [code, name, amount]
      properties:
        code: {type: string}
        name: {type: string, minLength: 1}
        amount: {type: integer, minimum: 0}
    Problem:
      type: object
      required: [type, title, status, detail]
      additionalProperties: false
      properties:
        type: {type: string}
        title: {type: string}
        status: {type: integer}
        detail: {type: string}
        instance: {type: string}
`

// TestCRUDErrorsInTheDocumentsFormat: the errors of the CRUD operations
// (an unknown id, a taken key, a stale If-Match, a write the item schema
// refuses, in the request or as its result) are written as the document
// declares them for the operation and status, here problem+json, with the
// status the operation declares for invalid input.
func TestCRUDErrorsInTheDocumentsFormat(t *testing.T) {
	s, err := spec.Parse([]byte(crudProblemsDoc), "crud-problems.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s}, "", "")
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	created := rawDo(t, "POST", env.base+"/plans", `{"code":"basic","name":"Basic","amount":100}`, map[string]string{"Content-Type": "application/json"})
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	tag := rawGet(t, env.base+"/plans/basic").header.Get("ETag")
	if tag == "" {
		t.Fatal("the read sent no ETag")
	}
	tests := []struct {
		name, op, method, path, body string
		header                       map[string]string
		status                       int
		title                        string
	}{
		{"a taken key", "createPlan", "POST", "/plans", `{"code":"basic","name":"Again","amount":1}`, map[string]string{"Content-Type": "application/json"}, 409, "Conflict"},
		{"an invalid create", "createPlan", "POST", "/plans", `{"code":"x","name":"","amount":1}`, map[string]string{"Content-Type": "application/json"}, 422, "Unprocessable Entity"},
		{"an unknown id", "getPlan", "GET", "/plans/none", "", nil, 404, "Not Found"},
		{"a stale If-Match", "putPlan", "PUT", "/plans/basic", `{"code":"basic","name":"B","amount":2}`, map[string]string{"Content-Type": "application/json", "If-Match": `"stale"`}, 412, "Precondition Failed"},
		{"a replace of an unknown id", "putPlan", "PUT", "/plans/none", `{"code":"none","name":"N","amount":2}`, map[string]string{"Content-Type": "application/json", "If-Match": tag}, 404, "Not Found"},
		{"an invalid replace", "putPlan", "PUT", "/plans/basic", `{"code":"basic","name":"B","amount":-1}`, map[string]string{"Content-Type": "application/json", "If-Match": tag}, 422, "Unprocessable Entity"},
		{"a patch that leaves the item invalid", "patchPlan", "PATCH", "/plans/basic", `{"name":null}`, map[string]string{"Content-Type": "application/merge-patch+json"}, 422, "Unprocessable Entity"},
		{"a delete of an unknown id", "deletePlan", "DELETE", "/plans/none", "", nil, 404, "Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := env.base + tc.path
			r := rawDo(t, tc.method, url, tc.body, tc.header)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d (%s)", r.status, tc.status, r.body)
			}
			if got, want := r.header.Get("Content-Type"), "application/problem+json"; got != want {
				t.Errorf("Content-Type %q, want %q", got, want)
			}
			var p struct {
				Title  string
				Status int
				Detail string
			}
			if err := json.Unmarshal(r.body, &p); err != nil {
				t.Fatalf("body %s: %v", r.body, err)
			}
			if p.Title != tc.title || p.Status != tc.status || p.Detail == "" {
				t.Errorf("body %s, want title %q, status %d and a detail", r.body, tc.title, tc.status)
			}
			validError(t, s, v, s.Operation(tc.op), tc.method, url, r)
		})
	}
	if r := rawGet(t, env.base+"/plans/basic"); r.status != http.StatusOK || !json.Valid(r.body) {
		t.Errorf("after the refused writes: %d %s, want the item unchanged", r.status, r.body)
	} else if got := decodeJSON(r.body).(map[string]any)["name"]; got != "Basic" {
		t.Errorf("after the refused writes: name %v, want Basic", got)
	}
}
