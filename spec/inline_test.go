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
// fails the test where ours finds a cycle and the library's rendering
// keeps no $ref (compileAlone then compiles neither), or where both
// render, the JSON differs and ours compiles (compileAlone takes the
// library's rendering only where ours does not); it returns how many
// renderings were ours, how many it left to the library, and how many of
// ours did not compile where the library's did.
func inlineAgree(t *testing.T, v *Validator, uses []compileUse) (ours, left, refused int) {
	t.Helper()
	in := &inliner{}
	for _, u := range uses {
		if refSiblingsReachable(u.schema) {
			continue // compile never asks the inliner
		}
		for _, purpose := range []schema_validation.SchemaValidationPurpose{u.purpose, schema_validation.SchemaValidationPurposeGeneric} {
			line := u.schema.GoLow().GetRootNode().Line
			n, ok, cyclic := in.render(u.schema, purpose)
			lib, err := schema_validation.RenderSchemaForValidation(u.schema, purpose)
			if cyclic && err == nil && lib != nil && !bytes.Contains(lib.RenderedJSON, []byte(`"$ref"`)) {
				t.Errorf("the schema at line %d (purpose %d): ours found a cycle, the library's rendering has none", line, purpose)
			}
			if !ok {
				left++
				continue
			}
			if err != nil || lib == nil {
				t.Errorf("the schema at line %d (purpose %d): ours rendered, the library's failed: %v", line, purpose, err)
				continue
			}
			ours++
			d := jsonDiff(nodeJSON(t, n), decodedJSON(t, lib.RenderedJSON), "")
			switch {
			case d == "":
			case v.compileRendered("ours", n, inlineJSON(n)) == nil && v.compileRendered("library", lib.RenderedNode, lib.RenderedJSON) != nil:
				refused++
			default:
				t.Errorf("the schema at line %d (purpose %d): %s", line, purpose, d)
			}
		}
	}
	return ours, left, refused
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
		ours, left, refused := inlineAgree(t, v, uses)
		t.Logf("%d schemas: %d renderings ours (%d of which do not compile), %d left to the library", len(uses), ours, refused, left)
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
// model drops, extensions, a cycle, a boolean schema and an alias in a
// required list (those three left to the library).
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
    Zeros:
      type: object
      required: [id, name]
      properties:
        id: {type: integer, readOnly: True}
        name: {type: string, writeOnly: false, deprecated: false, minLength: 0}
        tags: {type: array, uniqueItems: false, minItems: 0, items: {type: string}}
        count: {type: number, multipleOf: 0, minimum: 0}
        maybe: {type: string, nullable: false}
    Coerced:
      type: object
      properties:
        count: {type: number, maximum: "10", exclusiveMinimum: false}
    Anchored:
      type: object
      required: &both [&idName id, name]
      properties:
        id: &ro {type: integer, readOnly: true}
        name: {type: string}
        copy: *ro
      x-also: *both
    AnchoredItem:
      type: object
      required: [*idName, name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string}
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
		// schema, AnchoredItem an alias in its required list; refused:
		// Coerced's values, which only the library's model reads into
		// ones that compile; each rendered for 2 uses and for none.
		left, refused int
	}{{inlineEdgeDoc31, 16, 4}, {inlineEdgeDoc30, 0, 0}} {
		s, v := parseValidated(t, c.doc, "edge.yaml")
		var uses []compileUse
		for _, sp := range s.Model.Components.Schemas.FromOldest() {
			uses = append(uses, compileUse{sp.Schema(), schema_validation.SchemaValidationPurposeRequestBody}, compileUse{sp.Schema(), schema_validation.SchemaValidationPurposeResponseBody})
		}
		ours, left, refused := inlineAgree(t, v, uses)
		if ours == 0 || left != c.left || refused != c.refused {
			t.Errorf("%d renderings ours, %d left to the library and %d not compiling, want %d and %d", ours, left, refused, c.left, c.refused)
		}
	}
}

// TestCompileAloneTakesTheLibrarysWhereOursFails: a schema whose values
// only the library's model reads into ones that compile (Coerced) is
// compiled from the library's rendering, and gives the verdicts of the
// library's own compile, not refused as a schema that does not compile.
func TestCompileAloneTakesTheLibrarysWhereOursFails(t *testing.T) {
	s, v := parseValidated(t, inlineEdgeDoc31, "edge.yaml")
	coerced := s.Model.Components.Schemas.GetOrZero("Coerced").Schema()
	purpose := schema_validation.SchemaValidationPurposeRequestBody
	if n, ok, _ := v.inline.render(coerced, purpose); !ok || v.compileRendered("ours", n, inlineJSON(n)) != nil {
		t.Fatal("the inliner's rendering of Coerced compiles: the test no longer tests the fallback")
	}
	alone := v.compileAlone(coerced, purpose)
	if alone == nil {
		t.Fatal("Coerced did not compile alone")
	}
	lib, err := schema_validation.CompileSchemaForValidation(coerced, purpose, v.opts, v.version)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, doc := range []string{`{"count": -1}`, `{"count": 0}`, `{"count": 5}`, `{"count": 11}`, `{"count": "x"}`} {
		var decoded any
		if err := json.Unmarshal([]byte(doc), &decoded); err != nil {
			t.Fatal(err)
		}
		got, want := alone.CompiledSchema.Validate(decoded), lib.CompiledSchema.Validate(decoded)
		if (got == nil) != (want == nil) {
			t.Errorf("%s: compiled alone: %v; the library's compile: %v", doc, got, want)
		}
		if want != nil {
			refused++
		}
	}
	if refused == 0 {
		t.Error("the library's compile refused none of the values: they test nothing")
	}
}
