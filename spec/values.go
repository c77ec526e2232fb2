package spec

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Direction says which way a generated value travels: readOnly properties
// are left out of what a client sends, writeOnly ones out of what a server
// answers (OpenAPI 3.1 §4.8.24.1).
type Direction int

// The directions a value can travel.
const (
	InRecord   Direction = iota // every property: a record as the server keeps it
	InRequest                   // sent by a client: no readOnly properties
	InResponse                  // sent by a server: no writeOnly properties
)

// Values makes values that satisfy schemas. It is the one generator of
// petctl: server-assigned fields and generated records in the engine,
// request bodies in the conformance suite, the bodies of errors, and the
// examples of the reference page all come from it. The zero Values makes
// the simplest valid value, the same every time.
type Values struct {
	// Rand draws the choices; nil makes the minimal value: required
	// properties only, the first enum value, the lowest bound.
	Rand *rand.Rand
	// Seq makes values differ between records made from one Values
	// (strings, uuids and emails carry it).
	Seq int64
	// Now is the instant date-time and date values show.
	Now       time.Time
	Direction Direction
	// Optional is the share of optional properties given a value when Rand
	// is set (0: none).
	Optional float64
	// Text, when set, makes the strings whose schema leaves them open (no
	// format, pattern or enum): a caller that needs letters only, say.
	Text func(name string, seq int64) string
}

// maxDepth bounds how deep a value nests: recursive schemas are finite
// graphs. Below drawDepth a drawn value is minimal (no optional property,
// the fewest items), so that it ends well before maxDepth.
const (
	maxDepth  = 16
	drawDepth = 4
)

// Value returns a value for schema s, with numbers as json.Number; name is
// the property it is for ("" for none), a hint for strings.
func (g *Values) Value(s *Schema, name string) any {
	return g.value(s, name, 0)
}

func (g *Values) value(s *Schema, name string, depth int) any {
	if s == nil || depth > maxDepth {
		return nil
	}
	switch {
	case s.HasConst:
		return numbers(s.Const)
	case len(s.Enum) > 0:
		if g.Rand != nil {
			return numbers(s.Enum[g.Rand.IntN(len(s.Enum))])
		}
		return numbers(s.Enum[0])
	}
	// An enum or const an allOf member holds binds the whole value: a
	// property is often written `allOf: [$ref: Status]` to carry its own
	// description beside the shared enum.
	if m := s.allOfBound(); m != nil {
		return g.value(m, name, depth+1)
	}
	if alts := append(append([]*Schema{}, s.OneOf...), s.AnyOf...); len(alts) > 0 && len(s.Properties) == 0 {
		return g.alternative(s, alts, name, depth)
	}
	switch t := s.Type(); t {
	case "object":
		return g.object(s, depth)
	case "array":
		return g.array(s, name, depth)
	case "string":
		return g.str(s, name)
	case "integer", "number":
		return g.number(s, t == "integer")
	case "boolean":
		return g.Rand != nil && g.Rand.IntN(2) == 1
	case "":
		if len(s.Types) > 1 {
			one := *s
			one.Types = s.Types[:1]
			one.kindsMemo = nil // s's answer, of another type
			return g.value(&one, name, depth)
		}
		if s.Nullable {
			return nil
		}
		for _, sub := range s.AllOf {
			if sub.Type() != "" {
				return g.value(sub, name, depth+1)
			}
		}
		return map[string]any{} // any JSON value will do
	}
	return nil
}

// allOfBound is the first allOf member of s, at any depth, that holds a
// const or an enum, or nil.
func (s *Schema) allOfBound() *Schema {
	if len(s.AllOf) == 0 {
		return nil
	}
	var found *Schema
	s.walkAllOf(func(m *Schema) {
		if found == nil && m != s && (m.HasConst || len(m.Enum) > 0) {
			found = m
		}
	})
	return found
}

// alternative picks a oneOf/anyOf member; with a discriminator, its
// property is set to the value that selects the member.
func (g *Values) alternative(s *Schema, alts []*Schema, name string, depth int) any {
	i := 0
	if g.Rand != nil {
		i = g.Rand.IntN(len(alts))
	}
	v := g.value(alts[i], name, depth+1)
	d := s.Discriminator
	obj, ok := v.(map[string]any)
	if d == nil || d.Property == "" || !ok {
		return v
	}
	value := alts[i].Name
	for k, ref := range d.Mapping {
		if alts[i].Name != "" && strings.HasSuffix(ref, "/"+alts[i].Name) {
			value = k
			break
		}
	}
	if p := alts[i].Prop(d.Property); p != nil && len(p.Enum) > 0 {
		value = fmt.Sprint(p.Enum[0])
	}
	if value != "" {
		obj[d.Property] = value
	}
	return obj
}

