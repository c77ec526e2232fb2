package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestStartupReportsEveryProblem: a bad CORS origin or API key does not hide
// the problems of the other options, nor a bad fixture record.
func TestStartupReportsEveryProblem(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{
		Spec:      s,
		Keys:      []string{"good", "a b"},
		CORS:      CORSOptions{Origins: []string{"nope"}},
		Latency:   map[string]Delay{"nope": {}},
		Faults:    map[string]Fault{"getPet": {Rate: 2}},
		Defaults:  map[string]map[string]json.RawMessage{"pets": {"status": json.RawMessage(`"lost"`)}},
		Responses: map[string]Stub{"getPet": {Status: 200}},
		Fixtures:  []FixtureFile{{Name: "pets.json", Data: []byte(`[{"id":1,"name":"x","categoryId":1,"status":"adopted"}]`)}},
	})
	if err == nil {
		t.Fatal("New accepted every bad option")
	}
	got := err.Error()
	for _, want := range []string{
		`cors: origins[0]: "nope": want scheme://host`,
		"auth: keys: API key 2 contains white space",
		`latency: no operation "nope"`,
		"faults: getPet: rate 2",
		"defaults: pets.status",
		"responses: getPet",
		"pets.json",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}
