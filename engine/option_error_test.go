package engine

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// optionErrors lists the *OptionErrors in an error New returned.
func optionErrors(t *testing.T, err error) map[string]*OptionError {
	t.Helper()
	out := map[string]*OptionError{}
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("a problem without a key: %v", err)
			return
		}
		out[oe.Key] = oe
	}
	walk(err)
	return out
}

// TestOptionErrorsNameTheirKey: every problem New finds with the options
// is an *OptionError whose Key is the configuration key of the setting, and
// whose Err says the problem without the key, so that the configuration
// layer locates it by the key, never by the wording.
func TestOptionErrorsNameTheirKey(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{
		Spec:     s,
		Keys:     []string{"good", "a b", " "},
		CORS:     CORSOptions{Origins: []string{"http://localhost:*", "nope", "*"}, Credentials: true},
		Lists:    ListOptions{CursorParam: "limit"},
		Defaults: map[string]map[string]json.RawMessage{"pets": {"status": json.RawMessage(`"lost"`)}, "cats": {"x": json.RawMessage(`1`)}},
		Responses: map[string]Stub{
			"listStoreOrders": {Status: 500, Body: json.RawMessage(`{"x": 1}`), Headers: map[string]string{"Connection": "close"}},
			"nope":            {Status: 200},
		},
		Latency:         map[string]Delay{"getPet": {Max: time.Hour}, "nope": {}, "listPets": {Min: time.Second, Max: 2 * time.Second}},
		Timeouts:        Timeouts{Write: 2 * time.Second},
		Faults:          map[string]Fault{"createPet": {Rate: 2}, "nope": {Rate: 1}},
		Generate:        -1,
		StoreMaxRecords: 10,
		Fixtures:        []FixtureFile{embeddedFixture(t, "petstore/pets.json"), {Name: "bad.json", Data: []byte(`{"cats": []}`)}},
	})
	if err == nil {
		t.Fatal("New accepted impossible options")
	}
	got := optionErrors(t, err)
	for key, want := range map[string]string{
		"auth.keys[1]":         "API key 2 contains white space, which a bearer token cannot carry",
		"auth.keys[2]":         "API key 3 is empty",
		"cors.origins[1]":      `"nope": want scheme://host[:port], for example http://localhost:* or https://app.example.com`,
		"cors.origins[2]":      `"*" cannot be combined with credentials: name the origins that may send credentials`,
		"lists.cursorParam":    `cursor parameter "limit" is already a parameter of listPets; choose another name`,
		"defaults.pets.status": "",
		"defaults.cats":        `no collection "cats"; the collections are `,
		"responses.listStoreOrders.headers.Connection": "a hop-by-hop header",
		"responses.nope":    "no such operation; the operations are ",
		"latency.getPet":    "1h0m0s is longer than the limit of 20s",
		"latency.listPets":  "1s..2s reaches the write time-out (server.timeouts.write 2s)",
		"latency.nope":      `no operation "nope"; the operations are `,
		"faults.createPet":  "rate 2: want a number from 0 to 1",
		"faults.nope":       `no operation "nope"; the operations are `,
		"fixtures.generate": "-1: want 0 or more records",
		"fixtures.files":    `fixtures bad.json: "cats" is not a collection of the spec`,
	} {
		oe := got[key]
		switch {
		case oe == nil:
			t.Errorf("no problem at %s; the keys are %v", key, keysOf(got))
		case len(oe.Err.Error()) < len(want) || oe.Err.Error()[:len(want)] != want:
			t.Errorf("%s: Err %q, want it to start with %q", key, oe.Err, want)
		}
	}
}

// TestStoreLimitErrorsNameTheirKey: fixtures past a store limit are a
// problem at that limit's key.
func TestStoreLimitErrorsNameTheirKey(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	for key, o := range map[string]Options{
		"store.maxRecords": {StoreMaxRecords: 10},
		"store.maxBytes":   {StoreMaxBytes: 1000},
	} {
		o.Spec, o.Keys, o.Fixtures = s, []string{testKey}, []FixtureFile{embeddedFixture(t, "petstore/pets.json")}
		_, err := New(o)
		if got := optionErrors(t, err); got[key] == nil {
			t.Errorf("fixtures past %s: the keys are %v, want %s", key, keysOf(got), key)
		}
	}
}

func keysOf(m map[string]*OptionError) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