// closedParts are the parts of s's allOf (s among them) that allow no
// property but their own (additionalProperties: false), where s has an
// allOf: each such part refuses the properties the others declare. The
// .NET generators write ApiException as allOf Exception and its own part,
// both closed, so no object with a property of either passes both.
func closedParts(s *Schema) []*Schema {
	if len(s.AllOf) == 0 {
		return nil
	}
	var out []*Schema
	s.walkAllOf(func(m *Schema) {
		if m.NoAdditional {
			out = append(out, m)
		}
	})
	return out
}

// closedAllow reports whether every closed part declares the property
// itself: an optional property only such a value may have.
func closedAllow(closed []*Schema, name string) bool {
	for _, m := range closed {
		if !slices.ContainsFunc(m.Properties, func(p *Property) bool { return p.Name == name }) {
			return false
		}
	}
	return true
}

func (g *Values) object(s *Schema, depth int) any {
	props, required := s.DeclaredProps() // a kind's, where s is a choice of them, once it is picked
	closed := closedParts(s)
	obj := map[string]any{}
	for _, p := range props {
		if !g.travels(p.Schema) || !required[p.Name] && !closedAllow(closed, p.Name) {
			continue
		}
		want := required[p.Name]
		if !want && g.Rand != nil && g.Optional > 0 && depth < drawDepth {
			want = g.Rand.Float64() < g.Optional
		}
		if want {
			obj[p.Name] = g.value(p.Schema, p.Name, depth+1)
		}
	}
	// A oneOf or anyOf among the allOf members (page or offset metadata
	// beside the hits) holds only once one of its alternatives does: one
	// is drawn, and its fields join the object's.
	for _, c := range choices(s) {
		alt, _ := g.alternative(c, append(append([]*Schema{}, c.OneOf...), c.AnyOf...), "", depth).(map[string]any)
		for k, v := range alt {
			if _, ok := obj[k]; !ok {
				obj[k] = v
			}
		}
	}
	// minProperties: the optional ones next, in document order.
	least := s.LeastProperties()
	for _, p := range props {
		if int64(len(obj)) >= least {
			break
		}
		if _, ok := obj[p.Name]; !ok && g.travels(p.Schema) && closedAllow(closed, p.Name) {
			obj[p.Name] = g.value(p.Schema, p.Name, depth+1)
		}
	}
	s.KeepProperties(obj) // maxProperties: the optional ones drawn beyond it go
	return obj
}

// choices are s and its allOf members, at any depth, that hold a oneOf or
// anyOf: Props merges their properties, not their alternatives.
func choices(s *Schema) []*Schema {
	var out []*Schema
	s.walkAllOf(func(m *Schema) {
		if len(m.OneOf)+len(m.AnyOf) > 0 {
			out = append(out, m)
		}
	})
	return out
}

// travels reports whether a property goes in the value's direction.
func (g *Values) travels(p *Schema) bool {
	switch {
	case p == nil:
		return true
	case g.Direction == InRequest:
		return !p.ReadOnly
	case g.Direction == InResponse:
		return !p.WriteOnly
	}
	return true
}

func (g *Values) array(s *Schema, name string, depth int) any {
	n := 0
	if g.Rand != nil && depth < drawDepth {
		n = 1 + g.Rand.IntN(3)
	}
	if s.MinItems != nil && int64(n) < *s.MinItems {
		n = int(*s.MinItems)
	}
	if s.MaxItems != nil && int64(n) > *s.MaxItems {
		n = int(*s.MaxItems)
	}
	out := make([]any, 0, n)
	taken := func(v any) bool { return slices.ContainsFunc(out, func(o any) bool { return reflect.DeepEqual(o, v) }) }
	seq, text := g.Seq, g.Text
	defer func() { g.Seq, g.Text = seq, text }()
	for i := 0; i < n; i++ {
		g.Seq = seq*31 + int64(i) // unique items differ
		v := g.value(s.Items, name, depth+1)
		if s.UniqueItems && taken(v) {
			// Text is one per record (conform's), so the items after the
			// first make their own, and other draws are tried.
			g.Text = nil
			for try := int64(1); try <= 4 && taken(v); try++ {
				g.Seq = (seq*31+int64(i))*7919 + try
				v = g.value(s.Items, name, depth+1)
			}
			g.Text = text
			if taken(v) && (s.MinItems == nil || int64(len(out)) >= *s.MinItems) {
				break // no other item to make (an enum of fewer values): fewer items
			}
		}
		out = append(out, v)
	}
	return out
}

