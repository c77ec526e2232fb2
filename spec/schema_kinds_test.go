package spec

import (
	"maps"
	"slices"
	"testing"
)

// kindsDocument holds choices that are kinds of one thing (told apart by a
// discriminator, or sharing a common part) and choices that are not.
const kindsDocument = `openapi: 3.1.0
info: {title: kinds, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
      discriminator: {propertyName: petType}
    PetBase:
      type: object
      required: [id, name, petType]
      properties: {id: {type: integer}, name: {type: string}, petType: {type: string}}
    Cat:
      allOf:
        - $ref: '#/components/schemas/PetBase'
        - {type: object, required: [huntingSkill], properties: {petType: {const: cat}, huntingSkill: {type: string}}}
    Dog:
      allOf:
        - $ref: '#/components/schemas/PetBase'
        - {type: object, required: [packSize], properties: {petType: {const: dog}, packSize: {type: integer}}}
    TaggedPet:
      allOf: [{$ref: '#/components/schemas/Pet'}, {type: object, properties: {tag: {type: string}}}]
    Shape:
      anyOf:
        - {type: object, required: [id, radius], properties: {id: {type: string}, radius: {type: number}}}
        - {type: object, required: [id, side], properties: {id: {type: string}, side: {type: number}}}
    OneOrMany:
      oneOf:
        - {type: object, required: [alert], properties: {alert: {type: object}}}
        - {type: object, required: [alerts], properties: {alerts: {type: array, items: {type: object}}}}
    ObjectOrText:
      oneOf: [{$ref: '#/components/schemas/PetBase'}, {type: string}]
    Both:
      oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
      anyOf: [{$ref: '#/components/schemas/Cat'}]
    OwnAndChoice:
      type: object
      properties: {owner: {type: string}}
      oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
    Loop:
      oneOf: [{$ref: '#/components/schemas/LoopKind'}, {$ref: '#/components/schemas/PetBase'}]
      discriminator: {propertyName: petType}
    LoopKind:
      allOf: [{$ref: '#/components/schemas/Loop'}, {type: object, properties: {depth: {type: integer}}}]
    Animal:
      oneOf: [{$ref: '#/components/schemas/Ant'}, {$ref: '#/components/schemas/Bee'}, {$ref: '#/components/schemas/Cow'}]
      discriminator: {propertyName: petType}
    Ant:
      allOf: [{$ref: '#/components/schemas/Animal'}, {$ref: '#/components/schemas/PetBase'}, {type: object, properties: {legs: {type: integer}}}]
    Bee:
      allOf: [{$ref: '#/components/schemas/Animal'}, {$ref: '#/components/schemas/PetBase'}, {type: object, properties: {sting: {type: boolean}}}]
    Cow:
      allOf: [{$ref: '#/components/schemas/Animal'}, {$ref: '#/components/schemas/PetBase'}, {type: object, properties: {moo: {type: string}}}]
    Described:
      allOf: [{$ref: '#/components/schemas/OneOrMany'}]
      description: a $ref with a description beside it, as OpenAPI 3.0 writes it
    Terrier: {allOf: [{$ref: '#/components/schemas/PetBase'}, {type: object, properties: {digs: {type: boolean}}}]}
    Hound: {allOf: [{$ref: '#/components/schemas/PetBase'}, {type: object, properties: {nose: {type: integer}}}]}
    DogKinds:
      oneOf: [{$ref: '#/components/schemas/Terrier'}, {$ref: '#/components/schemas/Hound'}]
      discriminator: {propertyName: petType}
    Nested:
      oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/DogKinds'}]
      discriminator: {propertyName: petType}
    StampedOnlySquares:
      anyOf:
        - {type: object, required: [id, radius], properties: {id: {type: integer, readOnly: true}, radius: {type: number}}}
        - {type: object, required: [id, side, createdAt], properties: {id: {type: integer, readOnly: true}, side: {type: number}, createdAt: {type: string, readOnly: true}}}
    IDsOfTwoTypes:
      anyOf:
        - {type: object, properties: {id: {type: integer, readOnly: true}, radius: {type: number}}}
        - {type: object, properties: {id: {type: string, readOnly: true}, side: {type: number}}}
`

