package engine

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// The library document differs from the Petstore in every way the engine
// infers: base path, resource, id name and type, a second assigned field,
// page-size parameter, filters, auth scheme and error schema name.
func TestLibraryDocument(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	env := newLibrary(t, func(o *Options) { o.Now = func() time.Time { return now } })

	if r := env.get("/books"); r.status != 200 || len(r.list(t)) != 6 {
		t.Fatalf("list: %d %s, want the 6 fixtures", r.status, r.body)
	}
	tests := []struct {
		query string
		want  []string // titles
	}{
		{"pageSize=2", []string{"The Left Hand of Darkness", "A Brief History of Time"}},
		{"genre=fiction", []string{"The Left Hand of Darkness", "The Dispossessed"}},
		{"author=Walt%20Whitman", []string{"Leaves of Grass"}},
		{"genre=fiction&author=Ursula%20K.%20Le%20Guin&pageSize=1", []string{"The Left Hand of Darkness"}},
		{"genre=poetry&author=Stephen%20Hawking", nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := env.get("/books?" + tc.query)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			var got []string
			for _, b := range r.list(t) {
				got = append(got, b["title"].(string))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for _, q := range []string{"pageSize=0", "pageSize=51", "genre=cooking", "author="} {
		if r := env.get("/books?" + q); r.status != 400 {
			t.Errorf("%s: %d, want 400", q, r.status)
		}
	}

	r := env.post("/books", `{"title":"Dune","author":"Frank Herbert","genre":"fiction","year":1965,"isbn":"x"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	book := r.object(t)
	id, _ := book["bookId"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("bookId = %q, want a server-assigned UUID", id)
	}
	if book["addedAt"] != "2026-11-22T12:00:00Z" {
		t.Errorf("addedAt = %v, want the server's clock", book["addedAt"])
	}
	if _, ok := book["isbn"]; ok {
		t.Error("a property the schema does not declare was stored")
	}
	if loc := r.header.Get("Location"); loc != "/api/v2/books/"+id {
		t.Errorf("Location = %q", loc)
	}
	if got := env.get("/books/" + id); got.status != 200 || string(got.body) != string(r.body) {
		t.Errorf("read back: %d %s", got.status, got.body)
	}
	if got := env.get("/books/6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6a05"); got.status != 200 || got.object(t)["title"] != "Leaves of Grass" {
		t.Errorf("fixture by id: %d %s", got.status, got.body)
	}
	if got := env.get("/books/6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6a99"); got.status != 404 {
		t.Errorf("unknown id: %d, want 404", got.status)
	}
	if got := env.get("/books/not-a-uuid"); got.status != 400 {
		t.Errorf("malformed id: %d, want 400", got.status)
	}
	if got := env.post("/books", `{"title":"","author":"A","genre":"fiction"}`); got.status != 400 {
		t.Errorf("empty title: %d, want 400", got.status)
	}
	if got := env.post("/books", `{"title":"T","author":"A","genre":"fiction","year":3000000000}`); got.status != 400 {
		t.Errorf("year beyond int32: %d %s, want 400", got.status, got.body)
	}
	// The API key travels in X-Library-Key; a bearer token is not it.
	if got := env.do(request{path: "/books", key: "-", headers: map[string]string{"Authorization": "Bearer " + testKey}}); got.status != 401 {
		t.Errorf("bearer instead of the API key header: %d, want 401", got.status)
	}
	if got := env.do(request{path: "/books", key: "wrong"}); got.status != 401 {
		t.Errorf("wrong key: %d, want 401", got.status)
	}
	if got := env.get("//pets"); got.status != 404 {
		t.Errorf("a Petstore path on the library: %d, want 404", got.status)
	}
}

func TestInvalidResponseBecomes500(t *testing.T) {
	// The list response's items demand names shorter than the stored
	// records': the engine must refuse to send the list and say why.
	doc := strings.Replace(petstoreDoc(t), `    Pets:
      type: array
      items:
        $ref: '#/components/schemas/Pet'`, `    Pets:
      type: array
      items:
        allOf:
          - $ref: '#/components/schemas/Pet'
          - properties: {name: {maxLength: 3}}`, 1)
	s, err := spec.Parse([]byte(doc), "modified.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	r := env.get("/pets?limit=2")
	if r.status != 500 || r.code(t) != string(CodeResponseInvalid) {
		t.Fatalf("got %d %s, want 500 response_invalid", r.status, r.body)
	}
	if !strings.Contains(r.message(t), "name") {
		t.Errorf("message %q does not name the violation", r.message(t))
	}
	if log := env.log.String(); !strings.Contains(log, "response failed validation") || !strings.Contains(log, "name") {
		t.Errorf("log does not name the violation: %s", log)
	}
	if r := env.get("/pets/1"); r.status != 200 {
		t.Errorf("read of a valid record: %d, want 200 (the server keeps serving)", r.status)
	}
}

func petstoreDoc(t *testing.T) string {
	t.Helper()
	return string(spec.DefaultDocument())
}

func TestConcurrentCreates(t *testing.T) {
	env := newPetstore(t)
	const writers, each = 16, 20
	var wg sync.WaitGroup
	ids := make(chan float64, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r := env.post("/pets", `{"name":"Concurrent","categoryId":1,"status":"sold"}`)
				if r.status != http.StatusCreated {
					t.Errorf("create: %d %s", r.status, r.body)
					return
				}
				ids <- r.object(t)["id"].(float64)
				env.get("/pets?status=sold&limit=5")
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[float64]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %v assigned twice", id)
		}
		seen[id] = true
		if id <= 150 {
			t.Errorf("id %v reuses a fixture id", id)
		}
	}
	if got := env.srv.Collections()["pets"]; got != 150+writers*each {
		t.Errorf("store holds %d, want %d", got, 150+writers*each)
	}
	for id := range seen {
		if r := env.get("/pets/" + formatID(id)); r.status != 200 {
			t.Errorf("created %v not readable: %d", id, r.status)
		}
	}
}

func formatID(id float64) string { return strconv.FormatInt(int64(id), 10) }
