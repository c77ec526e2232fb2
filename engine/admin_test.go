package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func (e *testEnv) admin(method, name, body, ctype string) result {
	e.t.Helper()
	return e.do(request{method: method, path: "//__petctl/" + name, body: body, ctype: ctype, key: "-"})
}

func TestAdminHealthAndReady(t *testing.T) {
	env := newPetstore(t)
	if r := env.admin("GET", "health", "", ""); r.status != 200 || r.object(t)["status"] != "ok" {
		t.Errorf("health: %d %s", r.status, r.body)
	}
	r := env.admin("GET", "ready", "", "")
	if r.status != 200 || r.object(t)["ready"] != true || r.object(t)["collections"].(map[string]any)["pets"] != 150.0 {
		t.Errorf("ready: %d %s", r.status, r.body)
	}
	for _, c := range []struct {
		method, name string
		status       int
	}{
		{"POST", "health", 405},
		{"DELETE", "store", 405},
		{"GET", "nothing", 404},
		{"GET", "requests?limit=0", 400},
		{"GET", "requests?limit=x", 400},
	} {
		if r := env.admin(c.method, c.name, "", ""); r.status != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.name, r.status, c.status, r.body)
		}
	}
}

func TestAdminReset(t *testing.T) {
	env := newPetstore(t)
	before := string(env.get("/pets?limit=100&status=available").body)
	for i := 0; i < 30; i++ {
		env.post("/pets", `{"name":"Temp","categoryId":1,"status":"available"}`)
	}
	if r := env.admin("POST", "reset", "", ""); r.status != 200 {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	if n := env.srv.Collections()["pets"]; n != 150 {
		t.Errorf("after reset: %d records", n)
	}
	if got := string(env.get("/pets?limit=100&status=available").body); got != before {
		t.Error("after reset the filtered list differs from the fixtures'")
	}
	if r := env.get("/pets/151"); r.status != 404 {
		t.Errorf("a created pet survived the reset: %d", r.status)
	}
	// ids start again after the fixtures, and the store works as before.
	r := env.post("/pets", `{"name":"Again","categoryId":1}`)
	if r.status != 201 || r.object(t)["id"] != 151.0 {
		t.Errorf("create after reset: %d %s", r.status, r.body)
	}
	env.admin("POST", "reset", "", "")
	env.admin("POST", "reset", "", "")
	if r := env.post("/pets", `{"name":"Third","categoryId":1,"status":"sold"}`); r.object(t)["id"] != 151.0 {
		t.Errorf("after two resets: %s", r.body)
	}
	if n := len(env.get("/pets?status=sold&limit=100").list(t)); n != 47 {
		t.Errorf("sold after resets and one sold create: %d, want 47", n)
	}
}

func TestAdminExportImport(t *testing.T) {
	env := newPetstore(t)
	env.post("/pets", `{"name":"Kept","categoryId":4,"status":"pending"}`)
	export := env.admin("GET", "store", "", "")
	var doc map[string][]map[string]any
	if err := json.Unmarshal(export.body, &doc); err != nil || len(doc["pets"]) != 151 {
		t.Fatalf("export: %v, %d pets", err, len(doc["pets"]))
	}
	other := newPetstore(t)
	if r := other.admin("PUT", "store", string(export.body), "application/json"); r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	if a, b := env.get("/pets?limit=100&status=pending").body, other.get("/pets?limit=100&status=pending").body; string(a) != string(b) {
		t.Error("the imported store lists differently from the exported one")
	}
	if r := other.post("/pets", `{"name":"Next","categoryId":1}`); r.object(t)["id"] != 152.0 {
		t.Errorf("ids after import: %s", r.body)
	}

	snapshot := string(other.admin("GET", "store", "", "").body)
	for name, c := range map[string]struct{ body, ctype, want string }{
		"invalid record":  {`{"pets":[{"id":1,"name":"A","categoryId":1},{"id":2,"name":"B","categoryId":"x"}]}`, "application/json", "pets[1]"},
		"duplicate id":    {`{"pets":[{"id":1,"name":"A","categoryId":1},{"id":1,"name":"B","categoryId":1}]}`, "application/json", "id 1"},
		"unknown field":   {`{"pets":[{"id":1,"name":"A","categoryId":1,"colour":"red"}]}`, "application/json", "colour"},
		"malformed":       {`{"pets":[`, "application/json", "import.json"},
		"unknown coll":    {`{"cats":[]}`, "application/json", "cats"},
		"no collection":   {`{}`, "application/json", "names no collection"},
		"bad yaml record": {"pets:\n  - name: A\n", "application/yaml", "import.yaml: pets[0]"},
	} {
		r := other.admin("PUT", "store", c.body, c.ctype)
		if r.status != 400 || !strings.Contains(r.message(t), c.want) || !strings.Contains(r.message(t), "nothing was imported") {
			t.Errorf("%s: %d %s, want 400 naming %q", name, r.status, r.body, c.want)
		}
		if now := string(other.admin("GET", "store", "", "").body); now != snapshot {
			t.Fatalf("%s: a refused import changed the store", name)
		}
	}
	if r := other.admin("PUT", "store", "pets:\n  - name: Only\n    categoryId: 9\n", "application/yaml"); r.status != 200 {
		t.Fatalf("YAML import: %d %s", r.status, r.body)
	}
	if list := other.get("/pets").list(t); len(list) != 1 || list[0]["name"] != "Only" {
		t.Errorf("after a YAML import of one pet: %v", list)
	}
	// Reset returns to the fixtures, not to the import.
	other.admin("POST", "reset", "", "")
	if n := other.srv.Collections()["pets"]; n != 150 {
		t.Errorf("reset after import: %d records", n)
	}
	small := newPetstore(t, func(o *Options) { o.MaxImportBytes = 100 })
	if r := small.admin("PUT", "store", string(export.body), "application/json"); r.status != 413 {
		t.Errorf("import past the limit: %d", r.status)
	}
}

func TestAdminRequestLog(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.RequestLogSize = 3 })
	env.get("/pets?limit=2")
	env.get("/pets?limit=500")
	env.do(request{path: "/pets", key: "Bearer wrong-secret-key"})
	env.post("/pets", `{"name":"Logged","categoryId":1}`)
	r := env.admin("GET", "requests", "", "")
	var got struct{ Requests []LoggedRequest }
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Requests) != 3 {
		t.Fatalf("%d entries, want the last 3: %s", len(got.Requests), r.body)
	}
	post, unauth, bad := got.Requests[0], got.Requests[1], got.Requests[2]
	wantCheck := "valid by construction"
	if forcePlain {
		wantCheck = "valid" // every response through the validator
	}
	if post.Method != "POST" || post.Status != 201 || post.Request != "valid" || post.Response != wantCheck || post.Operation != "createPet" {
		t.Errorf("create entry: %+v", post)
	}
	if unauth.Status != 401 || unauth.Auth != string(authUnknownKey) {
		t.Errorf("unauthorized entry: %+v", unauth)
	}
	if bad.Status != 400 || !strings.Contains(bad.Request, "limit") || bad.Query != "limit=500" || bad.Response != "valid" {
		t.Errorf("refused entry: %+v", bad)
	}
	if strings.Contains(string(r.body), "wrong-secret-key") || strings.Contains(string(r.body), testKey) {
		t.Errorf("the request log holds a key: %s", r.body)
	}
	if r := env.admin("GET", "requests?limit=1", "", ""); !strings.Contains(string(r.body), `"createPet"`) || strings.Contains(string(r.body), "listPets") {
		t.Errorf("limit=1: %s", r.body)
	}
}

