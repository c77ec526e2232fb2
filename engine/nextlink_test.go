package engine

import (
	"maps"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
)

// TestNextLinkEncodesAsValues holds nextLink to what url.Values does with
// the query: copied, param set, encoded, after the request's path, on
// random queries whose names and values need escaping, repeat, are empty
// and are, or are not, the paging parameter.
func TestNextLinkEncodesAsValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 8))
	pieces := []string{"a", "limit", "cursor", "page", "", " ", "&", "=", "%", "+", "é", "/", "?", "#", "[]", "🐾"}
	text := func() string {
		var s string
		for range rng.IntN(3) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	paths := []string{"/v1/pets", "/a b/c%d", "/é/things:x", "/", "/items/{x}"}
	for i := range 20000 {
		var values url.Values
		if rng.IntN(8) > 0 {
			values = url.Values{}
			for range rng.IntN(12) {
				name := text()
				for range 1 + rng.IntN(2) {
					values[name] = append(values[name], text())
				}
			}
		}
		param, value := []string{"cursor", "page", "offset", text()}[rng.IntN(4)], text()
		r := httptest.NewRequest("GET", "http://x/", nil)
		r.URL.Path = paths[rng.IntN(len(paths))]
		var before url.Values // a deep copy: nextLink must not write into the query's slices either
		if values != nil {
			before = url.Values{}
			for name, vs := range values {
				before[name] = slices.Clone(vs)
			}
		}

		want := maps.Clone(values)
		if want == nil {
			want = url.Values{}
		}
		want.Set(param, value)
		u := url.URL{Path: r.URL.Path, RawQuery: want.Encode()}
		if got, want := nextLink(r, values, param, value), "<"+u.String()+`>; rel="next"`; got != want {
			t.Fatalf("case %d, %q set %q=%q:\nnextLink %s\nurl      %s", i, values, param, value, got, want)
		}
		if !maps.EqualFunc(values, before, slices.Equal) {
			t.Fatalf("case %d: nextLink changed the request's query: %q, was %q", i, values, before)
		}
	}
}
