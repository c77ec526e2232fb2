package spec

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
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
	// lazy, when set, is the plan of a schema not compiled yet: it is
	// made on the first Accepts (see LazyResponseSchema).
	lazy *lazyRecordPlan
}

type lazyRecordPlan struct {
	once  sync.Once
	build func() *ObjectPlan
	plan  *ObjectPlan
}

func (l *lazyRecordPlan) get() *ObjectPlan {
	l.once.Do(func() { l.plan = l.build() })
	return l.plan
}

type propPlan struct {
	typ  string // "" when the name is not a declared property: anything goes
	enum []string
	// ranges are the integer formats' (int32, int64), checked on the
	// float64 without boxing it for the format's function.
	ranges []intRange
}

// annotations are keywords that never make a document invalid.
var annotations = map[string]bool{
	"description": true, "title": true, "example": true, "examples": true,
	"deprecated": true, "$comment": true,
}

// Plan returns the quick test for records given as values by position,
// names[i] naming position i; nil when the schema is outside the shape it
// handles. For a schema not compiled yet (LazyResponseSchema) that is
// decided on the plan's first Accepts, which until then costs nothing.
func (rs *ResponseSchema) Plan(names []string) *ObjectPlan {
	if rs == nil {
		return nil
	}
	if rs.compile != nil {
		names = slices.Clone(names)
		return &ObjectPlan{lazy: &lazyRecordPlan{build: func() *ObjectPlan { return rs.plan(names) }}}
	}
	return rs.plan(names)
}

// plan is Plan once the schema is compiled.
func (rs *ResponseSchema) plan(names []string) *ObjectPlan {
	if rs.ready() != nil || len(rs.rendered) == 0 {
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
			// Only the formats petctl registers itself, and the validator
			// was given: the range its function checks is the one checked
			// here (intFormatRange declares both).
			name, _ := v.(string)
			r, ok := intFormatRange(name)
			if !ok || rs.formats[name] == nil {
				return pp, false
			}
			pp.ranges = append(pp.ranges, r)
		default:
			return pp, false
		}
	}
	return pp, true
}

// Accepts reports whether the record whose field values are vals (present
// where has is set) surely matches the schema. Numbers are json.Number (as
// decodeStrict gives them), checked as the float64 encoding/json decodes
// them to, which is what the validator sees, or that float64 itself.
func (p *ObjectPlan) Accepts(vals []any, has []bool) bool {
	if p != nil && p.lazy != nil {
		p = p.lazy.get()
	}
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
		var f float64
		switch n := v.(type) {
		case json.Number:
			// An integer within int64 converts to the float64 ParseFloat
			// reads it as (both round to nearest even), faster.
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				f = float64(i)
			} else if f, err = strconv.ParseFloat(string(n), 64); err != nil {
				return false
			}
		case float64: // as encoding/json decodes a number
			f = n
		default:
			return false
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		// The validator's integer test is big.Rat on fmt.Sprint of the
		// float64; for a finite float64 that holds exactly when it has no
		// fractional part.
		if pp.typ == "integer" && f != math.Trunc(f) {
			return false
		}
		for _, r := range pp.ranges {
			if !r.holds(f) {
				return false
			}
		}
		return true
	}
	return false
}

// objectPlan is a plan over the schema's own properties, for documents
// decoded whole (a request body).
type objectPlan struct {
	names []string
	plan  *ObjectPlan
}

// wholePlan returns a plan over the rendered schema's properties; nil
// when the schema is outside the plan's shape.
func (rs *ResponseSchema) wholePlan() *objectPlan {
	if rs == nil || rs.ready() != nil || len(rs.rendered) == 0 {
		return nil
	}
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(rs.rendered, &root); err != nil {
		return nil
	}
	names := make([]string, 0, len(root.Properties))
	for n := range root.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	plan := rs.plan(names)
	if plan == nil {
		return nil
	}
	return &objectPlan{names: names, plan: plan}
}

// accepts reports whether the decoded object surely matches the schema.
// Keys the schema does not declare are free: the plan's shape has no
// additionalProperties.
func (op *objectPlan) accepts(obj map[string]any) bool {
	var vals [16]any
	var has [16]bool
	if len(op.names) > len(vals) {
		return false
	}
	for i, n := range op.names {
		vals[i], has[i] = obj[n]
	}
	return op.plan.Accepts(vals[:len(op.names)], has[:len(op.names)])
}
