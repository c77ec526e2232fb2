package spec

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/fixtures"
)

func TestDefaultDocument(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewValidator(); err != nil {
		t.Fatal(err)
	}
	if warnings, err := s.verdict(s.checkDocument(), true); err != nil || len(warnings) > 0 {
		t.Fatalf("the embedded document is not valid OpenAPI: %v %v", err, warnings)
	}
	if s.OpenAPI != "3.1.0" || s.BasePath != "/v1" || s.Version != "1.0.0" {
		t.Errorf("openapi %s, base %q, version %s", s.OpenAPI, s.BasePath, s.Version)
	}
	wantServers := []string{"https://api.example.com/v1", "https://staging.example.com/v1"}
	if strings.Join(s.Servers, " ") != strings.Join(wantServers, " ") {
		t.Errorf("servers = %v, want %v", s.Servers, wantServers)
	}
	ops := map[string]string{"listPets": "GET /pets", "createPet": "POST /pets", "getPet": "GET /pets/{petId}", "listStoreOrders": "GET /store/orders"}
	if len(s.Operations) != len(ops) {
		t.Errorf("%d operations, want %d", len(s.Operations), len(ops))
	}
	for id, where := range ops {
		op := s.Operation(id)
		if op == nil || op.Method+" "+op.Path != where {
			t.Errorf("operation %s = %v, want %s", id, op, where)
			continue
		}
		if len(op.Security) != 1 || op.Security[0][0] != "bearerAuth" {
			t.Errorf("%s security = %v, want bearerAuth", id, op.Security)
		}
		if op.Response(401) == nil {
			t.Errorf("%s does not declare 401", id)
		}
	}
	if bearer := s.SecuritySchemes["bearerAuth"]; bearer == nil || bearer.Type != "http" || bearer.Scheme != "bearer" {
		t.Errorf("bearerAuth = %+v", bearer)
	}
	for _, id := range []string{"listPets", "createPet", "getPet"} {
		if s.Operation(id).Response(400) == nil {
			t.Errorf("%s does not declare 400", id)
		}
	}
	get := s.Operation("getPet")
	if !get.Deprecated || !get.Sunset.Equal(time.Date(2030, 12, 5, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("getPet deprecated %v sunset %v, want true and 2030-12-05", get.Deprecated, get.Sunset)
	}
	if get.Replacement == nil || get.Replacement.OperationID != "listPets" || !strings.Contains(get.Replacement.Description, "status filter") {
		t.Errorf("getPet replacement = %+v", get.Replacement)
	}
	if get.DeprecatedAt.IsZero() || get.DeprecatedAt.After(get.Sunset) {
		t.Errorf("getPet deprecated at %v, want a date before the sunset", get.DeprecatedAt)
	}
	orders := s.Operation("listStoreOrders")
	if !orders.Hidden || !orders.Unpublished || len(orders.Params) != 0 || orders.Default == nil || len(orders.Default.MediaTypes) != 0 {
		t.Errorf("store orders: hidden %v unpublished %v params %d default %+v; want hidden, unpublished, open", orders.Hidden, orders.Unpublished, len(orders.Params), orders.Default)
	}
	for _, id := range []string{"listPets", "createPet", "listStoreOrders"} {
		if s.Operation(id).Deprecated {
			t.Errorf("%s is marked deprecated", id)
		}
	}
}

func TestCollectionInference(t *testing.T) {
	lib, err := fs.ReadFile(fixtures.Files, "library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pet, _ := Default()
	book, err := Parse(lib, "library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		s                                      *Spec
		name, path, item, idParam, idField, ty string
		assigned                               string
		limit                                  Limit
		filters                                string
	}{
		{pet, "pets", "/pets", "/pets/{petId}", "petId", "id", "integer", "id", Limit{"limit", 1, 100, 20}, "status"},
		{book, "books", "/books", "/books/{bookId}", "bookId", "bookId", "string", "bookId,addedAt", Limit{"pageSize", 1, 50, 10}, "genre,author"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.s.Collections) != 1 {
				t.Fatalf("%d collections, want 1", len(tc.s.Collections))
			}
			c := tc.s.Collections[0]
			if c.Name != tc.name || c.Path != tc.path || c.ItemPath != tc.item || c.IDParam != tc.idParam || c.IDField != tc.idField || c.IDType != tc.ty {
				t.Errorf("got %s %s %s %s %s %s", c.Name, c.Path, c.ItemPath, c.IDParam, c.IDField, c.IDType)
			}
			if strings.Join(c.Assigned, ",") != tc.assigned {
				t.Errorf("assigned = %v, want %s", c.Assigned, tc.assigned)
			}
			if c.Limit == nil || *c.Limit != tc.limit {
				t.Errorf("limit = %+v, want %+v", c.Limit, tc.limit)
			}
			var filters []string
			for _, f := range c.Filters {
				filters = append(filters, f.Param)
			}
			if strings.Join(filters, ",") != tc.filters {
				t.Errorf("filters = %v, want %s", filters, tc.filters)
			}
			if c.List == nil || c.Create == nil || c.Read == nil || c.CreateStatus != 201 {
				t.Errorf("operations list %v create %v read %v (%d)", c.List, c.Create, c.Read, c.CreateStatus)
			}
		})
	}
	if f := pet.Collections[0].Filter("status"); strings.Join(f.Enum, ",") != "available,pending,sold" {
		t.Errorf("status enum = %v", f.Enum)
	}
}

