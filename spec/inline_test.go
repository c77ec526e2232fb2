package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"go.yaml.in/yaml/v4"
)

// inlineAgree renders each use both ways, ours and the library's, and
// fails the test where both render and the JSON differs, or where ours
// finds a cycle and the library's rendering keeps no $ref (renderAlone
// then leaves it unrendered); it returns how many ours rendered and how
// many it left to the library.
func inlineAgree(t *testing.T, uses []compileUse) (ours, left int) {
	t.Helper()
	in := &inliner{}
	for _, u := range uses {
		if refSiblingsReachable(u.schema) {
			continue // compile never asks the inliner
		}
		for _, purpose := range []schema_validation.SchemaValidationPurpose{u.purpose, schema_validation.SchemaValidationPurposeGeneric} {
			n, ok, cyclic := in.render(u.schema, purpose)
			lib, err := schema_validation.RenderSchemaForValidation(u.schema, purpose)
			if cyclic && err == nil && lib != nil && !bytes.Contains(lib.RenderedJSON, []byte(`"$ref"`)) {
				t.Errorf("the schema at line %d (purpose %d): ours found a cycle, the library's rendering has none", u.schema.GoLow().GetRootNode().Line, purpose)
			}
			if !ok {
				left++
				continue
			}
			if err != nil || lib == nil {
				t.Errorf("the schema at line %d (purpose %d): ours rendered, the library's failed: %v", u.schema.GoLow().GetRootNode().Line, purpose, err)
				continue
			}
			ours++
			got, want := nodeJSON(t, n), decodedJSON(t, lib.RenderedJSON)
			if d := jsonDiff(got, want, ""); d != "" {
				t.Errorf("the schema at line %d (purpose %d): %s", u.schema.GoLow().GetRootNode().Line, purpose, d)
			}
		}
	}
	return ours, left
}

// nodeJSON is n as JSON decodes it back (numbers as float64).
func nodeJSON(t *testing.T, n *yaml.Node) any {
	t.Helper()
	var doc any
	if err := n.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return decodedJSON(t, b)
}

func decodedJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %.300s", err, b)
	}
	return v
}

// TestCorpusInlineAgrees holds the inliner to the library's rendering on
// the body schemas of every corpus document, for its direction and for
// none (a document's check): up to 60 a document, spread over it (429
// schemas; the library's rendering of all 947 took 6 CPU-seconds more).
func TestCorpusInlineAgrees(t *testing.T) {
	eachCorpusValidator(t, func(t *testing.T, s *Spec, v *Validator) {
		uses := bodyUses(s)
		if step := (len(uses) + 59) / 60; step > 1 {
			var spread []compileUse
			for i := 0; i < len(uses); i += step {
				spread = append(spread, uses[i])
			}
			uses = spread
		}
		ours, left := inlineAgree(t, uses)
		t.Logf("%d schemas: %d renderings ours, %d left to the library", len(uses), ours, left)
		if len(uses) > 0 && ours == 0 {
			t.Errorf("none of %d body schemas rendered by the inliner", len(uses))
		}
	})
}