// epoch is where generated instants start when Now is zero, so values do
// not depend on the clock.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var sampleWords = []string{
	"amber", "basil", "cedar", "dune", "ember", "fern", "ginger", "hazel", "iris", "juniper",
	"kiwi", "lumen", "maple", "nutmeg", "olive", "pepper", "quill", "rowan", "sage", "thyme",
	"umber", "violet", "willow", "xenia", "yarrow", "zephyr",
}

func (g *Values) str(s *Schema, name string) string {
	now := g.Now
	if now.IsZero() {
		now = epoch
	}
	if g.Rand != nil {
		now = now.Add(-time.Duration(g.Rand.Int64N(365*24*3600)) * time.Second)
	}
	var v string
	switch s.Format {
	case "date-time":
		v = now.UTC().Format(time.RFC3339)
	case "date":
		v = now.UTC().Format(time.DateOnly)
	case "time":
		v = now.UTC().Format("15:04:05Z")
	case "duration":
		v = "P1D"
	case "uuid":
		v = g.uuid()
	case "email", "idn-email":
		v = fmt.Sprintf("user%d@example.com", g.Seq)
	case "uri", "url", "iri":
		v = fmt.Sprintf("https://example.com/%d", g.Seq)
	case "uri-reference", "iri-reference":
		v = fmt.Sprintf("/items/%d", g.Seq)
	case "hostname", "idn-hostname":
		v = fmt.Sprintf("host%d.example.com", g.Seq)
	case "ipv4":
		v = fmt.Sprintf("192.0.2.%d", g.Seq%250+1)
	case "ipv6":
		v = fmt.Sprintf("2001:db8::%x", g.Seq%0xffff+1)
	case "byte":
		v = base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("petctl %d", g.Seq)))
	case "int64", "int32":
		v = strconv.FormatInt(g.Seq, 10)
	}
	if v == "" && s.Pattern != "" {
		if p, ok := patternString(s.Pattern, g.Seq, g.Rand, s.MinLength, s.MaxLength); ok {
			return p
		}
	}
	if v == "" {
		switch {
		case g.Text != nil:
			v = g.Text(name, g.Seq)
		case g.Rand != nil:
			v = sampleWords[g.Rand.IntN(len(sampleWords))] + " " + sampleWords[g.Rand.IntN(len(sampleWords))]
		default:
			v = strconv.FormatInt(g.Seq, 10)
		}
	}
	return fitLength(v, s.MinLength, s.MaxLength)
}

// fitLength pads or cuts v to the bounds, counted in characters as JSON
// Schema counts them.
func fitLength(v string, minLen, maxLen *int64) string {
	if minLen == nil && maxLen == nil && utf8.ValidString(v) {
		// No bounds, and nothing the rune conversion would replace: v as
		// it is, without two copies (a million generated records).
		return v
	}
	r := []rune(v)
	if minLen != nil && int64(len(r)) < *minLen {
		r = append(r, []rune(strings.Repeat("x", int(*minLen)-len(r)))...)
	}
	if maxLen != nil && int64(len(r)) > *maxLen {
		r = r[:*maxLen]
	}
	return string(r)
}

