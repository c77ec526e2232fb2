package conformance_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// formatsDocument has a create whose body has a string with a format,
// which neither OpenAPI nor JSON Schema has a server assert.
const formatsDocument = `openapi: 3.1.0
info: {title: Notes, version: "1"}
servers: [{url: /v1}]
security: [{bearer: []}]
paths:
  /notes:
    get:
      operationId: listNotes
      responses:
        '200':
          description: The notes.
          content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Note'}}}}
    post:
      operationId: createNote
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}
      responses:
        '201':
          description: Created.
          content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}
        '400':
          description: Invalid.
          content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
  /notes/{id}:
    get:
      operationId: getNote
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        '200':
          description: The note.
          content: {application/json: {schema: {$ref: '#/components/schemas/Note'}}}
        '404':
          description: No such note.
          content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  schemas:
    Note:
      type: object
      required: [text, email]
      properties:
        id: {type: integer, readOnly: true}
        text: {type: string}
        email: {type: string, format: email}
    Error:
      type: object
      required: [code, message, status]
      properties:
        code: {type: string}
        message: {type: string}
        status: {type: integer}
`

// TestFormatIsNoAssertion: a deployment may take a value that breaks only
// a format, or refuse it: either passes, and which is observed. A
// deployment that took "not an email" failed the create check and, for
// answering the value back, the response check too.
func TestFormatIsNoAssertion(t *testing.T) {
	t.Parallel()
	const probe, stand = `petctl conform not a email`, `taken@example.com`
	load := func() *spec.Spec {
		s, err := spec.Parse([]byte(formatsDocument), "notes.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// taking keeps any text: the engine gets a valid email in its place,
	// and every answer, the create's, the list's and the read's, shows the
	// text sent.
	taking := func(h http.Handler) http.Handler {
		h = editResponse(h, isPrefix("", "/v1/notes"), func(_ *http.Request, res *recorded) {
			res.body = bytes.ReplaceAll(res.body, []byte(stand), []byte(probe))
			res.header.Set("Content-Length", strconv.Itoa(len(res.body)))
		})
		return editRequest(h, is(http.MethodPost, "/v1/notes"), func(r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			body = bytes.ReplaceAll(body, []byte(probe), []byte(stand))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		})
	}
	for _, tc := range []struct {
		name string
		wrap func(http.Handler) http.Handler
		want string
	}{
		{"refusing", func(h http.Handler) http.Handler { return h }, "refused (400)"},
		{"taking", taking, "taken (201)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := engine.New(engine.Options{Spec: load(), Keys: []string{testKey}})
			if err != nil {
				t.Fatal(err)
			}
			o := conform(t, serve(t, tc.wrap(srv)), func(c *conformance.Config) { c.Spec, c.Validator = load(), nil })
			if f := o.failed(); len(f) > 0 || !o.res.OK() {
				t.Fatalf("failed checks: %q\n%s", f, o.out)
			}
			if v, ok := o.observation("email not a email by createNote"); !ok || !strings.HasPrefix(v, tc.want) {
				t.Errorf("observation %q, %t; want %s", v, ok, tc.want)
			}
		})
	}
}
