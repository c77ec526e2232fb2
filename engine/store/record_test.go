package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// mutations turn a valid record into documents near it, valid or not.
var mutations = []func(map[string]any, *rand.Rand){
	func(m map[string]any, _ *rand.Rand) {},
	func(m map[string]any, r *rand.Rand) { delete(m, pick(m, r)) },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = nil },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "text" },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = 1.5 },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = 42 },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = 1e19 },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = true },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = []any{1} },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = map[string]any{} },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "" },
	func(m map[string]any, r *rand.Rand) { m["extra"] = r.IntN(3) },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "00000000-0000-4000-8000-00000000000z" },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "2024-13-45T99:00:00Z" },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = -7 },
}

func pick(m map[string]any, r *rand.Rand) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return "id"
	}
	// deterministic order before the random choice
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys[r.IntN(len(keys))]
}

// TestProvenResponsesAgreeWithValidator is the evidence behind
// proveComposition: for records near the valid ones, valid or not, the
// per-record check says exactly what libopenapi-validator says of a read
// response carrying the record, and of list responses made of them.
func TestProvenResponsesAgreeWithValidator(t *testing.T) {
	for _, d := range []*testDoc{openPetstore(t), openLibrary(t)} {
		for _, c := range d.store.colls {
			readOp, listOp := c.def.Op(spec.KindRead).Op, c.def.Op(spec.KindList).Op
			seeds := c.table.snapshot()
			rng := rand.New(rand.NewPCG(1, 2))
			hdr := http.Header{"Content-Type": {"application/json"}}
			readURL := d.spec.BasePath + strings.Replace(c.def.ItemPath, "{"+c.def.IDParam+"}", "1", 1)
			var batch [][]byte
			batchValid := true
			agreeValid, agreeInvalid, planAccepted := 0, 0, 0
			for i := 0; i < 600; i++ {
				var m map[string]any
				json.Unmarshal(seeds[i%len(seeds)], &m)
				mutations[rng.IntN(len(mutations))](m, rng)
				raw, _ := json.Marshal(m)
				var view any
				json.Unmarshal(raw, &view)
				ours := c.schema.Validate(view) == nil
				theirs := d.val.Response(httptest.NewRequest("GET", readURL, nil), readOp, 200, hdr, raw) == nil
				if ours != theirs {
					t.Fatalf("%s: record %s: per-record check says valid=%v, the validator on a read response says %v", c.def.Key, raw, ours, theirs)
				}
				// The quick plan may decline a valid record, never accept an invalid one.
				doc, err := DecodeStrict(raw)
				if err != nil {
					t.Fatal(err)
				}
				fv := c.newFieldValues()
				if extra := c.fromObject(doc.(map[string]any), &fv); len(extra) == 0 && c.plan.Accepts(fv.vals, fv.has) && !theirs {
					t.Fatalf("%s: record %s: the plan accepts it, the validator on a read response does not", c.def.Key, raw)
				}
				if c.plan.Accepts(fv.vals, fv.has) {
					planAccepted++
				}
				if ours {
					agreeValid++
				} else {
					agreeInvalid++
				}
				batch = append(batch, raw)
				batchValid = batchValid && ours
				if len(batch) == 7 {
					list := joinArray(batch)
					theirs := d.val.Response(httptest.NewRequest("GET", d.spec.BasePath+c.def.Path, nil), listOp, 200, hdr, list) == nil
					if theirs != batchValid {
						t.Fatalf("%s: list %s: composition says valid=%v, the validator says %v", c.def.Key, list, batchValid, theirs)
					}
					batch, batchValid = nil, true
				}
			}
			if c.plan != nil && planAccepted < 50 {
				t.Errorf("%s: the plan accepted %d records; the comparison needs it to accept some", c.def.Key, planAccepted)
			}
			if agreeValid < 50 || agreeInvalid < 50 {
				t.Errorf("%s: %d valid and %d invalid documents compared; the mutations should give both in numbers", c.def.Key, agreeValid, agreeInvalid)
			}
		}
	}
}

