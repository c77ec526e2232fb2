package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// newCRUD serves fixtures/styles/crud.yaml, the document of CRUD shapes.
func newCRUD(t *testing.T, mutate ...func(*Options)) *testEnv {
	t.Helper()
	s, err := spec.Load("../fixtures/styles/crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	o := Options{Spec: s, Keys: []string{testKey}, Now: func() time.Time { return now }}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "X-Key", "")
}

// exchange is one request of a scenario and what its answer must show. Paths,
// bodies and headers may name values saved by earlier steps as {name}.
type exchange struct {
	name    string
	method  string
	path    string
	body    string
	ctype   string
	headers map[string]string
	status  int
	// want maps a dotted path in the JSON answer ("meta.total_count",
	// "owners.#" for an array's length, "owners.0.name") to its value as
	// fmt prints it; "<absent>" for none.
	want map[string]string
	// save keeps values of the answer for later steps: name -> dotted
	// path, or "header:Name" for a header.
	save  map[string]string
	check func(t *testing.T, r result)
}

// play plays the steps in order against env, each a subtest.
func play(t *testing.T, env *testEnv, steps []exchange) {
	t.Helper()
	vars := map[string]string{}
	fill := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			env.t = t
			headers := map[string]string{}
			for k, v := range st.headers {
				headers[k] = fill(v)
			}
			r := env.do(request{method: st.method, path: fill(st.path), body: fill(st.body), ctype: st.ctype, headers: headers})
			if r.status != st.status {
				t.Fatalf("%s %s: status %d, want %d: %s", st.method, fill(st.path), r.status, st.status, r.body)
			}
			var doc any
			if len(r.body) > 0 {
				if err := json.Unmarshal(r.body, &doc); err != nil {
					t.Fatalf("answer is not JSON: %v: %s", err, r.body)
				}
			}
			for at, want := range st.want {
				if got := lookup(doc, at); got != fill(want) {
					t.Errorf("%s = %s, want %s (answer %s)", at, got, fill(want), r.body)
				}
			}
			for name, at := range st.save {
				if h, ok := strings.CutPrefix(at, "header:"); ok {
					vars[name] = r.header.Get(h)
				} else {
					vars[name] = lookup(doc, at)
				}
			}
			if st.check != nil {
				st.check(t, r)
			}
		})
		if !ok {
			break // later steps depend on this one
		}
	}
}

