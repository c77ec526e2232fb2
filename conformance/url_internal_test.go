package conformance

import (
	"net/url"
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestRequestURLEscapesOnce: a path value the run made (ids of items it
// created carry spaces) is escaped once, so the server reads it back as
// made; a base URL's own escapes are kept.
func TestRequestURLEscapesOnce(t *testing.T) {
	op := &spec.Operation{Method: "GET", Path: "/add_ons/{code}"}
	tests := []struct{ base, value, want string }{
		{"http://127.0.0.1:1/api/v1", "petctl conform test A", "http://127.0.0.1:1/api/v1/add_ons/petctl%20conform%20test%20A"},
		{"http://127.0.0.1:1/api/v1/", "a/b%c", "http://127.0.0.1:1/api/v1/add_ons/a%2Fb%25c"},
		{"http://127.0.0.1:1/my%20api", "x", "http://127.0.0.1:1/my%20api/add_ons/x"},
	}
	for _, tc := range tests {
		base, err := url.Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		c := &client{base: base}
		if got := c.url(&request{op: op, path: map[string]string{"code": tc.value}}); got != tc.want {
			t.Errorf("url(%q) under %s = %s, want %s", tc.value, tc.base, got, tc.want)
		}
	}
}

// TestUnknownIDKeepsTheParameterBounds: the id no item has is one the
// path parameter admits, its length bounds too (adyen's deviceId is 30
// characters exactly), or the request is refused before the lookup.
func TestUnknownIDKeepsTheParameterBounds(t *testing.T) {
	t.Parallel()
	thirty := int64(30)
	ps := &spec.Schema{Types: []string{"string"}, MinLength: &thirty, MaxLength: &thirty}
	if id := unknownID(&spec.Resource{}, ps); len(id) != 30 {
		t.Errorf("unknown id %q: %d characters, want 30", id, len(id))
	}
	if id := unknownID(&spec.Resource{}, &spec.Schema{Types: []string{"string"}}); id != unknownString {
		t.Errorf("unknown id of a free string %q, want %q", id, unknownString)
	}
}