// jsonDiff names the first place where decoded JSON values got and want
// differ, and how; "" where they are equal.
func jsonDiff(got, want any, at string) string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		for k, gv := range gm {
			wv, ok := wm[k]
			if !ok {
				return fmt.Sprintf("%s/%s: ours has %.200v, the library's has none", at, k, gv)
			}
			if d := jsonDiff(gv, wv, at+"/"+k); d != "" {
				return d
			}
		}
		for k, wv := range wm {
			if _, ok := gm[k]; !ok {
				return fmt.Sprintf("%s/%s: the library's has %.200v, ours has none", at, k, wv)
			}
		}
		return ""
	}
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if gok && wok && len(gl) == len(wl) {
		for i := range gl {
			if d := jsonDiff(gl[i], wl[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s: ours %.200v, the library's %.200v", at, got, want)
	}
	return ""
}

// inlineEdgeDoc31 and inlineEdgeDoc30 use every keyword the inliner
// treats apart: each subschema keyword, booleans where a schema may
// stand, lists of one type, empty lists and strings, nodes left empty, a
// schema that is only a $ref to another (Alias), required lists pruned by
// readOnly and writeOnly behind $refs and allOf, keywords the library's
// model drops, extensions, a cycle and a boolean schema (those two left
// to the library).
const inlineEdgeDoc31 = `openapi: 3.1.0
info: {title: edge, version: "1"}
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/All'}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/All'}
components:
  schemas:
    Id: {type: [integer], readOnly: true, minimum: 1, maximum: 9007199254740991}
    Alias: {$ref: '#/components/schemas/Id'}
    Secret: {type: string, writeOnly: true, minLength: 8, description: ""}
    Named:
      type: object
      required: [id, name, secret, both]
      properties:
        id: {$ref: '#/components/schemas/Id'}
        name: {type: [string, "null"], pattern: '^[a-z]+$', title: ""}
        secret: {$ref: '#/components/schemas/Secret'}
        both: {allOf: [{$ref: '#/components/schemas/Id'}, {description: d}]}
        alias: {$ref: '#/components/schemas/Alias'}
    Empty: {type: object, required: [], properties: {}}
    Node:
      type: object
      properties:
        next: {$ref: '#/components/schemas/Node'}
    All:
      type: object
      x-note: {kept: true}
      errorMessage: dropped by the library's model
      examples: []
      default: []
      example: ""
      required: [named]
      properties:
        named: {$ref: '#/components/schemas/Named'}
        empty: {$ref: '#/components/schemas/Empty'}
        tuple:
          type: array
          prefixItems: [{type: integer}, {$ref: '#/components/schemas/Id'}]
          items: false
          contains: {const: 3}
          minContains: 1
          unevaluatedItems: {$ref: '#/components/schemas/Named'}
        map:
          type: object
          patternProperties: {'^x': {$ref: '#/components/schemas/Secret'}}
          additionalProperties: {$ref: '#/components/schemas/Named'}
          propertyNames: {maxLength: 5}
          dependentSchemas: {a: {required: [b]}}
          dependentRequired: {c: [d]}
          unevaluatedProperties: false
          minProperties: 0
        cond:
          if: {properties: {kind: {const: a}}}
          then: {$ref: '#/components/schemas/Named'}
          else: {not: {$ref: '#/components/schemas/Secret'}}
        pick:
          oneOf: [{$ref: '#/components/schemas/Named'}, {$ref: '#/components/schemas/Empty'}]
          anyOf: [{type: object}]
          discriminator: {propertyName: kind, mapping: {n: '#/components/schemas/Named'}}
        encoded: {type: string, contentMediaType: application/json, contentSchema: {$ref: '#/components/schemas/Named'}}
        defs: {$defs: {one: {$ref: '#/components/schemas/Id'}}, enum: [1, null, "a"], default: null}
    Anything:
      type: object
      properties:
        anything: true
    Looped:
      type: object
      properties:
        node: {$ref: '#/components/schemas/Node'}
`

const inlineEdgeDoc30 = `openapi: 3.0.3
info: {title: edge, version: "1"}
paths: {}
components:
  schemas:
    Id: {type: integer, readOnly: true, minimum: 0, exclusiveMinimum: true, nullable: true}
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {$ref: '#/components/schemas/Id'}
        name: {type: string, nullable: true, enum: [a, b, null], format: ""}
        tags: {type: array, items: {$ref: '#/components/schemas/Id'}, uniqueItems: true, maxItems: 3}
        extra: {type: object, additionalProperties: true, xml: {name: x}, externalDocs: {url: 'https://example.com'}, deprecated: true}
`

// TestInlineAgreesOnEdges is TestCorpusInlineAgrees on every component
// schema of inlineEdgeDoc31 and inlineEdgeDoc30, for each direction.
func TestInlineAgreesOnEdges(t *testing.T) {
	for _, c := range []struct {
		doc string
		// left: Node and Looped reach a cycle, Anything has a boolean
		// schema, each rendered for 2 uses and for none.
		left int
	}{{inlineEdgeDoc31, 12}, {inlineEdgeDoc30, 0}} {
		s, _ := parseValidated(t, c.doc, "edge.yaml")
		var uses []compileUse
		for _, sp := range s.Model.Components.Schemas.FromOldest() {
			uses = append(uses, compileUse{sp.Schema(), schema_validation.SchemaValidationPurposeRequestBody}, compileUse{sp.Schema(), schema_validation.SchemaValidationPurposeResponseBody})
		}
		ours, left := inlineAgree(t, uses)
		if ours == 0 || left != c.left {
			t.Errorf("%d renderings ours, %d left to the library, want %d left", ours, left, c.left)
		}
	}
}