func TestExtensionErrors(t *testing.T) {
	base := string(DefaultDocument())
	tests := []struct {
		name, old, new, wantErr string
	}{
		{"sunset before deprecation", "x-sunset: '2030-12-05T00:00:00Z'", "x-sunset: '2020-01-01'", "before x-deprecated-at"},
		{"bad sunset", "x-sunset: '2030-12-05T00:00:00Z'", "x-sunset: 'next year'", "x-sunset"},
		{"unknown replacement", "operationId: listPets\n        description", "operationId: findPets\n        description", "findPets"},
		{"not deprecated", "deprecated: true", "deprecated: false", "need deprecated: true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(base, tc.old, tc.new, 1)
			if doc == base {
				t.Fatalf("the test did not change the document")
			}
			_, err := Parse([]byte(doc), "edited.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "edited.yaml") {
				t.Errorf("err = %v, want one naming edited.yaml and %q", err, tc.wantErr)
			}
		})
	}
	for _, bad := range []string{"", "   ", "not: [yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}"} {
		if _, err := Parse([]byte(bad), "bad.yaml"); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestValidatorProblems(t *testing.T) {
	s, _ := Default()
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	list, create, get := s.Operation("listPets"), s.Operation("createPet"), s.Operation("getPet")
	json := http.Header{"Content-Type": {"application/json"}}
	tests := []struct {
		name   string
		op     *Operation
		status int
		header http.Header
		body   string
		want   string // "" means valid
	}{
		{"valid list", list, 200, json, `[{"id":1,"name":"a","categoryId":1}]`, ""},
		{"empty list body", list, 200, json, ``, "empty"},
		{"null list body", list, 200, json, `null`, "null"},
		{"item lacks name", list, 200, json, `[{"id":1,"categoryId":1}]`, "name"},
		{"undeclared status", list, 418, json, `{}`, "418"},
		{"wrong content type", list, 401, http.Header{"Content-Type": {"text/html"}}, `<html>`, "Content-Type"},
		{"error body lacks status", list, 401, json, `{"code":"x","message":"y"}`, "status"},
		{"valid pet", get, 200, json, `{"id":1,"name":"a","categoryId":1,"status":"sold"}`, ""},
		{"unknown status value", get, 200, json, `{"id":1,"name":"a","categoryId":1,"status":"lost"}`, "status"},
		{"valid created", create, 201, json, `{"id":1,"name":"a","categoryId":1}`, ""},
		{"created without id", create, 201, json, `{"name":"a","categoryId":1}`, "id"},
		{"open payload", s.Operation("listStoreOrders"), 200, http.Header{"Content-Type": {"text/csv"}}, "a,b", ""},
		{"HEAD, no body", list, 200, json, ``, ""},
		{"HEAD, the representation left out", list, 200, json, `[{"id":1,"name":"a","categoryId":1}]`, ""},
		{"HEAD, wrong content type", list, 200, http.Header{"Content-Type": {"text/html"}}, ``, "Content-Type"},
		{"HEAD, no content type", list, 200, http.Header{}, ``, ""},
		{"HEAD, undeclared status", list, 418, json, ``, "418"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.op.Method, "/v1"+strings.Replace(tc.op.Path, "{petId}", "1", 1), nil)
			if strings.HasPrefix(tc.name, "HEAD") {
				req.Method = http.MethodHead
			}
			ps := v.Response(req, tc.op, tc.status, tc.header, []byte(tc.body))
			// The plain validator (no quick paths) gives the same verdict
			// in the same words.
			if plain := v.Plain().Response(req, tc.op, tc.status, tc.header, []byte(tc.body)); plain.Error() != ps.Error() {
				t.Errorf("problems %q, plain validator's %q", ps, plain)
			}
			if tc.want == "" {
				if len(ps) > 0 {
					t.Errorf("problems %v, want none", ps)
				}
				return
			}
			if len(ps) == 0 || !strings.Contains(ps.Error(), tc.want) {
				t.Errorf("problems %q, want one mentioning %q", ps, tc.want)
			}
		})
	}
}

