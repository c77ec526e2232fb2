package engine

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestMediaRanges: a document that declares its answers under */* (what
// springdoc writes for a Spring controller) is served as JSON: its items
// are stored, listed and read back, its errors are the plain strings it
// declares, and every answer passes the check before it leaves. Every
// error was petctl's 500 (application/json is not */*) and every success
// an empty body sent as "Content-Type: */*".
func TestMediaRanges(t *testing.T) {
	env, s := serveStyle(t, "media-ranges.json")
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]string{"Content-Type": "application/json"}
	tests := []struct {
		name, op, method, path, body string
		status                       int
		want                         string // the body, or its start when it ends in "…"
	}{
		{"create", "createBook", "POST", "/api/books", `{"title":"Dune","pages":412}`, 201, `{"id":1,"title":"Dune","pages":412}`},
		{"list from the store", "findAll", "GET", "/api/books", "", 200, `[{"id":1,"title":"Dune","pages":412}]`},
		{"read from the store", "getBook", "GET", "/api/books/1", "", 200, `{"id":1,"title":"Dune","pages":412}`},
		{"unknown id: a plain string", "getBook", "GET", "/api/books/99", "", 404, `"books: no item has bookId 99…`},
		{"bad body: a plain string", "createBook", "POST", "/api/books", `{"title":""}`, 400, `"body field 'title'…`},
		{"bad query value: a plain string", "findAll", "GET", "/api/books?page=x", "", 400, `"query parameter 'page'…`},
		{"unknown path: the document's plain string", "", "GET", "/nope", "", 404, `"no operation is declared at /nope;…`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := env.base + tc.path
			var h map[string]string
			if tc.body != "" {
				h = body
			}
			r := rawDo(t, tc.method, url, tc.body, h)
			checkAnswer(t, r, tc.status, spec.JSON, tc.want)
			if !json.Valid(r.body) {
				t.Errorf("body %s is not JSON", r.body)
			}
			if tc.op == "" {
				if ps := v.Schema(s.ErrorSchema(), r.body); len(ps) > 0 || s.ErrorSchema() == nil {
					t.Errorf("%s against the document's error schema %v: %v", r.body, s.ErrorSchema(), ps)
				}
				return
			}
			req, _ := http.NewRequest(tc.method, url, nil)
			if ps := v.Response(req, s.Operation(tc.op), r.status, r.header, r.body); len(ps) > 0 {
				t.Errorf("%d %s is not valid against the document: %v", r.status, r.body, ps)
			}
		})
	}
}
