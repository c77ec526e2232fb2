package spec

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// TestSchemaCacheKeepsNoBodyText: after a refused body, a refused
// parameter and a refused document, no body's or document's schema in the
// cache keeps its YAML text (the library would parse it again on every
// refusal) and the refusals still name what was wrong; lazySchemaCache.Store
// drops the text under a body's and a document's keys and keeps it under
// a parameter's (its errors quote it).
func TestSchemaCacheKeepsNoBodyText(t *testing.T) {
	s, v := defaultValidated(t)
	v = v.Plain()
	create := httptest.NewRequest("POST", "/v1/pets", strings.NewReader(`{"name":5,"categoryId":1}`))
	create.Header.Set("Content-Type", "application/json")
	if ps := v.Request(create, s.Operation("createPet")); !strings.Contains(ps.Error(), "name") {
		t.Errorf("a create whose name is a number: %v, want a problem naming name", ps)
	}
	if ps := v.Request(httptest.NewRequest("GET", "/v1/pets?limit=many", nil), s.Operation("listPets")); !strings.Contains(ps.Error(), "limit") {
		t.Errorf("a list whose limit is a word: %v, want a problem naming limit", ps)
	}
	if ps := v.Schema(s.ErrorSchema(), []byte(`{"code":"x"}`)); len(ps) == 0 {
		t.Error("an error body of the wrong shape was accepted")
	}

	bodies := 0
	v.opts.SchemaCache.Range(func(key uint64, e *cache.SchemaCacheEntry) bool {
		if e == nil || e.Schema == nil || e.Schema.GoLow() == nil || key == e.Schema.GoLow().Hash() {
			return true
		}
		bodies++
		if len(e.RenderedInline) > 0 || e.ReferenceSchema != "" {
			t.Errorf("a body's or document's schema (key %x) keeps its text:\n%s%s", key, e.RenderedInline, e.ReferenceSchema)
		}
		return true
	})
	if bodies == 0 {
		t.Fatal("the cache holds no body's or document's schema after validating both")
	}
	// Store's rule, on the keys the library looks schemas up by: the
	// library's own compile (of a body that reaches a $ref with siblings,
	// say) stores its text, the validator's (compileAlone) has none.
	limit := s.Operation("listPets").Params[0].Schema
	body := s.Operation("createPet").Body.Schema
	for _, c := range []struct {
		what     string
		key      uint64
		schema   *base.Schema
		keepText bool
	}{
		{"a parameter's schema, which its errors quote", parameterUse(limit).key, limit, true},
		{"a request body's", v.bodyUse(body, schema_validation.SchemaValidationPurposeRequestBody).key, body, false},
		{"a response body's", v.bodyUse(body, schema_validation.SchemaValidationPurposeResponseBody).key, body, false},
		{"a document's", v.documentUse(body).key, body, false},
	} {
		v.opts.SchemaCache.Store(c.key, &cache.SchemaCacheEntry{Schema: c.schema, RenderedInline: []byte("type: x"), ReferenceSchema: "type: x"})
		e, _ := v.opts.SchemaCache.Load(c.key)
		if e == nil {
			t.Fatalf("%s: nothing under its key", c.what)
		}
		if kept := len(e.RenderedInline) > 0 || e.ReferenceSchema != ""; kept != c.keepText {
			t.Errorf("%s is stored with its text %q %q, want it kept %v", c.what, e.RenderedInline, e.ReferenceSchema, c.keepText)
		}
	}
}
