package store

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/petctl/petctl/spec"
	"go.yaml.in/yaml/v4"
)

// exampleValue makes a value that satisfies schema for a field the server
// assigns (a creation time, a version): the format decides where it can,
// then the enum, then the bounds. seq makes values differ between records.
func exampleValue(s *base.Schema, seq int64, now time.Time) any {
	if s == nil {
		return nil
	}
	for _, n := range s.Enum {
		var v any
		if n == nil || n.Tag == "!!null" || n.Decode(&v) != nil {
			continue
		}
		switch t := v.(type) { // numbers are json.Number everywhere in a record
		case int:
			return json.Number(strconv.Itoa(t))
		case float64:
			return json.Number(strconv.FormatFloat(t, 'g', -1, 64))
		}
		return v
	}
	switch spec.SchemaType(s) {
	case "string":
		switch s.Format {
		case "date-time":
			return now.UTC().Format(time.RFC3339)
		case "date":
			return now.UTC().Format(time.DateOnly)
		case "uuid":
			return seqUUID(seq)
		case "email":
			return fmt.Sprintf("user%d@example.com", seq)
		case "uri", "url":
			return fmt.Sprintf("https://example.com/%d", seq)
		}
		v := strconv.FormatInt(seq, 10)
		if s.MinLength != nil && int64(len(v)) < *s.MinLength {
			v += strings.Repeat("x", int(*s.MinLength)-len(v))
		}
		return v
	case "integer":
		if s.Minimum != nil {
			return json.Number(strconv.FormatInt(int64(*s.Minimum), 10))
		}
		return json.Number("0")
	case "number":
		if s.Minimum != nil {
			return json.Number(strconv.FormatFloat(*s.Minimum, 'g', -1, 64))
		}
		return json.Number("0")
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		obj := map[string]any{}
		names, props, required := spec.ObjectProperties(s)
		for _, n := range names {
			if required[n] {
				obj[n] = exampleValue(props[n], seq, now)
			}
		}
		return obj
	}
	return nil
}

