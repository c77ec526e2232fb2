package spec

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/pb33f/libopenapi-validator/openapi_vocabulary"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A valuePlan is a quick acceptance test for JSON values, made from a
// compiled schema (the very schema the validator holds documents to) when
// the schema uses only the keywords it implements: type, enum, const,
// format, the string lengths and pattern, integer bounds, properties,
// required, additionalProperties, the property counts, items, the item
// counts, allOf, anyOf and oneOf. Validating with the general validator
// costs tens of microseconds for a record of the corpus documents, most of
// it allocation; this costs about one.
//
// It only ever accepts: accepts returning true means the compiled schema
// accepts the value; false means "not sure", and the caller asks the
// compiled schema, which decides and says why. Each keyword is checked as
// jsonschema/v6 checks it (the same format and pattern functions, called
// on the same values); where an exact answer would take more than a
// comparison of float64s (a bound that is not an integer, multipleOf), or
// the keyword is one it does not implement, there is no plan at all.
// TestValuePlanAgreesWithSchema holds it to the compiled schema.
type valuePlan struct {
	// never is the false schema.
	never bool
	// kinds are the types the value may have; 0 is any.
	kinds jsonKinds
	// enums are the value lists (an enum, a const) that must each hold
	// the value, as comparable values (see enumValue).
	enums [][]any
	// format is the compiled schema's format function; the validator
	// calls it on every value. ranges are petctl's integer formats'
	// instead (see intFormatRange), checked on the float64 without
	// boxing it for the function.
	format func(any) error
	ranges []intRange
	// Strings: lengths in runes (-1: none) and the pattern.
	minLen, maxLen int
	pattern        jsonschema.Regexp
	// Numbers: bounds that are integers float64 holds exactly.
	bounds []numBound
	// Objects.
	props    map[string]*valuePlan
	required []string
	// additional holds the keys props does not name; nil lets them be.
	additional *valuePlan
	// names holds every key, as a string value.
	names              *valuePlan
	minProps, maxProps int
	// Arrays: prefix holds the first items, one each (a tuple), and
	// items every item after them; nil lets them be.
	prefix             []*valuePlan
	items              *valuePlan
	minItems, maxItems int
	unique             bool

	allOf, anyOf, oneOf []*valuePlan
}

// jsonKinds is a set of JSON types, as the type keyword names them.
type jsonKinds uint8

const (
	kindNull jsonKinds = 1 << iota
	kindBoolean
	kindNumber
	// kindInteger is a number without a fractional part: a value of
	// that kind has kindNumber too.
	kindInteger
	kindString
	kindArray
	kindObject
)

var kindNames = map[string]jsonKinds{
	"null": kindNull, "boolean": kindBoolean, "number": kindNumber, "integer": kindInteger,
	"string": kindString, "array": kindArray, "object": kindObject,
}

// numBound is one of minimum, exclusiveMinimum, maximum, exclusiveMaximum.
type numBound struct {
	at float64
	// below says the value must be below at (a maximum); or else above.
	below, exclusive bool
}

func (b numBound) holds(f float64) bool {
	switch {
	case b.below && b.exclusive:
		return f < b.at
	case b.below:
		return f <= b.at
	case b.exclusive:
		return f > b.at
	}
	return f >= b.at
}

// exactFloat is the largest integer below which every integer is a float64.
const exactFloat = 1 << 53

// maxPlanSchemas bounds the schemas one plan is made of: a document's
// largest schemas inline hundreds; past the bound the validator decides.
const maxPlanSchemas = 5000

// planOf returns the plan of the compiled schema s; nil when s, or a schema
// it uses, is outside the keywords a plan implements.
func planOf(s *jsonschema.Schema) *valuePlan {
	b := planBuilder{made: map[*jsonschema.Schema]*valuePlan{}}
	p, ok := b.plan(s)
	if !ok {
		return nil
	}
	return p
}

// planBuilder makes the plan of each schema once: a recursive schema's plan
// refers to itself.
type planBuilder struct {
	made map[*jsonschema.Schema]*valuePlan
	// composing are the schemas being made that the one in hand is part
	// of by $ref, allOf, anyOf or oneOf alone, without going into a
	// property or an item: meeting one again is a schema made of itself,
	// which the validator refuses as a cycle and a plan would follow
	// forever.
	composing map[*jsonschema.Schema]bool
}