// lookup finds a dotted path in a decoded JSON value and prints it:
// strings as they are, other values as JSON, "<absent>" for nothing;
// "#" is an array's length.
func lookup(doc any, at string) string {
	for _, p := range strings.Split(at, ".") {
		switch c := doc.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return "<absent>"
			}
			doc = v
		case []any:
			if p == "#" {
				return fmt.Sprint(len(c))
			}
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(c) {
				return "<absent>"
			}
			doc = c[i]
		default:
			return "<absent>"
		}
	}
	if s, ok := doc.(string); ok {
		return s
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestCRUDFlatCollection: integer ids the server assigns, readOnly fields
// a write cannot set, a writeOnly field stored and never answered, a
// {owners, meta} envelope paged by page/per_page with true totals, a
// filter and a sort, PUT replacing, merge PATCH, DELETE then 404 and gone
// from every list.
func TestCRUDFlatCollection(t *testing.T) {
	env := newCRUD(t)
	play(t, env, []exchange{
		{name: "create ignores readOnly fields and hides writeOnly ones", method: "POST", path: "/owners",
			body:   `{"name":"Ada","city":"Oslo","password":"s3cret","id":99,"createdAt":"1999-01-01T00:00:00Z"}`,
			status: 201, want: map[string]string{"id": "1", "createdAt": "2030-05-06T07:08:09Z", "password": "<absent>", "city": "Oslo"},
			check: func(t *testing.T, r result) {
				if loc := r.header.Get("Location"); loc != "/crud/owners/1" {
					t.Errorf("Location = %q, want /crud/owners/1", loc)
				}
			}},
		{name: "second", method: "POST", path: "/owners", body: `{"name":"Bob","city":"Rome","password":"hunter2"}`, status: 201, want: map[string]string{"id": "2"}},
		{name: "third", method: "POST", path: "/owners", body: `{"name":"Cy","city":"Oslo"}`, status: 201, want: map[string]string{"id": "3"}},
		{name: "read", path: "/owners/1", status: 200, want: map[string]string{"name": "Ada", "password": "<absent>"}},
		{name: "first page", path: "/owners?per_page=2", status: 200, want: map[string]string{
			"owners.#": "2", "owners.0.id": "1", "meta.current_page": "1", "meta.total_count": "3", "meta.total_pages": "2",
			"meta.next_page": "2", "meta.prev_page": "null"}},
		{name: "last page", path: "/owners?per_page=2&page=2", status: 200, want: map[string]string{
			"owners.#": "1", "owners.0.id": "3", "meta.current_page": "2", "meta.next_page": "null", "meta.prev_page": "1"}},
		{name: "filter", path: "/owners?city=Oslo", status: 200, want: map[string]string{"owners.#": "2", "owners.0.name": "Ada", "owners.1.name": "Cy", "meta.total_count": "2"}},
		{name: "sort descending", path: "/owners?sort=-name", status: 200, want: map[string]string{"owners.0.name": "Cy", "owners.1.name": "Bob", "owners.2.name": "Ada"}},
		{name: "replace keeps id and createdAt, drops what is not sent", method: "PUT", path: "/owners/1", body: `{"name":"Ada L.","id":7}`,
			status: 200, want: map[string]string{"id": "1", "name": "Ada L.", "city": "<absent>", "createdAt": "2030-05-06T07:08:09Z"}},
		{name: "read shows the replacement", path: "/owners/1", status: 200, want: map[string]string{"name": "Ada L.", "city": "<absent>"}},
		{name: "merge patch", method: "PATCH", path: "/owners/2", body: `{"city":null,"name":"Bobby"}`, ctype: "application/merge-patch+json",
			status: 200, want: map[string]string{"name": "Bobby", "city": "<absent>", "id": "2"}},
		{name: "merge patch as application/json is refused", method: "PATCH", path: "/owners/2", body: `{"name":"B"}`, status: 415},
		{name: "delete", method: "DELETE", path: "/owners/3", status: 204},
		{name: "read after delete", path: "/owners/3", status: 404},
		{name: "list lacks it", path: "/owners", status: 200, want: map[string]string{"owners.#": "2", "meta.total_count": "2"}},
		{name: "filter lacks it", path: "/owners?city=Oslo", status: 200, want: map[string]string{"owners.#": "0", "meta.total_count": "0"}},
		{name: "replace of a deleted item", method: "PUT", path: "/owners/3", body: `{"name":"Cy"}`, status: 404},
		{name: "patch of a deleted item", method: "PATCH", path: "/owners/3", body: `{"name":"Cy"}`, ctype: "application/merge-patch+json", status: 404},
		{name: "delete again", method: "DELETE", path: "/owners/3", status: 404},
		{name: "create after a delete takes a new id", method: "POST", path: "/owners", body: `{"name":"Di"}`, status: 201, want: map[string]string{"id": "4"}},
		{name: "the writeOnly field is stored, kept by a patch, dropped by a replace", method: "GET", path: "//__petctl/store", status: 200, check: func(t *testing.T, r result) {
			if !strings.Contains(string(r.body), `"password":"hunter2"`) || strings.Contains(string(r.body), `s3cret`) {
				t.Errorf("the export should hold owner 2's password and not owner 1's, replaced without one: %s", r.body)
			}
		}},
	})
}

// TestCRUDNested: items under a parent are created, listed, read and
// deleted through it; the parent must exist; a view over every parent's
// items, a batch create, JSON Patch; deleting the parent makes its items
// unreachable.
func TestCRUDNested(t *testing.T) {
	env := newCRUD(t)
	play(t, env, []exchange{
		{name: "owner 1", method: "POST", path: "/owners", body: `{"name":"Ann"}`, status: 201},
		{name: "owner 2", method: "POST", path: "/owners", body: `{"name":"Ben"}`, status: 201},
		{name: "pet of 1", method: "POST", path: "/owners/1/pets", body: `{"name":"Rex","species":"dog"}`, status: 201,
			want: map[string]string{"ownerId": "1", "name": "Rex"}, save: map[string]string{"rex": "id", "rexLoc": "header:Location"},
			check: func(t *testing.T, r result) {
				if id := r.object(t)["id"].(string); !uuidRE.MatchString(id) {
					t.Errorf("id %q is not a UUID", id)
				}
			}},
		{name: "Location names it under its parent", path: "/owners/1/pets/{rex}", status: 200, check: func(t *testing.T, r result) {}},
		{name: "second pet of 1", method: "POST", path: "/owners/1/pets", body: `{"name":"Tom","species":"cat"}`, status: 201, save: map[string]string{"tom": "id"}},
		{name: "pet of 2", method: "POST", path: "/owners/2/pets", body: `{"name":"Kit","species":"cat"}`, status: 201, save: map[string]string{"kit": "id"}},
		{name: "pet of a missing owner", method: "POST", path: "/owners/9/pets", body: `{"name":"Nobody","species":"cat"}`, status: 404},
		{name: "list of 1", path: "/owners/1/pets", status: 200, want: map[string]string{"object": "list", "data.#": "2", "data.0.name": "Rex", "has_more": "false"}},
		{name: "list of a missing owner", path: "/owners/9/pets", status: 404},
		{name: "first page by cursor", path: "/owners/1/pets?limit=1", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "Rex", "has_more": "true"},
			check: func(t *testing.T, r result) {
				if l := r.header.Get("Link"); !strings.Contains(l, "after=") || !strings.Contains(l, `rel="next"`) {
					t.Errorf("Link = %q, want the next page after the last id", l)
				}
			}},
		{name: "after the last id", path: "/owners/1/pets?limit=1&after={rex}", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "Tom", "has_more": "false"}},
		{name: "not under the other owner", path: "/owners/2/pets/{rex}", status: 404},
		{name: "filter", path: "/owners/1/pets?species=cat", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "Tom"}},
		{name: "view over every owner", path: "/pets/findBySpecies?species=cat", status: 200, want: map[string]string{"#": "2", "0.name": "Tom", "1.name": "Kit"}},
		{name: "view with several values", path: "/pets/findBySpecies?species=cat&species=dog", status: 200, want: map[string]string{"#": "3"}},
		{name: "JSON Patch", method: "PATCH", path: "/owners/1/pets/{rex}", ctype: "application/json-patch+json",
			body:   `[{"op":"test","path":"/species","value":"dog"},{"op":"replace","path":"/name","value":"Rexy"}]`,
			status: 200, want: map[string]string{"name": "Rexy", "ownerId": "1"}},
		{name: "a failed test changes nothing", method: "PATCH", path: "/owners/1/pets/{rex}", ctype: "application/json-patch+json",
			body: `[{"op":"replace","path":"/name","value":"Max"},{"op":"test","path":"/species","value":"cat"}]`, status: 409},
		{name: "a patch leaving the item invalid changes nothing", method: "PATCH", path: "/owners/1/pets/{rex}", ctype: "application/json-patch+json",
			body: `[{"op":"remove","path":"/name"}]`, status: 400},
		{name: "a readOnly field keeps its value", method: "PATCH", path: "/owners/1/pets/{rex}", ctype: "application/json-patch+json",
			body: `[{"op":"replace","path":"/ownerId","value":2}]`, status: 200, want: map[string]string{"ownerId": "1"}},
		{name: "unchanged by the failures", path: "/owners/1/pets/{rex}", status: 200, want: map[string]string{"name": "Rexy"}},
		{name: "batch create", method: "POST", path: "/owners/1/pets/import", body: `[{"name":"A","species":"cat"},{"name":"B","species":"dog"}]`,
			status: 200, want: map[string]string{"#": "2", "0.ownerId": "1", "1.name": "B"}},
		{name: "a bad batch stores nothing", method: "POST", path: "/owners/1/pets/import", body: `[{"name":"C","species":"cat"},{"name":"D"}]`, status: 400},
		{name: "list after the batch", path: "/owners/1/pets", status: 200, want: map[string]string{"data.#": "4"}},
		{name: "delete answering the item", method: "DELETE", path: "/owners/1/pets/{tom}", status: 200, want: map[string]string{"name": "Tom", "id": "{tom}"}},
		{name: "deleted pet", path: "/owners/1/pets/{tom}", status: 404},
		{name: "view lacks it", path: "/pets/findBySpecies?species=cat", status: 200, want: map[string]string{"#": "2", "0.name": "Kit", "1.name": "A"}},
		{name: "delete the parent", method: "DELETE", path: "/owners/1", status: 204},
		{name: "its items are unreachable", path: "/owners/1/pets/{rex}", status: 404},
		{name: "its list is gone", path: "/owners/1/pets", status: 404},
		{name: "the view lacks them", path: "/pets/findBySpecies?species=cat&species=dog", status: 200, want: map[string]string{"#": "1", "0.name": "Kit"}},
		{name: "the other parent's stay", path: "/owners/2/pets/{kit}", status: 200},
	})
	if n := env.srv.colls["pets"].data.Len(); n != 4 {
		t.Errorf("without cascade the store keeps the deleted owner's 3 pets and Kit: %d, want 4", n)
	}
}