func TestAdminAccess(t *testing.T) {
	call := func(srv *Server, method, remote, host string, header http.Header) *httptest.ResponseRecorder {
		path := "/__petctl/ready"
		if method == http.MethodPost {
			path = "/__petctl/reset"
		}
		req := httptest.NewRequest(method, path, nil)
		req.RemoteAddr, req.Host = remote, host
		for k, vs := range header {
			req.Header[k] = vs
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		return w
	}
	auth := func(v string) http.Header { return http.Header{"Authorization": {v}} }
	origin := func(v string) http.Header { return http.Header{"Origin": {v}} }
	open := newPetstore(t).srv
	keyed := newPetstore(t, func(o *Options) { o.AdminKey = "admin-secret" }).srv
	const local = "127.0.0.1:4010"
	cases := []struct {
		srv          *Server
		method       string
		remote, host string
		header       http.Header
		status       int
	}{
		{open, "GET", "127.0.0.1:5000", local, nil, 200},
		{open, "GET", "[::1]:5000", "[::1]:4010", nil, 200},
		{open, "GET", "127.0.0.1:5000", "localhost:4010", nil, 200},
		{open, "GET", "127.0.0.1:5000", "app.localhost:4010", nil, 200},
		{open, "GET", "192.0.2.7:5000", local, nil, 403},
		{open, "GET", "192.0.2.7:5000", local, auth("Bearer " + testKey), 403}, // an API key is not the admin key
		{keyed, "GET", "192.0.2.7:5000", local, nil, 401},
		{keyed, "GET", "192.0.2.7:5000", local, auth("Bearer wrong"), 401},
		{keyed, "GET", "192.0.2.7:5000", local, auth("Basic admin-secret"), 401},
		{keyed, "GET", "192.0.2.7:5000", local, auth("Bearer admin-secret"), 200},
		{keyed, "GET", "192.0.2.7:5000", local, auth("bearer admin-secret"), 200},
		{keyed, "GET", "10.0.0.1:5000", local, auth("Bearer " + testKey), 401},
		// A page of the developer's own app, on loopback, may.
		{open, "POST", "127.0.0.1:5000", local, origin("http://localhost:3000"), 200},
		{open, "POST", "127.0.0.1:5000", local, origin("http://127.0.0.1:5173"), 200},
		// A page of another site, sending through the developer's browser,
		// may not (cross-site request forgery)...
		{open, "POST", "127.0.0.1:5000", local, origin("https://evil.example"), 403},
		{open, "POST", "127.0.0.1:5000", local, origin("null"), 403},
		{open, "POST", "127.0.0.1:5000", local, http.Header{"Origin": {"http://localhost:3000", "https://evil.example"}}, 403},
		{open, "POST", "127.0.0.1:5000", local, http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		// ...nor one whose own name resolves to 127.0.0.1 (DNS rebinding).
		{open, "GET", "127.0.0.1:5000", "rebind.evil.example:4010", nil, 403},
		{open, "GET", "127.0.0.1:5000", "localhost.evil.example", nil, 403},
		// Nor a request a proxy or tunnel on this machine forwards for
		// someone else (ngrok, a dev server's proxy rewriting Host).
		{open, "POST", "127.0.0.1:5000", local, http.Header{"X-Forwarded-For": {"203.0.113.9"}}, 403},
		{open, "GET", "127.0.0.1:5000", local, http.Header{"Forwarded": {"for=203.0.113.9;host=x.ngrok.app"}}, 403},
		{open, "GET", "127.0.0.1:5000", local, http.Header{"X-Forwarded-Host": {"x.ngrok.app"}}, 403},
		{open, "GET", "127.0.0.1:5000", local, http.Header{"X-Real-Ip": {"203.0.113.9"}}, 403},
		{open, "GET", "127.0.0.1:5000", local, http.Header{"Via": {"1.1 proxy"}}, 403},
		{keyed, "GET", "127.0.0.1:5000", local, http.Header{"X-Forwarded-For": {"203.0.113.9"}}, 401},
		{keyed, "GET", "127.0.0.1:5000", local, http.Header{"X-Forwarded-For": {"203.0.113.9"}, "Authorization": {"Bearer admin-secret"}}, 200},
		// With the admin key, they may.
		{keyed, "POST", "127.0.0.1:5000", local, http.Header{"Origin": {"https://evil.example"}, "Authorization": {"Bearer admin-secret"}}, 200},
		{keyed, "GET", "127.0.0.1:5000", "rebind.evil.example:4010", nil, 401},
	}
	for _, c := range cases {
		w := call(c.srv, c.method, c.remote, c.host, c.header)
		if w.Code != c.status {
			t.Errorf("%s from %s for host %s with %v: %d, want %d: %s", c.method, c.remote, c.host, c.header, w.Code, c.status, w.Body)
		}
		if c.status >= 400 {
			checkErrorBody(t, result{status: w.Code, header: w.Header(), body: w.Body.Bytes()})
		}
	}
}
