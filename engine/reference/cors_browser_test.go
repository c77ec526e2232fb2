package reference_test

// The engine's CORS as a browser applies it: a page on another loopback
// origin calls the engine with fetch in headless Chromium. Real preflights
// (engine/cors_test.go sends their headers by hand) show what only the
// browser decides: whether the page may read an answer at all, or gets an
// opaque "Failed to fetch". The tests live here, beside the Chromium
// harness of the reference's own browser tests.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
)

// fetched is what a page's fetch gave it: the answer it may read, or the
// error a refused CORS check leaves it.
type fetched struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header"` // the headers the page may read, lower case
	Body   string            `json:"body"`
	Error  string            `json:"error"`
}

// TestBrowserReadsErrorsAcrossOrigins: a page on a loopback origin that
// calls the engine with a key (so every request is preflighted) reads the
// Error body of a path the document does not declare (404 route_not_found)
// and of a method it does not declare (405 with Allow), and reads and
// calls the admin endpoints, instead of the opaque failure a refused
// preflight gives it.
func TestBrowserReadsErrorsAcrossOrigins(t *testing.T) {
	api := petstore(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>another origin</title>"))
	}))
	t.Cleanup(page.Close)
	ctx := browser(t, 800, 600)
	// Chromium logs each 4xx it loads as an error; a CORS refusal is
	// logged otherwise ("Access to fetch … has been blocked").
	errs := pageErrors{allowed: []string{"log: Failed to load resource: the server responded with a status of 40"}}
	errs.listen(t, ctx)
	t.Cleanup(func() { errs.check(t) })
	do(t, ctx, "load the page", chromedp.Navigate(page.URL+"/"))

	withKey := map[string]string{"Authorization": "Bearer " + testKey}
	tests := []struct {
		name, method, path string
		headers            map[string]string
		body               string
		status             int
		code               string // the Error body's, "" for none
		readable           string // a header the page must be able to read
	}{
		{"an unknown path", "GET", "/v1/owners/7", withKey, "", 404, "route_not_found", ""},
		{"a method the path does not declare", "DELETE", "/v1/pets", withKey, "", 405, "method_not_allowed", "allow"},
		{"an admin endpoint", "GET", "/__petctl/health", nil, "", 200, "", ""},
		{"an admin endpoint's preflighted call", "POST", "/__petctl/reset", map[string]string{"Content-Type": "application/json"}, "{}", 200, "", ""},
		{"an admin method not declared", "DELETE", "/__petctl/store", nil, "", 405, "method_not_allowed", "allow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]any{"method": tc.method} // fetch's init: a null headers or body would be refused
			if tc.headers != nil {
				opts["headers"] = tc.headers
			}
			if tc.body != "" {
				opts["body"] = tc.body
			}
			init, err := json.Marshal(opts)
			if err != nil {
				t.Fatal(err)
			}
			url, _ := json.Marshal(api.URL + tc.path)
			got := run(t, ctx, "fetch "+tc.path, chromedp.Evaluate[fetched](`fetch(`+string(url)+`, `+string(init)+`).then(
				async r => ({status: r.status, header: Object.fromEntries(r.headers), body: await r.text(), error: ""}),
				e => ({status: 0, header: {}, body: "", error: String(e)}))`, chromedp.EvalAwaitPromise))
			if got.Error != "" {
				t.Fatalf("%s %s from %s: %s; want the answer readable", tc.method, tc.path, page.URL, got.Error)
			}
			if got.Status != tc.status {
				t.Errorf("status %d %s, want %d", got.Status, got.Body, tc.status)
			}
			if tc.code != "" {
				var e struct{ Code string }
				if err := json.Unmarshal([]byte(got.Body), &e); err != nil || e.Code != tc.code {
					t.Errorf("body %s, want the Error body with code %s", got.Body, tc.code)
				}
			}
			if tc.readable != "" && got.Header[tc.readable] == "" {
				t.Errorf("the page cannot read %s; it reads %v", tc.readable, got.Header)
			}
		})
	}
}
