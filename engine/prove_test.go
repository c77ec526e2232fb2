package engine

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

func TestCompositionIsProven(t *testing.T) {
	skipIfPlain(t)
	for _, env := range []*testEnv{newPetstore(t), newLibrary(t)} {
		for op, o := range env.srv.ops {
			want := o.kind == kindList || o.kind == kindCreate || o.kind == kindRead
			if o.proven != want {
				t.Errorf("%s: proven = %v, want %v", op, o.proven, want)
			}
		}
	}
	// A replace and a merge patch answer the item itself: proven; a
	// delete answers 204 without a body: nothing to prove.
	crud, err := spec.Load("../fixtures/petstore-crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: crud, Keys: []string{testKey}}, "Authorization", "Bearer ")
	for id, want := range map[string]bool{"listPets": true, "createPet": true, "getPet": true, "replacePet": true, "patchPet": true, "deletePet": false} {
		if o := env.srv.ops[crud.Operation(id)]; o == nil || o.proven != want {
			t.Errorf("%s: proven = %v, want %v", id, o != nil && o.proven, want)
		}
	}
	// A list schema with an array-level constraint is validated in full.
	doc := strings.Replace(petstoreDoc(t), "    Pets:\n      type: array\n", "    Pets:\n      type: array\n      maxItems: 50\n", 1)
	s, err := spec.Parse([]byte(doc), "maxItems.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env = start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	if env.srv.ops[s.Operation("listPets")].proven {
		t.Error("a list with maxItems is marked proven")
	}
	if r := env.get("/pets?limit=100"); r.status != 500 || !strings.Contains(r.message(t), "50") {
		t.Errorf("100 items against maxItems 50: %d %s, want 500 naming the bound", r.status, r.body)
	}
	if r := env.get("/pets?limit=50"); r.status != 200 {
		t.Errorf("50 items: %d", r.status)
	}
}
