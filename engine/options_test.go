package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

func itemIDs(t *testing.T, items []map[string]any, field string) []int {
	t.Helper()
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = int(it[field].(float64))
	}
	return out
}

func TestOutOfRangeLimit(t *testing.T) {
	cases := []struct {
		clamp  bool
		query  string
		status int
		count  int
	}{
		{false, "?limit=0", 400, 0},
		{false, "?limit=101", 400, 0},
		{false, "?limit=-5", 400, 0},
		{true, "?limit=0", 200, 1},
		{true, "?limit=-5", 200, 1},
		{true, "?limit=101", 200, 100},
		{true, "?limit=99999999999", 200, 100},
		// Beyond int64 is still an integer out of range: clamped, not refused.
		{true, "?limit=99999999999999999999", 200, 100},
		{true, "?limit=-99999999999999999999", 200, 1},
		{false, "?limit=99999999999999999999", 400, 0},
		{true, "?limit=abc", 400, 0}, // not a number: nothing to clamp
		{true, "?limit=1&limit=200", 400, 0},
		{true, "?limit=50", 200, 50},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("clamp=%v%s", c.clamp, c.query), func(t *testing.T) {
			env := newPetstore(t, func(o *Options) { o.Lists.ClampLimit = c.clamp })
			r := env.get("/pets" + c.query)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if c.status == 200 && len(r.list(t)) != c.count {
				t.Errorf("%d items, want %d", len(r.list(t)), c.count)
			}
		})
	}
	env := newPetstore(t, func(o *Options) { o.Lists.ClampLimit = true })
	env.get("/pets?limit=500")
	env.get("/pets?limit=99999999999999999999")
	for _, want := range []string{"limit=500 clamped to 100", "limit=99999999999999999999 clamped to 100"} {
		if !strings.Contains(env.log.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, env.log)
		}
	}
}

func TestListOrder(t *testing.T) {
	for _, newest := range []bool{false, true} {
		env := newPetstore(t, func(o *Options) { o.Lists.NewestFirst = newest })
		got := itemIDs(t, env.get("/pets?limit=5").list(t), "id")
		want := []int{1, 2, 3, 4, 5}
		if newest {
			want = []int{150, 149, 148, 147, 146}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("newestFirst=%v: ids %v, want %v", newest, got, want)
		}
		created := env.post("/pets", `{"name":"Newest","categoryId":1}`)
		if created.status != 201 {
			t.Fatalf("create: %d %s", created.status, created.body)
		}
		first := itemIDs(t, env.get("/pets?limit=1").list(t), "id")[0]
		if newest && first != 151 || !newest && first != 1 {
			t.Errorf("newestFirst=%v: first id after a create is %d", newest, first)
		}
		sold := env.get("/pets?status=sold&limit=100").list(t)
		for i := 1; i < len(sold); i++ {
			a, b := sold[i-1]["id"].(float64), sold[i]["id"].(float64)
			if newest && a <= b || !newest && a >= b {
				t.Fatalf("newestFirst=%v: filtered list out of order at %d: %v then %v", newest, i, a, b)
			}
		}
	}
}

var nextLinkRE = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// walk follows Link rel="next" from path and returns every id seen.
func walk(t *testing.T, env *testEnv, path string, between func()) []int {
	t.Helper()
	var all []int
	for pages := 0; path != ""; pages++ {
		if pages > 1000 {
			t.Fatal("more than 1000 pages")
		}
		r := env.do(request{path: "/" + path}) // "//..." is a path from the root
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		all = append(all, itemIDs(t, r.list(t), "id")...)
		path = ""
		if l := r.header.Get("Link"); l != "" {
			m := nextLinkRE.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("Link %q is not one rel=next link", l)
			}
			path = m[1]
			if between != nil {
				between()
			}
		}
	}
	return all
}

