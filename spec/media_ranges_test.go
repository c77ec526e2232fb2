package spec

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestResponseUnderMediaRange: a JSON answer to a response declared under
// */* is held to the range's schema, as an answer under a declared type is
// to its own; another type in the range passes, its schema describing the
// JSON; a type a response declares no range for is still refused.
func TestResponseUnderMediaRange(t *testing.T) {
	s, err := Load(styles + "media-ranges.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	get := s.Operation("getBook")
	if r := get.Response(200); r.Schema == nil {
		t.Fatalf("the */* schema of getBook's 200 is not read as its JSON schema")
	}
	for _, tc := range []struct {
		name, ctype, body string
		wantWhere         string // "" when valid
	}{
		{"valid JSON", "application/json", `{"id": 1, "title": "Dune"}`, ""},
		{"JSON with a charset", "application/json; charset=utf-8", `{"title": "Dune"}`, ""},
		{"invalid JSON body", "application/json", `{"title": 5}`, "title"},
		{"missing required field", "application/json", `{"id": 1}`, "title"},
		{"another type in the range", "text/html", `<p>Dune</p>`, ""},
		{"no Content-Type", "", `{"title": "Dune"}`, "Content-Type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/books/1", nil)
			h := http.Header{}
			if tc.ctype != "" {
				h.Set("Content-Type", tc.ctype)
			}
			ps := v.Response(r, get, 200, h, []byte(tc.body))
			switch {
			case tc.wantWhere == "" && len(ps) > 0:
				t.Errorf("problems %v, want none", ps)
			case tc.wantWhere != "" && !strings.Contains(ps.Error(), tc.wantWhere):
				t.Errorf("problems %v, want one naming %s", ps, tc.wantWhere)
			}
		})
	}
	for _, tc := range []struct {
		declared []string
		mt, want string
	}{
		{[]string{"*/*"}, "application/json", "*/*"},
		{[]string{"*/*", "application/*"}, "application/json", "application/*"},
		{[]string{"application/*", "application/json"}, "application/json", "application/json"},
		{[]string{"text/plain"}, "application/json", ""},
		{[]string{"application/*"}, "text/plain", ""},
	} {
		if got := declaredFor(tc.declared, tc.mt); got != tc.want {
			t.Errorf("declaredFor(%q, %q) = %q, want %q", tc.declared, tc.mt, got, tc.want)
		}
	}
}