// TestCRUDCascade: with crud.cascade, deleting a parent deletes its items.
func TestCRUDCascade(t *testing.T) {
	env := newCRUD(t, func(o *Options) { o.Cascade = true })
	play(t, env, []exchange{
		{name: "owner", method: "POST", path: "/owners", body: `{"name":"Ann"}`, status: 201},
		{name: "pet", method: "POST", path: "/owners/1/pets", body: `{"name":"Rex","species":"dog"}`, status: 201},
		{name: "other owner", method: "POST", path: "/owners", body: `{"name":"Ben"}`, status: 201},
		{name: "other pet", method: "POST", path: "/owners/2/pets", body: `{"name":"Kit","species":"cat"}`, status: 201},
		{name: "delete", method: "DELETE", path: "/owners/1", status: 204},
	})
	if n := env.srv.colls["pets"].data.Len(); n != 1 {
		t.Errorf("after a cascading delete the store holds %d pets, want 1 (Kit)", n)
	}
}

// TestCRUDNaturalKeys: ids the client chooses are kept, a taken one is a
// conflict, PUT creates at its path with 201, wrapped items, entity tags
// with If-Match, and offset paging with a total.
func TestCRUDNaturalKeys(t *testing.T) {
	env := newCRUD(t)
	play(t, env, []exchange{
		{name: "create with the client's key", method: "POST", path: "/plans", body: `{"plan":{"code":"basic","name":"Basic","amount_cents":100}}`,
			status: 200, want: map[string]string{"plan.code": "basic", "plan.name": "Basic"}, check: func(t *testing.T, r result) {
				if r.header.Get("Location") != "/crud/plans/basic" {
					t.Errorf("Location = %q", r.header.Get("Location"))
				}
			}},
		{name: "the key is taken", method: "POST", path: "/plans", body: `{"plan":{"code":"basic","name":"Again","amount_cents":1}}`, status: 409},
		{name: "unchanged by the conflict", path: "/plans/basic", status: 200, want: map[string]string{"plan.name": "Basic"}},
		{name: "PUT creates at its path", method: "PUT", path: "/plans/pro", body: `{"plan":{"code":"pro","name":"Pro","amount_cents":900}}`, status: 201,
			want: map[string]string{"plan.code": "pro"}},
		{name: "read with its entity tag", path: "/plans/pro", status: 200, save: map[string]string{"tag": "header:ETag"}, check: func(t *testing.T, r result) {
			if tag := r.header.Get("ETag"); !strings.HasPrefix(tag, `"`) {
				t.Errorf("ETag = %q, want a strong entity tag", tag)
			}
		}},
		{name: "a stale If-Match", method: "PUT", path: "/plans/pro", headers: map[string]string{"If-Match": `"stale"`},
			body: `{"plan":{"code":"pro","name":"Pro 2","amount_cents":1000}}`, status: 412},
		{name: "the current If-Match", method: "PUT", path: "/plans/pro", headers: map[string]string{"If-Match": "{tag}"},
			body: `{"plan":{"code":"other","name":"Pro 2","amount_cents":1000}}`, status: 200, want: map[string]string{"plan.code": "pro", "plan.name": "Pro 2"},
			check: func(t *testing.T, r result) {
				if r.header.Get("ETag") == "" {
					t.Error("no ETag on the replace")
				}
			}},
		{name: "the old tag is stale now", method: "PUT", path: "/plans/pro", headers: map[string]string{"If-Match": "{tag}"},
			body: `{"plan":{"code":"pro","name":"Pro 3","amount_cents":1000}}`, status: 412},
		{name: "first page", path: "/plans?limit=1", status: 200, want: map[string]string{"results.#": "1", "results.0.code": "basic", "total": "2"}},
		{name: "by offset", path: "/plans?limit=1&offset=1", status: 200, want: map[string]string{"results.#": "1", "results.0.code": "pro", "total": "2"}},
	})
}

