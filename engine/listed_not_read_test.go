package engine

import (
	"encoding/json"
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestListedNeverRead serves fixtures/styles/listed-not-read.yaml, where no
// operation reads an item back and the create answers less than the list
// shows (an id and a one-time token): the item is what the list shows, so
// a created key is listed with its name, and a deleted one leaves the list.
// The token is the create's answer's own: made there, never stored.
func TestListedNeverRead(t *testing.T) {
	s, err := spec.Load("../fixtures/styles/listed-not-read.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s, Keys: []string{testKey}}, "Authorization", "Bearer ")
	var tokens [2]string
	play(t, env, []exchange{
		{name: "none yet", path: "/api-keys", status: 200, want: map[string]string{"data.#": "0"}},
		{name: "create answers its token", method: "POST", path: "/api-keys", body: `{"name":"ci"}`, status: 201, save: map[string]string{"id": "id"},
			check: func(t *testing.T, r result) {
				var key map[string]any
				if err := json.Unmarshal(r.body, &key); err != nil {
					t.Fatal(err)
				}
				if tokens[0], _ = key["token"].(string); tokens[0] == "" {
					t.Errorf("the create answers %s: want the key's token, which only its answer has", r.body)
				}
			}},
		{name: "another, with another token", method: "POST", path: "/api-keys", body: `{"name":"staging"}`, status: 201,
			check: func(t *testing.T, r result) {
				var key map[string]any
				if err := json.Unmarshal(r.body, &key); err != nil {
					t.Fatal(err)
				}
				if tokens[1], _ = key["token"].(string); tokens[1] == "" || tokens[1] == tokens[0] {
					t.Errorf("the second create answers %s, the first's token was %q: want a token of its own", r.body, tokens[0])
				}
			}},
		{name: "listed with its name, not its token", path: "/api-keys", status: 200,
			want: map[string]string{"data.#": "2", "data.0.id": "{id}", "data.0.name": "ci", "data.1.name": "staging", "data.0.token": "<absent>"}},
		{name: "delete", method: "DELETE", path: "/api-keys/{id}", status: 200},
		{name: "gone from the list", path: "/api-keys", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "staging"}},
		{name: "deleted once", method: "DELETE", path: "/api-keys/{id}", status: 404},
	})
}