// part returns the plan of s, a part of the schema in hand that checks the
// same value ($ref, allOf, anyOf, oneOf).
func (b *planBuilder) part(s *jsonschema.Schema) (*valuePlan, bool) {
	if b.composing[s] {
		return nil, false
	}
	return b.plan(s)
}

// innerIfAny is inner for a schema that may be absent: nil, true then.
func (b *planBuilder) innerIfAny(s *jsonschema.Schema) (*valuePlan, bool) {
	if s == nil {
		return nil, true
	}
	return b.inner(s)
}

// count is a count keyword's bound (minLength, maxItems, ...); -1 for none.
func count(n *int) int {
	if n == nil {
		return -1
	}
	return *n
}

// inner returns the plan of s, a schema of a value inside the one in hand
// (a property, an item, a key).
func (b *planBuilder) inner(s *jsonschema.Schema) (*valuePlan, bool) {
	outer := b.composing
	b.composing = nil
	defer func() { b.composing = outer }()
	return b.plan(s)
}

func (b *planBuilder) plan(s *jsonschema.Schema) (*valuePlan, bool) {
	if s == nil {
		return nil, false
	}
	if p, ok := b.made[s]; ok {
		return p, true
	}
	if len(b.made) >= maxPlanSchemas {
		return nil, false
	}
	p := &valuePlan{minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
	b.made[s] = p
	if s.Bool != nil {
		p.never = !*s.Bool
		return p, true
	}
	if !planned(s) {
		return nil, false
	}
	if b.composing == nil {
		b.composing = map[*jsonschema.Schema]bool{}
	}
	b.composing[s] = true
	defer delete(b.composing, s)
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			p.kinds |= kindNames[t]
		}
	}
	if s.Enum != nil {
		p.enums = append(p.enums, enumValues(s.Enum.Values))
	}
	if s.Const != nil {
		p.enums = append(p.enums, enumValues([]any{*s.Const}))
	}
	if s.Format != nil {
		// The validator checks "regex" with its own engine, not the function.
		if s.Format.Name == "regex" {
			return nil, false
		}
		if r, ok := intFormatRange(s.Format.Name); ok {
			p.ranges = append(p.ranges, r)
		} else {
			p.format = s.Format.Validate
		}
	}
	if s.Ref != nil {
		ref, ok := b.part(s.Ref)
		if !ok {
			return nil, false
		}
		p.allOf = append(p.allOf, ref)
		// Before draft 2019 a $ref's siblings are ignored, but for the
		// type, enum, const and format, which the validator checks first.
		if s.DraftVersion < 2019 {
			return p, true
		}
	}
	for _, e := range s.Extensions {
		names, ok := vocabularyChecks(e)
		if !ok {
			return nil, false
		}
		if len(names) > 0 {
			// An object holding the property: so much a discriminator checks.
			if p.kinds == 0 {
				p.kinds = kindObject
			} else if p.kinds &= kindObject; p.kinds == 0 {
				p.never = true
			}
			p.required = append(p.required, names...)
		}
	}
	p.minLen, p.maxLen = count(s.MinLength), count(s.MaxLength)
	p.pattern = s.Pattern
	for _, r := range []struct {
		rat              *big.Rat
		below, exclusive bool
	}{{s.Minimum, false, false}, {s.ExclusiveMinimum, false, true}, {s.Maximum, true, false}, {s.ExclusiveMaximum, true, true}} {
		if r.rat == nil {
			continue
		}
		// The validator compares big.Rats; a float64 comparison gives the
		// same answer for a bound float64 holds exactly (see numBound).
		if !r.rat.IsInt() || !r.rat.Num().IsInt64() || !exactInt(r.rat.Num().Int64()) {
			return nil, false
		}
		p.bounds = append(p.bounds, numBound{at: float64(r.rat.Num().Int64()), below: r.below, exclusive: r.exclusive})
	}
	if len(s.Properties) > 0 {
		p.props = make(map[string]*valuePlan, len(s.Properties))
		for name, sub := range s.Properties {
			sp, ok := b.inner(sub)
			if !ok {
				return nil, false
			}
			p.props[name] = sp
		}
	}
	p.required = append(p.required, s.Required...)
	switch a := s.AdditionalProperties.(type) {
	case bool:
		if !a {
			p.additional = &valuePlan{never: true}
		}
	case *jsonschema.Schema:
		ap, ok := b.inner(a)
		if !ok {
			return nil, false
		}
		p.additional = ap
	}
	var ok bool
	if p.names, ok = b.innerIfAny(s.PropertyNames); !ok {
		return nil, false
	}
	p.minProps, p.maxProps = count(s.MinProperties), count(s.MaxProperties)
	// Draft 2020's tuples (prefixItems, then items for the rest); the
	// earlier drafts' (a list of items, additionalItems) are left to the
	// validator in planned, which libopenapi's model cannot hold anyway.
	items := s.Items2020
	if s.DraftVersion < 2020 {
		items, _ = s.Items.(*jsonschema.Schema)
	}
	for _, sub := range s.PrefixItems {
		sp, ok := b.inner(sub)
		if !ok {
			return nil, false
		}
		p.prefix = append(p.prefix, sp)
	}
	if p.items, ok = b.innerIfAny(items); !ok {
		return nil, false
	}
	p.minItems, p.maxItems = count(s.MinItems), count(s.MaxItems)
	p.unique = s.UniqueItems
	for _, c := range []struct {
		from []*jsonschema.Schema
		to   *[]*valuePlan
	}{{s.AllOf, &p.allOf}, {s.AnyOf, &p.anyOf}, {s.OneOf, &p.oneOf}} {
		for _, sub := range c.from {
			sp, ok := b.part(sub)
			if !ok {
				return nil, false
			}
			*c.to = append(*c.to, sp)
		}
	}
	return p, true
}

