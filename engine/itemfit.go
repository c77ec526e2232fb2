package engine

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// A write's body has passed the write's schema, and is stored as an item
// that must pass the item schema. Where the document's two schemas give a
// field different JSON types (lago's tax rate: a string in TaxCreateInput,
// a number in TaxObject; an alert threshold's value: a number to update,
// a string to read), the write could only fail, though the client did
// everything the document asks. Such a value is stored as the item's type:
// converted where it reads as one ("3" → 3, 3 → "3", "true" → true), else
// replaced by a value made from the item's schema.

// fitDepth bounds how deep typesDiffer and fitValue follow schemas: item
// schemas may be recursive (a category's parent category).
const fitDepth = 8

// needsFit reports whether a write's body schema gives some field a JSON
// type its item schema does not take: only then is the body fitted, so
// writes whose schemas agree (the Petstore's) cost nothing more.
func needsFit(body, item *spec.Schema) bool {
	return body != nil && item != nil && body != item && typesDiffer(body, item, 0)
}

// writeItemSchema is the schema of the item a write's body carries: the
// body's, the wrapped field's, a batch's items'; nil for a JSON Patch.
func writeItemSchema(rop *spec.ResourceOp) *spec.Schema {
	switch rop.Request.Kind {
	case "item", "wrapped":
		return rop.Request.Schema
	case "list":
		if rop.Request.Schema != nil {
			return rop.Request.Schema.Items
		}
	}
	return nil
}

// fitItem is fitValue for a write's item, where the operation needs it.
func (s *Server) fitItem(o *operation, v any) any {
	if !o.fit {
		return v
	}
	return s.fitValue(v, o.coll.def.Item, "", s.values(spec.InResponse), 0)
}

func typesDiffer(body, item *spec.Schema, depth int) bool {
	if body == nil || item == nil || body == item || depth > fitDepth {
		return false
	}
	bt, it := body.Type(), item.Type()
	if bt != "" && it != "" && bt != it && !(bt == "integer" && it == "number") {
		return true
	}
	switch {
	case bt == "array" && it == "array":
		return typesDiffer(body.Items, item.Items, depth+1)
	case bt == "object" || it == "object":
		props, _ := body.Props()
		for _, p := range props {
			if typesDiffer(p.Schema, item.Prop(p.Name), depth+1) {
				return true
			}
		}
	}
	return false
}

// fitValue returns v with every value whose JSON type schema does not take
// stored as the schema's type (see above); maps and slices are changed in
// place.
func (s *Server) fitValue(v any, schema *spec.Schema, name string, g *spec.Values, depth int) any {
	if schema == nil || depth > fitDepth {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if !fitsType(x, schema) {
			break
		}
		for k, sub := range x {
			if ps := schema.Prop(k); ps != nil {
				x[k] = s.fitValue(sub, ps, k, g, depth+1)
			}
		}
		return x
	case []any:
		if !fitsType(x, schema) {
			break
		}
		for i, sub := range x {
			x[i] = s.fitValue(sub, schema.Items, name, g, depth+1)
		}
		return x
	}
	if fitsType(v, schema) {
		return v
	}
	if c, ok := convertScalar(v, schema.Type()); ok && fitsType(c, schema) {
		return c
	}
	return g.Value(schema, name)
}

// convertScalar converts a string, number or boolean to the JSON type
// want, where it reads as one.
func convertScalar(v any, want string) (any, bool) {
	text := ""
	switch x := v.(type) {
	case string:
		text = strings.TrimSpace(x)
	case json.Number:
		text = string(x)
	case float64:
		text = strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		text = strconv.FormatBool(x)
	default:
		return nil, false
	}
	switch want {
	case "string":
		return text, true
	case "integer":
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			return json.Number(text), true
		}
	case "number":
		if _, err := strconv.ParseFloat(text, 64); err == nil {
			return json.Number(text), true
		}
	case "boolean":
		if b, err := strconv.ParseBool(text); err == nil {
			return b, true
		}
	}
	return nil, false
}