// TestKinds: a oneOf or anyOf of objects that are kinds of one thing is an
// object whose properties are every kind's, required where every kind
// requires them; a choice of other shapes, of an object and a scalar, or
// of both oneOf and anyOf is no choice of kinds, nor a choice among
// choices; kinds made of their own choice are read once each.
func TestKinds(t *testing.T) {
	s, err := Parse([]byte(kindsDocument), "kinds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schema := func(name string) *Schema {
		return s.SchemaView(s.Model.Components.Schemas.GetOrZero(name).Schema())
	}
	for _, tc := range []struct {
		name     string
		kinds    int    // len(Kinds())
		typ      string // Type()
		props    []string
		required []string
	}{
		{"Pet", 2, "object", []string{"id", "name", "petType", "huntingSkill", "packSize"}, []string{"id", "name", "petType"}},
		{"TaggedPet", 0, "object", []string{"id", "name", "petType", "huntingSkill", "packSize", "tag"}, []string{"id", "name", "petType"}},
		{"Shape", 2, "object", []string{"id", "radius", "side"}, []string{"id"}},
		{"OneOrMany", 0, "", nil, nil},
		{"ObjectOrText", 0, "", nil, nil},
		{"Both", 0, "", nil, nil},
		{"OwnAndChoice", 0, "object", []string{"owner"}, nil},
		// Three kinds each made of their own choice: read once each (a
		// walk through the choice again branched at every level, minutes).
		{"Animal", 3, "object", []string{"id", "name", "petType", "legs", "sting", "moo"}, []string{"id", "name", "petType"}},
		{"Described", 0, "", nil, nil},
		// Kinds are one level deep: a dog that is a terrier or a hound is
		// no object kind of its own.
		{"Nested", 0, "", nil, nil},
		// Kinds agree on the fields the server fills: it fills them in
		// every record, whatever its kind.
		{"StampedOnlySquares", 0, "", nil, nil},
		{"IDsOfTwoTypes", 0, "", nil, nil},
		{"DogKinds", 2, "object", []string{"id", "name", "petType", "digs", "nose"}, []string{"id", "name", "petType"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := schema(tc.name)
			if got := len(sc.Kinds()); got != tc.kinds {
				t.Errorf("%d kinds, want %d", got, tc.kinds)
			}
			if got := sc.Type(); got != tc.typ {
				t.Errorf("Type() = %q, want %q", got, tc.typ)
			}
			if got := sc.HasKinds(); got != (tc.kinds > 0 || tc.name == "TaggedPet") {
				t.Errorf("HasKinds() = %t", got)
			}
			props, required := sc.Props()
			var names []string
			for _, p := range props {
				names = append(names, p.Name)
				if sc.Prop(p.Name) != p.Schema {
					t.Errorf("Prop(%q) is not what Props gives", p.Name)
				}
				if sc.Requires(p.Name) != required[p.Name] {
					t.Errorf("Requires(%q) = %t, Props says %t", p.Name, sc.Requires(p.Name), required[p.Name])
				}
			}
			if !slices.Equal(names, tc.props) {
				t.Errorf("Props names %v, want %v", names, tc.props)
			}
			if got := slices.Sorted(maps.Keys(required)); !slices.Equal(got, slices.Sorted(slices.Values(tc.required))) {
				t.Errorf("required %v, want %v", got, tc.required)
			}
		})
	}
	// The first kind's declaration of a name is kept: a cat's petType.
	if pt := schema("Pet").Prop("petType"); pt == nil || pt.Const == nil {
		t.Errorf("Pet's petType is %+v, want the cat's (const cat)", pt)
	}
	// A kind made of its own choice: every call ends.
	loop := schema("Loop")
	_ = loop.Type()
	_, _ = loop.Props()
	_ = loop.Prop("depth")
	_ = loop.HasKinds()
}