// planned reports whether s uses none of the keywords a plan leaves to the
// validator.
func planned(s *jsonschema.Schema) bool {
	if _, tuple := s.Items.([]*jsonschema.Schema); tuple {
		return false
	}
	return s.RecursiveRef == nil && s.DynamicRef == nil && s.Not == nil &&
		s.If == nil && s.Then == nil && s.Else == nil &&
		len(s.PatternProperties) == 0 &&
		len(s.Dependencies) == 0 && len(s.DependentRequired) == 0 && len(s.DependentSchemas) == 0 &&
		s.UnevaluatedProperties == nil && s.UnevaluatedItems == nil &&
		s.Contains == nil && s.AdditionalItems == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil &&
		s.MultipleOf == nil
}

// vocabularyChecks returns what e, a keyword of libopenapi-validator's
// OpenAPI vocabulary, checks: nothing for example and deprecated, which are
// annotations; for a discriminator, that the value is an object holding
// its property (the names returned). The extensions' types are unexported:
// they are known by the values the vocabulary's own compilers make, and a
// combination by reading its list; false for any other (coercion), or a
// layout this does not know, which leaves the schema to the validator.
func vocabularyChecks(e jsonschema.SchemaExt) (discriminators []string, ok bool) {
	known := vocabulary()
	var one func(v reflect.Value) bool
	one = func(v reflect.Value) bool {
		t := v.Type()
		switch {
		case known.inert[t]:
			return true
		case t == known.discriminator:
			name := v.Elem().FieldByName("propertyName")
			if !name.IsValid() || name.Kind() != reflect.String {
				return false
			}
			// An empty name checks nothing (the extension looks for none).
			if name.String() != "" {
				discriminators = append(discriminators, name.String())
			}
			return true
		case t == known.combined:
			list := v.Elem().FieldByName("extensions")
			if !list.IsValid() || list.Kind() != reflect.Slice {
				return false
			}
			for i := range list.Len() {
				ext := list.Index(i)
				if ext.Kind() != reflect.Interface || ext.IsNil() || ext.Elem().Kind() != reflect.Pointer || !one(ext.Elem()) {
					return false
				}
			}
			return true
		}
		return false
	}
	v := reflect.ValueOf(e)
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	return discriminators, one(v)
}

