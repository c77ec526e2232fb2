package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// petsWrapped is the Petstore with getPet and createPet answering the
// animal wrapped, {"pet": {...}}: wrapper is the PetAnswer schema's body
// below its name, at six spaces.
func petsWrapped(t *testing.T, wrapper string) *spec.Spec {
	t.Helper()
	item := "                $ref: '#/components/schemas/Pet'\n"
	doc := petstoreDoc(t)
	if strings.Count(doc, item) != 2 || !strings.Contains(doc, "    Pets:\n") {
		t.Fatal("the Petstore's answers moved: the test's replacement does not apply")
	}
	doc = strings.ReplaceAll(doc, item, "                $ref: '#/components/schemas/PetAnswer'\n")
	doc = strings.Replace(doc, "    Pets:\n", "    PetAnswer:\n"+wrapper+"    Pets:\n", 1)
	s, err := spec.Parse([]byte(doc), "wrapped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	wrapperPlain = "      type: object\n      required: [pet]\n      properties:\n        pet: {$ref: '#/components/schemas/Pet'}\n"
	// wrapperSealed says in every keyword it may that the pet is alone.
	wrapperSealed = "      type: [object]\n      required: [pet]\n      additionalProperties: false\n      minProperties: 1\n      maxProperties: 1\n" +
		"      properties:\n        pet: {$ref: '#/components/schemas/Pet'}\n"
	wrapperOptional = "      type: object\n      properties:\n        pet: {$ref: '#/components/schemas/Pet'}\n"
)

// TestWrappedAnswersProven serves the Petstore with its animal answered in
// a wrapper: where the wrapper can reject an object of the pet alone only
// for the pet, the answer is the stored record in it and is not validated
// again; where the wrapper has more to say (a bound on the properties,
// their names, a composition, a dependency, an example with more in it),
// the answer is made and validated whole as before, and one
// that breaks the document is the 500 that says so.
func TestWrappedAnswersProven(t *testing.T) {
	skipIfPlain(t)
	plainPet := newPetstore(t).get("/pets/3")
	if plainPet.status != 200 {
		t.Fatalf("GET /pets/3 on the Petstore: %d", plainPet.status)
	}
	tests := []struct {
		name, wrapper string
		proven        bool
		status        int    // of GET /pets/3
		violation     string // in the 500's message
		also          string // a property the answer holds beside pet
	}{
		{name: "the pet alone", wrapper: wrapperPlain, proven: true, status: 200},
		{name: "sealed", wrapper: wrapperSealed, proven: true, status: 200},
		{name: "pet optional", wrapper: wrapperOptional, proven: true, status: 200},
		{name: "two properties at least", wrapper: wrapperPlain + "      minProperties: 2\n", status: 500, violation: "2"},
		{name: "no property allowed", wrapper: wrapperPlain + "      maxProperties: 0\n", status: 500, violation: "0"},
		{name: "names must start with x", wrapper: wrapperPlain + "      propertyNames: {pattern: '^x'}\n", status: 500, violation: "x"},
		{name: "an allOf that bounds the name", wrapper: wrapperPlain + "      allOf: [{properties: {pet: {properties: {name: {maxLength: 2}}}}}]\n", status: 500, violation: "2"},
		{name: "pet needs meta", wrapper: wrapperPlain + "      dependentRequired: {pet: [meta]}\n", status: 500, violation: "meta"},
		{name: "an example with more", wrapper: wrapperPlain + "      example: {pet: {id: 1, name: Rex, categoryId: 1, status: available}, note: from the example}\n",
			status: 200, also: "note"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := petsWrapped(t, tc.wrapper)
			env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
			for _, id := range []string{"getPet", "createPet"} {
				o := env.srv.ops[s.Operation(id)]
				if o == nil || o.rop.Response.Kind != "wrapped" {
					t.Fatalf("%s is not served as a wrapped answer", id)
				}
				if o.proven != tc.proven {
					t.Errorf("%s: proven = %v, want %v", id, o.proven, tc.proven)
				}
			}
			r := env.get("/pets/3")
			if r.status != tc.status {
				t.Fatalf("GET /pets/3: %d %s, want %d", r.status, truncate(string(r.body), 300), tc.status)
			}
			if r.status == 500 {
				if got := r.code(t); got != string(CodeResponseInvalid) || !strings.Contains(r.message(t), tc.violation) {
					t.Errorf("500: %s %q, want %s naming %q", got, r.message(t), CodeResponseInvalid, tc.violation)
				}
				return
			}
			if ps := env.srv.val.Response(httptest.NewRequest("GET", s.BasePath+"/pets/3", nil), s.Operation("getPet"), 200, r.header, r.body); len(ps) > 0 {
				t.Errorf("the validator refuses the answer: %v\n%s", ps, r.body)
			}
			body := r.object(t)
			if got, want := string(mustJSON(t, body["pet"])), string(mustJSON(t, plainPet.object(t))); got != want {
				t.Errorf("the wrapped pet is %s, want the Petstore's %s", got, want)
			}
			if _, ok := body[tc.also]; tc.also != "" && !ok {
				t.Errorf("the answer lacks %s, which the wrapper makes: %s", tc.also, r.body)
			}
			if tc.also == "" && len(body) != 1 {
				t.Errorf("the answer holds more than the pet: %s", r.body)
			}
			created := env.do(request{method: "POST", path: "/pets", body: `{"name":"Wrapped","categoryId":1,"status":"available"}`})
			if created.status != 201 {
				t.Fatalf("POST /pets: %d %s", created.status, created.body)
			}
			if pet, ok := created.object(t)["pet"].(map[string]any); !ok || pet["name"] != "Wrapped" || pet["id"] == nil {
				t.Errorf("the created answer is %s, want the new pet in pet", created.body)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWrappedVerdictIsTheItems is the evidence behind spec.WrappedItemHash:
// for each wrapper start-up proves, and records whole or broken, the
// validator's verdict on the record in the wrapper alone is its verdict on
// the record as the Petstore's own answer.
func TestWrappedVerdictIsTheItems(t *testing.T) {
	plain := newPetstore(t)
	r := plain.get("/pets/3")
	if r.status != 200 {
		t.Fatalf("GET /pets/3: %d", r.status)
	}
	mutations := map[string]func(map[string]any){
		"as served":             func(map[string]any) {},
		"name a number":         func(m map[string]any) { m["name"] = 7 },
		"status outside enum":   func(m map[string]any) { m["status"] = "lost" },
		"id left out":           func(m map[string]any) { delete(m, "id") },
		"name left out":         func(m map[string]any) { delete(m, "name") },
		"an extra property":     func(m map[string]any) { m["extra"] = map[string]any{"a": 1} },
		"categoryId a fraction": func(m map[string]any) { m["categoryId"] = 1.5 },
	}
	hdr := http.Header{"Content-Type": {spec.JSON}}
	for _, wrapper := range []string{wrapperPlain, wrapperSealed, wrapperOptional} {
		s := petsWrapped(t, wrapper)
		env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
		if !forcePlain && !env.srv.ops[s.Operation("getPet")].proven {
			t.Fatalf("the wrapper is not proven:\n%s", wrapper) // the plain suite proves nothing: the verdicts still agree
		}
		valid, invalid := 0, 0
		for name, mutate := range mutations {
			pet := r.object(t)
			mutate(pet)
			rec := mustJSON(t, pet)
			want := plain.srv.val.Response(httptest.NewRequest("GET", "/v1/pets/3", nil), plain.srv.spec.Operation("getPet"), 200, hdr, rec) == nil
			got := env.srv.val.Response(httptest.NewRequest("GET", s.BasePath+"/pets/3", nil), s.Operation("getPet"), 200, hdr, wrapRecord("pet", rec)) == nil
			if got != want {
				t.Errorf("%s: the record in the wrapper is valid=%v, the record alone valid=%v\n%s", name, got, want, rec)
			}
			if want {
				valid++
			} else {
				invalid++
			}
		}
		if valid < 2 || invalid < 3 {
			t.Errorf("%d valid and %d invalid records compared; the mutations should give both", valid, invalid)
		}
	}
}

// TestProofIsOfTheStatusAnswered: a read and a list answer with the
// document's first 2xx, which here is a 203 declared before the 200, with
// a schema no answer can meet. The proof is of that status, so nothing is
// proven, and the answers are validated and refused, where a proof of
// the 200 let them out unchecked.
func TestProofIsOfTheStatusAnswered(t *testing.T) {
	skipIfPlain(t)
	doc := petstoreDoc(t)
	for _, r := range []struct{ at, first string }{
		{"        '200':\n          description: The animal.\n",
			"        '203':\n          description: The animal, from a cache.\n          content:\n            application/json:\n              schema:\n" +
				"                type: object\n                maxProperties: 0\n                properties:\n                  pet: {$ref: '#/components/schemas/Pet'}\n"},
		{"        '200':\n          description: A list of animals.\n",
			"        '203':\n          description: Animals, from a cache.\n          content:\n            application/json:\n              schema:\n" +
				"                type: array\n                maxItems: 1\n                items: {$ref: '#/components/schemas/Pet'}\n"},
	} {
		if strings.Count(doc, r.at) != 1 {
			t.Fatalf("the Petstore moved: %q is not there once", r.at)
		}
		doc = strings.Replace(doc, r.at, r.first+r.at, 1)
	}
	s, err := spec.Parse([]byte(doc), "first-2xx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	for _, c := range []struct{ id, path, violation string }{{"getPet", "/pets/3", "0"}, {"listPets", "/pets?limit=5", "1"}} {
		o := env.srv.ops[s.Operation(c.id)]
		if o == nil || o.rop.Response.Status != 203 {
			t.Fatalf("%s does not answer with its first 2xx, 203", c.id)
		}
		if o.proven {
			t.Errorf("%s: proven, though its 203 bounds the answer", c.id)
		}
		r := env.get(c.path)
		if r.status != 500 || r.code(t) != string(CodeResponseInvalid) || !strings.Contains(r.message(t), c.violation) {
			t.Errorf("GET %s: %d %s, want the 500 naming %q", c.path, r.status, truncate(string(r.body), 300), c.violation)
		}
	}
}
