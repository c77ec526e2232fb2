package spec

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi-validator/cache"
)

// TestSchemaCacheKeepsNoBodyText holds lazySchemaCache.Store to its rule:
// after a refused body and a refused parameter, no body's or document's
// schema in the cache keeps its YAML text (the library would parse it
// again on every refusal), a parameter's does (its errors quote it), and
// the refusals still name what was wrong.
func TestSchemaCacheKeepsNoBodyText(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
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
		if len(e.RenderedInline) > 0 {
			t.Errorf("a body's or document's schema (key %x) keeps its text:\n%s", key, e.RenderedInline)
		}
		return true
	})
	if bodies == 0 {
		t.Fatal("the cache holds no body's or document's schema after validating both")
	}

	// A parameter's schema is put under its own hash (the library's
	// parameter validation looks it up there).
	limit := s.Operation("listPets").Params[0].Schema
	key := limit.GoLow().Hash()
	v.opts.SchemaCache.Store(key, &cache.SchemaCacheEntry{Schema: limit, RenderedInline: []byte("type: integer")})
	if e, _ := v.opts.SchemaCache.Load(key); e == nil || string(e.RenderedInline) != "type: integer" {
		t.Errorf("a parameter's schema is kept as %+v, want its text kept: its errors quote it", e)
	}
}
