package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// setting is one key of the file, as the docs, the schema and the starter
// file see it.
type setting struct {
	key   string
	depth int
	field reflect.StructField
	value reflect.Value // the default
}

// settings lists every key in declaration order, sections before their
// contents.
func settings() []setting {
	var out []setting
	var walk func(v reflect.Value, key string, depth int)
	walk = func(v reflect.Value, key string, depth int) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			k := join(key, yamlName(f))
			out = append(out, setting{key: k, depth: depth, field: f, value: v.Field(i)})
			if isSection(f.Type) {
				walk(v.Field(i), k, depth+1)
			}
		}
	}
	walk(reflect.ValueOf(Default()).Elem(), "", 0)
	return out
}

func isSection(t reflect.Type) bool { return t.Kind() == reflect.Struct && t != rangeType }

// typeName is a setting's type in words.
func typeName(t reflect.Type) string {
	switch {
	case t == durationType:
		return "duration"
	case t == rangeType:
		return "duration or range"
	case t == anyType:
		return "any JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "list of " + typeName(t.Elem()) + "s"
	case reflect.Map:
		if t.Elem().Kind() == reflect.Map {
			return "map of maps"
		}
		return "map of " + typeName(t.Elem())
	case reflect.Struct:
		return "section"
	}
	return t.String()
}

// yamlValue renders a default in flow style: `[]`, `"text"`, `5s`.
func yamlValue(v reflect.Value) string {
	out, err := yaml.Dump(v.Interface(), yaml.WithIndent(2))
	if err != nil {
		return fmt.Sprint(v.Interface())
	}
	s := strings.TrimSpace(string(out))
	if v.Kind() == reflect.Slice && v.Len() > 0 {
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = strconv.Quote(v.Index(i).String())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if v.Kind() == reflect.String && s == "" {
		return `""`
	}
	return s
}

// Template is the starter file `petctl init` writes: every setting with
// its default, each explained; the maps show a commented example.
func Template() []byte {
	var b bytes.Buffer
	b.WriteString("# petctl.yaml: configuration of `petctl serve`.\n")
	b.WriteString("# Every setting is shown with its default. Precedence: built-in defaults,\n")
	b.WriteString("# then this file, then PETCTL_* environment variables, then flags.\n")
	b.WriteString("# Check it with `petctl config validate`; see docs/configuration.md.\n")
	b.WriteString("# Editors complete and check it with the JSON Schema petctl.schema.json\n")
	b.WriteString("# next to it; write that with `petctl config schema " + SchemaFileName + "`.\n")
	b.WriteString("# yaml-language-server: $schema=" + SchemaFileName + "\n")
	for _, s := range settings() {
		indent := strings.Repeat("  ", s.depth)
		b.WriteString("\n")
		for _, line := range wrap(s.field.Tag.Get("doc"), 76-len(indent)) {
			b.WriteString(indent + "# " + line + "\n")
		}
		if env := s.field.Tag.Get("env"); env != "" {
			b.WriteString(indent + "# Environment: " + env)
			if flag := s.field.Tag.Get("flag"); flag != "" {
				b.WriteString("; flag: --" + flag)
			}
			b.WriteString("\n")
		}
		name := yamlName(s.field)
		switch {
		case isSection(s.field.Type):
			b.WriteString(indent + name + ":\n")
		case s.field.Type.Kind() == reflect.Map:
			b.WriteString(indent + name + ": {}\n")
			if ex := s.field.Tag.Get("example"); ex != "" {
				b.WriteString(indent + "# For example:\n")
				b.WriteString(indent + "# " + name + ":\n")
				for _, line := range strings.Split(ex, "\n") {
					b.WriteString(indent + "#   " + line + "\n")
				}
			}
		default:
			b.WriteString(indent + name + ": " + yamlValue(s.value) + "\n")
		}
	}
	return b.Bytes()
}

func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// SchemaFileName is where the starter file expects the schema: next to it.
const SchemaFileName = "petctl.schema.json"

// Schema is the JSON Schema (draft 2020-12) of petctl.yaml, for editors.
// It has no $id: no URL serves it, so it is identified by where it is read
// from (docs/petctl.schema.json, or the file `petctl config schema` wrote).
func Schema() []byte {
	root := schemaOf(reflect.TypeOf(Config{}), reflect.ValueOf(Default()).Elem())
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["title"] = "petctl.yaml"
	root["description"] = "Configuration of petctl serve. Generated from config; do not edit."
	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(err) // maps of strings and numbers always marshal
	}
	return append(out, '\n')
}

