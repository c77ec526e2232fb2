package spec

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"go.yaml.in/yaml/v4"
)

// Schema is a JSON Schema of the document as petctl reads it: every
// keyword the engine, the conformance suite and the reference page use,
// with $refs resolved and values decoded, so that no package but spec
// reads libopenapi's types. A schema reached twice through the same $ref is
// the same *Schema, so recursive schemas are finite graphs: walk them with
// a depth bound or a visited set.
type Schema struct {
	// Name is the component's name when the schema was reached through a
	// $ref ("Pet" for #/components/schemas/Pet), else "".
	Name        string
	Title       string
	Description string
	// Types are the JSON types the schema allows, "null" excluded; empty
	// means any. Nullable is set by "null" among them or nullable: true.
	Types    []string
	Nullable bool
	Format   string
	Enum     []any // decoded JSON values, null left out
	Const    any
	HasConst bool
	Default  any
	HasDef   bool
	// Example is the schema's example (or the first of its examples).
	Example    any
	HasExample bool

	ReadOnly, WriteOnly, Deprecated bool

	// Properties are the object's own properties in document order;
	// AllProperties merges allOf members in (see Props).
	Properties []*Property
	Required   []string
	// AdditionalProperties is the schema of undeclared properties; NoAdditional
	// is set by additionalProperties: false.
	AdditionalProperties *Schema
	NoAdditional         bool
	MinProperties        *int64
	MaxProperties        *int64

	Items       *Schema
	MinItems    *int64
	MaxItems    *int64
	UniqueItems bool

	Minimum, Maximum                   *float64
	ExclusiveMinimum, ExclusiveMaximum *float64 // as numbers: a 3.0 boolean is folded into Minimum/Maximum
	MultipleOf                         *float64
	MinLength, MaxLength               *int64
	Pattern                            string

	AllOf, OneOf, AnyOf []*Schema
	Not                 *Schema
	Discriminator       *Discriminator

	// lib is the schema libopenapi built, for the validator.
	lib *base.Schema
	// kindsMemo holds Kinds' answer once asked, where the reader made the
	// schema: answers ask it per request and per property, and a choice
	// that is no choice of kinds costs a walk of its members' properties.
	// Nil for a schema made elsewhere (or copied), which computes it.
	kindsMemo *kindsMemo
}