// TestCRUDSchemasDisagree: where a document's create or update schema
// gives a field another type than its item schema, a write the document
// accepts is stored as the item's type (converted where the value reads as
// one, else made from the item's schema), instead of failing; a required
// field no property declares is filled.
func TestCRUDSchemasDisagree(t *testing.T) {
	env := newCRUD(t)
	play(t, env, []exchange{
		{name: "create: a rate as text", method: "POST", path: "/taxes", body: `{"code":"vat","rate":"20.5","thresholds":[{"value":"10"}]}`,
			status: 200, want: map[string]string{"code": "vat", "rate": "20.5", "thresholds.0.value": "10"}, check: func(t *testing.T, r result) {
				if !strings.Contains(string(r.body), `"rate":20.5`) {
					t.Errorf("body %s: want rate stored as the number 20.5", r.body)
				}
				if !strings.Contains(string(r.body), `"balance":`) {
					t.Errorf("body %s: want the required, undeclared balance", r.body)
				}
			}},
		{name: "create: Unix seconds for an instant, lines without their ids", method: "POST", path: "/taxes", body: `{"code":"gst","rate":"5","since":1651240791,"lines":[{"amount":3}]}`,
			status: 200, want: map[string]string{"since": "2022-04-29T13:59:51Z", "lines.0.amount": "3", "lines.0.created_at": "2030-05-06T07:08:09Z"}, check: func(t *testing.T, r result) {
				if !regexp.MustCompile(`"lines":\[\{[^]]*"id":"[0-9a-f-]{36}"`).Match(r.body) {
					t.Errorf("body %s: want the line's id made", r.body)
				}
			}},
		{name: "create: several device identifiers where the item holds one", method: "POST", path: "/taxes",
			body:   `{"code":"dev","rate":"1","device":{"ipv6Address":"::1","ipv4Address":"192.0.2.1","phoneNumber":"+4712345678"}}`,
			status: 200, want: map[string]string{"device.phoneNumber": "+4712345678", "device.ipv4Address": "<absent>", "device.ipv6Address": "<absent>"}},
		{name: "read: the one kept", path: "/taxes/dev", status: 200, want: map[string]string{"device.phoneNumber": "+4712345678", "device.ipv4Address": "<absent>"}},
		{name: "create: Unix seconds as text for an instant", method: "POST", path: "/taxes", body: `{"code":"pst","rate":"1","since":"1651240791.5"}`,
			status: 200, want: map[string]string{"since": "2022-04-29T13:59:51.5Z"}},
		{name: "create: a rate JSON would not write, and a timestamp that is not a number", method: "POST", path: "/taxes", body: `{"code":"qst","rate":".5","since":"NaN","lines":[{"amount":7}]}`,
			status: 200, want: map[string]string{"rate": "0.5"}, check: func(t *testing.T, r result) {
				if !regexp.MustCompile(`"since":"20[0-9]{2}-`).Match(r.body) {
					t.Errorf("body %s: want an instant made for since", r.body)
				}
			}},
		{name: "create: text that is no instant", method: "POST", path: "/taxes", body: `{"code":"hst","rate":"1","since":"soon"}`,
			status: 200, check: func(t *testing.T, r result) {
				if !regexp.MustCompile(`"since":"20[0-9]{2}-`).Match(r.body) {
					t.Errorf("body %s: want an instant made for since", r.body)
				}
			}},
		{name: "create: a rate that is no number", method: "POST", path: "/taxes", body: `{"code":"odd","rate":"twenty"}`,
			status: 200, want: map[string]string{"code": "odd"}, check: func(t *testing.T, r result) {
				if !regexp.MustCompile(`"rate":[0-9]`).Match(r.body) {
					t.Errorf("body %s: want a number made for rate", r.body)
				}
			}},
		{name: "update: numbers where the item has text", method: "PUT", path: "/taxes/vat", body: `{"rate":7,"thresholds":[{"value":5},{"value":6.5}],"flag":"true"}`,
			status: 200, want: map[string]string{"rate": "7", "thresholds.1.value": "6.5", "flag": "true"}, check: func(t *testing.T, r result) {
				if !strings.Contains(string(r.body), `"value":"6.5"`) || !strings.Contains(string(r.body), `"flag":true`) {
					t.Errorf("body %s: want the values as the item's types", r.body)
				}
			}},
		{name: "read shows the update", path: "/taxes/vat", status: 200, want: map[string]string{"thresholds.0.value": "5", "flag": "true"}},
	})
}