// vocabulary is the types of the OpenAPI vocabulary's extensions.
var vocabulary = sync.OnceValue(func() (k struct {
	inert                   map[reflect.Type]bool
	discriminator, combined reflect.Type
}) {
	k.inert = map[reflect.Type]bool{}
	v31 := openapi_vocabulary.Version31
	example, _ := openapi_vocabulary.CompileExample(nil, map[string]any{"example": 1}, v31)
	deprecated, _ := openapi_vocabulary.CompileDeprecated(nil, map[string]any{"deprecated": true}, v31)
	for _, e := range []jsonschema.SchemaExt{example, deprecated} {
		if e != nil {
			k.inert[reflect.TypeOf(e)] = true
		}
	}
	if d, _ := openapi_vocabulary.CompileDiscriminator(nil, map[string]any{"discriminator": map[string]any{"propertyName": "kind"}}, v31); d != nil {
		k.discriminator = reflect.TypeOf(d)
	}
	if c, _ := openapi_vocabulary.NewOpenAPIVocabulary(v31).Compile(nil, map[string]any{"example": 1}); c != nil {
		k.combined = reflect.TypeOf(c)
	}
	return k
})

// exactInt reports whether float64 holds i, and every integer from 0 to i.
func exactInt(i int64) bool { return -exactFloat < i && i < exactFloat }

// enumValues are the values of an enum or const a plan can compare
// exactly: strings, booleans, null, and integers float64 holds exactly (as
// float64). Other values (fractions, objects, arrays) are left out: a value
// equal to one of them is "not sure", and the validator decides.
func enumValues(vals []any) []any {
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		switch x := v.(type) {
		case string, bool, nil:
			out = append(out, x)
		case json.Number:
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil && exactInt(i) {
				out = append(out, float64(i))
			}
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < exactFloat {
				out = append(out, x)
			}
		}
	}
	return out
}

// classify returns v's JSON type and, for a number, the float64 the
// validator sees (encoding/json's decoding of it); false for a value the
// validator is never given (a number past float64's range).
func classify(v any) (jsonKinds, float64, bool) {
	switch x := v.(type) {
	case nil:
		return kindNull, 0, true
	case bool:
		return kindBoolean, 0, true
	case string:
		return kindString, 0, true
	case map[string]any:
		return kindObject, 0, true
	case []any:
		return kindArray, 0, true
	case json.Number:
		f, ok := numberValue(x)
		return numberKinds(f), f, ok
	case float64:
		return numberKinds(x), x, !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	return 0, 0, false
}

// inEnum reports whether list holds v, whose kind and number are k and f.
func inEnum(list []any, v any, k jsonKinds, f float64) bool {
	if k&kindNumber == 0 {
		return slices.Contains(list, v)
	}
	for _, e := range list {
		if n, ok := e.(float64); ok && n == f {
			return true
		}
	}
	return false
}

// numberValue is n as encoding/json decodes it into any.
func numberValue(n json.Number) (float64, bool) {
	// An integer within int64 converts to the float64 ParseFloat reads it
	// as (both round to nearest even), faster.
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return float64(i), true
	}
	// ParseFloat also reads "Inf" and "NaN", which are not JSON.
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// numberKinds: the validator's integer test is big.Rat on fmt.Sprint of the
// float64, which for a finite float64 holds exactly when it has no
// fractional part.
func numberKinds(f float64) jsonKinds {
	if f == math.Trunc(f) {
		return kindNumber | kindInteger
	}
	return kindNumber
}

// accepts reports whether the compiled schema surely accepts v, a value as
// encoding/json decodes it (numbers as float64 or json.Number).
func (p *valuePlan) accepts(v any) bool {
	if p == nil || p.never {
		return false
	}
	kind, f, ok := classify(v)
	if !ok || p.kinds != 0 && p.kinds&kind == 0 {
		return false
	}
	for _, list := range p.enums {
		if !inEnum(list, v, kind, f) {
			return false
		}
	}
	if p.format != nil && !p.formatted(v, kind, f) {
		return false
	}
	if kind&kindNumber != 0 {
		for _, r := range p.ranges {
			if !r.holds(f) {
				return false
			}
		}
		for _, b := range p.bounds {
			if !b.holds(f) {
				return false
			}
		}
	}
	switch x := v.(type) {
	case string:
		if p.minLen >= 0 || p.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if p.minLen >= 0 && n < p.minLen || p.maxLen >= 0 && n > p.maxLen {
				return false
			}
		}
		if p.pattern != nil && !p.pattern.MatchString(x) {
			return false
		}
	case map[string]any:
		if !p.acceptsObject(x) {
			return false
		}
	case []any:
		if p.minItems >= 0 && len(x) < p.minItems || p.maxItems >= 0 && len(x) > p.maxItems {
			return false
		}
		for i, e := range x {
			if i < len(p.prefix) {
				if !p.prefix[i].accepts(e) {
					return false
				}
			} else if p.items != nil && !p.items.accepts(e) {
				return false
			}
		}
		if p.unique && !distinct(x) {
			return false
		}
	}
	for _, a := range p.allOf {
		if !a.accepts(v) {
			return false
		}
	}
	if len(p.anyOf) > 0 && !slices.ContainsFunc(p.anyOf, func(a *valuePlan) bool { return a.accepts(v) }) {
		return false
	}
	if len(p.oneOf) > 0 {
		// Exactly one: the one that accepts, every other surely refusing.
		matched := -1
		for i, a := range p.oneOf {
			if a.accepts(v) {
				if matched >= 0 {
					return false
				}
				matched = i
			} else if !a.refuses(v) {
				return false
			}
		}
		return matched >= 0
	}
	return true
}

