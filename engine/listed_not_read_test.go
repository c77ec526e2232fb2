package engine

import (
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestListedNeverRead serves fixtures/styles/listed-not-read.yaml, where no
// operation reads an item back and the create answers less than the list
// shows (an id and a one-time token): the item is what the list shows, so
// a created key is listed with its name, and a deleted one leaves the list.
func TestListedNeverRead(t *testing.T) {
	s, err := spec.Load("../fixtures/styles/listed-not-read.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s, Keys: []string{testKey}}, "Authorization", "Bearer ")
	play(t, env, []exchange{
		{name: "none yet", path: "/api-keys", status: 200, want: map[string]string{"data.#": "0"}},
		{name: "create", method: "POST", path: "/api-keys", body: `{"name":"ci"}`, status: 201, save: map[string]string{"id": "id"}},
		{name: "another", method: "POST", path: "/api-keys", body: `{"name":"staging"}`, status: 201},
		{name: "listed with its name", path: "/api-keys", status: 200,
			want: map[string]string{"data.#": "2", "data.0.id": "{id}", "data.0.name": "ci", "data.1.name": "staging"}},
		{name: "delete", method: "DELETE", path: "/api-keys/{id}", status: 200},
		{name: "gone from the list", path: "/api-keys", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "staging"}},
		{name: "deleted once", method: "DELETE", path: "/api-keys/{id}", status: 404},
	})
}
