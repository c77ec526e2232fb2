package spec

import (
	"encoding/json"
	"math"
	"strconv"
)

// ObjectPlan is a quick acceptance test for records against a compiled item
// schema of the simplest and most common shape: an object whose properties
// are scalars with a type, perhaps an enum of strings or an int32/int64
// format, and a list of required properties. Validating a million fixture
// records with the general JSON Schema validator takes seconds; this takes
// a few hundred milliseconds.
//
// It only ever accepts: Accepts returning true means the compiled schema
// accepts the record; false means "not sure", and the caller asks the
// compiled schema, which decides and says why. A plan exists only when the
// rendered schema (the very document the validator compiled) uses nothing
// but the keywords it implements, with the same meaning they have in every
// JSON Schema draft; any other keyword, or a $ref left in place, and
// Plan returns nil. TestObjectPlanAgreesWithSchema compares it with the
// compiled schema on valid and mutated records.
type ObjectPlan struct {
	props    []propPlan // by field position
	required []int      // positions that must be present
}

type propPlan struct {
	typ     string // "" when the name is not a declared property: anything goes
	enum    []string
	formats []func(any) error
}

// annotations are keywords that never make a document invalid.
var annotations = map[string]bool{
	"description": true, "title": true, "example": true, "examples": true,
	"deprecated": true, "$comment": true,
}

// Plan returns the quick test for records given as values by position,
// names[i] naming position i; nil when the schema is outside the shape it
// handles.
func (rs *ResponseSchema) Plan(names []string) *ObjectPlan {
	if rs == nil || len(rs.rendered) == 0 {
		return nil
	}
	var root map[string]any
	if err := json.Unmarshal(rs.rendered, &root); err != nil {
		return nil
	}
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	p := &ObjectPlan{props: make([]propPlan, len(names))}
	var props map[string]any
	for k, v := range root {
		switch {
		case annotations[k]:
		case k == "type":
			if v != "object" {
				return nil
			}
		case k == "properties":
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			props = m
		case k == "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, r := range list {
				name, ok := r.(string)
				if !ok {
					return nil
				}
				i, known := pos[name]
				if !known {
					return nil // the record could never hold it
				}
				p.required = append(p.required, i)
			}
		default:
			return nil
		}
	}
	if root["type"] != "object" {
		return nil
	}
	for name, v := range props {
		sub, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		pp, ok := rs.propPlan(sub)
		if !ok {
			return nil
		}
		if i, known := pos[name]; known {
			p.props[i] = pp
		}
		// A declared property the caller never gives cannot be violated.
	}
	return p
}

func (rs *ResponseSchema) propPlan(s map[string]any) (propPlan, bool) {
	var pp propPlan
	typ, ok := s["type"].(string)
	if !ok {
		return pp, false
	}
	switch typ {
	case "string", "integer", "number", "boolean":
		pp.typ = typ
	default:
		return pp, false
	}
	for k, v := range s {
		switch {
		case annotations[k] || k == "type":
		case k == "enum" && typ == "string":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				return pp, false
			}
			for _, e := range list {
				str, ok := e.(string)
				if !ok {
					return pp, false
				}
				pp.enum = append(pp.enum, str)
			}
		case k == "format" && typ == "integer":
			// Only the formats petctl registers itself, so the function the
			// validator calls is the one called here.
			name, _ := v.(string)
			if name != "int32" && name != "int64" {
				return pp, false
			}
			f := rs.formats[name]
			if f == nil {
				return pp, false
			}
			pp.formats = append(pp.formats, f)
		default:
			return pp, false
		}
	}
	return pp, true
}

// Accepts reports whether the record whose field values are vals (present
// where has is set) surely matches the schema. Values are as decodeStrict
// gives them: numbers are json.Number, and are checked as the float64 that
// encoding/json decodes them to, which is what the validator sees.
func (p *ObjectPlan) Accepts(vals []any, has []bool) bool {
	if p == nil || len(vals) != len(p.props) || len(has) != len(p.props) {
		return false
	}
	for _, i := range p.required {
		if !has[i] {
			return false
		}
	}
	for i := range p.props {
		if has[i] && !p.props[i].accepts(vals[i]) {
			return false
		}
	}
	return true
}

func (pp *propPlan) accepts(v any) bool {
	switch pp.typ {
	case "":
		return true
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		if pp.enum == nil {
			return true
		}
		for _, e := range pp.enum {
			if s == e {
				return true
			}
		}
		return false
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		// The validator's integer test is big.Rat on fmt.Sprint of the
		// float64; for a finite float64 that holds exactly when it has no
		// fractional part.
		if pp.typ == "integer" && f != math.Trunc(f) {
			return false
		}
		for _, check := range pp.formats {
			if check(f) != nil {
				return false
			}
		}
		return true
	}
	return false
}