func TestCursorPagination(t *testing.T) {
	for _, newest := range []bool{false, true} {
		t.Run(fmt.Sprintf("newestFirst=%v", newest), func(t *testing.T) {
			env := newPetstore(t, func(o *Options) {
				o.Lists.CursorParam = "cursor"
				o.Lists.NewestFirst = newest
			})
			// Creates between pages must neither repeat nor skip a fixture.
			all := walk(t, env, "/v1/pets?limit=40&status=available", func() {
				env.post("/pets", `{"name":"Between","categoryId":1,"status":"available"}`)
			})
			seen := map[int]bool{}
			for _, id := range all {
				if seen[id] {
					t.Fatalf("id %d seen twice: %v", id, all)
				}
				seen[id] = true
			}
			fixtures := 0
			for id := range seen {
				if id <= 150 {
					fixtures++
				}
			}
			if fixtures != 70 {
				t.Errorf("walked %d available fixtures, want all 70", fixtures)
			}
		})
	}
	env := newPetstore(t, func(o *Options) { o.Lists.CursorParam = "cursor" })
	if r := env.get("/pets?limit=100&status=pending"); r.header.Get("Link") != "" {
		t.Errorf("a last page carries Link %q", r.header.Get("Link"))
	}
	for _, bad := range []struct{ cursor, want string }{
		{"nonsense", "not a cursor"},
		{"YzEueA", "not a cursor"}, // c1.x
		{encodeCursor(5) + "&cursor=" + encodeCursor(6), "given 2 times"},
	} {
		r := env.get("/pets?cursor=" + bad.cursor)
		if r.status != 400 || !strings.Contains(r.message(t), bad.want) {
			t.Errorf("cursor %q: %d %s, want 400 saying %q", bad.cursor, r.status, r.body, bad.want)
		}
	}
	// Ids can be negative; the cursors that name them work.
	neg := newPetstore(t, func(o *Options) {
		o.Lists.CursorParam = "cursor"
		o.Fixtures = []FixtureFile{{Name: "pets.json", Data: []byte(`[{"id":-3,"name":"A","categoryId":1},{"id":-1,"name":"B","categoryId":1},{"id":2,"name":"C","categoryId":1}]`)}}
	})
	if got := walk(t, neg, "/v1/pets?limit=1", nil); fmt.Sprint(got) != "[-3 -1 2]" {
		t.Errorf("walk over negative ids: %v, want [-3 -1 2]", got)
	}
	// A clamped limit is carried into the next link as clamped, and the
	// request's own query keeps its single cursor.
	both := newPetstore(t, func(o *Options) { o.Lists.ClampLimit, o.Lists.CursorParam = true, "cursor" })
	r := both.get("/pets?limit=500&cursor=" + encodeCursor(10))
	if got := len(r.list(t)); r.status != 200 || got != 100 {
		t.Fatalf("clamped page after a cursor: %d, %d items", r.status, got)
	}
	if got, want := r.header.Get("Link"), "</v1/pets?cursor="+encodeCursor(110)+`&limit=100>; rel="next"`; got != want {
		t.Errorf("Link = %q, want %q", got, want)
	}
	off := newPetstore(t)
	if r := off.get("/pets?limit=5"); r.header.Get("Link") != "" {
		t.Errorf("pagination none: Link %q", r.header.Get("Link"))
	}
}

func TestDefaultsForNewItems(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Defaults = map[string]map[string]json.RawMessage{"pets": {"status": json.RawMessage(`"available"`)}}
	})
	r := env.post("/pets", `{"name":"Plain","categoryId":2}`)
	if r.status != 201 || r.object(t)["status"] != "available" {
		t.Fatalf("default status not given: %d %s", r.status, r.body)
	}
	r = env.post("/pets", `{"name":"Sold","categoryId":2,"status":"sold"}`)
	if r.object(t)["status"] != "sold" {
		t.Errorf("a sent status was replaced by the default: %s", r.body)
	}
	plain := newPetstore(t)
	r = plain.post("/pets", `{"name":"Plain","categoryId":2}`)
	if _, has := r.object(t)["status"]; has {
		t.Errorf("without a default, status is invented: %s", r.body)
	}
}