const (
	durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	rangePattern    = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+(\.\.([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)?$`
)

func schemaOf(t reflect.Type, def reflect.Value) map[string]any {
	s := map[string]any{}
	switch {
	case t == durationType:
		s["type"], s["pattern"] = "string", durationPattern
	case t == rangeType:
		s["type"], s["pattern"] = "string", rangePattern
	case t == anyType:
	case t.Kind() == reflect.String:
		s["type"] = "string"
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		s["type"] = "integer"
	case t.Kind() == reflect.Float64:
		s["type"] = "number"
	case t.Kind() == reflect.Bool:
		s["type"] = "boolean"
	case t.Kind() == reflect.Slice:
		s["type"], s["items"] = "array", schemaOf(t.Elem(), reflect.Value{})
	case t.Kind() == reflect.Map:
		s["type"], s["additionalProperties"] = "object", schemaOf(t.Elem(), reflect.Value{})
	case t.Kind() == reflect.Struct:
		props := map[string]any{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			var fv reflect.Value
			if def.IsValid() {
				fv = def.Field(i)
			} else if zero := zeroWithDefaults(t); zero != nil {
				fv = reflect.ValueOf(zero).Field(i)
			}
			p := schemaOf(f.Type, fv)
			if doc := f.Tag.Get("doc"); doc != "" {
				p["description"] = doc
			}
			if enum := f.Tag.Get("enum"); enum != "" {
				p["enum"] = strings.Split(enum, ",")
			}
			if f.Type != durationType {
				if lo, err := strconv.ParseFloat(f.Tag.Get("min"), 64); err == nil {
					p["minimum"] = lo
				}
				if hi, err := strconv.ParseFloat(f.Tag.Get("max"), 64); err == nil {
					p["maximum"] = hi
				}
			}
			if fv.IsValid() && !isSection(f.Type) && f.Type != anyType {
				if d, ok := jsonDefault(fv); ok {
					p["default"] = d
				}
			}
			props[yamlName(f)] = p
		}
		s["type"], s["properties"], s["additionalProperties"] = "object", props, false
	}
	return s
}

func jsonDefault(v reflect.Value) (any, bool) {
	if (v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil() {
		return nil, false
	}
	switch x := v.Interface().(type) {
	case Duration:
		return x.String(), true
	case Range:
		return x.String(), true
	}
	return v.Interface(), true
}

// reference is the per-key reference of docs/configuration.md.
func reference() string {
	var b strings.Builder
	for _, s := range settings() {
		if isSection(s.field.Type) {
			fmt.Fprintf(&b, "\n### `%s`\n\n%s\n", s.key, s.field.Tag.Get("doc"))
			continue
		}
		fmt.Fprintf(&b, "\n#### `%s`\n\n%s\n\n", s.key, s.field.Tag.Get("doc"))
		fmt.Fprintf(&b, "- type: %s", typeName(s.field.Type))
		if enum := s.field.Tag.Get("enum"); enum != "" {
			fmt.Fprintf(&b, " (`%s`)", strings.Join(strings.Split(enum, ","), "`, `"))
		}
		b.WriteString("\n")
		if s.field.Type.Kind() == reflect.Map {
			b.WriteString("- default: `{}`\n")
		} else {
			fmt.Fprintf(&b, "- default: `%s`\n", yamlValue(s.value))
		}
		lo, hi := s.field.Tag.Get("min"), s.field.Tag.Get("max")
		switch {
		case lo != "" && hi != "":
			fmt.Fprintf(&b, "- range: %s to %s\n", lo, hi)
		case lo != "":
			fmt.Fprintf(&b, "- at least: %s\n", lo)
		}
		if env := s.field.Tag.Get("env"); env != "" {
			fmt.Fprintf(&b, "- environment: `%s`\n", env)
		}
		if flag := s.field.Tag.Get("flag"); flag != "" {
			fmt.Fprintf(&b, "- flag: `--%s`\n", flag)
		}
		if ex := s.field.Tag.Get("example"); ex != "" {
			// The example sits under every key of its path (server:
			// variables:), so that it reads as a file would hold it.
			parts := strings.Split(s.key, ".")
			b.WriteString("\n```yaml\n")
			for i, p := range parts {
				fmt.Fprintf(&b, "%s%s:\n", strings.Repeat("  ", i), p)
			}
			for _, line := range strings.Split(ex, "\n") {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", len(parts)), line)
			}
			b.WriteString("```\n")
		}
	}
	return b.String()
}
