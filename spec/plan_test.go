package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// planDoc declares schemas inside and outside the keywords a plan implements.
const planDoc = `openapi: 3.1.0
info: {title: plans, version: "1"}
paths: {}
components:
  schemas:
    Status: {type: string, enum: [on, off]}
    Simple:
      type: object
      description: in the shape
      required: [id, name]
      properties:
        id: {type: integer, format: int64, description: the id}
        small: {type: integer, format: int32}
        name: {type: string, title: Name, example: Rex}
        ratio: {type: number}
        flag: {type: boolean, deprecated: true}
        status: {$ref: '#/components/schemas/Status'}
    Pattern:
      type: object
      properties: {name: {type: string, pattern: '^a'}}
    MinLength:
      type: object
      properties: {name: {type: string, minLength: 2}}
    UUID:
      type: object
      properties: {id: {type: string, format: uuid}}
    Nullable:
      type: object
      properties: {name: {type: [string, "null"]}}
    Minimum:
      type: object
      properties: {n: {type: integer, minimum: 1}}
    Closed:
      type: object
      additionalProperties: false
      properties: {n: {type: integer}}
    AllOf:
      allOf: [{type: object, properties: {n: {type: integer}}}]
    ReadOnly:
      type: object
      properties: {n: {type: integer, readOnly: true}}
    Nested:
      type: object
      properties: {tags: {type: array, items: {type: string}}}
    NumberEnum:
      type: object
      properties: {n: {type: integer, enum: [1, 2]}}
    Float:
      type: object
      properties: {n: {type: number, format: float}}
    MinProps:
      type: object
      minProperties: 1
      properties: {n: {type: integer}}
    MultipleOf:
      type: object
      properties: {n: {type: integer, multipleOf: 2}}
    Unique:
      type: object
      properties: {tags: {type: array, uniqueItems: true, items: {type: string}}}
    Contains:
      type: object
      properties: {tags: {type: array, contains: {type: string}}}
    PatternProps:
      type: object
      patternProperties: {'^x-': {type: string}}
    Not:
      type: object
      properties: {n: {not: {type: integer}}}
    IfThen:
      type: object
      if: {required: [n]}
      then: {required: [name]}
    Fraction:
      type: object
      properties: {n: {type: number, minimum: 0.5}}
    Tuple:
      type: object
      properties: {pair: {type: array, prefixItems: [{type: string}, {type: integer}]}}
    Regex:
      type: object
      properties: {re: {type: string, format: regex}}
    Discriminated:
      type: object
      discriminator: {propertyName: kind}
      properties: {kind: {type: string}}
    Cat:
      type: object
      required: [kind]
      properties: {kind: {const: cat}, lives: {type: integer, maximum: 9}}
    OneOfSchema:
      type: object
      properties:
        pet:
          oneOf: [{$ref: '#/components/schemas/Cat'}, {type: object, required: [kind], properties: {kind: {const: dog}}}]
    AnyOfRoot:
      anyOf: [{type: object, properties: {n: {type: integer}}}, {type: object, required: [name]}]
`

func compileComponent(t *testing.T, s *Spec, v *Validator, name string) *ResponseSchema {
	t.Helper()
	sp := s.Model.Components.Schemas.GetOrZero(name)
	if sp == nil {
		t.Fatalf("no schema %s", name)
	}
	rs, err := v.CompileResponseSchema(sp.Schema())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rs
}

// TestPlanShape: a schema gets a plan when it uses only the keywords a
// plan implements, whatever they are nested in; a record plan by position
// when its checks are all on the record's properties.
func TestPlanShape(t *testing.T) {
	s, v := parseValidated(t, planDoc, "plans.yaml")
	names := []string{"id", "small", "name", "ratio", "flag", "status", "tags", "n"}
	for _, tc := range []struct {
		schemas      []string
		value, index bool
	}{
		{[]string{"Simple", "Pattern", "MinLength", "UUID", "Nullable", "Minimum", "Closed", "AllOf", "ReadOnly", "Nested", "NumberEnum", "Float", "MinProps", "OneOfSchema", "Unique", "Tuple"}, true, true},
		// A plan for the whole value, none by position: AnyOfRoot checks more
		// than the record's properties, and the discriminator requires kind,
		// which is not among the fields.
		{[]string{"AnyOfRoot", "Discriminated"}, true, false},
		{[]string{"MultipleOf", "Contains", "PatternProps", "Not", "IfThen", "Fraction", "Regex"}, false, false},
	} {
		for _, name := range tc.schemas {
			rs := compileComponent(t, s, v, name)
			if got := rs.plan != nil; got != tc.value {
				t.Errorf("%s: a plan %v, want %v", name, got, tc.value)
			}
			if got := rs.Plan(names) != nil; got != tc.index {
				t.Errorf("%s: a record plan %v, want %v", name, got, tc.index)
			}
		}
	}
	// A required property the caller cannot give: no record plan.
	if compileComponent(t, s, v, "Simple").Plan([]string{"id"}) != nil {
		t.Error("a plan although the required 'name' is not among the fields")
	}
}