func TestOptionsRejected(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{
		Spec: s, Keys: []string{testKey},
		Defaults: map[string]map[string]json.RawMessage{
			"pets":  {"status": json.RawMessage(`"lost"`), "id": json.RawMessage(`7`), "colour": json.RawMessage(`"red"`)},
			"cats":  {"name": json.RawMessage(`"x"`)},
			"other": nil,
		},
		Responses: map[string]Stub{
			"listStoreOrders": {Status: 401, Body: json.RawMessage(`{"x": 1}`)},
			"listPets":        {Status: 200, Body: json.RawMessage(`[]`)},
			"nope":            {Status: 200},
		},
		Latency:  map[string]Delay{"getPet": {Min: 2 * time.Second, Max: time.Second}, "nope": {}, "*": {Max: time.Hour}},
		Faults:   map[string]Fault{"createPet": {Rate: 1.5}, "listPets": {Rate: 0.5, Status: 200}},
		Lists:    ListOptions{CursorParam: "limit"},
		Generate: -1,
	}
	_, err = New(o)
	if err == nil {
		t.Fatal("New accepted impossible options")
	}
	want := []string{
		`defaults: pets.status: "lost" is not a valid status`,
		`defaults: pets.id: the server assigns id`,
		`defaults: pets.colour: the item schema has no field "colour"`,
		`defaults: no collection "cats"`,
		`responses: listStoreOrders.body: a 401 answer is the Error body`,
		`responses: listPets: listPets (GET /pets) is served from the store`,
		`responses: nope: no such operation`,
		`latency: getPet: want 0 <= min <= max`,
		`latency: no operation "nope"`,
		`latency: *: 1h0m0s is longer than the limit`,
		`faults: createPet: rate 1.5`,
		`faults: listPets: status 200`,
		`lists: cursor parameter "limit" is already a parameter of listPets`,
		`generate: -1`,
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q:\n%v", w, err)
		}
	}
}

func TestConfiguredResponse(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Responses = map[string]Stub{"listStoreOrders": {
			Status:  200,
			Headers: map[string]string{"X-Source": "petctl.yaml"},
			Body:    json.RawMessage(`[{"orderId": 1, "petId": 3}]`),
		}}
	})
	r := env.get("/store/orders")
	if r.status != 200 || r.header.Get("X-Source") != "petctl.yaml" || string(r.body) != `[{"orderId": 1, "petId": 3}]` {
		t.Fatalf("configured response: %d %v %s", r.status, r.header, r.body)
	}
	if r := env.do(request{path: "/store/orders", key: "-"}); r.status != 401 {
		t.Errorf("a configured response skips auth: %d", r.status)
	}
	if r := newPetstore(t).get("/store/orders"); r.code(t) != string(CodeNotPublished) {
		t.Errorf("without configuration: %d %s", r.status, r.body)
	}
}

