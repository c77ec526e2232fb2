package engine

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// declaredHeadersDocument declares the headers its answers carry: a
// required request id on a list and on a read's 404, a total count, a
// Location that is a uri, and the Accept and Content-Type parameters
// OpenAPI has a tool ignore, each with an enum no browser's Accept meets.
const declaredHeadersDocument = `openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /notes:
    get:
      operationId: listNotes
      parameters:
        - {name: Accept, in: header, required: true, schema: {type: string, enum: [application/json]}}
        - {name: size, in: query, schema: {type: integer, minimum: 1, maximum: 5}}
      responses:
        '200':
          description: The notes.
          headers:
            X-Request-Id: {required: true, schema: {type: string, format: uuid}}
            X-Total-Count: {schema: {type: integer}}
            X-Page-Count: {schema: {type: integer}}
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Note'}}
    post:
      operationId: createNote
      parameters:
        - {name: Content-Type, in: header, required: true, schema: {type: string, enum: [application/json]}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Note'}
      responses:
        '201':
          description: Created.
          headers:
            Location: {required: true, schema: {type: string, format: uri}}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Note'}
  /notes/{noteId}:
    parameters:
      - {name: noteId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getNote
      responses:
        '200':
          description: The note.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Note'}
        '404':
          description: No such note.
          headers:
            X-Request-Id: {required: true, schema: {type: string}, example: req-7}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Error'}
components:
  schemas:
    Note:
      type: object
      required: [noteId, text]
      properties:
        noteId: {type: integer, readOnly: true}
        text: {type: string}
    Error:
      type: object
      required: [code, message, status]
      properties:
        code: {type: string}
        message: {type: string}
        status: {type: integer}
`

// TestDeclaredResponseHeaders: an answer carries the headers its response
// declares required (a 500 before, after the write was made), a list its
// totals, a created item's Location the absolute URI the document's
// format uri asks for, and a script may read them all.
func TestDeclaredResponseHeaders(t *testing.T) {
	s, err := spec.Parse([]byte(declaredHeadersDocument), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s}, "X-Unused", "")
	for i, text := range []string{"a", "b", "c"} {
		r := env.do(request{method: http.MethodPost, path: "/notes", body: `{"text":"` + text + `"}`, key: "-"})
		if r.status != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, r.status, r.body)
		}
		if want := env.http.URL + "/notes/" + string(rune('1'+i)); r.header.Get("Location") != want {
			t.Errorf("create %d: Location %q, want %q", i, r.header.Get("Location"), want)
		}
	}
	r := env.do(request{path: "/notes?size=2", key: "-", headers: map[string]string{"Accept": "application/json", "Origin": "http://localhost:3000"}})
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	if !uuidRE.MatchString(r.header.Get("X-Request-Id")) {
		t.Errorf("list: X-Request-Id %q is not a uuid", r.header.Get("X-Request-Id"))
	}
	if got := r.header.Get("X-Total-Count"); got != "3" {
		t.Errorf("list: X-Total-Count %q, want 3 (the notes, not the page's 2)", got)
	}
	if got := r.header.Get("X-Page-Count"); got != "2" {
		t.Errorf("list: X-Page-Count %q, want 2", got)
	}
	exposed := strings.Split(r.header.Get("Access-Control-Expose-Headers"), ", ")
	for _, h := range []string{"ETag", "X-Request-Id", "X-Total-Count", "Location"} {
		if !slices.Contains(exposed, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
		}
	}
	missing := env.do(request{path: "/notes/9", key: "-"})
	if missing.status != http.StatusNotFound || missing.header.Get("X-Request-Id") != "req-7" {
		t.Errorf("read of a missing note: %d, X-Request-Id %q; want 404 with the header's example req-7", missing.status, missing.header.Get("X-Request-Id"))
	}
	if log := env.log.String(); strings.Contains(log, "does not send") || strings.Contains(log, "level=ERROR") {
		t.Errorf("the log says a declared header is not sent, or an answer failed:\n%s", log)
	}
}