// Generate makes a fixture file of n synthetic records per collection from
// the item schemas: valid (Load validates them like any fixture), and the
// same for the same seed. Ids are left out, so they follow the fixtures'
// ids when the file is loaded after them.
func (s *Store) Generate(n int, seed int64) (FixtureFile, error) {
	buf := []byte{'{'}
	for ci, name := range s.names {
		c := s.colls[name]
		if ci > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, name)
		buf = append(buf, ':', '[')
		g := &synth{rng: rand.New(rand.NewPCG(uint64(seed), uint64(ci)+1)), base: synthEpoch}
		for i := 0; i < n; i++ {
			obj := map[string]any{}
			for _, f := range c.def.Fields {
				if f.Name == c.def.IDField || (!f.Required && g.rng.IntN(10) >= 8) {
					continue
				}
				obj[f.Name] = g.value(f.Schema, f.Name, 0)
			}
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendJSON(buf, obj); err != nil {
				return FixtureFile{}, fmt.Errorf("generate %s: %v", name, err)
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, '}')
	return FixtureFile{Name: fmt.Sprintf("generated (%d per collection, seed %d)", n, seed), Data: buf}, nil
}

// synthEpoch is where generated dates start, so they do not depend on the clock.
var synthEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// synth draws values for a schema from a seeded source.
type synth struct {
	rng  *rand.Rand
	base time.Time
}

var synthWords = []string{
	"amber", "basil", "cedar", "dune", "ember", "fern", "ginger", "hazel", "iris", "juniper",
	"kiwi", "lumen", "maple", "nutmeg", "olive", "pepper", "quill", "rowan", "sage", "thyme",
	"umber", "violet", "willow", "xenia", "yarrow", "zephyr",
}

func (g *synth) value(s *base.Schema, name string, depth int) any {
	if s == nil || depth > 8 {
		return nil
	}
	if s.Const != nil {
		if v, ok := nodeValue(s.Const); ok {
			return v
		}
	}
	if len(s.Enum) > 0 {
		var vals []any
		for _, n := range s.Enum {
			if v, ok := nodeValue(n); ok && v != nil {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			return vals[g.rng.IntN(len(vals))]
		}
	}
	if s.Pattern != "" { // a pattern cannot be drawn from; its example is valid
		if s.Example != nil {
			if v, ok := nodeValue(s.Example); ok {
				return v
			}
		}
		for _, n := range s.Examples {
			if v, ok := nodeValue(n); ok {
				return v
			}
		}
	}
	for _, alts := range [][]*base.SchemaProxy{s.OneOf, s.AnyOf} {
		if len(alts) > 0 && len(s.Type) == 0 {
			return g.value(alts[0].Schema(), name, depth+1)
		}
	}
	switch spec.SchemaType(s) {
	case "string":
		return g.str(s, name)
	case "integer":
		lo, hi := g.bounds(s, 1, 1000)
		return json.Number(strconv.FormatInt(int64(lo)+g.rng.Int64N(int64(hi-lo)+1), 10))
	case "number":
		lo, hi := g.bounds(s, 0, 1000)
		v := lo + g.rng.Float64()*(hi-lo)
		return json.Number(strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64))
	case "boolean":
		return g.rng.IntN(2) == 1
	case "array":
		lo, hi := int64(0), int64(3)
		if s.MinItems != nil {
			lo = *s.MinItems
			hi = max(hi, lo)
		}
		if s.MaxItems != nil {
			hi = min(hi, *s.MaxItems)
		}
		var items *base.Schema
		if s.Items != nil && s.Items.IsA() && s.Items.A != nil {
			items = s.Items.A.Schema()
		}
		out := []any{}
		for n := lo + g.rng.Int64N(hi-lo+1); n > 0; n-- {
			out = append(out, g.value(items, name, depth+1))
		}
		return out
	case "object":
		obj := map[string]any{}
		names, props, required := spec.ObjectProperties(s)
		for _, n := range names {
			if required[n] || g.rng.IntN(10) < 7 {
				obj[n] = g.value(props[n], n, depth+1)
			}
		}
		return obj
	}
	return nil
}

// bounds are the inclusive range of a number schema, defaults where it has none.
func (g *synth) bounds(s *base.Schema, lo, hi float64) (float64, float64) {
	if s.Minimum != nil {
		lo = *s.Minimum
	}
	if e := s.ExclusiveMinimum; e != nil && e.IsB() {
		lo = math.Floor(e.B) + 1
	}
	if s.Maximum != nil {
		hi = *s.Maximum
	} else if hi < lo {
		hi = lo + 1000
	}
	if e := s.ExclusiveMaximum; e != nil && e.IsB() {
		hi = math.Ceil(e.B) - 1
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func (g *synth) str(s *base.Schema, name string) string {
	var v string
	switch s.Format {
	case "date-time":
		return g.base.Add(time.Duration(g.rng.Int64N(365*24*3600)) * time.Second).Format(time.RFC3339)
	case "date":
		return g.base.AddDate(0, 0, g.rng.IntN(365)).Format(time.DateOnly)
	case "uuid":
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.rng.Uint32(), g.rng.IntN(1<<16), g.rng.IntN(1<<12), g.rng.IntN(1<<12), g.rng.Uint64()&(1<<48-1))
	case "email":
		return fmt.Sprintf("%s%d@example.com", synthWords[g.rng.IntN(len(synthWords))], g.rng.IntN(1000))
	case "uri", "url":
		return fmt.Sprintf("https://example.com/%s/%d", synthWords[g.rng.IntN(len(synthWords))], g.rng.IntN(100000))
	default:
		w := synthWords[g.rng.IntN(len(synthWords))]
		v = strings.ToUpper(w[:1]) + w[1:] + " " + strconv.Itoa(g.rng.IntN(10000))
	}
	if s.MaxLength != nil && int64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	if s.MinLength != nil && int64(len(v)) < *s.MinLength {
		v += strings.Repeat("x", int(*s.MinLength)-len(v))
	}
	return v
}

// nodeValue decodes a YAML node of the document to a record value.
func nodeValue(n *yaml.Node) (any, bool) {
	if n == nil || n.Tag == "!!null" {
		return nil, n != nil
	}
	var v any
	if n.Decode(&v) != nil {
		return nil, false
	}
	return toRecordValue(v), true
}

// toRecordValue makes numbers json.Number, as everywhere in a record.
func toRecordValue(v any) any {
	switch t := v.(type) {
	case int:
		return json.Number(strconv.Itoa(t))
	case int64:
		return json.Number(strconv.FormatInt(t, 10))
	case uint64:
		return json.Number(strconv.FormatUint(t, 10))
	case float64:
		return json.Number(strconv.FormatFloat(t, 'g', -1, 64))
	case []any:
		for i := range t {
			t[i] = toRecordValue(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = toRecordValue(t[k])
		}
	}
	return v
}
