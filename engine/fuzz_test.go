package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// FuzzHandler drives the whole handler with arbitrary methods, paths,
// queries, headers and bodies. Invariants: no panic (the handler's recover
// would turn one into internal_error, which fails here); no response that
// fails its own validation (response_invalid); every non-2xx answer is the
// Error body with status equal to the HTTP status; the store grows by one
// on a 201 and never changes otherwise.
//
// The seeds below run in `make test`; explore with
// go test -run '^$' -fuzz FuzzHandler -fuzztime 10m ./engine
func FuzzHandler(f *testing.F) {
	seeds := []struct{ method, path, query, headers, body string }{
		{"GET", "/v1/pets", "limit=20", "", ""},
		{"GET", "/v1/pets", "limit=1&limit=200", "", ""},
		{"GET", "/v1/pets", "status=sold&limit=100", "", ""},
		{"GET", "/v1/pets", "limit=0", "", ""},
		{"GET", "/v1/pets", "limit=abc", "", ""},
		{"GET", "/v1/pets/1", "", "", ""},
		{"GET", "/v1/pets/99999999999999999999", "", "", ""},
		{"GET", "/v1/pets/1%2F2", "", "", ""},
		{"GET", "/v1/pets/../pets/1", "", "", ""},
		{"GET", "/v1/store/orders", "", "", ""},
		{"POST", "/v1/pets", "", "Content-Type: application/json", `{"name":"Rex","categoryId":1}`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", `{"name":"Rex","categoryId":1,"status":"sold"}`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", `{"name":"A","name":"B","categoryId":1}`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", `{"name":"A","categoryId":1.5}`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", `{"name":"A","categoryId":99999999999999999999}`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", `[1,2,3]`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", "{\"name\":\"\xff\",\"categoryId\":1}"},
		{"POST", "/v1/pets", "", "Content-Type: text/plain", `{"name":"Rex","categoryId":1}`},
		{"POST", "/v1/pets", "", "", `{"name":"Rex","categoryId":1}`},
		{"POST", "/v1/pets", "", "Content-Type: application/json", ``},
		{"DELETE", "/v1/pets/1", "", "", ""},
		{"OPTIONS", "/v1/pets", "", "Origin: http://localhost:3000\nAccess-Control-Request-Method: POST\nAccess-Control-Request-Headers: authorization, content-type", ""},
		{"GET", "/v1/pets", "", "Authorization: Basic dXNlcjpwYXNz", ""},
		{"GET", "/v1/pets", "", "Authorization: Bearer ", ""},
		{"GET", "/__petctl/requests", "limit=5", "", ""},
		{"PUT", "/__petctl/store", "", "Content-Type: application/json", `{"pets":[{"name":"X","categoryId":"y"}]}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, s.headers, []byte(s.body))
	}
	s, err := spec.Default()
	if err != nil {
		f.Fatal(err)
	}
	data, err := readFixture("petstore/pets.json")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(Options{
		Spec:     s,
		Keys:     []string{testKey},
		Fixtures: []FixtureFile{{Name: "pets.json", Data: data}},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path, query, headers string, body []byte) {
		if method == "" || strings.ContainsAny(method, " \t\r\n") {
			method = http.MethodGet
		}
		if path == "" || path[0] != '/' {
			path = "/" + path
		}
		u, err := url.Parse(path)
		if err != nil {
			u = &url.URL{Path: path}
		}
		u.RawQuery = query
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Method = method
		req.URL = u
		req.RequestURI = u.RequestURI()
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.Header.Set("Authorization", "Bearer "+testKey)
		for _, line := range strings.Split(headers, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && k != "" && !strings.ContainsAny(k, " \t\r") {
				req.Header.Set(k, strings.TrimSpace(v))
			}
		}
		before := srv.Collections()["pets"]
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		after := srv.Collections()["pets"]
		if strings.HasPrefix(u.Path, AdminPrefix) && method == http.MethodPut && w.Code == 200 {
			return // a valid import replaces the store; it is the one sanctioned change
		}
		switch {
		case w.Code == http.StatusCreated && after != before+1:
			t.Fatalf("201 but the store went from %d to %d records", before, after)
		case w.Code != http.StatusCreated && after != before:
			t.Fatalf("%d but the store went from %d to %d records", w.Code, before, after)
		}
		if w.Code < 300 {
			return
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%d with Content-Type %q", w.Code, ct)
		}
		var e struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Status  int    `json:"status"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Code == "" || e.Status != w.Code {
			t.Fatalf("%d with a body that is not the Error body: %v %q", w.Code, err, w.Body.String())
		}
		if e.Code == string(CodeInternal) || e.Code == string(CodeResponseInvalid) {
			t.Fatalf("%s %s?%s: petctl failed: %s", method, path, query, e.Message)
		}
	})
}
