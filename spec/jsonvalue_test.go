package spec

import (
	"encoding/json"
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
