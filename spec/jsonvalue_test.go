package spec

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestJSONValue: a YAML value given as JSON (a fixture file, a setting's
// value) becomes the JSON it says, or is refused naming where JSON cannot
// carry it; the top of the value is named by nothing.
func TestJSONValue(t *testing.T) {
	for _, c := range []struct{ yaml, json, err string }{
		{yaml: "{pets: [{id: 1, born: 2020-01-02T03:04:05Z, tags: [a]}]}", json: `{"pets":[{"born":"2020-01-02T03:04:05Z","id":1,"tags":["a"]}]}`},
		{yaml: "{1: a}", err: "key 1 is not a string"},
		{yaml: "{pets: [{id: 1}, {tags: {2: b}}]}", err: "pets[1].tags: key 2 is not a string"},
		{yaml: "{weight: .inf}", err: "weight: +Inf is not a JSON number"},
		{yaml: "[.nan]", err: "[0]: NaN is not a JSON number"},
	} {
		var v any
		if err := yaml.Unmarshal([]byte(c.yaml), &v); err != nil {
			t.Fatal(err)
		}
		got, err := JSONValue(v)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: error %v, want %q", c.yaml, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.yaml, err)
			continue
		}
		if b, err := json.Marshal(got); err != nil || string(b) != c.json {
			t.Errorf("%s: %s (%v), want %s", c.yaml, b, err, c.json)
		}
	}
}

// TestJSONEqual: decoded JSON is equal as JSON is, numbers by exact value.
func TestJSONEqual(t *testing.T) {
	decode := func(s string) any {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		a, b  string
		equal bool
	}{
		{`{"a": 1, "b": [true, null, "x"]}`, `{"b": [true, null, "x"], "a": 1.0}`, true},
		{`100`, `1e2`, true},
		{`9007199254740993`, `9007199254740992`, false},
		{`0.1`, `0.10000000000000001`, false},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`[1, 2]`, `[2, 1]`, false},
		{`"1"`, `1`, false},
		{`1e999999`, `1e999999`, true}, // past the bound: compared as written
		{`1e999999`, `2`, false},
		{`1e308`, `10e307`, true},
	} {
		if got := JSONEqual(decode(c.a), decode(c.b)); got != c.equal {
			t.Errorf("JSONEqual(%s, %s) = %v, want %v", c.a, c.b, got, c.equal)
		}
	}
}

// TestExactNumberBound: a number whose exponent is past maxExactExponent is
// not made whole (10^999999 is a megabyte and seconds of work per
// comparison, from a few bytes of a JSON Patch test); within it, it is.
func TestExactNumberBound(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{{"1e999999", false}, {"1E-999999", false}, {"1e+1001", false}, {"1e1000", true}, {"-2.5e-3", true}, {"12", true}} {
		if _, ok := exactNumber(c.s); ok != c.ok {
			t.Errorf("exactNumber(%s): %v, want %v", c.s, ok, c.ok)
		}
	}
}
