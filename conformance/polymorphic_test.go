package conformance_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
)

// conformPolymorphic runs every check against petctl serve for
// fixtures/styles/polymorphic.yaml (collections of cats and dogs, circles
// and squares), its answers changed by wrap (nil for none).
func conformPolymorphic(t *testing.T, wrap func(http.Handler) http.Handler) outcome {
	t.Helper()
	return conformServed(t, styleDoc(t, "polymorphic.yaml"), engine.Options{Generate: 3}, wrap, func(c *conformance.Config) { c.APIKey = "" })
}

// TestPolymorphicConforms: against serve, every check passes on a document
// whose items are a choice of kinds, and the whole life of a cat or dog
// and of a shape is followed.
func TestPolymorphicConforms(t *testing.T) {
	t.Parallel()
	o := conformPolymorphic(t, nil)
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	for _, step := range []string{
		"createPet (POST /pets) two creates give 201 and two distinct ids",
		"getPet (GET /pets/{petId}) the created item reads back equal",
		"listPets (GET /pets) the list contains the created item",
		"getPet (GET /pets/{petId}) the replaced item reads back with the change",
		"getPet (GET /pets/{petId}) the patched item reads back with the change",
		"deletePet (DELETE /pets/{petId}) delete of the created item gives 204",
		"getShape (GET /shapes/{shapeId}) the created item reads back equal",
		"listShapes (GET /shapes) the list lacks the deleted item",
	} {
		if st, msg := o.state(t, "stateful "+step); st.String() != "passed" {
			t.Errorf("stateful %s: %s %s, want passed", step, st, msg)
		}
	}
}

// TestPolymorphicBroken: a server that reads a pet back without its kind's
// own field (a cat without huntingSkill, a dog without packSize) answers
// what neither kind allows, and conform says so.
func TestPolymorphicBroken(t *testing.T) {
	t.Parallel()
	petRead := func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/pets/")
	}
	o := conformPolymorphic(t, func(h http.Handler) http.Handler {
		return editResponse(h, petRead, func(_ *http.Request, res *recorded) {
			editJSON(res, eachObject(func(it map[string]any) {
				delete(it, "huntingSkill")
				delete(it, "packSize")
			}))
		})
	})
	failed := o.failed()
	if !slices.ContainsFunc(failed, func(f string) bool { return strings.Contains(f, "getPet") }) {
		t.Fatalf("no getPet check failed on pets read back without their kind; failed: %q\n%s", failed, o.out)
	}
	for _, f := range failed {
		if !strings.Contains(f, "getPet") && !strings.Contains(f, "coverage") {
			t.Errorf("a check outside getPet failed: %s", f)
		}
	}
}
