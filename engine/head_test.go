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
