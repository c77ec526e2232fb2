package engine

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

func TestFixtureErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    FixtureFile
		wantErr []string // all must appear
	}{
		{"bad status", FixtureFile{"pets.json", []byte(`[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1,"status":"adopted"}]`)},
			[]string{"pets.json", "pets[1]", "id 2", "status"}},
		{"missing name", FixtureFile{"seed.json", []byte(`{"pets":[{"id":7,"categoryId":1}]}`)},
			[]string{"seed.json", "pets[0]", "id 7", "name"}},
		{"duplicate id", FixtureFile{"pets.json", []byte(`[{"id":1,"name":"a","categoryId":1},{"id":1,"name":"b","categoryId":1}]`)},
			[]string{"pets[1]", "id 1 is already used by", "pets[0]"}},
		{"unknown field", FixtureFile{"pets.json", []byte(`[{"id":1,"name":"a","categoryId":1,"stauts":"sold"}]`)},
			[]string{"pets[0]", "stauts"}},
		{"id not an integer", FixtureFile{"pets.json", []byte(`[{"id":"x","name":"a","categoryId":1}]`)},
			[]string{"pets[0]", "id"}},
		{"id beyond int64", FixtureFile{"pets.json", []byte(`[{"id":99999999999999999999,"name":"a","categoryId":1}]`)},
			[]string{"pets[0]", "int64"}},
		{"unknown collection", FixtureFile{"owners.json", []byte(`[{"id":1}]`)},
			[]string{"owners.json", `"owners" is not a collection`, `"pets"`}},
		{"malformed JSON", FixtureFile{"pets.json", []byte(`[{"id":1,`)},
			[]string{"pets.json", "malformed JSON"}},
		{"not an array", FixtureFile{"pets.json", []byte(`"pets"`)},
			[]string{"pets.json", "want an array"}},
		{"record not an object", FixtureFile{"pets.json", []byte(`[1]`)},
			[]string{"pets[0]", "object"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := spec.Default()
			_, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{tc.file}})
			if err == nil {
				t.Fatal("New accepted bad fixtures")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestFixturesWithoutIDs(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Fixtures = []FixtureFile{{"pets.json", []byte(`[{"id":10,"name":"ten","categoryId":1},{"name":"next","categoryId":1},{"id":3,"name":"three","categoryId":1}]`)}}
	})
	var ids []float64
	for _, p := range env.get("/pets").list(t) {
		ids = append(ids, p["id"].(float64))
	}
	if len(ids) != 3 || ids[0] != 3 || ids[1] != 10 || ids[2] != 11 {
		t.Errorf("ids = %v, want [3 10 11]: sorted, the missing one after the largest", ids)
	}
	if r := env.post("/pets", `{"name":"new","categoryId":1}`); r.object(t)["id"] != 12.0 {
		t.Errorf("next created id = %v, want 12", r.object(t)["id"])
	}
}

func TestStartupErrors(t *testing.T) {
	s, _ := spec.Default()
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"no spec", Options{}, "no spec"},
		{"no key", Options{Spec: s}, "no API key"},
		{"empty key", Options{Spec: s, Keys: []string{""}}, "empty"},
		{"key with a space", Options{Spec: s, Keys: []string{"a b"}}, "white space"},
		{"bad CORS origin", Options{Spec: s, Keys: []string{"k"}, CORS: CORSOptions{Origins: []string{"nope"}}}, "cors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	// Open authentication needs no key but still a token.
	env := newPetstore(t, func(o *Options) { o.Keys, o.OpenAuth = nil, true })
	if r := env.do(request{path: "/pets?limit=1", key: "Bearer anything"}); r.status != 200 {
		t.Errorf("open auth with a token: %d", r.status)
	}
	if r := env.do(request{path: "/pets?limit=1", key: "-"}); r.status != 401 {
		t.Errorf("open auth without a token: %d, want 401", r.status)
	}
}

func TestErrorSchemaMustAcceptErrorBody(t *testing.T) {
	doc := strings.Replace(petstoreDoc(t), `        status:
          type: integer
          description: The HTTP status code.`, `        status:
          type: string
          description: The HTTP status code.`, 1)
	s, err := spec.Parse([]byte(doc), "bad-error.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Spec: s, Keys: []string{"k"}})
	if err == nil || !strings.Contains(err.Error(), "error schema") {
		t.Fatalf("err = %v, want the error schema refused", err)
	}
}
