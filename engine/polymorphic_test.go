package engine

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// newPolymorphic serves fixtures/styles/polymorphic.yaml, collections whose
// items come in kinds, with generated records of each collection.
func newPolymorphic(t *testing.T, generate int) *testEnv {
	t.Helper()
	s, err := spec.Load("../fixtures/styles/polymorphic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return start(t, Options{Spec: s, Generate: generate}, "X-Key", "") // the document asks for no key: it is ignored
}

// TestPolymorphicCollection: a collection of cats and dogs (a oneOf with a
// discriminator) is stateful: each kind is created with its own fields, a
// body of neither kind is refused in the API's error format, the
// discriminator filters the list, replace, merge patch (into another kind
// too, where the result is whole) and delete hold, and generated records
// are each of one kind.
func TestPolymorphicCollection(t *testing.T) {
	env := newPolymorphic(t, 4)
	for i, p := range env.get("/pets").list(t) {
		cat, dog := p["huntingSkill"] != nil, p["packSize"] != nil
		if cat == dog || cat && p["petType"] != "cat" || dog && p["petType"] != "dog" {
			t.Errorf("generated pet %d is not of one kind: %v", i, p)
		}
	}
	play(t, env, []exchange{
		{name: "create a cat", method: "POST", path: "/pets", body: `{"name":"Tom","petType":"cat","huntingSkill":"lazy"}`, status: 201,
			want: map[string]string{"id": "5", "huntingSkill": "lazy", "packSize": "<absent>"}, save: map[string]string{"cat": "id"}},
		{name: "create a dog", method: "POST", path: "/pets", body: `{"name":"Rex","petType":"dog","packSize":3}`, status: 201,
			want: map[string]string{"id": "6", "packSize": "3"}},
		{name: "a dog that hunts is refused", method: "POST", path: "/pets", body: `{"name":"Bad","petType":"dog","huntingSkill":"lazy"}`, status: 400,
			want: map[string]string{"status": "400"}},
		{name: "the list filters by kind", method: "GET", path: "/pets?petType=cat", status: 200,
			check: func(t *testing.T, r result) {
				for _, p := range r.list(t) {
					if p["petType"] != "cat" {
						t.Errorf("petType=cat lists %v", p)
					}
				}
			}},
		{name: "replace the cat", method: "PUT", path: "/pets/{cat}", body: `{"name":"Tom","petType":"cat","huntingSkill":"aggressive"}`, status: 200},
		{name: "read it back", method: "GET", path: "/pets/{cat}", status: 200, want: map[string]string{"huntingSkill": "aggressive", "name": "Tom"}},
		{name: "replace it with neither kind", method: "PUT", path: "/pets/{cat}", body: `{"name":"Tom","petType":"cat"}`, status: 400},
		{name: "still the cat it was", method: "GET", path: "/pets/{cat}", status: 200, want: map[string]string{"huntingSkill": "aggressive"}},
		{name: "patch its skill", method: "PATCH", path: "/pets/{cat}", ctype: "application/merge-patch+json", body: `{"huntingSkill":"lazy"}`, status: 200,
			want: map[string]string{"huntingSkill": "lazy", "petType": "cat"}},
		{name: "patch it into a dog without a pack", method: "PATCH", path: "/pets/{cat}", ctype: "application/merge-patch+json", body: `{"petType":"dog"}`, status: 400,
			check: func(t *testing.T, r result) {
				if !strings.Contains(r.message(t), "nothing was changed") {
					t.Errorf("message %q does not say the pet was kept", r.message(t))
				}
			}},
		{name: "still a cat", method: "GET", path: "/pets/{cat}", status: 200, want: map[string]string{"petType": "cat", "huntingSkill": "lazy", "packSize": "<absent>"}},
		{name: "patch it into a dog whole", method: "PATCH", path: "/pets/{cat}", ctype: "application/merge-patch+json", body: `{"petType":"dog","huntingSkill":null,"packSize":2}`, status: 200,
			want: map[string]string{"petType": "dog", "packSize": "2", "huntingSkill": "<absent>"}},
		{name: "a dog now", method: "GET", path: "/pets/{cat}", status: 200, want: map[string]string{"petType": "dog", "huntingSkill": "<absent>"}},
		{name: "delete it", method: "DELETE", path: "/pets/{cat}", status: 204},
		{name: "gone", method: "GET", path: "/pets/{cat}", status: 404, want: map[string]string{"status": "404"}},
	})
}

// TestPolymorphicAnyOf: kinds of an anyOf without a discriminator, each
// closed to the other's fields, are stored as they come and a body of both
// is refused.
func TestPolymorphicAnyOf(t *testing.T) {
	env := newPolymorphic(t, 3)
	play(t, env, []exchange{
		{name: "generated shapes list", method: "GET", path: "/shapes", status: 200, want: map[string]string{"shapes.#": "3"}},
		{name: "create a circle", method: "POST", path: "/shapes", body: `{"radius":2.5}`, status: 201,
			want: map[string]string{"radius": "2.5", "side": "<absent>"}, save: map[string]string{"id": "id"}},
		{name: "read it", method: "GET", path: "/shapes/{id}", status: 200, want: map[string]string{"radius": "2.5"}},
		{name: "a circle with a side is refused", method: "POST", path: "/shapes", body: `{"radius":2.5,"side":1}`, status: 400},
		{name: "four shapes", method: "GET", path: "/shapes", status: 200, want: map[string]string{"shapes.#": "4"}},
	})
}