// TestCRUDIDsInThePath: an item without an id field is found by the id in
// its path, and its self link is its URL.
func TestCRUDIDsInThePath(t *testing.T) {
	env := newCRUD(t)
	play(t, env, []exchange{
		{name: "create", method: "POST", path: "/decisions", body: `{"title":"Go"}`, status: 201, save: map[string]string{"loc": "header:Location", "url": "url"},
			check: func(t *testing.T, r result) {
				loc, u := r.header.Get("Location"), r.object(t)["url"].(string)
				if !strings.HasPrefix(loc, "/crud/decisions/") || !uuidRE.MatchString(strings.TrimPrefix(loc, "/crud/decisions/")) {
					t.Errorf("Location = %q, want /crud/decisions/<uuid>", loc)
				}
				if !strings.HasSuffix(u, loc) || !strings.HasPrefix(u, "http://127.0.0.1:") {
					t.Errorf("url = %q, want the item's absolute URL ending in %s", u, loc)
				}
			}},
		{name: "read by the path", path: "/{loc}", status: 200, want: map[string]string{"title": "Go", "url": "{url}"}},
		{name: "delete", method: "DELETE", path: "/{loc}", status: 204},
		{name: "gone", path: "/{loc}", status: 404},
	})
}

// TestCRUDCreateWithoutBody: a create answering 201 without a body gives
// the Location; number ids; cursor paging with the next token in the body
// and in a Link header, absent on the last page, stable while items are
// added.
func TestCRUDCreateWithoutBody(t *testing.T) {
	env := newCRUD(t)
	for i, text := range []string{"a", "b", "c"} {
		r := env.post("/labels", fmt.Sprintf(`{"text":%q}`, text))
		if r.status != 201 || len(r.body) != 0 || r.header.Get("Location") != fmt.Sprintf("/crud/labels/%d", i+1) {
			t.Fatalf("create %s: %d %q, Location %q; want 201, no body, /crud/labels/%d", text, r.status, r.body, r.header.Get("Location"), i+1)
		}
	}
	play(t, env, []exchange{
		{name: "read", path: "/labels/2", status: 200, want: map[string]string{"labelId": "2", "text": "b"}},
		{name: "first page", path: "/labels", status: 200, want: map[string]string{"items.#": "2", "items.0.text": "a"},
			save: map[string]string{"next": "next_page_token"}, check: func(t *testing.T, r result) {
				if !strings.Contains(r.header.Get("Link"), "page_token=") {
					t.Errorf("Link = %q, want the next page", r.header.Get("Link"))
				}
			}},
		{name: "an item added before the next page", method: "POST", path: "/labels", body: `{"text":"d"}`, status: 201},
		{name: "the next page continues where the first ended", path: "/labels?page_token={next}", status: 200,
			want: map[string]string{"items.#": "2", "items.0.text": "c", "items.1.text": "d", "next_page_token": "null"}},
		{name: "a token never given out", path: "/labels?page_token=nope", status: 400},
		{name: "delete", method: "DELETE", path: "/labels/1", status: 204},
		{name: "first page after the delete", path: "/labels", status: 200, want: map[string]string{"items.0.text": "b", "items.1.text": "c"}},
	})
}

