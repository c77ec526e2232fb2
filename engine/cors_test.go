package engine

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// preflightHeaders are what a browser sends before a cross-origin request
// with an Authorization header.
func preflightHeaders(origin, method string) map[string]string {
	return map[string]string{
		"Origin":                         origin,
		"Access-Control-Request-Method":  method,
		"Access-Control-Request-Headers": "authorization",
	}
}

// TestCORSPreflightUnknownPath: a browser's preflight to a path the
// document does not declare is answered for an allowed origin, so the
// request itself goes out and the page reads the 404 Error body (CORS
// headers on it) instead of an opaque CORS failure.
func TestCORSPreflightUnknownPath(t *testing.T) {
	env := newPetstore(t)
	const page = "http://localhost:3000"
	tests := []struct {
		name, path, origin, method string
		status                     int
		allowOrigin, allowMethods  string
	}{
		{"under the base path", "/nope", page, "GET", 204, page, "GET"},
		{"outside the base path", "//elsewhere/x", page, "POST", 204, page, "POST"},
		{"an item of an unknown collection", "/owners/7", page, "DELETE", 204, page, "DELETE"},
		{"an origin not allowed", "/nope", "https://evil.example", "GET", 403, "", ""},
		{"no method a browser would send", "/nope", page, "GET, POST", 204, page, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do(request{method: http.MethodOptions, path: tc.path, key: "-", headers: preflightHeaders(tc.origin, tc.method)})
			if r.status != tc.status {
				t.Fatalf("preflight: %d %s, want %d", r.status, r.body, tc.status)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tc.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.allowOrigin)
			}
			if got := r.header.Get("Access-Control-Allow-Methods"); got != tc.allowMethods {
				t.Errorf("Access-Control-Allow-Methods = %q, want %q", got, tc.allowMethods)
			}
			if tc.status == 204 && !strings.Contains(strings.ToLower(r.header.Get("Access-Control-Allow-Headers")), "authorization") {
				t.Errorf("Access-Control-Allow-Headers = %q, want authorization", r.header.Get("Access-Control-Allow-Headers"))
			}
		})
	}
	// The request the preflight let through: the page can read the 404.
	r := env.do(request{path: "/nope", headers: map[string]string{"Origin": page}})
	if r.status != 404 || r.code(t) != string(CodeRouteNotFound) || r.header.Get("Access-Control-Allow-Origin") != page {
		t.Errorf("GET /nope from %s: %d %s, ACAO %q; want 404 route_not_found readable by the page", page, r.status, r.code(t), r.header.Get("Access-Control-Allow-Origin"))
	}
	// An OPTIONS that is no preflight is still the 404.
	if r := env.do(request{method: http.MethodOptions, path: "/nope", key: "-"}); r.status != 404 {
		t.Errorf("OPTIONS /nope without a preflight's headers: %d, want 404", r.status)
	}
}

// TestCORSPreflightUndeclaredMethod: a preflight for a method the path
// does not declare lets it through, the path's own methods listed first,
// so the page reads the 405 Error body and its Allow instead of an opaque
// CORS failure; the API's paths and the admin endpoints alike.
func TestCORSPreflightUndeclaredMethod(t *testing.T) {
	env := newPetstore(t)
	const page = "http://localhost:3000"
	tests := []struct {
		name, path, method, allowMethods string
	}{
		{"an API path", "/pets", "DELETE", "GET, POST, DELETE"},
		{"a declared method", "/pets", "POST", "GET, POST"},
		{"an admin endpoint", "//__petctl/store", "DELETE", "GET, PUT, DELETE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.do(request{method: http.MethodOptions, path: tc.path, key: "-", headers: preflightHeaders(page, tc.method)})
			if r.status != 204 || r.header.Get("Access-Control-Allow-Methods") != tc.allowMethods {
				t.Fatalf("preflight: %d, Access-Control-Allow-Methods %q; want 204, %q", r.status, r.header.Get("Access-Control-Allow-Methods"), tc.allowMethods)
			}
			if tc.method == "POST" {
				return
			}
			// The request the preflight let through: the page reads the 405.
			r = env.do(request{method: tc.method, path: tc.path, headers: map[string]string{"Origin": page}})
			if r.status != 405 || r.code(t) != string(CodeMethodNotAllowed) || r.header.Get("Allow") == "" || r.header.Get("Access-Control-Allow-Origin") != page {
				t.Errorf("%s %s from %s: %d %s, Allow %q, ACAO %q; want 405 method_not_allowed with Allow, readable by the page", tc.method, tc.path, page, r.status, r.code(t), r.header.Get("Allow"), r.header.Get("Access-Control-Allow-Origin"))
			}
		})
	}
}

