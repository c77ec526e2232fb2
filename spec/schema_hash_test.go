package spec

import (
	"testing"

	"github.com/pb33f/libopenapi-validator/schema_validation"
)

// TestSchemaHashTellsKeywordsApart: schemas that libopenapi's hash takes
// for one (a value under another keyword) differ in SchemaHash; the same
// schema reached by two $refs, or written twice alike, does not.
func TestSchemaHashTellsKeywordsApart(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: hashes, version: "1"}
paths: {}
components:
  schemas:
    Min: {type: object, properties: {n: {type: integer, minimum: 5}}}
    Max: {type: object, properties: {n: {type: integer, maximum: 5}}}
    Items: {type: array, items: {type: string}}
    Contains: {type: array, contains: {type: string}}
    RefMin: {$ref: '#/components/schemas/Min'}
    CopyOfMin: {type: object, properties: {n: {type: integer, minimum: 5}}}
    Str5: {type: string, enum: ["5"]}
    Int5: {type: string, enum: [5]}
    Node: {type: object, properties: {next: {$ref: '#/components/schemas/Node'}}}
`
	s, _ := parseValidated(t, doc, "hashes.yaml")
	hashOf := func(name string) uint64 {
		h, ok := SchemaHash(s.Model.Components.Schemas.GetOrZero(name).Schema())
		if !ok {
			t.Fatalf("%s: no hash", name)
		}
		return h
	}
	for _, pair := range [][2]string{{"Min", "Max"}, {"Items", "Contains"}, {"Str5", "Int5"}} {
		if hashOf(pair[0]) == hashOf(pair[1]) {
			t.Errorf("%s and %s hash alike", pair[0], pair[1])
		}
	}
	for _, pair := range [][2]string{{"Min", "RefMin"}, {"Min", "CopyOfMin"}} {
		if hashOf(pair[0]) != hashOf(pair[1]) {
			t.Errorf("%s and %s hash apart, want alike", pair[0], pair[1])
		}
	}
	_ = hashOf("Node") // a cycle ends

	// The library's render removes the tags of enum items from the
	// document's nodes (yaml's Desolve): the hashes stay as they were.
	before := map[string]uint64{"Str5": hashOf("Str5"), "Int5": hashOf("Int5")}
	for name := range before {
		if _, err := schema_validation.RenderSchemaForValidation(s.Model.Components.Schemas.GetOrZero(name).Schema(), schema_validation.SchemaValidationPurposeGeneric); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if item := s.Model.Components.Schemas.GetOrZero("Int5").Schema().Enum[0]; item.Tag != "" {
		t.Logf("the render left the tag %q: this test no longer sees the library write the document", item.Tag)
	}
	for name, h := range before {
		if hashOf(name) != h {
			t.Errorf("%s hashes otherwise after the library rendered it", name)
		}
	}
}