// TestObjectPlanAgreesWithSchema mutates valid records in every way the
// plan's keywords can be violated (and some they cannot) and wants the plan
// and the compiled schema to agree on each: never accepting what the schema
// refuses, and accepting everything it accepts, so the plan is both sound
// and worth having.
func TestObjectPlanAgreesWithSchema(t *testing.T) {
	s, v := parseValidated(t, planDoc, "plans.yaml")
	names := []string{"id", "small", "name", "ratio", "flag", "status"}
	rs := compileComponent(t, s, v, "Simple")
	plan := rs.Plan(names)
	if plan == nil {
		t.Fatal("no plan")
	}
	num := func(s string) any { return json.Number(s) }
	candidates := map[string][]any{
		"id": {num("1"), num("0"), num("-7"), num("1.0"), num("1e2"), num("1.5"), num("1e-7"), num("9223372036854775807"),
			num("9223372036854775808"), num("9223372036854777856"), num("-9223372036854775809"), num("-9223372036854780000"),
			num("1e300"), num("-0"), num("4.000000000000001"), "1", true, nil, map[string]any{}, []any{}},
		"small": {num("2147483647"), num("2147483648"), num("-2147483648"), num("-2147483649"), num("2147483647.5"), num("3"), "3", nil},
		"name":  {"Rex", "", "é \u2028", num("1"), false, nil, []any{"a"}},
		"ratio": {num("0.5"), num("1"), num("-1e10"), num("1e308"), "0.5", nil, true},
		"flag":  {true, false, "true", num("1"), nil},
		"status": {"on", "off", "ON", "", num("1"), nil,
			map[string]any{"x": "on"}},
	}
	rng := rand.New(rand.NewPCG(5, 5))
	accepted, refused := 0, 0
	for i := 0; i < 3000; i++ {
		vals := make([]any, len(names))
		has := make([]bool, len(names))
		obj := map[string]any{}
		for j, n := range names {
			if rng.IntN(8) == 0 {
				continue // absent
			}
			c := candidates[n]
			// Mostly valid values, so that whole records are often valid.
			k := rng.IntN(len(c))
			if rng.IntN(3) > 0 {
				k = rng.IntN(2)
			}
			vals[j], has[j] = c[k], true
			obj[n] = c[k]
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		var view any
		if err := json.Unmarshal(raw, &view); err != nil {
			continue // 1e300 and the like are still JSON; nothing else fails
		}
		want := rs.Validate(view) == nil
		got := plan.Accepts(vals, has)
		if got != want {
			t.Fatalf("record %s: plan accepts=%v, compiled schema accepts=%v", raw, got, want)
		}
		if want {
			accepted++
		} else {
			refused++
		}
	}
	if accepted < 200 || refused < 200 {
		t.Errorf("%d accepted and %d refused records compared; want both in numbers", accepted, refused)
	}
}

// TestObjectPlanPetstore makes sure the Petstore's Pet gets a plan, since
// that is what makes a million fixture records load in time.
func TestObjectPlanPetstore(t *testing.T) {
	s, v := defaultValidated(t)
	c := s.Collections[0]
	rs, err := v.CompileResponseSchema(c.ItemSchema)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range c.Fields {
		names = append(names, f.Name)
	}
	p := rs.Plan(names)
	if p == nil {
		t.Fatalf("no plan for %s with fields %s", c.Name, strings.Join(names, ", "))
	}
	vals := []any{json.Number("1"), "Rex", json.Number("3"), "sold"}
	if got := fmt.Sprint(names); got != "[id name categoryId status]" {
		t.Fatalf("fields %s; the test expects the Petstore's", got)
	}
	if !p.Accepts(vals, []bool{true, true, true, true}) {
		t.Error("a valid pet not accepted")
	}
	if p.Accepts(vals, []bool{true, false, true, true}) {
		t.Error("a pet without its required name accepted")
	}
}

// TestLazyResponseSchema: a schema compiled on first use costs nothing
// until then, and then decides as the schema compiled at once does; one
// that does not compile says so once, and Validate leaves the verdict to
// the caller (ErrNotCompiled).
func TestLazyResponseSchema(t *testing.T) {
	s, v := defaultValidated(t)
	c := s.Collections[0]
	eager, err := v.CompileResponseSchema(c.ItemSchema)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := v.LazyResponseSchema(c.ItemSchema, func(err error) { t.Errorf("onError(%v) for a schema that compiles", err) })
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"id", "name", "categoryId", "status"}
	plan := lazy.Plan(names)
	if lazy.compiled != nil || plan == nil {
		t.Fatalf("compiled %v, plan %v: want nothing compiled and a plan to come", lazy.compiled != nil, plan)
	}
	if lazy.Hash != eager.Hash {
		t.Errorf("hash %d, want %d", lazy.Hash, eager.Hash)
	}
	vals := []any{json.Number("1"), "Rex", json.Number("3"), "sold"}
	if !plan.Accepts(vals, []bool{true, true, true, true}) || lazy.compiled == nil {
		t.Error("the plan did not compile the schema and accept a valid pet")
	}
	for _, doc := range []string{`{"id":1,"name":"Rex","categoryId":3}`, `{"id":1,"categoryId":3}`, `{"id":"1","name":"Rex","categoryId":3}`, `[]`} {
		var d any
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		if got, want := lazy.Validate(d) == nil, eager.Validate(d) == nil; got != want {
			t.Errorf("%s: lazy valid %v, eager %v", doc, got, want)
		}
	}

	bad, err := Parse([]byte(`openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Bad: {type: object, properties: {n: {type: string, pattern: '(?<'}}}
`), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bv, err := bad.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	rs, err := bv.LazyResponseSchema(bad.Model.Components.Schemas.GetOrZero("Bad").Schema(), func(error) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := rs.Validate(map[string]any{"n": "x"}); !errors.Is(err, ErrNotCompiled) {
			t.Errorf("Validate: %v, want ErrNotCompiled", err)
		}
	}
	if rs.Plan(names).Accepts(vals, []bool{true, true, true, true}) || calls != 1 {
		t.Errorf("plan accepted, or onError called %d times: want no plan, one call", calls)
	}
}

// edgesDoc holds schemas a plan once accepted values of that the compiled
// schema refuses (found in review): each value below is refused.
const edgesDoc = `openapi: 3.1.0
info: {title: edges, version: "1"}
paths: {}
components:
  schemas:
    Names:
      type: object
      propertyNames: {maxLength: 2}
      properties: {abc: {type: integer}}
    EmptyDiscriminator:
      oneOf: [{type: string}, {discriminator: {propertyName: ""}}]
    Draft7:
      type: object
      properties:
        p:
          $id: "https://example.com/p"
          $schema: "http://json-schema.org/draft-07/schema#"
          definitions: {any: {}}
          oneOf: [{type: string}, {$ref: '#/definitions/any', discriminator: {propertyName: kind}}]
    Loop:
      allOf: [{$ref: '#/components/schemas/Loop'}]
    MinInt64:
      type: integer
      minimum: -9223372036854775808
    EnumMinInt64:
      enum: [-9223372036854775808]
    Integer:
      type: integer
`

// TestPlanEdges: the plan accepts none of these refused values, and a
// schema made of itself (which the validator refuses as a cycle) has no
// plan to follow forever.
func TestPlanEdges(t *testing.T) {
	s, v := parseValidated(t, edgesDoc, "edges.yaml")
	for _, tc := range []struct {
		schema string
		value  any
	}{
		{"Names", map[string]any{"abc": 1.0}},
		{"EmptyDiscriminator", "x"},
		{"Draft7", map[string]any{"p": "x"}},
		{"Loop", 1.0},
		{"MinInt64", float64(math.MinInt64)},
		{"EnumMinInt64", float64(math.MinInt64)},
		{"Integer", json.Number("Inf")},
		{"Integer", json.Number("NaN")},
	} {
		rs := compileComponent(t, s, v, tc.schema)
		if rs.plan.accepts(tc.value) {
			t.Errorf("%s: the plan accepts %v", tc.schema, tc.value)
		}
		if _, isNumber := tc.value.(json.Number); !isNumber && rs.Validate(tc.value) == nil {
			t.Errorf("%s: Validate accepts %v", tc.schema, tc.value)
		}
	}
	if compileComponent(t, s, v, "Loop").plan != nil {
		t.Error("a plan for a schema made of itself")
	}
	if compileComponent(t, s, v, "Names").Plan([]string{"abc"}).Accepts([]any{1.0}, []bool{true}) {
		t.Error("the record plan accepts a key propertyNames refuses")
	}
}

// parseValidated parses the document doc, named name, and makes its validator.
func parseValidated(t *testing.T, doc, name string) (*Spec, *Validator) {
	t.Helper()
	s, err := Parse([]byte(doc), name)
	return validated(t, s, err)
}

// defaultValidated is the embedded Petstore and a validator for it.
func defaultValidated(t *testing.T) (*Spec, *Validator) {
	t.Helper()
	s, err := Default()
	return validated(t, s, err)
}

// validated makes the validator of a document read as s, err say.
func validated(t *testing.T, s *Spec, err error) (*Spec, *Validator) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}