// TestCRUDSingletonAndAction: a singleton reads, then keeps what a patch
// sets; an operation that fits no resource answers a body valid against
// the document, never a bare 501.
func TestCRUDSingletonAndAction(t *testing.T) {
	env := newCRUD(t)
	play(t, env, []exchange{
		{name: "first read", path: "/settings", status: 200},
		{name: "patch", method: "PATCH", path: "/settings", body: `{"theme":"dark"}`, status: 200, want: map[string]string{"theme": "dark"}},
		{name: "read shows it", path: "/settings", status: 200, want: map[string]string{"theme": "dark"}},
		{name: "an invalid patch", method: "PATCH", path: "/settings", body: `{"pageSize":0}`, status: 400},
		{name: "decision", method: "POST", path: "/decisions", body: `{"title":"Go"}`, status: 201, save: map[string]string{"loc": "header:Location"}},
		{name: "action", method: "POST", path: "/{loc}/publish", status: 202, want: map[string]string{"status": "enqueued", "taskId": "0"}},
	})
}

// TestPetstoreDeclaresNoWrites: the Petstore declares no update or delete,
// so they stay 405 with Allow.
func TestPetstoreDeclaresNoWrites(t *testing.T) {
	env := newPetstore(t)
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete} {
		r := env.do(request{method: m, path: "/pets/1", body: `{"name":"x"}`})
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s /pets/1: %d, Allow %q; want 405, GET, HEAD, OPTIONS", m, r.status, r.header.Get("Allow"))
		}
	}
	if r := env.get("/pets/1"); r.status != 200 {
		t.Errorf("the pet is still there: %d", r.status)
	}
}

