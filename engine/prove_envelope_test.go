package engine

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// petsEnvelope is the Petstore's list schema in an envelope: the pets in
// data beside their total; extra is written into the envelope object and
// items into the data array's schema.
func petsEnvelope(t *testing.T, extra, items string) *spec.Spec {
	t.Helper()
	envelope := "    Pets:\n      type: object\n      required: [data]\n" + extra +
		"      properties:\n        data:\n          type: array\n" + items +
		"          items:\n            $ref: '#/components/schemas/Pet'\n        total: {type: integer}\n"
	doc := strings.Replace(petstoreDoc(t), "    Pets:\n      type: array\n      items:\n        $ref: '#/components/schemas/Pet'\n", envelope, 1)
	if doc == petstoreDoc(t) {
		t.Fatal("the Petstore's Pets schema moved: the test's replacement did not apply")
	}
	s, err := spec.Parse([]byte(doc), "envelope.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEnvelopeItemsProven serves the Petstore with its list in an
// envelope: where nothing in the envelope can see the items, they are
// proven and only the envelope is validated per request; where something
// can (a bound on the array, a keyword on the envelope that reads its
// properties' values), the answer is validated whole, and either way an
// answer that breaks the document is the 500 that says so.
func TestEnvelopeItemsProven(t *testing.T) {
	skipIfPlain(t)
	tests := []struct {
		name         string
		extra, items string
		proven       bool
		status       int    // of GET /pets?limit=5, over the 150 fixture pets
		violation    string // in the 500's message
	}{
		{name: "plain envelope", proven: true, status: 200},
		{name: "a bound on the array", items: "          maxItems: 3\n", status: 500, violation: "3"},
		{name: "patternProperties", extra: "      patternProperties: {'^da': {type: array, maxItems: 2}}\n", status: 500, violation: "2"},
		{name: "allOf on the envelope", extra: "      allOf: [{properties: {data: {maxItems: 4}}}]\n", status: 500, violation: "4"},
		{name: "an enum on the envelope", extra: "      enum: [{data: []}]\n", status: 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := petsEnvelope(t, tc.extra, tc.items)
			env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
			o := env.srv.ops[s.Operation("listPets")]
			if o == nil {
				t.Fatal("listPets is not served")
			}
			if got := o.itemsProven; got != tc.proven {
				t.Errorf("itemsProven = %v, want %v", got, tc.proven)
			}
			r := env.get("/pets?limit=5")
			if r.status != tc.status {
				t.Fatalf("GET /pets?limit=5: %d %s, want %d", r.status, truncate(string(r.body), 300), tc.status)
			}
			if r.status == 500 {
				if got := r.code(t); got != string(CodeResponseInvalid) || !strings.Contains(r.message(t), tc.violation) {
					t.Errorf("500: %s %q, want %s naming %q", got, r.message(t), CodeResponseInvalid, tc.violation)
				}
				return
			}
			var page struct {
				Data  []map[string]any `json:"data"`
				Total *int             `json:"total"`
			}
			if err := json.Unmarshal(r.body, &page); err != nil {
				t.Fatalf("the page is not JSON: %v: %s", err, r.body)
			}
			if got, want := len(page.Data), 5; got != want {
				t.Errorf("%d pets on the page, want %d", got, want)
			}
			if got, want := r.header.Get("Content-Length"), len(r.body); got != strconv.Itoa(want) {
				t.Errorf("Content-Length %s, want %d", got, want)
			}
		})
	}
}

// TestEnvelopeTotalStillValidated bounds the envelope's total below what
// the Petstore holds: the items are proven, and the envelope, validated
// with an empty array in their place, still gets the 500.
func TestEnvelopeTotalStillValidated(t *testing.T) {
	skipIfPlain(t)
	s := petsEnvelope(t, "", "")
	env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	s2 := petsEnvelopeTotalMax(t, 10)
	env2 := start(t, Options{Spec: s2, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	if !env2.srv.ops[s2.Operation("listPets")].itemsProven {
		t.Fatal("a bound on the total hides nothing of the items: want them proven")
	}
	if r := env.get("/pets?limit=5"); r.status != 200 {
		t.Fatalf("total unbounded: %d %s, want 200", r.status, r.body)
	}
	r := env2.get("/pets?limit=5")
	if r.status != 500 || r.code(t) != string(CodeResponseInvalid) || !strings.Contains(r.message(t), "total") {
		t.Fatalf("total 150 over a maximum of 10: %d %s, want 500 naming total", r.status, r.body)
	}
}

func petsEnvelopeTotalMax(t *testing.T, max int) *spec.Spec {
	t.Helper()
	doc := strings.Replace(petstoreDoc(t), "    Pets:\n      type: array\n      items:\n        $ref: '#/components/schemas/Pet'\n",
		"    Pets:\n      type: object\n      required: [data, total]\n      properties:\n        data:\n          type: array\n          items:\n            $ref: '#/components/schemas/Pet'\n        total: {type: integer, maximum: "+strconv.Itoa(max)+"}\n", 1)
	s, err := spec.Parse([]byte(doc), "envelope-total.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEnvelopeVerdictWithoutItems is the evidence behind
// proveEnvelopeItems: for envelopes around valid items, whole or broken,
// the validator's verdict on the answer is its verdict on the answer with
// an empty array in the items' place.
func TestEnvelopeVerdictWithoutItems(t *testing.T) {
	s := petsEnvelopeTotalMax(t, 1000)
	env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	r := env.get("/pets?limit=7")
	if r.status != 200 {
		t.Fatalf("GET /pets?limit=7: %d %s", r.status, r.body)
	}
	var page map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	op := s.Operation("listPets")
	hdr := http.Header{"Content-Type": {spec.JSON}}
	mutations := map[string]func(map[string]json.RawMessage){
		"as served":          func(map[string]json.RawMessage) {},
		"total a string":     func(m map[string]json.RawMessage) { m["total"] = json.RawMessage(`"150"`) },
		"total over its max": func(m map[string]json.RawMessage) { m["total"] = json.RawMessage(`1001`) },
		"total left out":     func(m map[string]json.RawMessage) { delete(m, "total") },
		"data left out":      func(m map[string]json.RawMessage) { delete(m, "data") },
		"an extra property":  func(m map[string]json.RawMessage) { m["extra"] = json.RawMessage(`{"a":1}`) },
		"data not an array":  func(m map[string]json.RawMessage) { m["data"] = json.RawMessage(`{}`) },
		"total null":         func(m map[string]json.RawMessage) { m["total"] = json.RawMessage(`null`) },
		"total a float":      func(m map[string]json.RawMessage) { m["total"] = json.RawMessage(`1.5`) },
		"total zero, no data": func(m map[string]json.RawMessage) {
			m["total"] = json.RawMessage(`0`)
			m["data"] = json.RawMessage(`[]`)
		},
	}
	agreedValid, agreedInvalid := 0, 0
	for name, mutate := range mutations {
		whole := map[string]json.RawMessage{}
		for k, v := range page {
			whole[k] = v
		}
		mutate(whole)
		empty := map[string]json.RawMessage{}
		for k, v := range whole {
			empty[k] = v
		}
		if d, ok := empty["data"]; ok && bytes.HasPrefix(bytes.TrimSpace(d), []byte("[")) {
			empty["data"] = json.RawMessage(`[]`)
		}
		wb, _ := json.Marshal(whole)
		eb, _ := json.Marshal(empty)
		req := httptest.NewRequest("GET", s.BasePath+"/pets", nil)
		got := env.srv.val.Response(req, op, 200, hdr, eb) == nil
		want := env.srv.val.Response(req, op, 200, hdr, wb) == nil
		if got != want {
			t.Errorf("%s: the envelope without its items is valid=%v, the whole answer valid=%v\n%s", name, got, want, wb)
		}
		if want {
			agreedValid++
		} else {
			agreedInvalid++
		}
	}
	if agreedValid < 2 || agreedInvalid < 4 {
		t.Errorf("%d valid and %d invalid answers compared; the mutations should give both", agreedValid, agreedInvalid)
	}
}
