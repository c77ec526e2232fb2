package spec

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// compileUse is a schema as a body of one direction.
type compileUse struct {
	schema  *base.Schema
	purpose schema_validation.SchemaValidationPurpose
}

// bodyUses are the response and JSON request body schemas of s's
// operations, each (by node and purpose) once.
func bodyUses(s *Spec) []compileUse {
	seen := map[compiledKey]bool{}
	var uses []compileUse
	add := func(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) {
		if schema == nil || schema.GoLow() == nil {
			return
		}
		key := compiledKey{schema.GoLow().GetRootNode(), purpose}
		if !seen[key] {
			seen[key] = true
			uses = append(uses, compileUse{schema, purpose})
		}
	}
	for _, op := range s.Operations {
		if _, mt := jsonBodyMedia(op); mt != nil && mt.Schema != nil {
			add(mt.Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody)
		}
		for _, r := range op.Responses {
			add(r.Schema, schema_validation.SchemaValidationPurposeResponseBody)
		}
	}
	return uses
}

// TestCompiledAloneAgrees holds the schemas compile makes (the inline
// rendering, compiled alone) to those libopenapi-validator compiles from
// the document's files, on the fixtures that use every keyword a plan
// implements (OpenAPI 3.0's nullable and boolean bounds, readOnly and
// writeOnly under required, a cycle): valid values made for each and
// mutated must get one verdict from both.
func TestCompiledAloneAgrees(t *testing.T) {
	for _, doc := range []string{agreeDoc31, agreeDoc30} {
		s, v := parseValidated(t, doc, "agree.yaml")
		var uses []compileUse
		for _, sp := range s.Model.Components.Schemas.FromOldest() {
			for _, purpose := range []schema_validation.SchemaValidationPurpose{schema_validation.SchemaValidationPurposeRequestBody, schema_validation.SchemaValidationPurposeResponseBody} {
				uses = append(uses, compileUse{sp.Schema(), purpose})
			}
		}
		if st := compiledAgree(t, s, v, uses, 400); st.alone == 0 || st.valid < 100*st.alone || st.refused < 100*st.alone {
			t.Errorf("%+v: want both verdicts in numbers", st)
		}
	}
}

// TestCorpusCompiledAloneAgrees is TestCompiledAloneAgrees on the body
// schemas of every corpus document: 40 of each, spread over the document.
func TestCorpusCompiledAloneAgrees(t *testing.T) {
	eachCorpusValidator(t, func(t *testing.T, s *Spec, v *Validator) {
		uses := bodyUses(s)
		if step := len(uses) / 40; step > 1 {
			var spread []compileUse
			for i := 0; i < len(uses); i += step {
				spread = append(spread, uses[i])
			}
			uses = spread
		}
		st := compiledAgree(t, s, v, uses, 60)
		t.Logf("%d schemas: %d compiled alone, %d reach a $ref with siblings and %d keep one (a cycle) (both the library's compile), %d compiled by neither; %d valid and %d refused values compared",
			len(uses), st.alone, st.siblings, st.cycles, st.neither, st.valid, st.refused)
		if len(uses) > 0 && st.alone == 0 {
			t.Errorf("none of %d body schemas compiled alone", len(uses))
		}
	})
}

type compiledStats struct{ alone, siblings, cycles, neither, valid, refused int }

// compiledAgree compiles each use both ways and fails the test on a value,
// made for the schema and maybe mutated, that one accepts and the other
// refuses.
func compiledAgree(t *testing.T, s *Spec, v *Validator, uses []compileUse, n int) compiledStats {
	t.Helper()
	var st compiledStats
	for _, u := range uses {
		if refSiblingsReachable(u.schema) {
			st.siblings++ // compile's is the library's compile
			continue
		}
		alone := v.compileAlone(u.schema, u.purpose)
		lib, err := schema_validation.CompileSchemaForValidation(u.schema, u.purpose, v.opts, v.version)
		switch {
		case alone == nil && err != nil:
			st.neither++
			continue
		case alone == nil:
			st.cycles++
			continue
		case err != nil:
			st.alone++ // compile's reason to exist: the library misses a file (eclipse-ditto)
			continue
		}
		st.alone++
		rng := rand.New(rand.NewPCG(11, uint64(st.alone)))
		gen := &Values{Rand: rng, Optional: 0.7, Now: time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)}
		mutatedValues(t, rng, gen, s.SchemaView(u.schema), n, func(_ any, raw []byte, plain any) {
			aloneErr, libErr := alone.CompiledSchema.Validate(plain), lib.CompiledSchema.Validate(plain)
			if (aloneErr == nil) != (libErr == nil) {
				t.Fatalf("the schema at line %d (purpose %d): %s: compiled alone: %v; the library's compile: %v", u.schema.GoLow().GetRootNode().Line, u.purpose, raw, aloneErr, libErr)
			}
			if aloneErr == nil {
				st.valid++
			} else {
				st.refused++
			}
		})
	}
	return st
}