// kindsMemo is a schema's Kinds, once computed.
type kindsMemo struct {
	kinds atomic.Pointer[[]*Schema]
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// Discriminator names the property that selects a oneOf/anyOf member.
type Discriminator struct {
	Property string
	Mapping  map[string]string // value -> $ref
}

// Type is the schema's single JSON type ("object" when it has only
// properties or is a choice of object kinds, the type of its allOf members
// otherwise), or "" when it has none or several.
func (s *Schema) Type() string {
	return s.typeAt(0, true)
}

// maxTypeDepth bounds the allOf members Type looks through: a schema made
// of itself (allOf: [$ref: itself]) has no type.
const maxTypeDepth = 16

// typeAt is Type at an allOf depth; withKinds counts a choice of kinds as
// an object, which the test of a choice's own members does not (kinds are
// one level deep: see Kinds).
func (s *Schema) typeAt(depth int, withKinds bool) string {
	switch {
	case s == nil:
		return ""
	case len(s.Types) == 1:
		return s.Types[0]
	case len(s.Types) > 1:
		return ""
	case len(s.Properties) > 0 || withKinds && s.Kinds() != nil:
		return "object"
	case depth >= maxTypeDepth:
		return ""
	}
	for _, sub := range s.AllOf {
		if t := sub.typeAt(depth+1, withKinds); t != "" {
			return t
		}
	}
	return ""
}

// Kinds are the object kinds a choice schema stands for: the oneOf (or
// anyOf) members of a schema that declares no properties of its own, when
// every member is an object and the members are kinds of one thing: a
// discriminator tells them apart, or a property every member declares is
// their common part (a pet is a cat or a dog, each an allOf of the pet's
// fields and its own). Members with nothing in common ({alert: ...} or
// {alerts: [...]}) are other shapes, not kinds. Nil for any other schema.
// A value is of one kind at least, so Props counts the kinds' properties
// together. Kinds are one level deep: a member must be an object by its
// own type, properties or allOf members, not by being a choice itself, so
// kinds within kinds (a dog that is a terrier or a hound) are no kinds,
// and a kind made of its own choice (Cat: allOf [$ref: Pet]) is read once.
// The answer is remembered where the reader made the schema.
func (s *Schema) Kinds() []*Schema {
	if s == nil || s.kindsMemo == nil {
		return s.computeKinds()
	}
	if k := s.kindsMemo.kinds.Load(); k != nil {
		return *k
	}
	k := s.computeKinds()
	s.kindsMemo.kinds.Store(&k)
	return k
}

// HasKinds reports whether s, or one of its allOf members at any depth,
// is a choice of object kinds: a value of it is made whole (Values.Value
// picks the kind), never field by field from Props.
func (s *Schema) HasKinds() bool {
	found := false
	s.walkAllOf(func(m *Schema) { found = found || m.Kinds() != nil })
	return found
}

func (s *Schema) computeKinds() []*Schema {
	if s == nil || len(s.Properties) > 0 || len(s.AllOf) > 0 {
		return nil
	}
	if len(s.Types) > 1 || len(s.Types) == 1 && s.Types[0] != "object" {
		return nil
	}
	alts := s.OneOf
	switch {
	case len(s.OneOf) > 0 && len(s.AnyOf) > 0:
		return nil // both must hold: no one list of kinds
	case len(alts) == 0:
		alts = s.AnyOf
	}
	if len(alts) == 0 {
		return nil
	}
	for _, m := range alts {
		if m.typeAt(0, false) != "object" {
			return nil
		}
	}
	declared := make([]map[string]*Schema, len(alts))
	for i, m := range alts {
		props, _ := m.DeclaredProps()
		declared[i] = make(map[string]*Schema, len(props))
		for _, p := range props {
			declared[i][p.Name] = p.Schema
		}
	}
	if (s.Discriminator == nil || s.Discriminator.Property == "") && !haveCommonProp(declared) {
		return nil
	}
	if !agreeOnServerFields(declared) {
		return nil
	}
	return alts
}

// agreeOnServerFields reports whether the members, as the properties each
// declares, declare the same fields the server fills (readOnly), each of
// one type: a store assigns them to every record whatever its kind, so a
// createdAt only squares have would be given to circles too (which refuse
// it), and an id an integer in one kind and a string in the other fits
// neither.
func agreeOnServerFields(declared []map[string]*Schema) bool {
	for _, own := range declared {
		for name, ps := range own {
			if ps == nil || !ps.ReadOnly {
				continue
			}
			for _, other := range declared {
				if o := other[name]; o == nil || o.Type() != ps.Type() {
					return false
				}
			}
		}
	}
	return true
}

// haveCommonProp reports whether every member, as the properties each
// declares (its own or its allOf members'), declares one of the same name.
func haveCommonProp(declared []map[string]*Schema) bool {
	for name := range declared[0] {
		if !slices.ContainsFunc(declared[1:], func(d map[string]*Schema) bool { _, ok := d[name]; return !ok }) {
			return true
		}
	}
	return false
}

// Props returns the object's properties in document order, allOf members
// merged in (a later declaration of a name replaces an earlier one), and
// the required set. The properties of a choice of kinds (see Kinds), here
// or among the allOf members, are those of every kind, the first kind's
// declaration of a name kept, and required are those every kind requires:
// what a store of such objects holds, filters and assigns.
func (s *Schema) Props() ([]*Property, map[string]bool) {
	return s.props(true)
}

// DeclaredProps is Props without the kinds' properties: those every value
// has its place for, what a value made of the schema draws from before it
// picks a kind.
func (s *Schema) DeclaredProps() ([]*Property, map[string]bool) {
	return s.props(false)
}

// props walks s and its allOf members, and where withKinds the kinds'
// properties, each kind's without its own choices' (kinds are one level
// deep): a walk that went on through a kind made of its own choice (Cat:
// allOf [$ref: Pet]) would branch at every level.
func (s *Schema) props(withKinds bool) ([]*Property, map[string]bool) {
	var out []*Property
	index := map[string]int{}
	required := map[string]bool{}
	seen := map[*Schema]bool{}
	add := func(p *Property) {
		if i, ok := index[p.Name]; ok {
			out[i] = p
			return
		}
		index[p.Name] = len(out)
		out = append(out, p)
	}
	// extra is the first additionalProperties schema met, the object's own
	// before its allOf members': what a required property no properties
	// declare must match.
	var extra *Schema
	var walk func(*Schema)
	walk = func(s *Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if extra == nil {
			extra = s.AdditionalProperties
		}
		for _, sub := range s.AllOf {
			walk(sub)
		}
		for _, p := range s.Properties {
			add(p)
		}
		for _, r := range s.Required {
			required[r] = true
		}
		if !withKinds {
			return
		}
		kinds := s.Kinds()
		every := map[string]int{}
		for _, k := range kinds {
			props, req := k.props(false)
			for _, p := range props {
				if _, ok := index[p.Name]; !ok {
					add(p)
				}
			}
			for r := range req {
				every[r]++
			}
		}
		for r, n := range every {
			if n == len(kinds) {
				required[r] = true
			}
		}
	}
	walk(s)
	for _, r := range slices.Sorted(maps.Keys(required)) {
		if _, ok := index[r]; !ok {
			// Required, but no property declares it (lago's wallet requires
			// a balance it never describes): any value will do, and one must
			// be there for the object to be valid.
			schema := extra
			if schema == nil {
				schema = undeclared
			}
			out = append(out, &Property{Name: r, Schema: schema})
		}
	}
	return out, required
}

// undeclared is the schema of a required property neither properties nor
// additionalProperties declare: the empty schema, which every value matches. Shared, never changed.
var undeclared = &Schema{}

// LeastInteger is the smallest integer the schema's lower bounds allow
// (minimum, exclusiveMinimum), clamped to int64; ok is false where the
// schema sets no lower bound.
func (s *Schema) LeastInteger() (least int64, ok bool) {
	lo := math.Inf(-1)
	if s.Minimum != nil {
		lo = math.Ceil(*s.Minimum)
	}
	if e := s.ExclusiveMinimum; e != nil {
		lo = math.Max(lo, math.Floor(*e)+1)
	}
	switch {
	case math.IsInf(lo, -1) || math.IsNaN(lo):
		return 0, false
	case lo >= math.MaxInt64: // float64(MaxInt64) is 2^63, out of range
		return math.MaxInt64, true
	case lo <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(lo), true
}

// MostProperties is the fewest properties the object's maxProperties
// allow, its allOf members' included; ok is false where none sets one.
func (s *Schema) MostProperties() (most int64, ok bool) {
	s.walkAllOf(func(m *Schema) {
		if m.MaxProperties != nil && (!ok || *m.MaxProperties < most) {
			most, ok = *m.MaxProperties, true
		}
	})
	return most, ok
}

// LeastProperties is the most properties the object's minProperties ask
// for, its allOf members' included (camara's device: one at least).
func (s *Schema) LeastProperties() (least int64) {
	s.walkAllOf(func(m *Schema) {
		if m.MinProperties != nil && *m.MinProperties > least {
			least = *m.MinProperties
		}
	})
	return least
}

// KeepProperties drops properties of obj until it holds no more than the
// schema's maxProperties allow: those it does not declare first (by name,
// last first), then the optional ones it declares, last declared first.
// Required ones stay: no value could then be valid anyway. A server that
// answers fewer of what a client sent (camara's session: one device
// identifier of those sent) keeps the required and the first declared.
func (s *Schema) KeepProperties(obj map[string]any) {
	most, ok := s.MostProperties()
	if !ok || int64(len(obj)) <= most {
		return
	}
	props, required := s.Props()
	declared := make(map[string]bool, len(props))
	var order []string // the order in which they go
	for _, p := range props {
		declared[p.Name] = true
	}
	undeclared := slices.Sorted(maps.Keys(obj))
	for i := len(undeclared) - 1; i >= 0; i-- {
		if !declared[undeclared[i]] {
			order = append(order, undeclared[i])
		}
	}
	for i := len(props) - 1; i >= 0; i-- {
		if name := props[i].Name; !required[name] {
			order = append(order, name)
		}
	}
	for _, name := range order {
		if int64(len(obj)) <= most {
			return
		}
		delete(obj, name)
	}
}

// walkAllOf calls fn for s and each of its allOf members, at any depth,
// once each.
func (s *Schema) walkAllOf(fn func(*Schema)) {
	if s != nil && len(s.AllOf) == 0 {
		fn(s) // most schemas: no map to make (values call this per object)
		return
	}
	seen := map[*Schema]bool{}
	var walk func(*Schema)
	walk = func(m *Schema) {
		if m == nil || seen[m] {
			return
		}
		seen[m] = true
		fn(m)
		for _, sub := range m.AllOf {
			walk(sub)
		}
	}
	walk(s)
}

// Prop returns the named property's schema (allOf members and kinds
// included), or nil: what Props gives for that name, found without
// building the whole list and its maps (lists ask it of an envelope on
// every request).
func (s *Schema) Prop(name string) *Schema {
	found, _ := s.prop(name, true)
	return found
}

// Requires reports whether every value of the schema holds the named
// property: the schema or an allOf member requires it, or every kind does.
func (s *Schema) Requires(name string) bool {
	_, required := s.prop(name, true)
	return required
}

// prop is Prop, and whether the schema requires the property; the kinds
// are looked into where withKinds, one level deep as in props.
func (s *Schema) prop(name string, withKinds bool) (*Schema, bool) {
	var found, extra *Schema
	declared, required := false, false
	var seen []*Schema
	var walk func(*Schema)
	walk = func(m *Schema) {
		if m == nil || slices.Contains(seen, m) {
			return
		}
		seen = append(seen, m)
		if extra == nil {
			extra = m.AdditionalProperties
		}
		for _, sub := range m.AllOf {
			walk(sub)
		}
		for _, p := range m.Properties {
			if p.Name == name {
				found, declared = p.Schema, true // a later declaration replaces an earlier one
			}
		}
		required = required || slices.Contains(m.Required, name)
		if !withKinds {
			return
		}
		kinds := m.Kinds()
		every := len(kinds) > 0
		for _, k := range kinds {
			ks, kr := k.prop(name, false)
			if !declared && found == nil && ks != nil {
				found = ks // the first kind's; Props keeps it too
			}
			every = every && kr
		}
		required = required || every
	}
	walk(s)
	switch {
	case declared || found != nil || !required:
		return found, required
	case extra != nil:
		return extra, required
	}
	return undeclared, required
}

// schemaReader turns libopenapi's schemas into Schemas, once per schema
// definition: a definition reached through several $refs, or through a
// $ref and its place under components, is one Schema.
type schemaReader struct {
	mu     sync.Mutex
	byNode map[*yaml.Node]*Schema
	// siblings is set for OpenAPI 3.1, where keywords beside a $ref apply
	// too (JSON Schema 2020-12); 3.0 ignores them.
	siblings bool
}

// get is readSchema for concurrent callers.
func (r *schemaReader) get(lib *base.Schema) *Schema {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readSchema(lib)
}

func newSchemaReader() *schemaReader {
	return &schemaReader{byNode: map[*yaml.Node]*Schema{}}
}

// read converts the schema behind proxy; nil for none, or one that cannot
// be built (libopenapi reports those while loading).
func (r *schemaReader) read(proxy *base.SchemaProxy) *Schema {
	if proxy == nil {
		return nil
	}
	s := r.readSchema(proxy.Schema())
	if s != nil && s.Name == "" && proxy.IsReference() {
		ref := proxy.GetReference()
		s.Name = ref[strings.LastIndex(ref, "/")+1:]
	}
	if s != nil && r.siblings && proxy.IsReference() {
		return r.withSiblings(proxy, s)
	}
	return s
}

// withSiblings applies the required list written beside a $ref
// ({$ref: Base, required: [name]}, as 3.1 documents reuse one schema with
// different required properties): the schema is then the referenced one
// in an allOf, with those properties required. Other sibling keywords are
// annotations petctl does not read.
func (r *schemaReader) withSiblings(proxy *base.SchemaProxy, s *Schema) *Schema {
	low := proxy.GoLow()
	if low == nil {
		return s
	}
	n := low.GetReferenceNode() // the mapping that holds the $ref
	if n == nil || n.Kind != yaml.MappingNode {
		return s
	}
	if w, ok := r.byNode[n]; ok {
		return w
	}
	var required []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "required" {
			_ = n.Content[i+1].Decode(&required)
		}
	}
	if len(required) == 0 {
		return s
	}
	w := &Schema{Name: s.Name, AllOf: []*Schema{s}, Required: required, Description: s.Description, lib: s.lib}
	r.byNode[n] = w
	return w
}

// readSchema converts a schema built by libopenapi. Its definition's YAML
// node identifies it: a $ref is resolved to the node it names.
func (r *schemaReader) readSchema(lib *base.Schema) *Schema {
	if lib == nil {
		return nil
	}
	var key *yaml.Node
	if low := lib.GoLow(); low != nil {
		key = low.RootNode
	}
	if s, ok := r.byNode[key]; ok && key != nil {
		return s
	}
	s := &Schema{lib: lib, kindsMemo: &kindsMemo{}} // asked only once the reader is done
	if key != nil {
		r.byNode[key] = s // before the fields, so that a recursive $ref finds it
	}
	r.fill(s, lib)
	return s
}

func (r *schemaReader) fill(s *Schema, lib *base.Schema) {
	s.Title, s.Description, s.Format, s.Pattern = lib.Title, lib.Description, lib.Format, lib.Pattern
	for _, t := range lib.Type {
		if t == "null" {
			s.Nullable = true
			continue
		}
		s.Types = append(s.Types, t)
	}
	s.Nullable = s.Nullable || isTrue(lib.Nullable)
	s.ReadOnly, s.WriteOnly, s.Deprecated = isTrue(lib.ReadOnly), isTrue(lib.WriteOnly), isTrue(lib.Deprecated)
	for _, n := range lib.Enum {
		if v, ok := nodeValue(n); ok && v != nil {
			s.Enum = append(s.Enum, v)
		}
	}
	s.Const, s.HasConst = nodeValue(lib.Const)
	s.Default, s.HasDef = nodeValue(lib.Default)
	s.Example, s.HasExample = nodeValue(lib.Example)
	if !s.HasExample && len(lib.Examples) > 0 {
		s.Example, s.HasExample = nodeValue(lib.Examples[0])
	}
	s.Minimum, s.Maximum, s.MultipleOf = lib.Minimum, lib.Maximum, lib.MultipleOf
	s.MinLength, s.MaxLength = lib.MinLength, lib.MaxLength
	s.MinItems, s.MaxItems, s.UniqueItems = lib.MinItems, lib.MaxItems, isTrue(lib.UniqueItems)
	s.MinProperties, s.MaxProperties = lib.MinProperties, lib.MaxProperties
	if e := lib.ExclusiveMinimum; e != nil {
		if e.IsA() { // OpenAPI 3.0: a flag on minimum
			if e.A && s.Minimum != nil {
				s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
			}
		} else {
			v := e.B
			s.ExclusiveMinimum = &v
		}
	}
	if e := lib.ExclusiveMaximum; e != nil {
		if e.IsA() {
			if e.A && s.Maximum != nil {
				s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
			}
		} else {
			v := e.B
			s.ExclusiveMaximum = &v
		}
	}
	if lib.Properties != nil {
		for p := lib.Properties.First(); p != nil; p = p.Next() {
			s.Properties = append(s.Properties, &Property{Name: p.Key(), Schema: r.read(p.Value())})
		}
	}
	s.Required = append(s.Required, lib.Required...)
	if ap := lib.AdditionalProperties; ap != nil {
		if ap.IsA() {
			s.AdditionalProperties = r.read(ap.A)
		} else {
			s.NoAdditional = !ap.B
		}
	}
	if it := lib.Items; it != nil && it.IsA() {
		s.Items = r.read(it.A)
	}
	for _, group := range []struct {
		from []*base.SchemaProxy
		to   *[]*Schema
	}{{lib.AllOf, &s.AllOf}, {lib.OneOf, &s.OneOf}, {lib.AnyOf, &s.AnyOf}} {
		for _, p := range group.from {
			if sub := r.read(p); sub != nil {
				*group.to = append(*group.to, sub)
			}
		}
	}
	s.Not = r.read(lib.Not)
	if d := lib.Discriminator; d != nil {
		s.Discriminator = &Discriminator{Property: d.PropertyName, Mapping: map[string]string{}}
		if d.Mapping != nil {
			for m := d.Mapping.First(); m != nil; m = m.Next() {
				s.Discriminator.Mapping[m.Key()] = m.Value()
			}
		}
	}
}

func isTrue(b *bool) bool { return b != nil && *b }
