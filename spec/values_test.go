package spec

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// componentSchemas reads every component schema of the document at path.
func componentSchemas(t *testing.T, path string) (*Spec, *Validator, map[string]*Schema) {
	t.Helper()
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	r := newSchemaReader()
	out := map[string]*Schema{}
	for p := s.Model.Components.Schemas.First(); p != nil; p = p.Next() {
		out[p.Key()] = r.read(p.Value())
	}
	return s, v, out
}

// TestValuesAreValid: every value the generator makes, minimal or drawn,
// in every direction, with one text for a whole record (as conform gives)
// or without, is valid against its schema by the validator's word.
func TestValuesAreValid(t *testing.T) {
	_, v, schemas := componentSchemas(t, "testdata/schemas.yaml")
	oneText := func(string, int64) string { return "petctl conform run B" }
	for name, sch := range schemas {
		gens := []*Values{{}, {Seq: 42, Now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}, {Seq: 7, Text: oneText}}
		for i := range 20 {
			gens = append(gens, &Values{Rand: rand.New(rand.NewPCG(1, uint64(i))), Seq: int64(i), Optional: 0.5})
			gens = append(gens, &Values{Rand: rand.New(rand.NewPCG(2, uint64(i))), Seq: int64(i), Optional: 1, Text: oneText})
		}
		for i, g := range gens {
			val := g.Value(sch, "")
			raw, err := json.Marshal(val)
			if err != nil {
				t.Fatalf("%s #%d: %v", name, i, err)
			}
			if ps := v.Schema(sch.lib, raw); len(ps) > 0 {
				t.Errorf("%s #%d: %s is not valid: %v", name, i, raw, ps)
			}
		}
	}
}

// TestValuesFollowDirection: readOnly properties stay out of requests,
// writeOnly ones out of responses; both are kept in a stored record.
func TestValuesFollowDirection(t *testing.T) {
	_, _, schemas := componentSchemas(t, "testdata/schemas.yaml")
	shapes := schemas["Shapes"]
	all := &Values{Rand: rand.New(rand.NewPCG(1, 2)), Optional: 1}
	for _, tc := range []struct {
		dir                Direction
		wantID, wantSecret bool
	}{{InRecord, true, true}, {InRequest, false, true}, {InResponse, true, false}} {
		all.Direction = tc.dir
		obj := all.Value(shapes, "").(map[string]any)
		if _, ok := obj["id"]; ok != tc.wantID {
			t.Errorf("direction %d: id present %v, want %v", tc.dir, ok, tc.wantID)
		}
		if _, ok := obj["secret"]; ok != tc.wantSecret {
			t.Errorf("direction %d: secret present %v, want %v", tc.dir, ok, tc.wantSecret)
		}
	}
}

// TestSchemaReader: $refs resolve to one Schema each, recursion included;
// allOf members merge; 3.0's boolean exclusiveMinimum is a number.
func TestSchemaReader(t *testing.T) {
	_, _, schemas := componentSchemas(t, "testdata/schemas.yaml")
	node := schemas["Node"]
	if node.Name != "Node" || node.Prop("children").Items != node {
		t.Errorf("Node's children items are not Node itself")
	}
	nested := schemas["Shapes"].Prop("nested")
	props, required := nested.Props()
	if len(props) != 8 || !required["extra"] || !required["small"] {
		t.Errorf("allOf merged: %d properties, required %v", len(props), required)
	}
	if d := schemas["Shapes"].Prop("either").Discriminator; d == nil || d.Property != "kind" || d.Mapping["dog"] != "#/components/schemas/Dog" {
		t.Errorf("discriminator = %+v", d)
	}
	if n := schemas["Shapes"].Prop("nullable"); !n.Nullable || n.Type() != "string" {
		t.Errorf("nullable = %+v", n)
	}
}

// TestPatternValuesDiffer: values made for a pattern differ from one seq
// to the next, so that ids the server makes from a pattern stay unique,
// and each matches the pattern.
func TestPatternValuesDiffer(t *testing.T) {
	s := &Schema{Types: []string{"string"}, Pattern: "^[a-z][a-z0-9_]{2,30}$"}
	re, err := compilePattern(s.Pattern)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int64{}
	for seq := int64(1); seq <= 500; seq++ {
		v := (&Values{Seq: seq}).Value(s, "code").(string)
		if !re.MatchString(v) {
			t.Fatalf("seq %d: %q does not match %s", seq, v, s.Pattern)
		}
		if prev, ok := seen[v]; ok {
			t.Fatalf("seq %d made %q, as seq %d did", seq, v, prev)
		}
		seen[v] = seq
	}
}

// TestFitLength: a string is padded or cut to its bounds in characters,
// and without bounds it is what the rune conversion makes of it (invalid
// UTF-8 becomes U+FFFD) whether or not that conversion is skipped.
func TestFitLength(t *testing.T) {
	two, four := int64(2), int64(4)
	for _, c := range []struct {
		v        string
		min, max *int64
		want     string
	}{
		{"cedar willow", nil, nil, "cedar willow"},
		{"é\u2028", nil, nil, "é\u2028"},
		{"a\xffb", nil, nil, "a\ufffdb"},
		{"a", &two, nil, "ax"},
		{"éééééé", nil, &four, "éééé"},
		{"a\xff", nil, &four, "a\ufffd"},
	} {
		if got := fitLength(c.v, c.min, c.max); got != c.want {
			t.Errorf("fitLength(%q, %v, %v) = %q, want %q", c.v, c.min, c.max, got, c.want)
		}
	}
}
