package config

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Flag is a flag of `petctl serve`, declared by the flag tag of the setting
// it sets, so that the flags cannot drift from the settings.
type Flag struct {
	// Name is the flag without its dashes: "addr" for --addr.
	Name string
	// Key is the setting it sets: "server.addr".
	Key string
	// Usage is the help: the setting's flaghelp tag, or its doc when that
	// is short enough for --help.
	Usage string
	// Default is the built-in value as text ("127.0.0.1:4010", "1048576",
	// "true"), "" for an empty one.
	Default string
	// Type is "string", "bool", "int", "float" or "list" (a repeatable
	// string).
	Type string
}

// Flags lists the serve flags, in the order of the settings.
func Flags() []Flag {
	var out []Flag
	for _, lf := range leaves(Default(), "flag") {
		f := Flag{Name: lf.field.Tag.Get("flag"), Key: lf.key, Usage: flagHelp(lf.field)}
		switch lf.value.Kind() {
		case reflect.String:
			f.Type, f.Default = "string", lf.value.String()
		case reflect.Bool:
			f.Type, f.Default = "bool", fmt.Sprint(lf.value.Bool())
		case reflect.Int, reflect.Int64:
			f.Type, f.Default = "int", fmt.Sprint(lf.value.Int())
		case reflect.Float64:
			f.Type, f.Default = "float", fmt.Sprint(lf.value.Float())
		case reflect.Slice:
			f.Type = "list" // the defaults of lists are empty
		default:
			panic(fmt.Sprintf("config: %s has a flag tag, but a flag cannot set a %s", lf.key, lf.value.Type()))
		}
		out = append(out, f)
	}
	return out
}

// flagHelp is the flaghelp tag, or else the doc written as flags' help is:
// a lower-case start ("address to listen on", but "API key") and no
// closing full stop.
func flagHelp(f reflect.StructField) string {
	if h := f.Tag.Get("flaghelp"); h != "" {
		return h
	}
	doc := strings.TrimSuffix(f.Tag.Get("doc"), ".")
	first, n := utf8.DecodeRuneInString(doc)
	if second, _ := utf8.DecodeRuneInString(doc[n:]); unicode.IsUpper(second) {
		return doc // an acronym
	}
	return string(unicode.ToLower(first)) + doc[n:]
}
