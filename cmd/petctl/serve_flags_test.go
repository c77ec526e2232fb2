package main

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/petctl/petctl/config"
	"github.com/spf13/pflag"
)

// taggedFlags reads the flag tags of the configuration: flag name -> the
// key it sets and the key's default as a flag shows it.
func taggedFlags(t *testing.T) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			key := prefix + name
			if flag := f.Tag.Get("flag"); flag != "" {
				def := fmt.Sprint(v.Field(i).Interface())
				if f.Type.Kind() == reflect.Slice {
					def = "[]" // how pflag shows an empty list
				}
				out[flag] = [2]string{key, def}
			}
			if f.Type.Kind() == reflect.Struct && f.Type.NumField() > 0 && f.Type.Field(0).Tag.Get("yaml") != "" {
				walk(v.Field(i), key+".")
			}
		}
	}
	walk(reflect.ValueOf(config.Default()).Elem(), "")
	return out
}

// TestServeFlagsMatchConfigTags: every flag of serve but --config and --profile sets the
// configuration key whose flag tag names it, and every key with a flag tag
// has its flag, showing the key's default and a help that fits --help.
func TestServeFlagsMatchConfigTags(t *testing.T) {
	t.Chdir(t.TempDir()) // no petctl.yaml here
	tagged := taggedFlags(t)
	if len(tagged) < 10 {
		t.Fatalf("only %d flag tags found: %v", len(tagged), tagged)
	}
	a := &app{ctx: context.Background(), out: io.Discard, err: io.Discard, getenv: func(string) string { return "" }}
	declared := map[string]*pflag.Flag{}
	newServeCmd(a, nil).Flags().VisitAll(func(f *pflag.Flag) {
		if !fileFlags[f.Name] {
			declared[f.Name] = f
		}
	})
	for name := range declared {
		if _, ok := tagged[name]; !ok {
			t.Errorf("--%s sets no configuration key: declare it with a flag tag", name)
		}
	}
	for name, kd := range tagged {
		key, def := kd[0], kd[1]
		f := declared[name]
		if f == nil {
			t.Errorf("%s has the flag tag %q, but serve has no --%s", key, name, name)
			continue
		}
		if f.DefValue != def {
			t.Errorf("--%s shows the default %q, want %q, the default of %s", name, f.DefValue, def, key)
		}
		if f.Usage == "" || len(f.Usage) > 120 {
			t.Errorf("--%s: help %q: want one of at most 120 characters (a flaghelp tag when the doc is longer)", name, f.Usage)
		}
		// The flag reaches its key.
		var got *serveOptions
		cmd := newServeCmd(a, func(o *serveOptions) error { got = o; return nil })
		value := "7"
		if f.Value.Type() == "bool" {
			value = "true"
		}
		cmd.SetArgs([]string{"--" + name + "=" + value})
		if err := cmd.Execute(); err != nil {
			t.Fatalf("serve --%s=%s: %v", name, value, err)
		}
		l, _, err := loadConfig(a, got.configPath, got.flags)
		if err != nil {
			t.Fatal(err)
		}
		if src := l.Source(key); src != "--"+name {
			t.Errorf("--%s=%s: %s comes from %q, want --%s", name, value, key, src, name)
		}
	}
}
