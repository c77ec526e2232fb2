package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// newSettings serves fixtures/styles/settings.yaml: settings records read
// at their collection's path and addressed by id below it (Sonarr's
// style), with opts applied.
func newSettings(t *testing.T, mutate ...func(*Options)) *testEnv {
	t.Helper()
	s, err := spec.Load("../fixtures/styles/settings.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "X-Api-Key", "")
}

// TestOneItemOfACollection: GET /config/ui answers the collection's one
// item, which GET and PUT /config/ui/{id} address: made by that first
// read with every property (requests by id before it fail and store
// nothing), and a replace shows at both paths. Nested, each owner has its
// own, made from the item's example, 404 under an owner that does not
// exist; a delete makes the next read start afresh, a retried one nothing.
func TestOneItemOfACollection(t *testing.T) {
	env := newSettings(t)
	play(t, env, []exchange{
		{name: "no item before the collection's path is read", path: "/config/ui/1", status: 404},
		{name: "nor a replace", method: "PUT", path: "/config/ui/1", body: `{"theme":"dark"}`, status: 404,
			check: func(t *testing.T, r result) {
				if n := env.srv.colls["ui"].data.Len(); n != 0 {
					t.Errorf("requests that failed stored %d items", n)
				}
			}},
		{name: "the collection's path makes it, every property made", path: "/config/ui", status: 200,
			save: map[string]string{"id": "id"},
			check: func(t *testing.T, r result) {
				for _, p := range []string{"theme", "firstDayOfWeek", "showRelativeDates", "shortDateFormat", "uiLanguage"} {
					if _, ok := r.object(t)[p]; !ok {
						t.Errorf("the made settings lack %s: %s", p, r.body)
					}
				}
			}},
		{name: "replace", method: "PUT", path: "/config/ui/{id}", body: `{"id":{id},"theme":"dark","firstDayOfWeek":1}`, status: 200,
			want: map[string]string{"theme": "dark", "id": "{id}"}},
		{name: "the collection's path shows the replace", path: "/config/ui", status: 200,
			want: map[string]string{"id": "{id}", "theme": "dark", "firstDayOfWeek": "1", "showRelativeDates": "<absent>"}},
		{name: "an invalid replace changes nothing", method: "PUT", path: "/config/ui/{id}", body: `{"theme":"sepia"}`, status: 400},
		{name: "still dark", path: "/config/ui/{id}", status: 200, want: map[string]string{"theme": "dark"}},
		{name: "no other item", path: "/config/ui/2", status: 404},
		{name: "a replace of another id", method: "PUT", path: "/config/ui/2", body: `{"theme":"light"}`, status: 404},

		{name: "owner", method: "POST", path: "/owners", body: `{"name":"Ann"}`, status: 201, save: map[string]string{"ann": "id"}},
		{name: "another owner", method: "POST", path: "/owners", body: `{"name":"Ben"}`, status: 201, save: map[string]string{"ben": "id"}},
		{name: "Ann's preferences, from the example", path: "/owners/{ann}/preferences", status: 200,
			want: map[string]string{"ownerId": "{ann}", "newsletter": "false", "language": "en"}, save: map[string]string{"annPrefs": "id"}},
		{name: "Ann's change", method: "PUT", path: "/owners/{ann}/preferences/{annPrefs}", body: `{"newsletter":true,"language":"nb"}`, status: 200,
			want: map[string]string{"newsletter": "true", "ownerId": "{ann}"}},
		{name: "Ben's are his own", path: "/owners/{ben}/preferences", status: 200,
			want: map[string]string{"ownerId": "{ben}", "newsletter": "false", "language": "en"}},
		{name: "Ann's kept hers", path: "/owners/{ann}/preferences", status: 200, want: map[string]string{"id": "{annPrefs}", "language": "nb"}},
		{name: "Ann's are not Ben's", path: "/owners/{ben}/preferences/{annPrefs}", status: 404},
		{name: "no owner, no preferences", path: "/owners/999/preferences", status: 404},
		{name: "reset Ann's", method: "DELETE", path: "/owners/{ann}/preferences/{annPrefs}", status: 204},
		{name: "a retried reset finds none, and makes none", method: "DELETE", path: "/owners/{ann}/preferences/{annPrefs}", status: 404,
			check: func(t *testing.T, r result) {
				if n := env.srv.colls["preferences"].data.Len(); n != 1 {
					t.Errorf("%d preferences stored, want Ben's alone", n)
				}
			}},
		{name: "the next read starts afresh", path: "/owners/{ann}/preferences", status: 200,
			want: map[string]string{"language": "en", "ownerId": "{ann}"}},
		{name: "as another item", path: "/owners/{ann}/preferences/{annPrefs}", status: 404},
	})
}

// TestOneItemMadeOnce: requests that reach an empty collection's path at
// the same moment all get one item, over HTTP. The requests rarely meet
// inside the store's create; TestFirstMadeOnce makes them meet there (a
// slow make) and fails without the look under the lock.
func TestOneItemMadeOnce(t *testing.T) {
	for round := 0; round < 5; round++ {
		env := newSettings(t)
		const n = 16
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := "/config/ui"
				req, _ := http.NewRequest(http.MethodGet, env.base+path, nil)
				req.Header.Set("X-Api-Key", testKey)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				defer res.Body.Close()
				var v struct{ ID any }
				if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&v) != nil {
					t.Errorf("GET %s: %d", path, res.StatusCode)
					return
				}
				ids[i] = fmt.Sprint(v.ID)
			}()
		}
		wg.Wait()
		for i, id := range ids {
			if id != "1" {
				t.Fatalf("round %d: request %d read the item %q; want every request to read item 1 (%v)", round, i, id, ids)
			}
		}
		if n := env.srv.colls["ui"].data.Len(); n != 1 {
			t.Fatalf("round %d: the collection holds %d items, want 1", round, n)
		}
	}
}