// formatted reports whether p's format function accepts v as the
// validator gives it v: a number as a float64.
func (p *valuePlan) formatted(v any, kind jsonKinds, f float64) bool {
	switch {
	case kind&(kindObject|kindArray) != 0:
		return false // their numbers are not the validator's
	case kind&kindNumber != 0:
		if _, isFloat := v.(float64); !isFloat {
			v = f
		}
	}
	return p.format(v) == nil
}

func (p *valuePlan) acceptsObject(obj map[string]any) bool {
	if p.minProps >= 0 && len(obj) < p.minProps || p.maxProps >= 0 && len(obj) > p.maxProps {
		return false
	}
	for _, r := range p.required {
		if _, ok := obj[r]; !ok {
			return false
		}
	}
	for k, e := range obj {
		sub, declared := p.props[k]
		if !declared {
			sub = p.additional
		}
		if sub != nil && !sub.accepts(e) || p.names != nil && !p.names.accepts(k) {
			return false
		}
	}
	return true
}

// maxDistinct bounds the items distinct compares, each with each.
const maxDistinct = 128

// distinct reports whether the items surely differ, as uniqueItems wants:
// scalars compared as the validator compares them (numbers by their
// float64, which for two float64s is its big.Rat comparison of their
// shortest forms); false, not sure, for an object or array among them.
func distinct(items []any) bool {
	if len(items) > maxDistinct {
		return false
	}
	type scalar struct {
		kind jsonKinds
		f    float64
		v    any
	}
	seen := make([]scalar, 0, len(items))
	for _, e := range items {
		kind, f, ok := classify(e)
		if !ok || kind&(kindObject|kindArray) != 0 {
			return false
		}
		c := scalar{kind: kind &^ kindInteger, f: f}
		if kind&kindNumber == 0 {
			c.v = e
		}
		if slices.Contains(seen, c) {
			return false
		}
		seen = append(seen, c)
	}
	return true
}

// refuses reports whether the compiled schema surely refuses v: for the
// type, a string enum, a missing required property, or a property or
// allOf member that surely refuses. It is what tells the other branches of
// a oneOf out, most often by a discriminating property.
func (p *valuePlan) refuses(v any) bool {
	if p == nil {
		return false
	}
	if p.never {
		return true
	}
	kind, _, ok := classify(v)
	if !ok {
		return false
	}
	if p.kinds != 0 && p.kinds&kind == 0 {
		return true
	}
	if kind&(kindString|kindBoolean|kindNull) != 0 {
		// Compared exactly: enumValues keeps every value of these types.
		for _, list := range p.enums {
			if !slices.Contains(list, v) {
				return true
			}
		}
	}
	if obj, isObj := v.(map[string]any); isObj {
		for _, r := range p.required {
			if _, ok := obj[r]; !ok {
				return true
			}
		}
		for k, e := range obj {
			sub, declared := p.props[k]
			if !declared {
				sub = p.additional
			}
			if sub.refuses(e) {
				return true
			}
		}
	}
	return slices.ContainsFunc(p.allOf, func(a *valuePlan) bool { return a.refuses(v) })
}