// TestConfiguredResponseRefused: a configured answer that would break
// HTTP, or a 4xx or 5xx that is not the Error body, is refused at start-up,
// each problem on its own line at its key. Every case is refused alone, so
// each check is seen to work by itself.
func TestConfiguredResponseRefused(t *testing.T) {
	hello := json.RawMessage(`{"hello": "world"}`)
	cases := []struct {
		name string
		stub Stub
		want []string
	}{
		{"1xx switching", Stub{Status: 101, Body: hello}, []string{`listStoreOrders.status: 101: a 1xx status is an interim answer`}},
		{"1xx early hints", Stub{Status: 103}, []string{`listStoreOrders.status: 103: a 1xx status`}},
		{"no status", Stub{Status: 0}, []string{`listStoreOrders.status: 0: want an HTTP status, 200 to 599`}},
		{"204 with a body", Stub{Status: 204, Body: hello}, []string{`listStoreOrders.body: a 204 answer has no content`}},
		{"205 with a body", Stub{Status: 205, Body: json.RawMessage(`[]`)}, []string{`listStoreOrders.body: a 205 answer has no content`}},
		{"304 with a body", Stub{Status: 304, Body: hello}, []string{`listStoreOrders.body: a 304 answer has no content`}},
		{"framing and hop-by-hop headers", Stub{Status: 200, Body: hello, Headers: map[string]string{
			"Content-Length": "100", "transfer-encoding": "chunked", "Connection": "close", "Keep-Alive": "timeout=5",
			"Upgrade": "websocket", "TE": "trailers", "Trailer": "X-Sum", "Proxy-Connection": "keep-alive",
		}}, []string{
			"listStoreOrders.headers.Content-Length: a framing header", "listStoreOrders.headers.transfer-encoding: a framing header",
			"listStoreOrders.headers.Trailer: a framing header", "listStoreOrders.headers.Connection: a hop-by-hop header",
			"listStoreOrders.headers.Keep-Alive: a hop-by-hop header", "listStoreOrders.headers.Upgrade: a hop-by-hop header",
			"listStoreOrders.headers.TE: a hop-by-hop header", "listStoreOrders.headers.Proxy-Connection: a hop-by-hop header",
		}},
		{"content coding", Stub{Status: 200, Body: hello, Headers: map[string]string{"Content-Encoding": "gzip"}}, []string{"listStoreOrders.headers.Content-Encoding: the body is sent as written"}},
		{"CORS header", Stub{Status: 200, Headers: map[string]string{"Access-Control-Allow-Origin": "*"}}, []string{"listStoreOrders.headers.Access-Control-Allow-Origin: the cors settings decide"}},
		{"bad header name", Stub{Status: 200, Headers: map[string]string{"X Mock": "yes"}}, []string{`listStoreOrders.headers.X Mock: "X Mock" is not a header name`}},
		{"bad header value", Stub{Status: 200, Headers: map[string]string{"X-Mock": "a\r\nSet-Cookie: x=1"}}, []string{`listStoreOrders.headers.X-Mock: the value holds a control character`}},
		{"one header twice", Stub{Status: 200, Headers: map[string]string{"X-Mock": "a", "x-mock": "b"}}, []string{`listStoreOrders.headers.x-mock: given twice (X-Mock, x-mock)`}},
		{"not JSON", Stub{Status: 200, Body: json.RawMessage(`{"a":`)}, []string{`listStoreOrders.body: not JSON`}},
		{"500 without the Error body", Stub{Status: 500, Body: hello}, []string{"listStoreOrders.body: a 500 answer is the Error body {code, message, status}: code: want a non-empty string; message: want a string; status: want 500"}},
		{"503 without a body", Stub{Status: 503}, []string{"listStoreOrders.body: a 503 answer is the Error body {code, message, status}; give one"}},
		{"status differs", Stub{Status: 503, Body: json.RawMessage(`{"code":"down","message":"m","status":500}`)}, []string{"listStoreOrders.body: a 503 answer is the Error body {code, message, status}: status: want 503, the HTTP status"}},
		{"status as text", Stub{Status: 418, Body: json.RawMessage(`{"code":"tea","message":"m","status":"418"}`)}, []string{"listStoreOrders.body: a 418 answer is the Error body {code, message, status}: status: want 418"}},
		{"error content type", Stub{Status: 503, Body: json.RawMessage(`{"code":"down","message":"m","status":503}`), Headers: map[string]string{"Content-Type": "text/plain"}}, []string{"listStoreOrders.headers.Content-Type: a 503 answer is the Error body, application/json"}},
		{"error schema", Stub{Status: 503, Body: json.RawMessage(`{"code":"down","message":"m","status":503,"retry":"soon"}`)}, []string{"listStoreOrders.body: does not match the document's error schema"}},
		{"document", Stub{Status: 200, Body: hello}, []string{"listStoreOrders: the response does not match the document"}},
	}
	// The Petstore's Error allows more properties, and its orders may
	// answer anything; here Error allows no more, and a 200 is an array,
	// so the last cases fail the error schema, or the document, and
	// nothing else.
	doc := strings.NewReplacer(
		"    Error:\n      type: object\n", "    Error:\n      type: object\n      additionalProperties: false\n",
		"        default:\n          description: Not shown in the description.\n", "        default:\n          description: Not shown in the description.\n        '200':\n          description: The orders.\n          content:\n            application/json:\n              schema: {type: array}\n",
	).Replace(petstoreDoc(t))
	strict, err := spec.Parse([]byte(doc), "strict.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(Options{Spec: strict, Keys: []string{testKey}, Responses: map[string]Stub{"listStoreOrders": c.stub}})
			if err == nil {
				t.Fatal("New accepted it")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), "responses: "+w) {
					t.Errorf("the error does not say %q:\n%v", "responses: "+w, err)
				}
			}
			if got := strings.Count(err.Error(), "\n") + 1; got != len(c.want) {
				t.Errorf("%d problems, want %d:\n%v", got, len(c.want), err)
			}
		})
	}
}

