package engine

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestListPets(t *testing.T) {
	env := newPetstore(t)
	tests := []struct {
		name      string
		path      string
		wantCount int
		wantFirst float64 // id of the first item
		status    string  // every item has this status
	}{
		{"default limit is the parameter's default", "/pets", 20, 1, ""},
		{"limit 1", "/pets?limit=1", 1, 1, ""},
		{"limit 100, the maximum", "/pets?limit=100", 100, 1, ""},
		{"limit with a leading zero", "/pets?limit=05", 5, 1, ""},
		{"filter available", "/pets?status=available&limit=100", 70, 1, "available"},
		{"filter pending", "/pets?status=pending&limit=100", 28, 4, "pending"},
		{"filter sold", "/pets?status=sold&limit=100", 46, 3, "sold"},
		{"filter sold, default limit", "/pets?status=sold", 20, 3, "sold"},
		{"unknown query parameters are ignored", "/pets?limit=2&color=red", 2, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.get(tc.path)
			if r.status != http.StatusOK {
				t.Fatalf("status = %d, want 200: %s", r.status, r.body)
			}
			items := r.list(t)
			if got := len(items); got != tc.wantCount {
				t.Errorf("got %d items, want %d", got, tc.wantCount)
			}
			if len(items) > 0 && items[0]["id"] != tc.wantFirst {
				t.Errorf("first id = %v, want %v", items[0]["id"], tc.wantFirst)
			}
			prev := 0.0
			for _, it := range items {
				id := it["id"].(float64)
				if id <= prev {
					t.Errorf("ids not ascending: %v after %v", id, prev)
				}
				prev = id
				if tc.status != "" && it["status"] != tc.status {
					t.Errorf("item %v has status %v, want %s", id, it["status"], tc.status)
				}
			}
			if r.header.Get("Deprecation") != "" || r.header.Get("Sunset") != "" {
				t.Errorf("listPets is not deprecated but carries Deprecation %q / Sunset %q", r.header.Get("Deprecation"), r.header.Get("Sunset"))
			}
		})
	}
}

func TestListRejectsBadParameters(t *testing.T) {
	env := newPetstore(t)
	tests := []struct{ query, wantIn string }{
		{"limit=0", "query parameter 'limit'"},
		{"limit=101", "query parameter 'limit'"},
		{"limit=-1", "query parameter 'limit'"},
		{"limit=abc", "query parameter 'limit'"},
		{"limit=1.5", "query parameter 'limit'"},
		{"limit=", "query parameter 'limit'"},
		{"limit=99999999999999999999", "query parameter 'limit'"},
		{"limit=1&limit=200", "query parameter 'limit'"},
		{"limit=1&limit=2", "given 2 times"},
		{"status=adopted", "query parameter 'status'"},
		{"status=", "query parameter 'status'"},
		{"status=sold&status=pending", "given 2 times"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := env.get("/pets?" + tc.query)
			if r.status != http.StatusBadRequest || r.code(t) != string(CodeValidation) {
				t.Fatalf("got %d %s, want 400 validation_failed: %s", r.status, r.code(t), r.body)
			}
			if !strings.Contains(r.message(t), tc.wantIn) {
				t.Errorf("message %q does not name %q", r.message(t), tc.wantIn)
			}
		})
	}
}

