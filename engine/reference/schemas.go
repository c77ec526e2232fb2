package reference

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// The page's schemas are a table: every schema an operation reaches, once,
// its children named by index. The script renders a level when a reader
// opens it, so a recursive schema is a finite table, and a schema that
// many operations share is written once however often it is shown.

// schemaEntry is one schema of the table, summarised for reading: Go says
// once how a schema reads ("integer (int64)", "1 ≤ value ≤ 100"), and the
// script only lays it out.
type schemaEntry struct {
	Name  string     `json:"name,omitempty"`  // its component's name
	Type  string     `json:"type"`            // as a reader sees it: "Pet (object)", "array of Pet"
	Facts []string   `json:"facts,omitempty"` // format, bounds, enum, default, ...
	Desc  string     `json:"desc,omitempty"`
	Props []propLink `json:"props,omitempty"`
	Items *int       `json:"items,omitempty"`
	Extra *int       `json:"extra,omitempty"` // additionalProperties
	AllOf []int      `json:"allOf,omitempty"`
	OneOf []int      `json:"oneOf,omitempty"`
	AnyOf []int      `json:"anyOf,omitempty"`
	Not   *int       `json:"not,omitempty"`
}

// propLink is a property of an object: its name, schema and whether it is required.
type propLink struct {
	Name     string `json:"n"`
	Schema   int    `json:"s"`
	Required bool   `json:"r,omitempty"`
}

// schemaTable collects the schemas of a page.
type schemaTable struct {
	entries []*schemaEntry
	index   map[*spec.Schema]int
	leaves  map[string]int // by the JSON of their entry
}

func newSchemaTable() *schemaTable {
	return &schemaTable{index: map[*spec.Schema]int{}, leaves: map[string]int{}}
}

// add enters s and everything it reaches, and returns its index; -1 for nil.
func (t *schemaTable) add(s *spec.Schema) int {
	if s == nil {
		return -1
	}
	if i, ok := t.index[s]; ok {
		return i
	}
	props, required := s.DeclaredProps() // the kinds of a choice are entered as its oneOf or anyOf
	if len(props) == 0 && s.Items == nil && s.AdditionalProperties == nil && s.Not == nil && len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 {
		return t.addLeaf(s)
	}
	i := len(t.entries)
	e := &schemaEntry{}
	t.entries = append(t.entries, e)
	t.index[s] = i // before the children, so that a cycle finds it
	*e = summarise(s)
	for _, p := range props {
		e.Props = append(e.Props, propLink{Name: p.Name, Schema: t.add(p.Schema), Required: required[p.Name]})
	}
	e.Items = t.ref(s.Items)
	e.Extra = t.ref(s.AdditionalProperties)
	e.Not = t.ref(s.Not)
	for _, g := range []struct {
		from []*spec.Schema
		to   *[]int
	}{{s.OneOf, &e.OneOf}, {s.AnyOf, &e.AnyOf}} {
		for _, sub := range g.from {
			*g.to = append(*g.to, t.add(sub))
		}
	}
	// allOf members are merged into Props; those that add more than
	// properties (a oneOf, a type) are listed too.
	for _, sub := range s.AllOf {
		if len(sub.Properties) == 0 || len(sub.OneOf)+len(sub.AnyOf) > 0 {
			e.AllOf = append(e.AllOf, t.add(sub))
		}
	}
	return i
}

// addLeaf enters a schema without children once per summary: documents
// repeat the same inline string or integer, with the same description, in
// many places, and the page need only carry it once.
func (t *schemaTable) addLeaf(s *spec.Schema) int {
	e := summarise(s)
	key := literal(e)
	i, ok := t.leaves[key]
	if !ok {
		i = len(t.entries)
		t.entries = append(t.entries, &e)
		t.leaves[key] = i
	}
	t.index[s] = i
	return i
}

func (t *schemaTable) ref(s *spec.Schema) *int {
	if s == nil {
		return nil
	}
	i := t.add(s)
	return &i
}

