package engine

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// A write's body has passed the write's schema, and is stored as an item
// that must pass the item schema. Where the document's two schemas give a
// field different JSON types (lago's tax rate: a string in TaxCreateInput,
// a number in TaxObject; an alert threshold's value: a number to update,
// a string to read), the write could only fail, though the client did
// everything the document asks. Such a value is stored as the item's type:
// converted where it reads as one ("3" → 3, 3 → "3", "true" → true), else
// replaced by a value made from the item's schema. Likewise a nested object
// the item requires fields of that the write does not declare (a credit
// note's items, each with a lago_id and created_at the server assigns)
// gets them made.

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
	if len(item.Types) > 0 {
		for _, t := range schemaTypes(body) {
			if t != "null" && !slices.Contains(item.Types, t) && !(t == "integer" && slices.Contains(item.Types, "number")) {
				return true // lago's event timestamp: integer or string, read as a string
			}
		}
	}
	if isInstant(item) && !isInstant(body) && slices.Contains(schemaTypes(body), "string") {
		return true // any text to write, an instant to read (lago's event timestamp)
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
		if most, ok := item.MostProperties(); ok && depth > 0 {
			// The item holds fewer properties than the write may give
			// (camara's session answers one of the device identifiers
			// its create takes several of).
			if bodyMost, ok := body.MostProperties(); !ok || bodyMost > most {
				return true
			}
		}
		if depth > 0 {
			// A nested object whose item schema requires what the write's
			// does not declare (a line's lago_id and created_at).
			_, required := item.Props()
			for name := range required {
				if body.Prop(name) == nil {
					return true
				}
			}
		}
	}
	return false
}

// schemaTypes are the JSON types a schema takes: its own, or its
// alternatives' (lago's event timestamp: oneOf integer, string).
func schemaTypes(s *spec.Schema) []string {
	return alternativeTypes(s, 0)
}

func alternativeTypes(s *spec.Schema, depth int) []string {
	if s == nil || depth > fitDepth {
		return nil
	}
	out := slices.Clone(s.Types)
	for _, alt := range append(append([]*spec.Schema{}, s.OneOf...), s.AnyOf...) {
		out = append(out, alternativeTypes(alt, depth+1)...)
	}
	return out
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
		if depth > 0 {
			// The store assigns the item's own required fields; a nested
			// object's are made here.
			props, required := schema.Props()
			for _, p := range props {
				if _, sent := x[p.Name]; required[p.Name] && !sent {
					x[p.Name] = g.Value(p.Schema, p.Name)
				}
			}
			schema.KeepProperties(x)
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
		if text, ok := v.(string); ok && isInstant(schema) && !instantText(text, schema.Format) {
			if n, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err == nil {
				v = json.Number(strconv.FormatFloat(n, 'f', -1, 64)) // Unix seconds as text
			} else {
				return g.Value(schema, name)
			}
		} else {
			return v
		}
	}
	if c, ok := convertScalar(v, schema); ok && fitsType(c, schema) {
		return c
	}
	return g.Value(schema, name)
}

// isInstant reports whether s is a string of format date-time or date.
func isInstant(s *spec.Schema) bool {
	return s != nil && s.Type() == "string" && (s.Format == "date-time" || s.Format == "date")
}

// instantText reports whether text is an instant of format.
func instantText(text, format string) bool {
	layout := time.RFC3339Nano
	if format == "date" {
		layout = time.DateOnly
	}
	_, err := time.Parse(layout, text)
	return err == nil
}

// convertScalar converts a string, number or boolean to the JSON type
// schema takes, where it reads as one: a number as an instant is Unix
// seconds (lago's event timestamp); text for another format is not made
// from a value of another type.
func convertScalar(v any, schema *spec.Schema) (any, bool) {
	want := schema.Type()
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
		if n, ok := v.(json.Number); ok && isInstant(schema) {
			f, err := n.Float64()
			at, ok := spec.UnixInstant(f)
			if err != nil || !ok {
				return nil, false
			}
			if schema.Format == "date" {
				return at.Format(time.DateOnly), true
			}
			return at.Format(time.RFC3339Nano), true
		}
		if schema.Format != "" || schema.Pattern != "" || len(schema.Enum) > 0 {
			return nil, false
		}
		return text, true
	case "integer":
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10)), true // "+3", "007": 3, 7
		}
	case "number":
		// Written as JSON writes a number: ParseFloat also takes ".5",
		// "1_000", "NaN" and "Inf", which are no JSON numbers.
		if f, err := strconv.ParseFloat(text, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
		}
	case "boolean":
		if b, err := strconv.ParseBool(text); err == nil {
			return b, true
		}
	}
	return nil, false
}
