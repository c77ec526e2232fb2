package spec

import (
	"net/http/httptest"
	"testing"
)

// BenchmarkRequest compares validating GET /v1/pets?limit=20 in full with
// answering it from the memo.
func BenchmarkRequest(b *testing.B) {
	s, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	op := s.Operation("listPets")
	for _, memo := range []bool{false, true} {
		name := "full"
		if memo {
			name = "memo"
		}
		b.Run("list/"+name, func(b *testing.B) {
			v, err := s.NewValidator()
			if err != nil {
				b.Fatal(err)
			}
			if !memo {
				v.memo = nil
			}
			r := httptest.NewRequest("GET", "/v1/pets?limit=20", nil)
			b.ReportAllocs()
			for b.Loop() {
				if ps := v.Request(r, op); ps != nil {
					b.Fatal(ps)
				}
			}
		})
	}
}

// BenchmarkKindsType: Type of a choice of kinds (Pet), of a choice that is
// none (OneOrMany: it walks its members' properties to know), of an allOf
// wrapper of that (Described), and of a plain object. Answers ask it per property and per request, so the
// choices' answer is remembered.
func BenchmarkKindsType(b *testing.B) {
	s, err := Parse([]byte(kindsDocument), "kinds.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"Pet", "OneOrMany", "Described", "PetBase"} {
		sc := s.SchemaView(s.Model.Components.Schemas.GetOrZero(name).Schema())
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = sc.Type()
			}
		})
	}
}

// BenchmarkParse: the embedded Petstore parsed and checked against the
// OpenAPI schema of its version, as every start, reload and test server does.
func BenchmarkParse(b *testing.B) {
	raw := DefaultDocument()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw, "petstore.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