// TestInvalidDocumentRefused: a document of one's own that breaks the
// OpenAPI schema is refused, each violation named by line and place; a
// valid one (the library's, 3.1, apiKey auth) is not.
func TestInvalidDocumentRefused(t *testing.T) {
	doc := `openapi: 3.1.0
info:
  title: typo
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          descriptionn: ok
`
	// libopenapi builds it: only the schema check catches it.
	_, err := Parse([]byte(doc), "typo.yaml")
	if err == nil {
		t.Fatal("an invalid document was accepted")
	}
	for _, want := range []string{
		"spec typo.yaml is not a valid OpenAPI 3.1.0 document",
		"line 2 (info): missing property 'version'",
		"line 9 (paths./pets.get.responses.200): missing property 'description'",
		"line 10 (paths./pets.get.responses.200.descriptionn): 'descriptionn' is not allowed here",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	lib, err := Load("../fixtures/library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.NewValidator(); err != nil {
		t.Errorf("the library document was refused: %v", err)
	}
}

// TestUnreadablePatternsWarned: a pattern neither engine reads, in a
// parameter's schema or deep in a component's, is named at its line as a
// warning (the document is served; --strict refuses it); one only the
// backtracking engine reads (a lookbehind) is not.
func TestUnreadablePatternsWarned(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: patterns, version: "1"}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: q, in: query, schema: {type: string, pattern: '['}}
        - {name: r, in: query, schema: {type: string, pattern: '(?<!x)y'}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
components:
  schemas:
    Thing:
      type: object
      properties:
        pattern: {type: string}
        code:
          type: array
          items: {type: string, pattern: 'a(b'}
`
	path := filepath.Join(t.TempDir(), "patterns.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	warnings := strings.Join(s.Warnings, "\n")
	for _, want := range []string{`line 8: pattern "[" is not a regular expression`, `line 24: pattern "a(b" is not a regular expression`} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings do not say %q:\n%s", want, warnings)
		}
	}
	if strings.Contains(warnings, "(?<!x)y") || strings.Count(warnings, "is not a regular expression") != 2 {
		t.Errorf("want the two unreadable patterns named, once each:\n%s", warnings)
	}
	if _, err := LoadWith(path, LoadOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), `pattern "["`) {
		t.Errorf("strict: err = %v, want the pattern named", err)
	}

	// A file of a multi-file document is named with the line.
	dir := t.TempDir()
	root := "openapi: 3.1.0\ninfo: {title: files, version: '1'}\npaths:\n  /things:\n    get:\n      operationId: listThings\n" +
		"      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: './thing.yaml'}\n"
	for name, text := range map[string]string{"openapi.yaml": root, "thing.yaml": "type: object\nproperties:\n  code: {type: string, pattern: 'a(b'}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Load(filepath.Join(dir, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if warnings := strings.Join(s.Warnings, "\n"); !strings.Contains(warnings, `line 3 (thing.yaml): pattern "a(b"`) {
		t.Errorf("warnings do not name thing.yaml's line 3:\n%s", warnings)
	}
}

// TestOpenAPISchemaCompiledOnce: the OpenAPI schema of a version is
// compiled by the first check of a document of that version and shared by
// the next, which names the same problems, 3.0 and 3.1 apart.
func TestOpenAPISchemaCompiledOnce(t *testing.T) {
	const doc = "openapi: %s\ninfo:\n  title: typo\n%spaths: {}\n"
	var texts []string
	for _, version := range []string{"3.0.3", "3.1.0"} {
		raw := []byte(fmt.Sprintf(doc, version, ""))
		_, first := Parse(raw, "typo.yaml")
		_, second := Parse(raw, "typo.yaml")
		if first == nil || second == nil || first.Error() != second.Error() || !strings.Contains(second.Error(), "missing property 'version'") {
			t.Errorf("%s: checked twice, %v then %v; want the missing version named both times", version, first, second)
		}
		s, err := Parse([]byte(fmt.Sprintf(doc, version, "  version: '1'\n")), "ok.yaml")
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		text := s.Document.GetSpecInfo().APISchema
		if c, ok := openAPISchemas.Load(text); !ok || openAPISchema(text) != c {
			t.Errorf("%s: the OpenAPI schema is not kept compiled", version)
		}
		texts = append(texts, text)
	}
	if texts[0] == texts[1] {
		t.Error("3.0 and 3.1 are checked against one schema")
	}
}

// TestQuickResponse: a response body is shown valid without
// libopenapi-validator's per-call work only where the library would check
// nothing else: a JSON body, a response declared for its exact status, no
// declared headers, and not in a Plain validator. It never decides that a
// body is invalid: the library does, in its words.
func TestQuickResponse(t *testing.T) {
	doc := `openapi: 3.1.0
info: {title: quick, version: '1'}
paths:
  /things:
    get:
      operationId: listThings
      responses:
        '200':
          description: a page
          content:
            application/json:
              schema:
                type: object
                required: [data, total]
                properties:
                  data: {type: array, items: {type: string}}
                  total: {type: integer, minimum: 0}
        2XX:
          description: any other success
          content:
            application/json:
              schema: {type: object}
    post:
      operationId: makeThing
      responses:
        '201':
          description: made
          headers:
            Location: {required: true, schema: {type: string}}
          content:
            application/json:
              schema: {type: object}
`
	s, err := Parse([]byte(doc), "quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	list, create := s.Operation("listThings"), s.Operation("makeThing")
	for _, tc := range []struct {
		name   string
		v      *Validator
		op     *Operation
		status int
		mt     string
		body   string
		want   bool
	}{
		{"valid page", v, list, 200, "application/json", `{"data":[],"total":3}`, true},
		{"invalid page", v, list, 200, "application/json", `{"data":[],"total":-1}`, false},
		{"not JSON", v, list, 200, "application/json", `{"data":`, false},
		{"two values", v, list, 200, "application/json", `{} {}`, false},
		{"a range's response", v, list, 204, "application/json", `{}`, false},
		{"declared headers", v, create, 201, "application/json", `{}`, false},
		{"plain validator", v.Plain(), list, 200, "application/json", `{"data":[],"total":3}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.op.Response(tc.status)
			if resp == nil {
				t.Fatalf("no response for %d", tc.status)
			}
			if got := tc.v.quickResponse(tc.op, resp, tc.status, tc.mt, tc.mt, []byte(tc.body)); got != tc.want {
				t.Errorf("quickResponse(%s) = %v, want %v", tc.body, got, tc.want)
			}
		})
	}
}