// TestCRUDOverrides: configuration replaces what petctl infers, per
// operation, and each override that does not fit the document stops
// start-up with an *OptionError at its key.
func TestCRUDOverrides(t *testing.T) {
	env := newCRUD(t, func(o *Options) {
		o.Overrides = map[string]spec.Override{
			"findPetsBySpecies": {Kind: spec.KindAction},
			"putPlan":           {IDs: "server"},
			"listPlans":         {Paging: "none"},
		}
	})
	play(t, env, []exchange{
		{name: "owner", method: "POST", path: "/owners", body: `{"name":"Ann"}`, status: 201},
		{name: "pet", method: "POST", path: "/owners/1/pets", body: `{"name":"Tom","species":"cat"}`, status: 201},
		{name: "an action answers from the document, not the store", path: "/pets/findBySpecies?species=cat", status: 200, want: map[string]string{"#": "0"}},
		{name: "ids the server assigns: PUT does not create", method: "PUT", path: "/plans/pro", body: `{"plan":{"code":"pro","name":"Pro","amount_cents":1}}`, status: 404},
		{name: "plan a", method: "POST", path: "/plans", body: `{"plan":{"code":"plan_a","name":"A","amount_cents":1}}`, status: 200},
		{name: "plan b", method: "POST", path: "/plans", body: `{"plan":{"code":"plan_b","name":"B","amount_cents":1}}`, status: 200},
		{name: "no paging: every item", path: "/plans?limit=1&offset=1", status: 200, want: map[string]string{"results.#": "2", "total": "2"}},
	})

	s, err := spec.Load("../fixtures/styles/crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Spec: s, Keys: []string{testKey}, Overrides: map[string]spec.Override{
		"nope":          {Kind: spec.KindRead},
		"getOwner":      {Kind: "fetch"},
		"listOwners":    {LimitParam: "size", Items: "people"},
		"patchOwnerPet": {IDField: "petName", Patch: "xml"},
	}})
	var keys []string
	for _, e := range joinedErrors(err) {
		var oe *OptionError
		if !errors.As(e, &oe) {
			t.Errorf("not an *OptionError: %v", e)
			continue
		}
		keys = append(keys, oe.Key)
	}
	want := []string{
		"crud.operations.getOwner.kind", "crud.operations.nope",
		"crud.operations.listOwners.items", "crud.operations.listOwners.limitParam",
		"crud.operations.patchOwnerPet.idField", "crud.operations.patchOwnerPet.patch",
	}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("problems at %v, want %v (%v)", keys, want, err)
	}
}
