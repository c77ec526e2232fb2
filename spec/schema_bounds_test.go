package spec

import (
	"maps"
	"math"
	"slices"
	"testing"
)

// TestLeastInteger: the first page or offset conform asks for is the least
// integer a parameter's bounds allow, never a fraction cut towards zero
// (minimum 0.5 allows 1, not 0) nor an overflow.
func TestLeastInteger(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name      string
		min, excl *float64
		want      int64
		wantOK    bool
	}{
		{"none", nil, nil, 0, false},
		{"minimum 1", f(1), nil, 1, true},
		{"minimum 0.5", f(0.5), nil, 1, true},
		{"minimum -1.5", f(-1.5), nil, -1, true},
		{"exclusive 0", nil, f(0), 1, true},
		{"exclusive 0.5", nil, f(0.5), 1, true},
		{"both, exclusive higher", f(1), f(3), 4, true},
		{"both, minimum higher", f(7), f(3), 7, true},
		{"huge", f(1e300), nil, math.MaxInt64, true},
		{"2^63", f(math.Pow(2, 63)), nil, math.MaxInt64, true},
		{"hugely negative", f(-1e300), nil, math.MinInt64, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := (&Schema{Minimum: tc.min, ExclusiveMinimum: tc.excl}).LeastInteger()
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("LeastInteger() = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestKeepProperties: an object over its maxProperties (an allOf member's
// counts) keeps the required properties and the first declared; those the
// schema does not declare go first.
func TestKeepProperties(t *testing.T) {
	two := int64(2)
	str := &Schema{Types: []string{"string"}}
	s := &Schema{Types: []string{"object"}, Required: []string{"c"}, AllOf: []*Schema{{MaxProperties: &two}},
		Properties: []*Property{{Name: "a", Schema: str}, {Name: "b", Schema: str}, {Name: "c", Schema: str}}}
	if most, ok := s.MostProperties(); !ok || most != 2 {
		t.Fatalf("MostProperties() = %d, %v; want 2, true", most, ok)
	}
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{"within", map[string]any{"a": "1", "c": "3"}, []string{"a", "c"}},
		{"the last optional goes", map[string]any{"a": "1", "b": "2", "c": "3"}, []string{"a", "c"}},
		{"undeclared go first", map[string]any{"a": "1", "z": "9", "y": "8"}, []string{"a", "y"}},
		{"required stay", map[string]any{"c": "3", "b": "2", "x": "0"}, []string{"b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.KeepProperties(tc.obj)
			if got := slices.Sorted(maps.Keys(tc.obj)); !slices.Equal(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}
