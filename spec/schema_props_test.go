package spec

import "testing"

// TestPropAgreesWithProps: Prop finds a property without building Props'
// list and maps, and gives for every name what Props gives: allOf members
// merged (a later declaration replaces an earlier one, the object's own
// last), a required property no one declares taking the first
// additionalProperties schema met (the object's own before its members'),
// else the empty schema, and nil for a name that is neither.
func TestPropAgreesWithProps(t *testing.T) {
	str, num, extra, memberExtra := &Schema{Types: []string{"string"}}, &Schema{Types: []string{"number"}}, &Schema{Types: []string{"boolean"}}, &Schema{Types: []string{"integer"}}
	base := &Schema{Properties: []*Property{{Name: "id", Schema: str}, {Name: "size", Schema: str}}, Required: []string{"id", "wallet"}, AdditionalProperties: memberExtra}
	override := &Schema{AllOf: []*Schema{base}, Properties: []*Property{{Name: "size", Schema: num}}}
	cyclic := &Schema{Properties: []*Property{{Name: "self", Schema: str}}}
	cyclic.AllOf = []*Schema{cyclic, {AllOf: []*Schema{cyclic}, Properties: []*Property{{Name: "deep", Schema: num}}}}
	for _, tc := range []struct {
		name   string
		schema *Schema
		want   map[string]*Schema // names to ask, with what they must give
	}{
		{"own properties", &Schema{Properties: []*Property{{Name: "a", Schema: str}}}, map[string]*Schema{"a": str, "b": nil}},
		{"allOf, own declaration last", override, map[string]*Schema{"id": str, "size": num, "wallet": memberExtra, "none": nil}},
		{"own additionalProperties first", &Schema{AllOf: []*Schema{base}, AdditionalProperties: extra}, map[string]*Schema{"wallet": extra}},
		{"required, undeclared, nothing else", &Schema{Required: []string{"balance"}}, map[string]*Schema{"balance": undeclared}},
		{"declared without a schema", &Schema{Properties: []*Property{{Name: "x"}}, Required: []string{"x"}}, map[string]*Schema{"x": nil}},
		{"cyclic allOf", cyclic, map[string]*Schema{"self": str, "deep": num, "none": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props, _ := tc.schema.Props()
			fromProps := func(name string) *Schema {
				for _, p := range props {
					if p.Name == name {
						return p.Schema
					}
				}
				return nil
			}
			for name, want := range tc.want {
				if got := tc.schema.Prop(name); got != want || got != fromProps(name) {
					t.Errorf("Prop(%q) = %p; want %p (Props gives %p)", name, got, want, fromProps(name))
				}
			}
		})
	}
}