// TestConfiguredErrorAndRedirect: a 4xx or 5xx that is the Error body is
// served as configured; a 3xx is not an error, so a redirect needs none;
// a 304 needs no body.
func TestConfiguredErrorAndRedirect(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Responses = map[string]Stub{"listStoreOrders": {
			Status:  503,
			Headers: map[string]string{"Retry-After": "120"},
			Body:    json.RawMessage(`{"code": "maintenance", "message": "orders are down", "status": 503}`),
		}}
	})
	r := env.get("/store/orders") // env.do checks the Error body
	if r.status != 503 || r.code(t) != "maintenance" || r.header.Get("Retry-After") != "120" {
		t.Errorf("configured 503: %d %v %s", r.status, r.header, r.body)
	}
	moved := newPetstore(t, func(o *Options) {
		o.Responses = map[string]Stub{"listStoreOrders": {Status: 307, Headers: map[string]string{"Location": "/v1/pets"}}}
	})
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", moved.base+"/store/orders", nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 307 || res.Header.Get("Location") != "/v1/pets" {
		t.Errorf("configured redirect: %d %v", res.StatusCode, res.Header)
	}
	s, _ := spec.Default()
	if _, err := New(Options{Spec: s, Keys: []string{testKey}, Responses: map[string]Stub{"listStoreOrders": {Status: 304}}}); err != nil {
		t.Errorf("a 304 without a body: %v", err)
	}
}

func TestFaultInjection(t *testing.T) {
	run := func(seed int64) (string, int) {
		env := newPetstore(t, func(o *Options) {
			o.Seed = seed
			o.Faults = map[string]Fault{"createPet": {Rate: 0.5, Status: 502}}
		})
		var pattern strings.Builder
		created := 0
		for i := 0; i < 40; i++ {
			r := env.post("/pets", `{"name":"F","categoryId":1}`)
			switch r.status {
			case 201:
				pattern.WriteByte('.')
				created++
			case 502:
				pattern.WriteByte('x')
				if r.code(t) != string(CodeFaultInjected) {
					t.Fatalf("fault body: %s", r.body)
				}
			default:
				t.Fatalf("unexpected %d %s", r.status, r.body)
			}
		}
		if n := env.srv.Collections()["pets"]; n != 150+created {
			t.Errorf("store has %d records after %d creates: a fault stored something", n, created)
		}
		if r := env.get("/pets?limit=1"); r.status != 200 {
			t.Errorf("listPets without a fault of its own: %d", r.status)
		}
		return pattern.String(), created
	}
	a, n := run(7)
	b, _ := run(7)
	c, _ := run(8)
	if a != b {
		t.Errorf("same seed, different faults:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same faults: %s", a)
	}
	if n < 8 || n > 32 {
		t.Errorf("rate 0.5 gave %d of 40 successes: %s", n, a)
	}
	all := newPetstore(t, func(o *Options) { o.Faults = map[string]Fault{"*": {Rate: 1}} })
	if r := all.get("/pets"); r.status != 503 {
		t.Errorf("'*' fault with default status: %d", r.status)
	}
	if r := all.do(request{path: "/pets", key: "-"}); r.status != 401 {
		t.Errorf("faults come after auth: %d", r.status)
	}
}

func TestLatencyInjection(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Latency = map[string]Delay{"getPet": {Min: 60 * time.Millisecond, Max: 60 * time.Millisecond}}
	})
	start := time.Now()
	env.get("/pets/1")
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("getPet answered in %v, before its 60ms delay", d)
	}
	if !strings.Contains(env.log.String(), "latency 60ms injected") {
		t.Errorf("the log does not name the delay:\n%s", env.log)
	}
	// A range draws from the seeded source: the same seed, the same delays.
	draws := func(seed int64) []time.Duration {
		d := newDice(seed)
		var out []time.Duration
		for i := 0; i < 5; i++ {
			out = append(out, d.between(10*time.Millisecond, 200*time.Millisecond))
		}
		return out
	}
	a, b := draws(3), draws(3)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed, different delays: %v %v", a, b)
	}
	for _, d := range a {
		if d < 10*time.Millisecond || d > 200*time.Millisecond {
			t.Errorf("delay %v outside 10ms..200ms", d)
		}
	}
	// A client that leaves does not hold a goroutine for the whole delay.
	slow := newPetstore(t, func(o *Options) { o.Latency = map[string]Delay{"*": {Min: 10 * time.Second, Max: 10 * time.Second}} })
	ctxReq := httptest.NewRequest(http.MethodGet, "/v1/pets", nil)
	ctxReq.Header.Set("Authorization", "Bearer "+testKey)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start = time.Now()
	slow.srv.ServeHTTP(httptest.NewRecorder(), ctxReq.WithContext(ctx))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a cancelled request waited %v", d)
	}
}

