package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

func TestFixtureErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    FixtureFile
		wantErr []string // all must appear
	}{
		{"bad status", FixtureFile{Name: "pets.json", Data: []byte(`[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1,"status":"adopted"}]`)},
			[]string{"pets.json", "pets[1]", "id 2", "status"}},
		{"missing name", FixtureFile{Name: "seed.json", Data: []byte(`{"pets":[{"id":7,"categoryId":1}]}`)},
			[]string{"seed.json", "pets[0]", "id 7", "name"}},
		{"duplicate id", FixtureFile{Name: "pets.json", Data: []byte(`[{"id":1,"name":"a","categoryId":1},{"id":1,"name":"b","categoryId":1}]`)},
			[]string{"pets[1]", "id 1 is already used by", "pets[0]"}},
		{"unknown field", FixtureFile{Name: "pets.json", Data: []byte(`[{"id":1,"name":"a","categoryId":1,"stauts":"sold"}]`)},
			[]string{"pets[0]", "stauts"}},
		{"id not an integer", FixtureFile{Name: "pets.json", Data: []byte(`[{"id":"x","name":"a","categoryId":1}]`)},
			[]string{"pets[0]", "id"}},
		{"id beyond int64", FixtureFile{Name: "pets.json", Data: []byte(`[{"id":99999999999999999999,"name":"a","categoryId":1}]`)},
			[]string{"pets[0]", "int64"}},
		{"unknown collection", FixtureFile{Name: "owners.json", Data: []byte(`[{"id":1}]`)},
			[]string{"owners.json", `"owners" is not a collection`, `"pets"`}},
		{"malformed JSON", FixtureFile{Name: "pets.json", Data: []byte(`[{"id":1,`)},
			[]string{"pets.json", "malformed JSON"}},
		{"not an array", FixtureFile{Name: "pets.json", Data: []byte(`"pets"`)},
			[]string{"pets.json", "want an array"}},
		{"record not an object", FixtureFile{Name: "pets.json", Data: []byte(`[1]`)},
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

func problemLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// A file with many bad records is reported at once: every bad record up to
// store.MaxFixtureProblems, in file order, then how many more.
func TestFixtureErrorsAllListed(t *testing.T) {
	s, _ := spec.Default()
	load := func(recs []string) error {
		_, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: []byte("[" + strings.Join(recs, ",\n") + "]")}}})
		return err
	}
	good := func(id int) string { return fmt.Sprintf(`{"id":%d,"name":"ok%d","categoryId":1}`, id, id) }
	for _, n := range []int{40, store.ParallelFixtures + 10} { // one worker; one per CPU
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			recs := make([]string, n)
			for i := range recs {
				recs[i] = good(i + 1)
			}
			// three kinds of bad record, spread over the file
			recs[1] = `{"id":2,"name":"a","categoryId":1,"status":"lost"}`
			recs[4] = `{"id":5,"categoryId":1}`
			recs[n-1] = `{"id":"x","name":"b","categoryId":1}`
			got := problemLines(load(recs))
			want := []string{"pets[1] (id 2)", "pets[4] (id 5)", fmt.Sprintf("pets[%d]", n-1)}
			if len(got) != len(want) {
				t.Fatalf("%d problems, want %d: %q", len(got), len(want), got)
			}
			for i, w := range want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it about %s", i, got[i], w)
				}
			}
			if !strings.Contains(got[0], "status") || !strings.Contains(got[1], "name") {
				t.Errorf("problems do not say why: %q", got)
			}

			// More bad records than are listed: the first ones, then a count.
			for i := 0; i < store.MaxFixtureProblems+5; i++ {
				recs[i] = fmt.Sprintf(`{"id":%d,"name":"bad","categoryId":"one"}`, i+1)
			}
			got = problemLines(load(recs))
			if len(got) != store.MaxFixtureProblems+1 {
				t.Fatalf("%d lines, want %d problems and a count: %q", len(got), store.MaxFixtureProblems, got)
			}
			if !strings.Contains(got[0], "pets[0]") || !strings.Contains(got[store.MaxFixtureProblems-1], fmt.Sprintf("pets[%d]", store.MaxFixtureProblems-1)) {
				t.Errorf("not the first records in file order: %q", got)
			}
			if last := got[store.MaxFixtureProblems]; !strings.Contains(last, "6 more bad records") {
				t.Errorf("last line %q, want the 6 more counted (5 more of the first kind, pets[%d])", last, n-1)
			}
		})
	}
	// Duplicate ids: every duplicate is named with the record it repeats.
	recs := []string{good(1), good(2), good(1), good(3), good(2), good(1)}
	got := problemLines(load(recs))
	want := []string{
		"pets[2]: id 1 is already used by fixtures pets.json: pets[0]",
		"pets[4]: id 2 is already used by fixtures pets.json: pets[1]",
		"pets[5]: id 1 is already used by fixtures pets.json: pets[0]",
	}
	if len(got) != len(want) {
		t.Fatalf("duplicates: %q, want %q", got, want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("duplicate %d = %q, want %q", i, got[i], w)
		}
	}
	// Bad records in two files of the same collection, and the import
	// endpoint's path: the same list.
	env := newPetstore(t)
	before := env.get("/pets?limit=100").list(t)
	err := env.srv.Import(FixtureFile{Name: "import.json", Data: []byte(`{"pets":[{"id":1,"name":"x","categoryId":"one"},{"id":2,"name":"y"}]}`)})
	if got := problemLines(err); len(got) != 2 || !strings.Contains(got[0], "pets[0]") || !strings.Contains(got[1], "pets[1]") {
		t.Errorf("import: %q, want both records", got)
	}
	if after := env.get("/pets?limit=100").list(t); len(after) != len(before) {
		t.Errorf("a bad import changed the store: %d records, then %d", len(before), len(after))
	}
}

