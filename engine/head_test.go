package engine

import (
	"testing"

	"github.com/petctl/petctl/spec"
)

// declaredHead declares HEAD beside GET on one path, as a health check
// often is (sonarr's /ping), with a JSON body for both.
const declaredHead = `openapi: 3.1.0
info: {title: Ping, version: "1"}
paths:
  /ping:
    get:
      operationId: getPing
      responses:
        '200':
          description: Up.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Ping'}
    head:
      operationId: headPing
      responses:
        '200':
          description: Up.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Ping'}
components:
  schemas:
    Ping:
      type: object
      properties:
        status: {type: string}
`

// TestDeclaredHeadOperation: a HEAD operation the document declares is
// answered with its status and headers and no body, as GET's is with its
// body; it was a 500 response_invalid, the validator refusing the body the
// server was about to leave out.
func TestDeclaredHeadOperation(t *testing.T) {
	s, err := spec.Parse([]byte(declaredHead), "ping.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s}, "X-Key", "")
	get := env.do(request{path: "/ping"})
	head := env.do(request{method: "HEAD", path: "/ping"})
	if get.status != 200 || head.status != 200 {
		t.Fatalf("GET %d, HEAD %d; want 200 both (log: %s)", get.status, head.status, env.log.String())
	}
	if len(head.body) != 0 {
		t.Errorf("HEAD body %q, want none", head.body)
	}
	if got, want := head.header.Get("Content-Type"), get.header.Get("Content-Type"); got != want {
		t.Errorf("HEAD Content-Type %q, GET's %q", got, want)
	}
}

// declaredItemHead declares HEAD beside a read, as open-zaak's
// besluit_head does ("the headers a GET would get"), with no body.
const declaredItemHead = `openapi: 3.0.3
info: {title: Decisions, version: "1"}
paths:
  /decisions:
    post:
      operationId: createDecision
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Decision'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Decision'}
  /decisions/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getDecision
      responses:
        '200':
          description: The decision.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Decision'}
        '404': {description: No such decision.}
    head:
      operationId: headDecision
      responses:
        '200': {description: The headers a GET would get.}
    delete:
      operationId: deleteDecision
      responses:
        '204': {description: Deleted.}
components:
  schemas:
    Decision:
      type: object
      required: [id, text]
      properties:
        id: {type: integer, readOnly: true}
        text: {type: string}
`

// TestDeclaredHeadOfAnItem: a HEAD declared beside a read the store
// serves answers as the read does, without the body: 404 for an item
// never created or deleted. Answered from the document, it was 200 for
// any id.
func TestDeclaredHeadOfAnItem(t *testing.T) {
	s, err := spec.Parse([]byte(declaredItemHead), "decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s}, "X-Key", "")
	if r := env.do(request{method: "HEAD", path: "/decisions/1"}); r.status != 404 {
		t.Errorf("HEAD of a decision never created: %d, want 404", r.status)
	}
	if r := env.post("/decisions", `{"text":"yes"}`); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	get := env.get("/decisions/1")
	head := env.do(request{method: "HEAD", path: "/decisions/1"})
	if head.status != 200 || len(head.body) != 0 || head.header.Get("Content-Length") != get.header.Get("Content-Length") {
		t.Errorf("HEAD of the decision: %d, body %q, Content-Length %q; want 200, none, the GET's %q", head.status, head.body, head.header.Get("Content-Length"), get.header.Get("Content-Length"))
	}
	if r := env.do(request{method: "DELETE", path: "/decisions/1"}); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := env.do(request{method: "HEAD", path: "/decisions/1"}); r.status != 404 {
		t.Errorf("HEAD of the deleted decision: %d, want 404", r.status)
	}
}

// TestConfiguredHeadAnswersItself: a HEAD a setting names (here a fault
// that always fails it) is answered as itself, not as its GET: the
// setting is for it.
func TestConfiguredHeadAnswersItself(t *testing.T) {
	s, err := spec.Parse([]byte(declaredItemHead), "decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s, Faults: map[string]Fault{"headDecision": {Rate: 1, Status: 503}}}, "X-Key", "")
	if r := env.do(request{method: "HEAD", path: "/decisions/1"}); r.status != 503 {
		t.Errorf("HEAD with a fault configured for it: %d, want its 503", r.status)
	}
	// The plan, which inspect reports, says the same: one home for the
	// rule, not a second pass after the plan.
	head := s.Operation("headDecision")
	for _, configured := range []map[string]bool{nil, {"headDecision": true}} {
		p, err := NewPlan(s, nil, configured)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.Operation(head).AsGet, configured == nil; got != want {
			t.Errorf("configured %v: AsGet %v, want %v (%s)", configured, got, want, p.Operation(head).Why)
		}
	}
	if env.srv.plan.Operation(head).AsGet {
		t.Errorf("the server's plan answers the fault's HEAD as its GET")
	}
}
