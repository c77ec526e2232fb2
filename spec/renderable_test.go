package spec

import "testing"

// TestIndentedBlockRenders: a schema with $refs compiles (and responses
// can be validated) in a document with a block scalar whose first line
// starts with a space, which the YAML encoder cannot write back as a
// block (ory-kratos's x-go-enum-desc).
func TestIndentedBlockRenders(t *testing.T) {
	s, err := Parse([]byte(`openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /x:
    get:
      operationId: getX
      parameters:
        - name: q
          in: query
          schema: {type: string}
          x-desc: |2-
             one space in
            none
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/A'}
components:
  schemas:
    A: {type: object, properties: {b: {$ref: '#/components/schemas/B'}}}
    B: {type: string}
`), "indented.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.CompileResponseSchema(s.Operation("getX").Response(200).Schema); err != nil {
		t.Errorf("the response schema does not compile: %v", err)
	}
}