func TestCreateReadAndList(t *testing.T) {
	env := newPetstore(t)
	r := env.post("/pets", `{"name":"Rex","categoryId":2,"status":"pending"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	got := r.object(t)
	if got["id"] != 151.0 || got["name"] != "Rex" || got["categoryId"] != 2.0 || got["status"] != "pending" {
		t.Errorf("created = %v, want id 151 and the fields sent", got)
	}
	if loc := r.header.Get("Location"); loc != "/v1/pets/151" {
		t.Errorf("Location = %q, want /v1/pets/151", loc)
	}
	read := env.get("/pets/151")
	if read.status != http.StatusOK || string(read.body) != string(r.body) {
		t.Errorf("read back = %d %s, want 200 %s", read.status, read.body, r.body)
	}
	list := env.get("/pets?status=pending&limit=100").list(t)
	if last := list[len(list)-1]; last["id"] != 151.0 {
		t.Errorf("last pending = %v, want the created animal", last)
	}

	// Omitted status stays absent: the description does not say what the
	// server assigns.
	r = env.post("/pets", `{"name":"Nameless status","categoryId":1}`)
	if obj := r.object(t); obj["id"] != 152.0 || obj["status"] != nil {
		t.Errorf("created without status = %s, want id 152 and no status", r.body)
	}
	// Fields the schema does not know are not stored.
	r = env.post("/pets", `{"name":"Extra","categoryId":1,"color":"brown"}`)
	if r.status != http.StatusCreated || strings.Contains(string(r.body), "color") {
		t.Errorf("created with an extra field = %d %s, want 201 without it", r.status, r.body)
	}
	// Integers are kept exactly, 1.0 is an integer.
	r = env.post("/pets", `{"name":"Big","categoryId":9223372036854775807}`)
	if !strings.Contains(string(r.body), `"categoryId":9223372036854775807`) {
		t.Errorf("max int64 not kept exactly: %s", r.body)
	}
	r = env.post("/pets", `{"name":"Float","categoryId":3.0}`)
	if r.status != http.StatusCreated || !strings.Contains(string(r.body), `"categoryId":3}`) {
		t.Errorf("3.0 = %d %s, want 201 with categoryId 3", r.status, r.body)
	}
}

func TestCreateRejectsBadBodies(t *testing.T) {
	tests := []struct {
		name, body, ctype string
		status            int
		code              Code
		wantIn            string
	}{
		{"missing name", `{"categoryId":1}`, "", 400, CodeValidation, "name"},
		{"missing categoryId", `{"name":"Rex"}`, "", 400, CodeValidation, "categoryId"},
		{"name not a string", `{"name":7,"categoryId":1}`, "", 400, CodeValidation, "name"},
		{"categoryId a string", `{"name":"Rex","categoryId":"1"}`, "", 400, CodeValidation, "categoryId"},
		{"categoryId a float", `{"name":"Rex","categoryId":1.5}`, "", 400, CodeValidation, "categoryId"},
		{"categoryId beyond int64", `{"name":"Rex","categoryId":99999999999999999999}`, "", 400, CodeValidation, "categoryId"},
		{"categoryId just beyond int64", `{"name":"Rex","categoryId":9223372036854775808}`, "", 400, CodeValidation, "int64"},
		{"unknown status", `{"name":"Rex","categoryId":1,"status":"adopted"}`, "", 400, CodeValidation, "status"},
		{"null status", `{"name":"Rex","categoryId":1,"status":null}`, "", 400, CodeValidation, "status"},
		{"array instead of object", `[{"name":"Rex","categoryId":1}]`, "", 400, CodeValidation, "object"},
		{"malformed JSON", `{"name":"Rex",`, "", 400, CodeMalformedJSON, "malformed JSON"},
		{"trailing data", `{"name":"Rex","categoryId":1} {}`, "", 400, CodeMalformedJSON, "after the JSON value"},
		{"duplicate keys", `{"name":"Rex","categoryId":1,"name":"Max"}`, "", 400, CodeMalformedJSON, "duplicate key"},
		{"not UTF-8", "{\"name\":\"R\xffx\",\"categoryId\":1}", "", 400, CodeMalformedJSON, "UTF-8"},
		{"empty body", ``, "", 400, CodeBodyRequired, "request body"},
		{"blank body", "  \n", "", 400, CodeBodyRequired, "request body"},
		{"text/plain", `{"name":"Rex","categoryId":1}`, "text/plain", 415, CodeUnsupportedMediaType, "application/json"},
		{"no Content-Type", `{"name":"Rex","categoryId":1}`, "-", 415, CodeUnsupportedMediaType, "Content-Type"},
		{"bad Content-Type", `{"name":"Rex","categoryId":1}`, "application/", 415, CodeUnsupportedMediaType, "Content-Type"},
	}
	env := newPetstore(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do(request{method: http.MethodPost, path: "/pets", body: tc.body, ctype: tc.ctype})
			if r.status != tc.status || r.code(t) != string(tc.code) {
				t.Fatalf("got %d %s, want %d %s: %s", r.status, r.code(t), tc.status, tc.code, r.body)
			}
			if !strings.Contains(r.message(t), tc.wantIn) {
				t.Errorf("message %q does not mention %q", r.message(t), tc.wantIn)
			}
		})
	}
	if n := env.srv.Collections()["pets"]; n != 150 {
		t.Errorf("store holds %d pets after only bad creates, want the 150 fixtures", n)
	}
	// Content types with parameters and any case are the same media type.
	r := env.do(request{method: http.MethodPost, path: "/pets", body: `{"name":"Rex","categoryId":1}`, ctype: "Application/JSON; charset=utf-8"})
	if r.status != http.StatusCreated {
		t.Errorf("Application/JSON; charset=utf-8: %d %s, want 201", r.status, r.body)
	}
}

func TestBodyLimit(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.MaxBodyBytes = 64 })
	big := fmt.Sprintf(`{"name":"%s","categoryId":1}`, strings.Repeat("x", 100))
	r := env.post("/pets", big)
	if r.status != http.StatusRequestEntityTooLarge || r.code(t) != string(CodePayloadTooLarge) {
		t.Fatalf("got %d %s, want 413 payload_too_large", r.status, r.body)
	}
	// Without a Content-Length the limit still holds while reading.
	req, _ := http.NewRequest(http.MethodPost, env.base+"/pets", struct{ *strings.Reader }{strings.NewReader(big)})
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 {
		t.Errorf("chunked body: %d (content length %d), want 413", res.StatusCode, req.ContentLength)
	}
	if r := env.post("/pets", `{"name":"Rex","categoryId":1}`); r.status != http.StatusCreated {
		t.Errorf("a small body after a large one: %d, want 201 (the server keeps serving)", r.status)
	}
}

func TestGetPet(t *testing.T) {
	env := newPetstore(t)
	tests := []struct {
		name   string
		path   string
		key    string
		status int
		code   Code
	}{
		{"found", "/pets/3", "", 200, ""},
		{"leading zeros are the same id", "/pets/003", "", 200, ""},
		{"unknown id", "/pets/999", "", 404, CodeNotFound},
		{"negative id", "/pets/-1", "", 404, CodeNotFound},
		{"not an integer", "/pets/abc", "", 400, CodeValidation},
		{"beyond int64", "/pets/99999999999999999999", "", 400, CodeValidation},
		{"encoded slash", "/pets/1%2F2", "", 400, CodeValidation},
		{"no key", "/pets/3", "-", 401, CodeUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do(request{path: tc.path, key: tc.key})
			if r.status != tc.status {
				t.Fatalf("status = %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.code != "" && r.code(t) != string(tc.code) {
				t.Errorf("code = %s, want %s", r.code(t), tc.code)
			}
			// Every response of the deprecated operation carries the headers.
			want := map[string]string{
				"Deprecation": "@1795305600", // 2026-11-22, x-deprecated-at
				"Sunset":      "Thu, 05 Dec 2030 00:00:00 GMT",
				"Link":        `</v1/pets>; rel="successor-version"; title="GET /pets with the status filter"`,
			}
			for h, v := range want {
				if got := r.header.Get(h); got != v {
					t.Errorf("%s = %q, want %q", h, got, v)
				}
			}
		})
	}
}

func TestAuth(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.Keys = []string{testKey, "second-key"} })
	tests := []struct {
		name   string
		header string // "-" sends no Authorization
		status int
		reason authFailure
	}{
		{"no header", "-", 401, authMissing},
		{"scheme only", "Bearer", 401, authEmptyToken},
		{"empty token", "Bearer ", 401, authEmptyToken},
		{"blank token", "Bearer    ", 401, authEmptyToken},
		{"basic scheme", "Basic dGVzdDp0ZXN0", 401, authWrongScheme},
		{"token without scheme", testKey, 401, authWrongScheme},
		{"wrong key", "Bearer not-the-key", 401, authUnknownKey},
		{"key prefix", "Bearer " + testKey[:5], 401, authUnknownKey},
		{"key with a suffix", "Bearer " + testKey + "x", 401, authUnknownKey},
		{"valid key", "Bearer " + testKey, 200, ""},
		{"second key", "Bearer second-key", 200, ""},
		{"lower-case scheme", "bearer " + testKey, 200, ""},
		{"upper-case scheme", "BEARER " + testKey, 200, ""},
		{"several spaces", "Bearer   " + testKey, 200, ""},
	}
	paths := []request{
		{path: "/pets"},
		{path: "/pets/1"},
		{method: http.MethodPost, path: "/pets", body: `{"name":"Rex","categoryId":1}`},
		{path: "/store/orders"},
	}
	for _, tc := range tests {
		for _, p := range paths {
			method := p.method
			if method == "" {
				method = "GET"
			}
			t.Run(tc.name+" "+method+" "+p.path, func(t *testing.T) {
				rq := p
				rq.key = "-"
				if tc.header != "-" {
					rq.headers = map[string]string{"Authorization": tc.header}
				}
				r := env.do(rq)
				if tc.status == 401 {
					if r.status != 401 || r.code(t) != string(CodeUnauthorized) {
						t.Fatalf("got %d %s, want 401 unauthorized", r.status, r.body)
					}
					if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
						t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", r.header.Get("WWW-Authenticate"))
					}
					if !strings.Contains(env.log.String(), string(tc.reason)) {
						t.Errorf("log does not record the reason %q", tc.reason)
					}
					return
				}
				if r.status == 401 {
					t.Fatalf("valid credentials refused: %s", r.body)
				}
			})
		}
	}
	for _, secret := range []string{testKey, "second-key", "dGVzdDp0ZXN0", "not-the-key"} {
		if strings.Contains(env.log.String(), secret) {
			t.Errorf("the log contains the credential %q", secret)
		}
	}
}

func TestRoutingErrors(t *testing.T) {
	env := newPetstore(t)
	tests := []struct {
		name, method, path string
		status             int
		code               Code
		allow              string
	}{
		{"unknown path", "GET", "/owners", 404, CodeRouteNotFound, ""},
		{"no base path", "GET", "//pets", 404, CodeRouteNotFound, ""},
		{"trailing slash", "GET", "/pets/", 404, CodeRouteNotFound, ""},
		{"empty segment before petId", "GET", "/pets//1", 404, CodeRouteNotFound, ""},
		{"trailing slash after petId", "GET", "/pets/1/", 404, CodeRouteNotFound, ""},
		{"base path only", "GET", "/", 404, CodeRouteNotFound, ""},
		{"dot segment", "GET", "/pets/../pets", 404, CodeRouteNotFound, ""},
		{"encoded dot segment", "GET", "/pets/%2e%2e/pets", 404, CodeRouteNotFound, ""},
		{"too deep", "GET", "/pets/1/toys", 404, CodeRouteNotFound, ""},
		{"delete an item", "DELETE", "/pets/1", 405, CodeMethodNotAllowed, "GET, HEAD, OPTIONS"},
		{"put a collection", "PUT", "/pets", 405, CodeMethodNotAllowed, "GET, HEAD, POST, OPTIONS"},
		{"post orders", "POST", "/store/orders", 405, CodeMethodNotAllowed, "GET, HEAD, OPTIONS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do(request{method: tc.method, path: tc.path})
			if r.status != tc.status || r.code(t) != string(tc.code) {
				t.Fatalf("got %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
		})
	}
}

func TestStoreOrdersIsNotPublished(t *testing.T) {
	env := newPetstore(t)
	r := env.get("/store/orders")
	if r.status != http.StatusNotImplemented || r.code(t) != string(CodeNotPublished) {
		t.Fatalf("got %d %s, want 501 not_published", r.status, r.body)
	}
	if !strings.Contains(r.message(t), "not published") {
		t.Errorf("message %q does not say the interface is not published", r.message(t))
	}
}

func TestHeadersTooLarge(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.MaxHeaderBytes = 1024 })
	r := env.do(request{path: "/pets", headers: map[string]string{"X-Filler": strings.Repeat("a", 2000)}})
	if r.status != http.StatusRequestHeaderFieldsTooLarge || r.code(t) != string(CodeHeadersTooLarge) {
		t.Fatalf("got %d %s, want 431 headers_too_large", r.status, r.body)
	}
	if r := env.get("/pets?limit=1"); r.status != http.StatusOK {
		t.Errorf("after a large header: %d, want 200", r.status)
	}
}

func TestCORS(t *testing.T) {
	env := newPetstore(t)
	preflight := func(origin string) result {
		return env.do(request{method: http.MethodOptions, path: "/pets", key: "-", headers: map[string]string{
			"Origin":                         origin,
			"Access-Control-Request-Method":  "POST",
			"Access-Control-Request-Headers": "authorization, content-type",
		}})
	}
	for _, origin := range []string{"http://localhost:3000", "http://127.0.0.1:5173", "https://localhost:8443", "http://[::1]:8080", "http://localhost"} {
		r := preflight(origin)
		if r.status != http.StatusNoContent {
			t.Errorf("%s preflight: %d %s, want 204", origin, r.status, r.body)
		}
		if got := r.header.Get("Access-Control-Allow-Origin"); got != origin {
			t.Errorf("%s: Access-Control-Allow-Origin = %q", origin, got)
		}
		if got := r.header.Get("Access-Control-Allow-Methods"); got != "GET, POST" {
			t.Errorf("%s: Access-Control-Allow-Methods = %q, want GET, POST", origin, got)
		}
		if got := strings.ToLower(r.header.Get("Access-Control-Allow-Headers")); !strings.Contains(got, "authorization") {
			t.Errorf("%s: Access-Control-Allow-Headers = %q, want authorization allowed", origin, got)
		}
	}
	for _, origin := range []string{"https://evil.example", "http://localhost.evil.example:3000", "null"} {
		r := preflight(origin)
		if r.status != http.StatusForbidden || r.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s preflight: %d with ACAO %q, want 403 without", origin, r.status, r.header.Get("Access-Control-Allow-Origin"))
		}
	}
	// Actual requests: the allowed origin may read the body and the deprecation headers.
	r := env.do(request{path: "/pets/1", headers: map[string]string{"Origin": "http://localhost:3000"}})
	if r.header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("GET with Origin: ACAO = %q", r.header.Get("Access-Control-Allow-Origin"))
	}
	if exp := r.header.Get("Access-Control-Expose-Headers"); !strings.Contains(exp, "Deprecation") || !strings.Contains(exp, "Sunset") {
		t.Errorf("Access-Control-Expose-Headers = %q, want Deprecation and Sunset", exp)
	}
	r = env.do(request{path: "/pets", key: "-", headers: map[string]string{"Origin": "http://localhost:3000"}})
	if r.status != 401 || r.header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("401 to an allowed origin: ACAO = %q, want it set so the app can read the Error body", r.header.Get("Access-Control-Allow-Origin"))
	}
	r = env.do(request{path: "/pets", headers: map[string]string{"Origin": "https://evil.example"}})
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin: ACAO = %q, want none", r.header.Get("Access-Control-Allow-Origin"))
	}
	// A plain OPTIONS says what the path allows.
	r = env.do(request{method: http.MethodOptions, path: "/pets", key: "-"})
	if r.status != http.StatusNoContent || r.header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
		t.Errorf("OPTIONS: %d Allow %q", r.status, r.header.Get("Allow"))
	}
}

// TestHead: HEAD is answered as the GET without its content (RFC 9110
// §9.3.2), with the GET's headers, the same checks and the same errors.
func TestHead(t *testing.T) {
	env := newPetstore(t)
	for _, path := range []string{"/pets?limit=3", "/pets/1", "/pets/999999", "/pets?limit=0"} {
		get := env.get(path)
		head := env.do(request{method: http.MethodHead, path: path})
		if head.status != get.status || len(head.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, want %d and no body", path, head.status, len(head.body), get.status)
		}
		for _, h := range []string{"Content-Type", "Content-Length", "Deprecation", "Sunset", "Link"} {
			if head.header.Get(h) != get.header.Get(h) {
				t.Errorf("HEAD %s: %s %q, the GET's is %q", path, h, head.header.Get(h), get.header.Get(h))
			}
		}
	}
	if r := env.do(request{method: http.MethodHead, path: "/pets/1"}); r.header.Get("Deprecation") == "" || r.header.Get("Sunset") == "" {
		t.Errorf("HEAD of the deprecated getPet: Deprecation %q, Sunset %q", r.header.Get("Deprecation"), r.header.Get("Sunset"))
	}
	if r := env.do(request{method: http.MethodHead, path: "/pets", key: "-"}); r.status != 401 || r.header.Get("WWW-Authenticate") == "" {
		t.Errorf("HEAD without a key: %d, challenge %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if !strings.Contains(env.log.String(), "method=HEAD") {
		t.Errorf("the log does not record the HEAD: %s", env.log.String())
	}
}

// TestCORSVary: every answer varies by Origin when some origin may read it,
// those to requests without one included, so a cache never hands a
// browser's request the answer made for a request without Origin.
func TestCORSVary(t *testing.T) {
	env := newPetstore(t)
	for _, r := range []result{
		env.get("/pets?limit=1"),
		env.get("/pets/1"),
		env.do(request{path: "/pets", key: "-"}),
		env.do(request{path: "/pets", headers: map[string]string{"Origin": "http://localhost:3000"}}),
		env.do(request{path: "/pets", headers: map[string]string{"Origin": "https://evil.example"}}),
	} {
		if vary := r.header.Values("Vary"); !slices.Contains(vary, "Origin") {
			t.Errorf("%d answer: Vary %q, want Origin", r.status, vary)
		}
	}
	// Vary is kept apart between answers: one response's headers never
	// leak into the next one's.
	pre := env.do(request{method: http.MethodOptions, path: "/pets", key: "-", headers: map[string]string{
		"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
	}})
	if after := env.get("/pets?limit=1"); len(after.header.Values("Vary")) != 1 {
		t.Errorf("Vary after a preflight (%q): %q, want only Origin", pre.header.Values("Vary"), after.header.Values("Vary"))
	}
	none := newPetstore(t, func(o *Options) { o.CORS.Origins = []string{} })
	if r := none.get("/pets?limit=1"); len(r.header.Values("Vary")) != 0 {
		t.Errorf("with no origin allowed: Vary %q, want none", r.header.Values("Vary"))
	}
}

func TestCORSOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    CORSOptions
		origin  string
		allowed bool
		wantErr string
	}{
		{"subdomain wildcard", CORSOptions{Origins: []string{"https://*.example.com"}}, "https://app.example.com", true, ""},
		{"subdomain wildcard needs a subdomain", CORSOptions{Origins: []string{"https://*.example.com"}}, "https://example.com", false, ""},
		{"scheme must match", CORSOptions{Origins: []string{"https://app.example.com"}}, "http://app.example.com", false, ""},
		{"exact port", CORSOptions{Origins: []string{"http://localhost:3000"}}, "http://localhost:3001", false, ""},
		{"any origin", CORSOptions{Origins: []string{"*"}}, "https://anything.example", true, ""},
		{"none", CORSOptions{Origins: []string{}}, "http://localhost:3000", false, ""},
		{"any origin with credentials", CORSOptions{Origins: []string{"*"}, Credentials: true}, "", false, "credentials"},
		{"bad pattern", CORSOptions{Origins: []string{"localhost:3000"}}, "", false, "scheme://host"},
		{"bad wildcard", CORSOptions{Origins: []string{"http://lo*host"}}, "", false, "wildcard"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newCORS(tc.opts, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.allowed(tc.origin); got != tc.allowed {
				t.Errorf("allowed(%q) = %v, want %v", tc.origin, got, tc.allowed)
			}
		})
	}
}

// TestCORSEveryProblem: every bad origin is reported at once, each with
// its place in the list, and "*" with credentials among them.
func TestCORSEveryProblem(t *testing.T) {
	_, err := newCORS(CORSOptions{Origins: []string{"ftp://x", "http://localhost:*", "http://a:99999", "http://*x.com", "*"}, Credentials: true}, nil)
	want := []string{
		`cors: origins[0]: "ftp://x": want scheme://host[:port]`,
		`cors: origins[2]: "http://a:99999": port "99999" is not a number from 1 to 65535`,
		`cors: origins[3]: "http://*x.com": a wildcard may only stand for the port or a leading subdomain`,
		`cors: origins[4]: "*" cannot be combined with credentials`,
	}
	if got := problemLines(err); len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%v", len(got), len(want), err)
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q:\n%v", w, err)
		}
	}
}