// TestTryItHidden: either marker hides an operation from try-it, whatever
// the other says and in whichever order the document writes them: a
// reference that reads only one vocabulary would publish what the other hides.
func TestTryItHidden(t *testing.T) {
	for _, c := range []struct {
		name, ext string
		hidden    bool
	}{
		{"no marker", "", false},
		{"x-try-it-hidden", "x-try-it-hidden: true", true},
		{"x-try-it-hidden false", "x-try-it-hidden: false", false},
		{"ReadMe's explorer off", "x-readme: {explorer-enabled: false}", true},
		{"ReadMe's explorer on", "x-readme: {explorer-enabled: true}", false},
		{"ReadMe without the explorer key", "x-readme: {code-samples: []}", false},
		{"explorer off, then x-try-it-hidden false", "x-readme: {explorer-enabled: false}\n      x-try-it-hidden: false", true},
		{"x-try-it-hidden, then explorer on", "x-try-it-hidden: true\n      x-readme: {explorer-enabled: true}", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /things:\n    get:\n      operationId: listThings\n      " + c.ext +
				"\n      responses:\n        '200': {description: ok}\n"
			s, err := Parse([]byte(doc), "hidden.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Operation("listThings").Hidden; got != c.hidden {
				t.Errorf("Hidden = %v, want %v", got, c.hidden)
			}
		})
	}
}