func TestGenerate(t *testing.T) {
	gen := func(seed int64) *testEnv {
		s, err := spec.Default()
		if err != nil {
			t.Fatal(err)
		}
		return start(t, Options{Spec: s, Keys: []string{testKey}, Generate: 500, Seed: seed}, "Authorization", "Bearer ")
	}
	a, b, c := gen(1), gen(1), gen(2)
	if n := a.srv.Collections()["pets"]; n != 500 {
		t.Fatalf("generated %d records, want 500", n)
	}
	pa, pb, pc := a.get("/pets?limit=100").body, b.get("/pets?limit=100").body, c.get("/pets?limit=100").body
	if string(pa) != string(pb) {
		t.Error("same seed, different records")
	}
	if string(pa) == string(pc) {
		t.Error("different seeds, same records")
	}
	statuses := map[string]int{}
	for _, st := range []string{"available", "pending", "sold"} {
		statuses[st] = len(a.get("/pets?limit=100&status=" + st).list(t))
	}
	for st, n := range statuses {
		if n == 0 {
			t.Errorf("no generated pet has status %s: %v", st, statuses)
		}
	}
	// After fixtures, ids go on from the fixtures'.
	s, _ := spec.Default()
	both := start(t, Options{Spec: s, Keys: []string{testKey}, Generate: 10, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "Authorization", "Bearer ")
	if n := both.srv.Collections()["pets"]; n != 160 {
		t.Errorf("fixtures and 10 generated: %d records", n)
	}
	if r := both.get("/pets/160"); r.status != 200 {
		t.Errorf("generated record 160: %d", r.status)
	}
	// The second document: uuid ids, a date-time, another filter.
	lib := newLibrary(t, func(o *Options) { o.Generate = 50; o.Fixtures = nil })
	if n := lib.srv.Collections()["books"]; n != 50 {
		t.Errorf("library: %d generated books", n)
	}
}

func TestYAMLFixtures(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	good := FixtureFile{Name: "seed.yaml", Data: []byte("pets:\n  - id: 1\n    name: Rex\n    categoryId: 2\n    status: available\n  - name: Tom\n    categoryId: 3\n")}
	env := start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{good}}, "Authorization", "Bearer ")
	if r := env.get("/pets/2"); r.status != 200 || r.object(t)["name"] != "Tom" {
		t.Errorf("YAML fixture record 2: %d %s", r.status, r.body)
	}
	for name, c := range map[string]struct{ data, want string }{
		"bad.yml":   {"pets:\n  - name: Rex\n    categoryId: two\n", "fixtures bad.yml: pets[0]"},
		"dup.yaml":  {"pets:\n  - name: Rex\n    name: Max\n    categoryId: 1\n", "fixtures dup.yaml"},
		"list.yaml": {"- name: Rex\n  categoryId: 1\n", "fixtures list.yaml"},
		"tab.yaml":  {"pets: [\n", "fixtures tab.yaml"},
	} {
		_, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: name, Data: []byte(c.data)}}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", name, err, c.want)
		}
	}
}

// TestIDsExhausted: after the largest int64 id there is no next one; a
// create says so and stores nothing, instead of wrapping to a negative id.
func TestIDsExhausted(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Fixtures = []FixtureFile{{Name: "pets.json", Data: []byte(`[{"id":1,"name":"A","categoryId":1},{"id":9223372036854775807,"name":"Last","categoryId":1}]`)}}
	})
	for i := 0; i < 2; i++ {
		r := env.post("/pets", `{"name":"Next","categoryId":1}`)
		checkErrorBody(t, r)
		if r.status != http.StatusInsufficientStorage || r.code(t) != "ids_exhausted" {
			t.Fatalf("create after the largest id: %d %s", r.status, r.body)
		}
	}
	if got := itemIDs(t, env.get("/pets?limit=100").list(t), "id"); len(got) != 2 {
		t.Errorf("the store changed: ids %v", got)
	}
	// A store whose ids are all negative continues at the one after the largest.
	neg := newPetstore(t, func(o *Options) {
		o.Fixtures = []FixtureFile{{Name: "pets.json", Data: []byte(`[{"id":-5,"name":"A","categoryId":1},{"id":-1,"name":"B","categoryId":1}]`)}}
	})
	if r := neg.post("/pets", `{"name":"Next","categoryId":1}`); r.status != 201 || r.object(t)["id"] != float64(0) {
		t.Errorf("create after id -1: %d %s, want id 0", r.status, r.body)
	}
}