// TestOneItemKeptByTheStateFile: the one item, made and then replaced, is
// what a server started again on the same state file serves, not a new one.
func TestOneItemKeptByTheStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	serve := func() (*testEnv, store.Journal) {
		j := openState(t, path)
		return newSettings(t, func(o *Options) { o.State = j }), j
	}
	env, j := serve()
	play(t, env, []exchange{
		{name: "made", path: "/config/ui", status: 200, want: map[string]string{"id": "1"}},
		{name: "replaced", method: "PUT", path: "/config/ui/1", body: `{"theme":"light","uiLanguage":3}`, status: 200},
	})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	again, _ := serve()
	play(t, again, []exchange{
		{name: "kept", path: "/config/ui", status: 200, want: map[string]string{"id": "1", "theme": "light", "uiLanguage": "3"}},
	})
	if n := again.srv.colls["ui"].data.Len(); n != 1 {
		t.Fatalf("the collection holds %d items after the restart, want 1", n)
	}
}

// TestOneItemNotGenerated: --generate fills the collections, but not one
// whose path reads its one item: that one makes its own on first use.
func TestOneItemNotGenerated(t *testing.T) {
	env := newSettings(t, func(o *Options) { o.Generate = 5 })
	if n := env.srv.colls["owners"].data.Len(); n != 5 {
		t.Fatalf("%d owners generated, want 5", n)
	}
	if n := env.srv.colls["ui"].data.Len(); n != 0 {
		t.Fatalf("%d UI settings generated, want none", n)
	}
	play(t, env, []exchange{{name: "made on first use", path: "/config/ui", status: 200, want: map[string]string{"id": "1"}}})
	if n := env.srv.colls["ui"].data.Len(); n != 1 {
		t.Fatalf("the collection holds %d items, want 1", n)
	}
}

// TestOneItemConfigured: crud.operations sets the kind either way: action
// answers the settings from the document, without state, and readOne makes
// a GET petctl does not infer as one (its answer a summary) read the
// collection's one item, which its item path answers once it was read.
func TestOneItemConfigured(t *testing.T) {
	env := newSettings(t, func(o *Options) {
		o.Overrides = map[string]spec.Override{
			"getUiConfig":   {Kind: spec.KindAction},
			"getJobSummary": {Kind: spec.KindReadOne},
		}
	})
	play(t, env, []exchange{
		{name: "settings from the document", path: "/config/ui", status: 200, want: map[string]string{"id": "<absent>"}},
		{name: "no settings stored", path: "/config/ui/1", status: 404},
		{name: "no job before the summary is read", path: "/jobs/1", status: 404},
		{name: "the summary, made from its schema", path: "/jobs", status: 200, want: map[string]string{"queued": "0"}},
		{name: "the job it read", path: "/jobs/1", status: 200, want: map[string]string{"id": "1"}},
	})
}

// TestSettingsSavedByPost: a fixed path whose POST takes and answers what
// its GET reads is a singleton the POST saves, as a merge: the fields sent
// change (a null is stored, as the applications that save this way do,
// not a removal as in a JSON Merge Patch), the others stay, a POST the
// document refuses changes nothing,
// and a server started again on the state file serves what was saved. A
// POST that takes a command instead (POST /sync {start}) saves nothing.
func TestSettingsSavedByPost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	j := openState(t, path)
	env := newSettings(t, func(o *Options) { o.State = j })
	play(t, env, []exchange{
		{name: "the example, first", path: "/notifications/email", status: 200,
			want: map[string]string{"enabled": "false", "smtpHost": "smtp.example.com", "smtpPort": "587"}},
		{name: "save two fields", method: "POST", path: "/notifications/email", body: `{"enabled":true,"smtpPort":2525}`, status: 200,
			want: map[string]string{"enabled": "true", "smtpPort": "2525", "smtpHost": "smtp.example.com"}},
		{name: "read back", path: "/notifications/email", status: 200,
			want: map[string]string{"enabled": "true", "smtpPort": "2525", "sender": "noreply@example.com"}},
		{name: "a port the document refuses", method: "POST", path: "/notifications/email", body: `{"enabled":false,"smtpPort":70000}`, status: 400,
			check: func(t *testing.T, r result) {
				if !strings.Contains(r.message(t), "smtpPort") {
					t.Errorf("refused for another reason than the port: %s", r.body)
				}
			}},
		{name: "nothing changed", path: "/notifications/email", status: 200, want: map[string]string{"smtpPort": "2525"}},
		{name: "a null is saved, not a removal", method: "POST", path: "/notifications/email", body: `{"enabled":true,"smtpHost":null}`, status: 200,
			want: map[string]string{"smtpHost": "null", "smtpPort": "2525"}},
		{name: "a command", method: "POST", path: "/sync", body: `{"start":true}`, status: 200},
	})
	if _, ok := env.srv.colls["sync"]; ok {
		t.Errorf("POST /sync, which takes a command, made a collection of /sync")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	again := newSettings(t, func(o *Options) { o.State = openState(t, path) })
	play(t, again, []exchange{
		{name: "kept", path: "/notifications/email", status: 200, want: map[string]string{"enabled": "true", "smtpPort": "2525"}},
	})
}