// TestIgnoredHeaderParameters: OpenAPI has a tool ignore a header
// parameter named Accept, Content-Type or Authorization (3.0.3 §4.7.12.1);
// the request's media types say those. Validated, the document's enum of
// application/json refused curl's Accept of */* and a JSON body sent with
// a charset (open-zaak's Content-Type parameters).
func TestIgnoredHeaderParameters(t *testing.T) {
	s, err := spec.Parse([]byte(declaredHeadersDocument), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range s.Operations {
		for _, p := range op.Params {
			if p.In == "header" {
				t.Errorf("%s keeps the header parameter %s", op, p.Name)
			}
		}
	}
	env := start(t, Options{Spec: s}, "X-Unused", "")
	created := env.do(request{method: http.MethodPost, path: "/notes", body: `{"text":"a"}`, ctype: "application/json; charset=utf-8", key: "-"})
	if created.status != http.StatusCreated {
		t.Errorf("create with a charset: %d %s", created.status, created.body)
	}
	for _, accept := range []string{"", "*/*", "application/json, text/plain, */*"} {
		headers := map[string]string{}
		if accept != "" {
			headers["Accept"] = accept
		}
		if r := env.do(request{path: "/notes", key: "-", headers: headers}); r.status != http.StatusOK {
			t.Errorf("list with Accept %q: %d %s", accept, r.status, r.body)
		}
	}
	if r := env.do(request{path: "/notes", key: "-", headers: map[string]string{"Accept": "text/html"}}); r.status != http.StatusNotAcceptable {
		t.Errorf("list with Accept text/html: %d, want 406 (the answer's media types still decide)", r.status)
	}
}

// headersNotMadeDocument declares headers on a list that are no
// document's to give (CORS, the media type), and integer ones whose
// name holds "count" inside a word, or that count or total something else
// (retries, a rate limit).
const headersNotMadeDocument = `openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /notes:
    get:
      operationId: listNotes
      responses:
        '200':
          description: The notes.
          headers:
            Content-Type: {required: true, schema: {type: string}}
            X-Account-Id: {required: true, schema: {type: integer}, example: 77}
            X-Retry-Count: {required: true, schema: {type: integer}, example: 5}
            X-Retry-Total: {required: true, schema: {type: integer}, example: 3}
            X-RateLimit-Total: {required: true, schema: {type: integer}, example: 100}
            X-Result-Count: {schema: {type: integer}}
            X-WP-Total: {schema: {type: integer}}
          content:
            application/json:
              schema: {type: array, items: {type: object, properties: {text: {type: string}}}}
  /open:
    get:
      operationId: getOpen
      responses:
        '200':
          description: Open to every origin, the document says.
          headers:
            Access-Control-Allow-Origin: {required: true, schema: {type: string}, example: "*"}
`

// TestHeadersNotMadeUp: a declared required header the cors settings,
// net/http or the body decide is never made up (an example's "*" let any
// origin read the answers; a made-up Content-Type failed every list), and
// an integer header is a total only where total is a word of its name
// and no other word says it measures something else (not X-Retry-Total,
// X-RateLimit-Total), or count beside words that name what a list holds
// (X-Result-Count, not X-Retry-Count).
func TestHeadersNotMadeUp(t *testing.T) {
	s, err := spec.Parse([]byte(headersNotMadeDocument), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Three notes: a count made from the header's schema would not be 3.
	notes := FixtureFile{Name: "notes.json", Data: []byte(`[{"text":"a"},{"text":"b"},{"text":"c"}]`)}
	env := start(t, Options{Spec: s, Fixtures: []FixtureFile{notes}}, "X-Unused", "")
	r := env.do(request{path: "/open", key: "-", headers: map[string]string{"Origin": "https://evil.example"}})
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("an origin cors does not allow got Access-Control-Allow-Origin %q", got)
	}
	r = env.do(request{path: "/notes", key: "-"})
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	if got := r.header.Get("Content-Type"); !strings.HasPrefix(got, "application/json") {
		t.Errorf("Content-Type %q, want the body's application/json", got)
	}
	if got := r.header.Get("X-Account-Id"); got != "77" {
		t.Errorf("X-Account-Id %q, want its example 77, not the list's total", got)
	}
	for name, example := range map[string]string{"X-Retry-Count": "5", "X-Retry-Total": "3", "X-RateLimit-Total": "100"} {
		if got := r.header.Get(name); got != example {
			t.Errorf("%s %q, want its example %s, not the list's total", name, got, example)
		}
	}
	for _, name := range []string{"X-Result-Count", "X-WP-Total"} {
		if got := r.header.Get(name); got != "3" {
			t.Errorf("%s %q, want the list's total, 3", name, got)
		}
	}
}