func TestRequestLog(t *testing.T) {
	env := newPetstore(t)
	env.get("/pets?limit=0&api_key=hunter2")
	line := env.log.String()
	for _, want := range []string{"method=GET", "path=/v1/pets", "status=400", "latency=", "operation=listPets", "query=\"limit=0&api_key=REDACTED\"", "problem="} {
		if !strings.Contains(line, want) {
			t.Errorf("log line lacks %q: %s", want, line)
		}
	}
	if strings.Contains(line, "hunter2") || strings.Contains(line, testKey) {
		t.Errorf("log line leaks a credential: %s", line)
	}
}

func TestRemovedAfterSunset(t *testing.T) {
	tests := []struct {
		name   string
		now    time.Time
		status int
	}{
		{"the day before", time.Date(2030, 12, 4, 23, 59, 59, 0, time.UTC), 200},
		{"the removal date", time.Date(2030, 12, 5, 0, 0, 0, 0, time.UTC), 410},
		{"years later", time.Date(2035, 1, 1, 0, 0, 0, 0, time.UTC), 410},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newPetstore(t, func(o *Options) { o.Now = func() time.Time { return tc.now } })
			r := env.get("/pets/1")
			if r.status != tc.status {
				t.Fatalf("status = %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.status == 410 {
				if r.code(t) != string(CodeGone) || !strings.Contains(r.message(t), "GET /v1/pets") || !strings.Contains(r.message(t), "status filter") {
					t.Errorf("410 body %s does not name the replacement", r.body)
				}
				if r.header.Get("Sunset") == "" {
					t.Error("the 410 lacks the Sunset header")
				}
			}
			if l := env.get("/pets?limit=1"); l.status != 200 {
				t.Errorf("listPets after the removal: %d, want 200", l.status)
			}
		})
	}
}