// TestCORSExposesRetryAfterAndAllow: scripts may read how long to wait
// after a 429 or 503, and what a 405 allows.
func TestCORSExposesRetryAfterAndAllow(t *testing.T) {
	env := newPetstore(t)
	r := env.do(request{method: http.MethodDelete, path: "/pets", headers: map[string]string{"Origin": "http://localhost:3000"}})
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") == "" {
		t.Fatalf("DELETE /pets: %d, Allow %q; want 405 with Allow", r.status, r.header.Get("Allow"))
	}
	exposed := strings.Split(r.header.Get("Access-Control-Expose-Headers"), ", ")
	for _, h := range []string{"Retry-After", "Allow", "WWW-Authenticate", "Location"} {
		if !slices.Contains(exposed, h) {
			t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
		}
	}
}

// TestAdminCORS: pages on loopback, which the admin endpoints admit, can
// read their answers and pass their preflights; no other page gets CORS
// headers from them, with or without the admin key, and the CORS settings
// still decide which loopback pages may.
func TestAdminCORS(t *testing.T) {
	open := newPetstore(t)
	anyOrigin := newPetstore(t, func(o *Options) { o.AdminKey = "admin-secret"; o.CORS.Origins = []string{"*"} })
	noOrigin := newPetstore(t, func(o *Options) { o.CORS.Origins = []string{} })
	const page = "http://localhost:3000"
	tests := []struct {
		name                      string
		env                       *testEnv
		method, endpoint, origin  string
		headers                   map[string]string
		status                    int
		allowOrigin, allowMethods string
	}{
		{"a loopback page reads health", open, "GET", "health", page, nil, 200, page, ""},
		{"a loopback page reads a 405", open, "POST", "health", page, nil, 405, page, ""},
		{"a loopback page's preflight", open, "OPTIONS", "reset", page, map[string]string{"Access-Control-Request-Method": "POST"}, 204, page, "POST"},
		{"a preflight for the store", open, "OPTIONS", "store", "http://127.0.0.1:5173", map[string]string{"Access-Control-Request-Method": "PUT"}, 204, "http://127.0.0.1:5173", "GET, PUT"},
		{"another site's page", open, "GET", "health", "https://evil.example", nil, 403, "", ""},
		{"another site's preflight", open, "OPTIONS", "reset", "https://evil.example", map[string]string{"Access-Control-Request-Method": "POST"}, 403, "", ""},
		{"another site's page with the admin key", anyOrigin, "GET", "health", "https://evil.example", map[string]string{"Authorization": "Bearer admin-secret"}, 200, "", ""},
		{"a loopback page where CORS allows none", noOrigin, "GET", "health", page, nil, 200, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"Origin": tc.origin}
			for k, v := range tc.headers {
				h[k] = v
			}
			r := tc.env.do(request{method: tc.method, path: "//__petctl/" + tc.endpoint, key: "-", headers: h})
			if r.status != tc.status {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.endpoint, r.status, r.body, tc.status)
			}
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tc.allowOrigin {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.allowOrigin)
			}
			if got := r.header.Get("Access-Control-Allow-Methods"); got != tc.allowMethods {
				t.Errorf("Access-Control-Allow-Methods = %q, want %q", got, tc.allowMethods)
			}
			if tc.allowOrigin != "" && tc.method != "OPTIONS" && !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "Allow") {
				t.Errorf("Access-Control-Expose-Headers = %q, want Allow among them", r.header.Get("Access-Control-Expose-Headers"))
			}
		})
	}
	// The store export writes its own answer: the headers are there too.
	r := open.do(request{path: "//__petctl/store", key: "-", headers: map[string]string{"Origin": page}})
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != page {
		t.Errorf("GET store from %s: %d, ACAO %q", page, r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
}