// ObjectPlan is a record's plan by field position: the record's fields are
// values by position (names[i] naming position i, as a collection holds
// them), and the plan checks them without making the object. It exists for
// an object schema whose plan checks nothing of the object as a whole but
// its properties and their counts (allOf members of that shape included),
// which is how most item schemas are. Validating a million fixture
// records with the general validator takes seconds; this takes a few
// hundred milliseconds.
type ObjectPlan struct {
	// fields are the plans each field's value must satisfy, by position.
	fields [][]*valuePlan
	// required are the positions that must be present.
	required           []int
	minProps, maxProps int
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

// Plan returns the quick test for records given as values by position,
// names[i] naming position i; nil when the schema has no plan of that
// shape (Validate still uses its plan on the whole record). For a schema
// not compiled yet (LazyResponseSchema) that is decided on the plan's
// first Accepts, which until then costs nothing.
func (rs *ResponseSchema) Plan(names []string) *ObjectPlan {
	if rs == nil {
		return nil
	}
	if rs.compile != nil {
		names = slices.Clone(names)
		return &ObjectPlan{lazy: &lazyRecordPlan{build: func() *ObjectPlan { return rs.recordPlan(names) }}}
	}
	return rs.recordPlan(names)
}

// recordPlan is Plan once the schema is compiled.
func (rs *ResponseSchema) recordPlan(names []string) *ObjectPlan {
	if rs.ready() != nil || rs.plan == nil {
		return nil
	}
	pos := make(map[string]int, len(names))
	for i, n := range names {
		pos[n] = i
	}
	op := &ObjectPlan{fields: make([][]*valuePlan, len(names)), minProps: -1, maxProps: -1}
	if !op.add(rs.plan, names, pos, 0) {
		return nil
	}
	return op
}

// maxAllOfDepth bounds the nesting of allOf a record plan follows.
const maxAllOfDepth = 16

// add makes the object schema p's checks the plan's: false when p checks
// more than its properties, or requires one no record can hold.
func (op *ObjectPlan) add(p *valuePlan, names []string, pos map[string]int, depth int) bool {
	if depth > maxAllOfDepth || p.never || len(p.enums) > 0 || p.format != nil || len(p.anyOf)+len(p.oneOf) > 0 ||
		p.kinds != 0 && p.kinds&kindObject == 0 {
		return false
	}
	for _, r := range p.required {
		i, known := pos[r]
		if !known {
			return false
		}
		op.required = append(op.required, i)
	}
	if p.minProps >= 0 {
		op.minProps = max(op.minProps, p.minProps)
	}
	if p.maxProps >= 0 && (op.maxProps < 0 || p.maxProps < op.maxProps) {
		op.maxProps = p.maxProps
	}
	for i, n := range names {
		sub, declared := p.props[n]
		if !declared {
			sub = p.additional
		}
		if sub != nil {
			op.fields[i] = append(op.fields[i], sub)
		}
		if p.names != nil && !p.names.accepts(n) {
			op.fields[i] = append(op.fields[i], &valuePlan{never: true}) // present, not sure
		}
	}
	for _, a := range p.allOf {
		if !op.add(a, names, pos, depth+1) {
			return false
		}
	}
	return true
}

// Accepts reports whether the record whose field values are vals (present
// where has is set) surely matches the schema. Values are as encoding/json
// decodes them, numbers as float64 or json.Number (as decodeStrict gives
// them).
func (op *ObjectPlan) Accepts(vals []any, has []bool) bool {
	if op != nil && op.lazy != nil {
		op = op.lazy.get()
	}
	if op == nil || len(vals) != len(op.fields) || len(has) != len(op.fields) {
		return false
	}
	for _, i := range op.required {
		if !has[i] {
			return false
		}
	}
	if op.minProps >= 0 || op.maxProps >= 0 {
		n := 0
		for _, h := range has {
			if h {
				n++
			}
		}
		if op.minProps >= 0 && n < op.minProps || op.maxProps >= 0 && n > op.maxProps {
			return false
		}
	}
	for i, plans := range op.fields {
		if !has[i] {
			continue
		}
		for _, p := range plans {
			if !p.accepts(vals[i]) {
				return false
			}
		}
	}
	return true
}