// summarise says what a schema is in words: its type and its facts.
func summarise(s *spec.Schema) schemaEntry {
	e := schemaEntry{Name: s.Name, Type: typeLabel(s), Desc: strings.Join(paragraphs(firstNonEmpty(s.Description, s.Title)), "\n\n")}
	if s.Name != "" && s.Name != e.Type {
		e.Type = s.Name + " (" + e.Type + ")" // "Pet (object)"
	}
	if s.Format != "" {
		e.Facts = append(e.Facts, "format "+s.Format)
	}
	if s.HasConst {
		e.Facts = append(e.Facts, "always "+literal(s.Const))
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = literal(v)
		}
		e.Facts = append(e.Facts, "one of "+strings.Join(vals, ", "))
	}
	if s.HasDef {
		e.Facts = append(e.Facts, "default "+literal(s.Default))
	}
	e.Facts = append(e.Facts, bounds("value", s.Minimum, s.ExclusiveMinimum, s.Maximum, s.ExclusiveMaximum)...)
	if s.MultipleOf != nil {
		e.Facts = append(e.Facts, "multiple of "+number(*s.MultipleOf))
	}
	e.Facts = append(e.Facts, countBounds("characters", s.MinLength, s.MaxLength)...)
	if s.Pattern != "" {
		e.Facts = append(e.Facts, "pattern "+s.Pattern)
	}
	e.Facts = append(e.Facts, countBounds("items", s.MinItems, s.MaxItems)...)
	if s.UniqueItems {
		e.Facts = append(e.Facts, "unique items")
	}
	e.Facts = append(e.Facts, countBounds("properties", s.MinProperties, s.MaxProperties)...)
	if s.NoAdditional {
		e.Facts = append(e.Facts, "no other properties")
	}
	if s.Nullable {
		e.Facts = append(e.Facts, "nullable")
	}
	for _, f := range []struct {
		on   bool
		text string
	}{{s.ReadOnly, "read-only (in responses only)"}, {s.WriteOnly, "write-only (in requests only)"}, {s.Deprecated, "deprecated"}} {
		if f.on {
			e.Facts = append(e.Facts, f.text)
		}
	}
	if d := s.Discriminator; d != nil && d.Property != "" {
		e.Facts = append(e.Facts, "the member is chosen by "+d.Property)
	}
	if s.HasExample {
		e.Facts = append(e.Facts, "example "+literal(s.Example))
	}
	return e
}

// typeLabel names a schema's type: "integer", "array of Pet",
// "string or integer", "one of 3 schemas", "any".
func typeLabel(s *spec.Schema) string {
	switch t := s.Type(); {
	case t == "array" && s.Items != nil:
		return "array of " + itemLabel(s.Items)
	case t != "":
		return t
	case len(s.Types) > 1:
		return strings.Join(s.Types, " or ")
	case len(s.OneOf) > 0:
		return fmt.Sprintf("one of %d schemas", len(s.OneOf))
	case len(s.AnyOf) > 0:
		return fmt.Sprintf("any of %d schemas", len(s.AnyOf))
	case s.HasConst || len(s.Enum) > 0:
		return "value"
	case s.Nullable:
		return "null"
	}
	return "any"
}

// itemLabel names an array's items by their component name when they have one.
func itemLabel(s *spec.Schema) string {
	if s.Name != "" {
		return s.Name
	}
	if s.Type() == "array" && s.Items != nil {
		return "array of " + itemLabel(s.Items)
	}
	return typeLabel(s)
}

// bounds reads the numeric bounds: "1 ≤ value ≤ 100", "value > 0".
func bounds(what string, lo, xlo, hi, xhi *float64) []string {
	var left, right string
	switch {
	case lo != nil:
		left = number(*lo) + " ≤ "
	case xlo != nil:
		left = number(*xlo) + " < "
	}
	switch {
	case hi != nil:
		right = " ≤ " + number(*hi)
	case xhi != nil:
		right = " < " + number(*xhi)
	}
	if left == "" && right == "" {
		return nil
	}
	return []string{left + what + right}
}

// countBounds reads length bounds: "1 to 64 characters", "at least 1 items".
func countBounds(what string, lo, hi *int64) []string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return []string{fmt.Sprintf("exactly %d %s", *lo, what)}
	case lo != nil && hi != nil:
		return []string{fmt.Sprintf("%d to %d %s", *lo, *hi, what)}
	case lo != nil && *lo > 0:
		return []string{fmt.Sprintf("at least %d %s", *lo, what)}
	case hi != nil:
		return []string{fmt.Sprintf("at most %d %s", *hi, what)}
	}
	return nil
}

func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// literal writes a value of the document as JSON; one JSON cannot hold
// (an infinity from YAML's .inf) is written as Go would print it.
func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
