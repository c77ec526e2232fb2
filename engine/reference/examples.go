package reference

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"

	"github.com/petctl/petctl/spec"
)

// maxFullExample bounds an example with every optional property: a larger
// one (a schema with hundreds of nested properties) gives way to the
// example with the required properties only, so the page stays readable.
const maxFullExample = 2 << 10

// exampleSeed makes the examples the same on every render.
const exampleSeed = 21

// example is a JSON value for s travelling in direction d, indented: the
// schema's own example when it has one, else one made by spec.Values with
// every optional property, or with the required ones only when that is
// shorter than maxFullExample. "" when s is nil.
func example(s *spec.Schema, d spec.Direction) string {
	if s == nil {
		return ""
	}
	if s.HasExample {
		if out, ok := indent(s.Example); ok {
			return out
		}
	}
	full := &spec.Values{Rand: rand.New(rand.NewPCG(exampleSeed, exampleSeed)), Optional: 1, Direction: d}
	if out, ok := indent(full.Value(s, "")); ok && len(out) <= maxFullExample {
		return out
	}
	minimal := &spec.Values{Direction: d}
	out, _ := indent(minimal.Value(s, ""))
	return out
}

// paramExample is the value a try-it field starts with: the schema's
// default or example, else, for a required parameter, a generated one.
func paramExample(s *spec.Schema, name string, required bool) string {
	if s == nil {
		return ""
	}
	var v any
	switch {
	case s.HasDef:
		v = s.Default
	case s.HasExample:
		v = s.Example
	case required:
		v = (&spec.Values{Direction: spec.InRequest}).Value(s, name)
	default:
		return ""
	}
	return paramText(v)
}

// paramText writes a parameter's value as a person types it in a form:
// strings bare, arrays as comma-separated items (OpenAPI's form style with
// explode off), anything else as JSON.
func paramText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		items := make([]string, len(t))
		for i, e := range t {
			items[i] = paramText(e)
		}
		return strings.Join(items, ",")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func indent(v any) (string, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), true
}