func TestFixturesWithoutIDs(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Fixtures = []FixtureFile{{Name: "pets.json", Data: []byte(`[{"id":10,"name":"ten","categoryId":1},{"name":"next","categoryId":1},{"id":3,"name":"three","categoryId":1}]`)}}
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

// TestErrorBodyProof: start-up refuses an error schema only when petctl
// can build no valid body for it, in one line naming the operations, the
// statuses and the problem; an error schema of another shape than
// petctl's is filled by meaning instead.
func TestErrorBodyProof(t *testing.T) {
	const status = `        status:
          type: integer
          description: The HTTP status code.`
	tests := []struct {
		name    string
		replace [2]string
		wantErr []string // the lines of the error; none when the document starts
		want404 string   // the 404 body, when it starts
	}{
		{"status as text", [2]string{status, `        status:
          type: string`}, nil, `{"code":"route_not_found","message":"no operation is declared at /v1/nope; the paths are /v1/pets, /v1/pets/{petId}, /v1/store/orders","status":"Not Found"}`},
		{"a code no text fits", [2]string{`        code:
          type: string`, `        code:
          type: string
          minLength: 5
          maxLength: 2`}, []string{
			"spec bad-error.yaml: answers outside every operation (an unknown path, 405) and 4 more operations: answers with status 400, 401, 403, 404, 405, 406, 409, 410, 412, 413, 415, 431, 500, 501, 503, 507 cannot be written as the document declares them (application/json): field 'code': minLength: got 2, want 5",
		}, ""},
		{"a header petctl cannot make", [2]string{`      description: The request has missing or invalid parameters or body fields.
`, `      description: The request has missing or invalid parameters or body fields.
      headers:
        X-Request-Id: {required: true, content: {application/json: {schema: {type: object}}}}
`}, []string{
			"spec bad-error.yaml: listPets (GET /pets) and 2 more operations: answers with status 400 cannot be written as the document declares them: it requires the header X-Request-Id, which petctl does not send",
		}, ""},
		{"a header made from its schema", [2]string{`      description: The request has missing or invalid parameters or body fields.
`, `      description: The request has missing or invalid parameters or body fields.
      headers:
        X-Request-Id: {required: true, schema: {type: string}}
`}, nil, `{"code":"route_not_found","message":"no operation is declared at /v1/nope; the paths are /v1/pets, /v1/pets/{petId}, /v1/store/orders","status":404}`},
		{"the challenge of a 401", [2]string{`      description: The API key is missing or invalid.
`, `      description: The API key is missing or invalid.
      headers:
        WWW-Authenticate: {required: true, schema: {type: string}}
`}, nil, `{"code":"route_not_found","message":"no operation is declared at /v1/nope; the paths are /v1/pets, /v1/pets/{petId}, /v1/store/orders","status":404}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(petstoreDoc(t), tc.replace[0], tc.replace[1], 1)
			if doc == petstoreDoc(t) {
				t.Fatal("the document is unchanged")
			}
			s, err := spec.Parse([]byte(doc), "bad-error.yaml")
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Spec: s, Keys: []string{testKey}}
			if tc.wantErr != nil {
				_, err = New(o)
				if want := strings.Join(tc.wantErr, "\n"); err == nil || err.Error() != want {
					t.Fatalf("err = %v, want\n%s", err, want)
				}
				return
			}
			env := start(t, o, "Authorization", "Bearer ")
			r := rawGet(t, env.base+"/nope")
			if r.status != 404 || string(r.body) != tc.want404 {
				t.Errorf("404: %d %s, want %s", r.status, r.body, tc.want404)
			}
		})
	}
}

// TestLargeFixtures goes through the parallel load: records out of order,
// some without an id, filters indexed, and errors reported in file order
// whichever worker finds them.
func TestLargeFixtures(t *testing.T) {
	const n = 3 * store.ParallelFixtures
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		// Ids descending, so the store must sort; every 1000th has no id.
		status := []string{"available", "pending", "sold"}[i%3]
		if i%1000 == 999 {
			fmt.Fprintf(&b, `{"name":"later%d","categoryId":1,"status":%q}`, i, status)
		} else {
			fmt.Fprintf(&b, `{"name":"p%d","status":%q,"categoryId":2,"id":%d}`, i, status, 2*(n-i))
		}
	}
	b.WriteString("]")
	data := b.String()
	env := newPetstore(t, func(o *Options) { o.Fixtures = []FixtureFile{{Name: "pets.json", Data: []byte(data)}} })
	c := env.srv.colls["pets"].data
	if got := c.Len(); got != n {
		t.Fatalf("%d records, want %d", got, n)
	}
	first := env.get("/pets?limit=2").list(t)
	if first[0]["id"] != 2.0 || first[1]["id"] != 4.0 || first[0]["name"] != fmt.Sprintf("p%d", n-1) {
		t.Errorf("first page %v; want ids 2 and 4, the last records of the file", first)
	}
	// The records without an id follow the largest id (2n), in file order.
	want := int64(2*n + 1)
	for i := 999; i < n; i += 1000 {
		r, ok := c.Get(nil, strconv.FormatInt(want, 10))
		if !ok || !strings.Contains(string(r.JSON), fmt.Sprintf(`"later%d"`, i)) {
			t.Fatalf("id %d: %s, want record later%d", want, r.JSON, i)
		}
		want++
	}
	sold := c.Page(store.Query{Filters: map[string][]string{"status": {"sold"}}, Limit: 5}).Items
	if len(sold) != 5 {
		t.Fatalf("%d sold, want 5", len(sold))
	}
	for _, r := range sold {
		if !strings.Contains(string(r), `"sold"`) {
			t.Errorf("sold page holds %s", r)
		}
	}
	if r := env.post("/pets", `{"name":"new","categoryId":1}`); r.object(t)["id"] != float64(want) {
		t.Errorf("next created id = %v, want %d", r.object(t)["id"], want)
	}

	s, _ := spec.Default()
	load := func(data string) error {
		_, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: []byte(data)}}})
		return err
	}
	// Two bad records, one for each worker: both are reported, in file
	// order, however the workers were scheduled.
	lines := strings.Split(data, ",\n")
	bad := slices.Clone(lines)
	bad[n-10] = `{"id":1,"name":"x","categoryId":1,"status":"lost"}`
	bad[100] = `{"id":2,"name":"y","categoryId":"one"}`
	err := load(strings.Join(bad, ",\n"))
	if got := problemLines(err); len(got) != 2 || !strings.Contains(got[0], "pets[100]") || !strings.Contains(got[1], "pets["+strconv.Itoa(n-10)+"]") {
		t.Errorf("err = %v, want the records at pets[100] and pets[%d], in that order", err, n-10)
	}
	// A duplicate id across the two halves names both records, the later
	// one first.
	dup := slices.Clone(lines)
	dup[5] = `{"id":8,"name":"dup","categoryId":1}`
	if err := load(strings.Join(dup, ",\n")); err == nil || !strings.Contains(err.Error(), "pets["+strconv.Itoa(n-4)+"]: id 8 is already used by fixtures pets.json: pets[5]") {
		t.Errorf("err = %v, want the duplicate of id 8 named", err)
	}
}

// TestNoIDLeftForFixtures: a record without an id gets the one after the
// largest; when the largest is the largest int64 there is none, and the
// load (or an import) is refused, never given a negative id.
func TestNoIDLeftForFixtures(t *testing.T) {
	s, _ := spec.Default()
	load := func(recs string) error {
		_, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: []byte(recs)}}})
		return err
	}
	err := load(`[{"id":9223372036854775807,"name":"Last","categoryId":1},{"name":"noid","categoryId":1},{"name":"noid2","categoryId":1}]`)
	got := problemLines(err)
	if len(got) != 2 || !strings.Contains(got[0], "fixtures pets.json: pets[1]: no id left") || !strings.Contains(got[1], "pets[2]: no id left") {
		t.Errorf("err = %v, want pets[1] and pets[2] refused: no id left", err)
	}
	// One id is left: the first record without an id takes it, the second
	// has none.
	err = load(`[{"id":9223372036854775806,"name":"Last","categoryId":1},{"name":"noid","categoryId":1},{"name":"noid2","categoryId":1}]`)
	if got := problemLines(err); len(got) != 1 || !strings.Contains(got[0], "pets[2]: no id left") {
		t.Errorf("err = %v, want only pets[2] refused", err)
	}
	if err := load(`[{"id":9223372036854775806,"name":"Last","categoryId":1},{"name":"noid","categoryId":1}]`); err != nil {
		t.Errorf("the last id is free, yet: %v", err)
	}

	env := newPetstore(t)
	before := string(env.admin("GET", "store", "", "").body)
	r := env.admin("PUT", "store", `{"pets":[{"id":9223372036854775807,"name":"Last","categoryId":1},{"name":"noid","categoryId":1}]}`, "application/json")
	if r.status != 400 || !strings.Contains(r.message(t), "pets[1]: no id left") {
		t.Errorf("import: %d %s, want 400 naming pets[1]", r.status, r.body)
	}
	if after := string(env.admin("GET", "store", "", "").body); after != before || strings.Contains(after, "-9223372036854775808") {
		t.Errorf("a refused import changed the store")
	}
}