// TestRecordViewMatchesUnmarshal holds build's validation view to what
// encoding/json makes of the record's JSON, which is what the response
// validator checks.
func TestRecordViewMatchesUnmarshal(t *testing.T) {
	c := openLibrary(t).store.colls["books"]
	inputs := []string{
		`{"bookId":"6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6aff","title":"T \u2028 \"q\" \\ é","author":"A","genre":"poetry","year":1.0e3,"addedAt":"2024-01-01T00:00:00Z"}`,
		`{"bookId":"6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6afe","title":"\u0001\t\n<&>","author":"😀","genre":"science","addedAt":"2024-01-01T00:00:00Z"}`,
	}
	for _, in := range inputs {
		doc, err := DecodeStrict([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.build(doc.(map[string]any), 1, fromFixture, Write{Now: time.Now()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(b.raw, &want); err != nil {
			t.Fatalf("built JSON %s does not parse: %v", b.raw, err)
		}
		if got := c.json(b.view); !reflect.DeepEqual(any(got), want) {
			t.Errorf("view %#v, want %#v", got, want)
		}
		if !json.Valid(b.raw) {
			t.Errorf("invalid JSON %s", b.raw)
		}
	}
	for i := 0; i < 300; i++ {
		s := fmt.Sprintf("%c%c\x7f", rune(i), rune(0x2020+i%16))
		got := AppendJSONString(nil, s)
		want, _ := json.Marshal(s)
		var a, b string
		json.Unmarshal(got, &a)
		json.Unmarshal(want, &b)
		if a != b || (strings.Contains(string(want), `\u2028`) && !strings.Contains(string(got), `\u2028`)) {
			t.Errorf("AppendJSONString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

// numberIDs keeps things whose ids are JSON numbers the client chooses in
// the path (a PUT upserts).
const numberIDs = `openapi: 3.0.3
info: {title: Things, version: "1"}
paths:
  /things:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Thing'}}}}}
    post:
      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
      responses:
        "201": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
  /things/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: number}}]
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
    put:
      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
components:
  schemas:
    Thing:
      type: object
      required: [name]
      properties:
        id: {type: number, readOnly: true}
        name: {type: string}
`

// TestNumberPathIDs: a path id of a number type is stored as the JSON
// number it is. What strconv.ParseFloat reads but JSON cannot hold ("NaN",
// "+1", "1.", hexadecimal) is refused as an invalid record, and nothing
// is stored; before, such an id became a json.Number no encoder could
// write.
func TestNumberPathIDs(t *testing.T) {
	s, err := spec.Parse([]byte(numberIDs), "things.yaml")
	if err != nil {
		t.Fatal(err)
	}
	things := newDoc(t, s).store.colls["things"]
	if things == nil {
		t.Fatal("no things collection")
	}
	put := func(id string) (Record, error) {
		rec, _, err := things.Put(Write{ID: id, Now: time.Now()}, true, func(*Record) (any, error) {
			return map[string]any{"name": "a"}, nil
		})
		return rec, err
	}
	for _, id := range []string{"7", "-0.5", "1e2", "6.02E+23"} {
		rec, err := put(id)
		if err != nil {
			t.Fatalf("PUT %s: %v", id, err)
		}
		if want := `{"id":` + id + `,"name":"a"}`; string(rec.JSON) != want {
			t.Errorf("PUT %s stored %s, want %s", id, rec.JSON, want)
		}
		if got, ok := things.Get(nil, id); !ok || string(got.JSON) != string(rec.JSON) {
			t.Errorf("GET %s after the PUT: %s, %v", id, got.JSON, ok)
		}
	}
	for _, id := range []string{"NaN", "Inf", "+1", "1.", "0x10", "1_0", ".5"} {
		_, err := put(id)
		var invalid *InvalidRecordError
		if !errors.As(err, &invalid) {
			t.Errorf("PUT %s: %v, want an invalid record", id, err)
		}
		if _, ok := things.Get(nil, id); ok {
			t.Errorf("PUT %s stored a record", id)
		}
	}
}

// chosenIDs keeps tags whose integer ids the create's body may carry
// (sonarr's TagResource: id not readOnly).
const chosenIDs = `openapi: 3.0.3
info: {title: Tags, version: "1"}
paths:
  /tags:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Tag'}}}}}
    post:
      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Tag'}}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Tag'}}}}
  /tags/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Tag'}}}}
components:
  schemas:
    Tag:
      type: object
      properties:
        id: {type: integer, format: int32}
        label: {type: string}
`

// TestZeroIDIsUnset: a create carrying "id": 0, as generated clients send
// for an id they leave to the server, gets an id assigned, as one without
// an id does; a nonzero id is the client's choice, and a taken one a
// conflict. Before, the second create with id 0 was refused as taken.
func TestZeroIDIsUnset(t *testing.T) {
	s, err := spec.Parse([]byte(chosenIDs), "tags.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tags := newDoc(t, s).store.colls["tags"]
	if tags == nil || !tags.def.ClientIDs {
		t.Fatalf("no tags collection whose ids the client chooses: %v", tags)
	}
	create := func(body string) (Record, error) {
		v, err := DecodeStrict([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return tags.Create(v, Write{Now: time.Now()})
	}
	seen := map[string]bool{}
	for _, body := range []string{`{"id":0,"label":"4k"}`, `{"id":0,"label":"8k"}`, `{"label":"hd"}`, `{"id":-0,"label":"sd"}`, `{"id":0.0,"label":"uhd"}`} {
		rec, err := create(body)
		if err != nil {
			t.Fatalf("create %s: %v", body, err)
		}
		if rec.ID == "0" || seen[rec.ID] {
			t.Errorf("create %s: id %s, want a new one assigned", body, rec.ID)
		}
		seen[rec.ID] = true
	}
	if rec, err := create(`{"id":40,"label":"x"}`); err != nil || rec.ID != "40" {
		t.Fatalf("create with id 40: %s, %v; want the id kept", rec.ID, err)
	}
	if _, err := create(`{"id":40,"label":"y"}`); err == nil {
		t.Error("a second create with id 40 was stored; want a conflict")
	}
}
