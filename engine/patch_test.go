package engine

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONPatchTestComparesNumbersExactly: a JSON Patch test operation
// holds when the values are numerically equal (RFC 6902 section 4.6):
// 1.0 is 1, but 2^53+1 is not 2^53, though float64 cannot tell them apart.
func TestJSONPatchTestComparesNumbersExactly(t *testing.T) {
	decode := func(s string) any {
		d := json.NewDecoder(bytes.NewReader([]byte(s)))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	doc := decode(`{"n": 9007199254740992, "w": 1, "tags": [{"k": 2.50}]}`)
	for patch, holds := range map[string]bool{
		`[{"op":"test","path":"/n","value":9007199254740992}]`: true,
		`[{"op":"test","path":"/n","value":9007199254740993}]`: false,
		`[{"op":"test","path":"/w","value":1.0}]`:              true,
		`[{"op":"test","path":"/w","value":1e0}]`:              true,
		`[{"op":"test","path":"/tags","value":[{"k":2.5}]}]`:   true,
		`[{"op":"test","path":"/w","value":"1"}]`:              false,
	} {
		if _, err := applyJSONPatch(doc, decode(patch)); (err == nil) != holds {
			t.Errorf("%s on %v: error %v, want the test to hold: %v", patch, doc, err, holds)
		}
	}
}