// BenchmarkCompileResponseSchemas compiles every response schema of a
// corpus document with a fresh validator, as a server meets them on its
// first answers.
func BenchmarkCompileResponseSchemas(b *testing.B) {
	for _, d := range corpusDocs(b) {
		switch d.Name {
		case "adyen-balance-platform-configuration", "lago", "sonarr", "eclipse-ditto":
		default:
			continue
		}
		s, err := Load(d.Path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(d.Name, func(b *testing.B) {
			for b.Loop() {
				v, err := s.NewValidator()
				if err != nil {
					b.Fatal(err)
				}
				for _, op := range s.Operations {
					for _, r := range op.Responses {
						if r.Schema != nil {
							_, _ = v.CompileResponseSchema(r.Schema)
						}
					}
				}
			}
		})
	}
}

// refReadOnlyDoc requires properties whose readOnly and writeOnly are
// behind a $ref.
const refReadOnlyDoc = `openapi: 3.1.0
info: {title: refs, version: "1"}
paths:
  /users:
    post:
      operationId: createUser
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/User'}
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/User'}
components:
  schemas:
    Id: {type: string, readOnly: true}
    Password: {type: string, writeOnly: true}
    User:
      type: object
      required: [id, name, password]
      properties:
        id: {$ref: '#/components/schemas/Id'}
        name: {type: string}
        password: {oneOf: [{$ref: '#/components/schemas/Password'}]}
`

// TestRefReadOnlyRequired: a required readOnly property is required of
// responses only, and a required writeOnly one of requests only, whether
// the flag is written inline or behind a $ref (compile's one difference
// from the library's compile, which requires both of both).
func TestRefReadOnlyRequired(t *testing.T) {
	s, v := parseValidated(t, refReadOnlyDoc, "refs.yaml")
	op := s.Operation("createUser")
	for _, tc := range []struct {
		name, body string
		wantField  string // "" when the body is valid
	}{
		{"no id", `{"name": "Ada", "password": "s3cret"}`, ""},
		{"no password", `{"id": "u1", "name": "Ada"}`, "password"},
		{"no name", `{"password": "s3cret"}`, "name"},
	} {
		r := httptest.NewRequest("POST", "http://users.local/users", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", JSON)
		checkProblems(t, "request "+tc.name, v.Request(r, op), tc.wantField)
	}
	for _, tc := range []struct {
		name, body string
		wantField  string
	}{
		{"no password", `{"id": "u1", "name": "Ada"}`, ""},
		{"no id", `{"name": "Ada"}`, "id"},
	} {
		r := httptest.NewRequest("POST", "http://users.local/users", nil)
		checkProblems(t, "response "+tc.name, v.Response(r, op, 201, http.Header{"Content-Type": {JSON}}, []byte(tc.body)), tc.wantField)
	}
}

// TestRefSiblingsReachable: a $ref beside a keyword that validates is
// found through anchors and under a property named like a keyword; an
// annotation beside a $ref, or a property named "$ref", is none.
func TestRefSiblingsReachable(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: siblings, version: "1"}
paths: {}
components:
  schemas:
    Props: {type: object, properties: {name: {type: string}}}
    Annotated:
      type: object
      properties:
        a: {$ref: '#/components/schemas/Props', description: props}
    NamedRef:
      type: object
      properties:
        $ref: {type: string}
    Required:
      type: object
      properties:
        a: {$ref: '#/components/schemas/Props', required: [name]}
    Anchored:
      type: object
      properties:
        a: &sibling {$ref: '#/components/schemas/Props', type: object}
    ThroughAlias:
      type: object
      properties:
        b: *sibling
    Reached:
      type: object
      properties:
        r: {$ref: '#/components/schemas/Required'}
    Feature:
      type: object
      properties:
        properties: {$ref: '#/components/schemas/Props', required: [name]}
        geometry: {$ref: '#/components/schemas/Props'}
`
	s, _ := parseValidated(t, doc, "siblings.yaml")
	for name, want := range map[string]bool{
		"Props": false, "Annotated": false, "NamedRef": false,
		"Required": true, "Anchored": true, "ThroughAlias": true, "Reached": true, "Feature": true,
	} {
		sp := s.Model.Components.Schemas.GetOrZero(name)
		if got := refSiblingsReachable(sp.Schema()); got != want {
			t.Errorf("%s: refSiblingsReachable = %v, want %v", name, got, want)
		}
	}
}