// uuid is a version 4 UUID: random with Rand, else made of Seq.
func (g *Values) uuid() string {
	var hi, lo uint64
	if g.Rand != nil {
		hi, lo = g.Rand.Uint64(), g.Rand.Uint64()
	} else {
		lo = uint64(g.Seq)
	}
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // variant 10
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

func (g *Values) number(s *Schema, integer bool) json.Number {
	lo, hi := math.Inf(-1), math.Inf(1)
	if s.Minimum != nil {
		lo = *s.Minimum
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	}
	step := 0.0
	if integer {
		step = 1
	}
	if s.ExclusiveMinimum != nil {
		lo = math.Max(lo, *s.ExclusiveMinimum+math.Max(step, 1e-9))
	}
	if s.ExclusiveMaximum != nil {
		hi = math.Min(hi, *s.ExclusiveMaximum-math.Max(step, 1e-9))
	}
	if s.Format == "int32" {
		lo, hi = math.Max(lo, math.MinInt32), math.Min(hi, math.MaxInt32)
	}
	var v float64
	switch {
	case g.Rand != nil && !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
		v = lo + g.Rand.Float64()*(hi-lo)
	case g.Rand != nil:
		v = math.Max(lo, math.Min(hi, float64(g.Rand.IntN(1000))))
	default:
		v = math.Max(lo, math.Min(hi, 0))
	}
	if integer {
		v = math.Ceil(v)
		if v > hi {
			v = math.Floor(hi)
		}
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
	}
	if integer {
		return json.Number(strconv.FormatInt(int64(v), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

// numbers gives the numbers of a decoded document as json.Number, as every
// generated value has them.
func numbers(v any) any {
	switch t := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(t, 10))
	case float64:
		return json.Number(strconv.FormatFloat(t, 'g', -1, 64))
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = numbers(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = numbers(e)
		}
		return out
	}
	return v
}

// patternString makes a string that matches pattern, within the length
// bounds, from the pattern's syntax tree: literals, classes, repeats and
// alternations are walked, the first alternative and the fewest repeats
// taken (others, with rng). Patterns Go cannot parse (ECMA lookaheads) are
// tried against a few candidates instead. ok is false when nothing fits.
func patternString(pattern string, seq int64, rng *rand.Rand, minLen, maxLen *int64) (string, bool) {
	re, err := compilePattern(pattern)
	if err != nil {
		return "", false
	}
	fits := func(v string) bool {
		n := int64(len([]rune(v)))
		return re.MatchString(v) && (minLen == nil || n >= *minLen) && (maxLen == nil || n <= *maxLen)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if t, ok := javaClasses(pattern); err != nil && ok {
		tree, err = syntax.Parse(t, syntax.Perl) // as compilePattern reads it
	}
	if err == nil {
		b := &patternBuilder{rng: rng, seq: seq}
		for extra := 0; extra < 4; extra++ {
			b.extra, b.rest = extra, seq
			var sb strings.Builder
			b.write(&sb, tree.Simplify())
			if v := sb.String(); fits(v) {
				return v, true
			}
		}
	}
	for _, v := range []string{strconv.FormatInt(seq, 10), "a", "petctl", "item" + strconv.FormatInt(seq, 10), "A1", "x"} {
		if v = fitLength(v, minLen, maxLen); fits(v) {
			return v, true
		}
	}
	return "", false
}

// patternBuilder writes one string a regexp syntax tree matches.
type patternBuilder struct {
	rng   *rand.Rand
	seq   int64
	extra int // repeats beyond the minimum, to reach a minimum length
	// rest is what is left of seq to write into the value's characters.
	rest int64
}

func (b *patternBuilder) write(sb *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			sb.WriteRune(r)
		}
	case syntax.OpCharClass:
		sb.WriteRune(b.pick(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte('a')
	case syntax.OpCapture:
		b.write(sb, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			b.write(sb, sub)
		}
	case syntax.OpAlternate:
		i := 0
		if b.rng != nil {
			i = b.rng.IntN(len(re.Sub))
		}
		b.write(sb, re.Sub[i])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		n := lo + b.extra
		if hi >= 0 && n > hi {
			n = hi
		}
		for i := 0; i < n; i++ {
			b.write(sb, re.Sub[0])
		}
	}
}

// pick chooses a character of a class (pairs of lo, hi): a letter or digit
// where the class has one, so that values stay readable.
func (b *patternBuilder) pick(ranges []rune) rune {
	if len(ranges) < 2 {
		return 'a'
	}
	if b.rng == nil && b.rest > 0 {
		// Seq, written in the class's readable characters, makes values
		// differ from one record to the next (ids made from a pattern).
		var readable []rune
		for i := 0; i+1 < len(ranges) && len(readable) < 64; i += 2 {
			for r := ranges[i]; r <= ranges[i+1] && r-ranges[i] < 128 && len(readable) < 64; r++ {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					readable = append(readable, r)
				}
			}
		}
		if n := int64(len(readable)); n > 1 {
			r := readable[b.rest%n]
			b.rest /= n
			return r
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r-ranges[i] < 128; r++ {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				if b.rng != nil && ranges[i+1]-r > 0 {
					span := min(int(ranges[i+1]-r), 25)
					return r + rune(b.rng.IntN(span+1))
				}
				return r
			}
		}
	}
	return ranges[0]
}
