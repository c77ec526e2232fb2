package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
	"go.yaml.in/yaml/v4"
)

// Problem is one thing wrong with the configuration, with where it came
// from: "petctl.yaml:12", "PETCTL_ADDR" or "--addr".
type Problem struct {
	Source string
	Key    string
	Msg    string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Source != "" {
		b.WriteString(p.Source + ": ")
	}
	if p.Key != "" {
		b.WriteString(p.Key + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems is every problem found at once.
type Problems []Problem

func (ps Problems) Error() string {
	if len(ps) == 1 {
		return "configuration: " + ps[0].String()
	}
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = "  " + p.String()
	}
	return fmt.Sprintf("configuration: %d problems:\n%s", len(ps), strings.Join(lines, "\n"))
}

// Names says whether a problem is about section or a key inside it.
func (ps Problems) Names(section string) bool { return ps.names(section) }

// Loaded is a configuration with the source of each value that is not a
// default.
type Loaded struct {
	*Config
	// File is the configuration file read, or "" for none; Profile is the
	// profile read after it, or "".
	File    string
	Profile string
	sources map[string]string
}

// Source says where the value of key came from: a file line, a variable,
// a flag, or "default".
func (l *Loaded) Source(key string) string {
	if s, ok := l.sources[key]; ok {
		return s
	}
	// A value inside a map or list: the innermost key that has a source
	// (responses.x, not responses), whatever the map's order.
	best, src := "", "default"
	for k, s := range l.sources {
		if len(k) > len(best) && (strings.HasPrefix(key, k+".") || strings.HasPrefix(key, k+"[")) {
			best, src = k, s
		}
	}
	return src
}

// SetBy says how key is set, for messages that send the reader there:
// "--addr, PETCTL_ADDR or server.addr in petctl.yaml".
func SetBy(key string) string {
	for _, lf := range leaves(Default(), "yaml") {
		if lf.key != key {
			continue
		}
		var ways []string
		if flag := lf.field.Tag.Get("flag"); flag != "" {
			ways = append(ways, "--"+flag)
		}
		if env := lf.field.Tag.Get("env"); env != "" {
			ways = append(ways, env)
		}
		ways = append(ways, key+" in "+FileName)
		if len(ways) == 1 {
			return ways[0]
		}
		return strings.Join(ways[:len(ways)-1], ", ") + " or " + ways[len(ways)-1]
	}
	return key
}

// Load layers the defaults, the file and the environment. path "" looks
// for petctl.yaml in the working directory; a path that was named must
// exist. getenv nil means os.Getenv. The result is not checked yet: the
// caller applies flags, then calls Check.
//
// When the file or the environment has problems, Load returns them as
// Problems together with what did decode, so that the caller can still
// check the rest and report everything at once. It returns no
// configuration only when the file cannot be read.
func Load(path string, getenv func(string) string) (*Loaded, error) {
	return LoadWithProfile(path, "", getenv)
}

// LoadWithProfile is Load with a profile, a configuration file like any
// other, read after the file and before the environment: the behaviours a
// profile recorded from a deployment (petctl conform --profile-out)
// override the file, a starter file that spells out every default
// included, and the environment and flags override them. profile "" reads
// none; a profile named must exist.
func LoadWithProfile(path, profile string, getenv func(string) string) (*Loaded, error) {
	l := &Loaded{Config: Default(), sources: map[string]string{}}
	if path == "" {
		if _, err := os.Stat(FileName); err == nil {
			path = FileName
		}
	}
	var ps Problems
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("configuration %s: %v", path, err)
		}
		l.File = path
		ps = append(ps, l.decodeFile(path, data)...)
	}
	if profile != "" {
		data, err := os.ReadFile(profile)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("profile %s: %v", profile, err)
		}
		l.Profile = profile
		ps = append(ps, l.decodeFile(profile, data)...)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	ps = append(ps, l.applyEnv(getenv)...)
	if len(ps) > 0 {
		return l, ps
	}
	return l, nil
}

// withValueProblems adds what Check finds in the values that did decode,
// so a file with a wrong key and an impossible value reports both at once.
func (l *Loaded) withValueProblems(ps Problems) Problems {
	var more Problems
	if errors.As(l.Check(), &more) {
		ps = append(ps, more...)
	}
	return ps
}

// parse decodes a configuration file's content onto the defaults, without
// the environment.
func parse(name string, data []byte) (*Loaded, error) {
	l := &Loaded{Config: Default(), File: name, sources: map[string]string{}}
	if ps := l.decodeFile(name, data); len(ps) > 0 {
		return nil, l.withValueProblems(ps)
	}
	return l, nil
}

// syntaxProblem is a file that is not YAML, at the line where the parser
// stopped, in words a person editing it by hand can act on: the parser's
// message, the construct it was reading and from which line, and a hint
// for the tab that YAML does not indent with.
func syntaxProblem(name string, data []byte, err error) Problem {
	var le *yaml.LoadError
	if !errors.As(err, &le) || le.Mark.Line == 0 {
		return Problem{Source: name, Msg: "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	msg := "not YAML: " + le.Message
	if le.ContextMsg != "" {
		msg += " (" + le.ContextMsg
		if c := le.ContextMark.Line; c > 0 && c != le.Mark.Line {
			msg += fmt.Sprintf(" that starts at line %d", c)
		}
		msg += ")"
	}
	lines := strings.Split(string(data), "\n")
	if i := le.Mark.Line - 1; i < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i], " "), "\t") {
		msg += "; the line is indented with a tab, and YAML indents with spaces"
	}
	return Problem{Source: fmt.Sprintf("%s:%d", name, le.Mark.Line), Msg: msg}
}

func (l *Loaded) decodeFile(name string, data []byte) Problems {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Problems{syntaxProblem(name, data, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // an empty file: the defaults
	}
	d := &decoder{file: name, sources: l.sources}
	d.decode(doc.Content[0], reflect.ValueOf(l.Config).Elem(), "")
	l.resolvePaths(name)
	return d.problems
}

// resolvePaths makes the relative paths the file gave relative to the
// file's directory, so that `petctl config validate proj/petctl.yaml` reads
// proj/pets.json where the file says pets.json. Paths from flags and the
// environment stay relative to the working directory: they are applied
// after this.
func (l *Loaded) resolvePaths(file string) {
	dir := filepath.Dir(file)
	if dir == "." || dir == "" {
		return
	}
	for _, lf := range leaves(l.Config, "path") {
		// Only the values this file gave: a profile read after petctl.yaml
		// leaves the paths petctl.yaml gave as they were resolved.
		if src := l.sources[lf.key]; !strings.HasPrefix(src, file+":") {
			continue
		}
		switch lf.value.Kind() {
		case reflect.String:
			lf.value.SetString(resolve(dir, lf.value.String()))
		case reflect.Slice:
			for i := 0; i < lf.value.Len(); i++ {
				e := lf.value.Index(i)
				e.SetString(resolve(dir, e.String()))
			}
		}
	}
}

func resolve(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// decoder walks the YAML nodes along the Config type, so every unknown key
// and every wrong type is reported with its line, not just the first.
type decoder struct {
	file     string
	sources  map[string]string
	problems Problems
}

func (d *decoder) fail(n *yaml.Node, key, format string, args ...any) {
	d.problems = append(d.problems, Problem{Source: fmt.Sprintf("%s:%d", d.file, n.Line), Key: key, Msg: fmt.Sprintf(format, args...)})
}

var (
	durationType = reflect.TypeOf(Duration(0))
	rangeType    = reflect.TypeOf(Range{})
	anyType      = reflect.TypeOf((*any)(nil)).Elem()
)

func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// atKey makes the source of a value the line of its key: a block mapping
// or list starts on the line after `defaults:`, and the key is what a
// reader looks for.
func (d *decoder) atKey(kn *yaml.Node, key string) {
	if _, ok := d.sources[key]; ok {
		d.sources[key] = fmt.Sprintf("%s:%d", d.file, kn.Line)
	}
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, key string) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // key: (nothing) keeps the default
	}
	t := v.Type()
	if !isSection(t) { // a section's source would stand for every key in it
		d.sources[key] = fmt.Sprintf("%s:%d", d.file, n.Line)
	}
	switch {
	case t == anyType:
		var x any
		if err := n.Decode(&x); err != nil {
			d.fail(n, key, "%v", err)
			return
		}
		x, err := spec.JSONValue(x)
		if err != nil {
			d.fail(n, key, "%v", err)
			return
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return
	case t == durationType:
		if s, ok := d.scalar(n, key, "a duration such as 250ms or 5s"); ok {
			dur, err := time.ParseDuration(s)
			if err != nil {
				d.fail(n, key, "%q: want a duration such as 250ms or 5s", s)
				return
			}
			v.SetInt(int64(dur))
		}
		return
	case t == rangeType:
		if s, ok := d.scalar(n, key, "a duration (50ms) or a range (50ms..400ms)"); ok {
			r, err := parseRange(s)
			if err != nil {
				d.fail(n, key, "%v", err)
				return
			}
			v.Set(reflect.ValueOf(r))
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			d.fail(n, key, "want a mapping of %s", strings.Join(fieldNames(t), ", "))
			return
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			name := kn.Value
			if seen[name] {
				d.fail(kn, join(key, name), "given twice")
				continue
			}
			seen[name] = true
			f, ok := fieldByKey(t, name)
			if !ok {
				d.fail(kn, join(key, name), "unknown key; the keys here are %s", strings.Join(fieldNames(t), ", "))
				continue
			}
			d.decode(vn, v.FieldByIndex(f.Index), join(key, name))
			d.atKey(kn, join(key, name))
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.fail(n, key, "want a mapping")
			return
		}
		m := reflect.MakeMap(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind != yaml.ScalarNode || kn.Value == "" {
				d.fail(kn, key, "want a non-empty name as the key")
				continue
			}
			if m.MapIndex(reflect.ValueOf(kn.Value)).IsValid() {
				d.fail(kn, join(key, kn.Value), "given twice")
				continue
			}
			elem := reflect.New(t.Elem()).Elem()
			if t.Elem().Kind() == reflect.Struct {
				elem.Set(reflect.ValueOf(zeroWithDefaults(t.Elem())))
			}
			d.decode(vn, elem, join(key, kn.Value))
			// Every entry came from this line, a struct one too (its
			// problems are located here, and its unset fields with it).
			d.sources[join(key, kn.Value)] = fmt.Sprintf("%s:%d", d.file, kn.Line)
			m.SetMapIndex(reflect.ValueOf(kn.Value), elem)
		}
		v.Set(m)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, key, "want a list")
			return
		}
		s := reflect.MakeSlice(t, 0, len(n.Content))
		for i, en := range n.Content {
			elem := reflect.New(t.Elem()).Elem()
			d.decode(en, elem, fmt.Sprintf("%s[%d]", key, i))
			s = reflect.Append(s, elem)
		}
		v.Set(s)
	case reflect.String:
		if s, ok := d.scalar(n, key, "a string"); ok {
			if n.Tag == "!!bool" {
				d.fail(n, key, "%s: want a string; quote it", s)
				return
			}
			v.SetString(s)
		}
	case reflect.Int, reflect.Int64:
		if s, ok := d.scalar(n, key, "an integer"); ok {
			i, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
			if err != nil || n.Tag != "!!int" {
				d.fail(n, key, "%q: want an integer", s)
				return
			}
			v.SetInt(i)
		}
	case reflect.Float64:
		if s, ok := d.scalar(n, key, "a number"); ok {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || (n.Tag != "!!int" && n.Tag != "!!float") {
				d.fail(n, key, "%q: want a number", s)
				return
			}
			v.SetFloat(f)
		}
	case reflect.Bool:
		if s, ok := d.scalar(n, key, "true or false"); ok {
			if n.Tag != "!!bool" {
				d.fail(n, key, "%q: want true or false", s)
				return
			}
			v.SetBool(strings.EqualFold(s, "true"))
		}
	default:
		d.fail(n, key, "petctl cannot read a %s here", t)
	}
}

func (d *decoder) scalar(n *yaml.Node, key, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, key, "want %s, not a %s", want, kindName(n.Kind))
		return "", false
	}
	return n.Value, true
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// zeroWithDefaults is the value a new map entry starts from: faults get
// status 503, responses status 200.
func zeroWithDefaults(t reflect.Type) any {
	switch t {
	case reflect.TypeOf(Fault{}):
		return Fault{Status: 503}
	case reflect.TypeOf(Response{}):
		return Response{Status: 200}
	}
	return reflect.New(t).Elem().Interface()
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); yamlName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		out = append(out, yamlName(t.Field(i)))
	}
	return out
}

// leaf is a setting that an environment variable or a flag can set.
type leaf struct {
	key   string
	field reflect.StructField
	value reflect.Value
}

// leaves lists the settings of c that carry a tag, in declaration order.
func leaves(c *Config, tag string) []leaf {
	var out []leaf
	var walk func(v reflect.Value, key string)
	walk = func(v reflect.Value, key string) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			k := join(key, yamlName(f))
			if f.Tag.Get(tag) != "" {
				out = append(out, leaf{key: k, field: f, value: v.Field(i)})
			}
			if f.Type.Kind() == reflect.Struct && f.Type != rangeType {
				walk(v.Field(i), k)
			}
		}
	}
	walk(reflect.ValueOf(c).Elem(), "")
	return out
}

func (l *Loaded) applyEnv(getenv func(string) string) Problems {
	var ps Problems
	for _, lf := range leaves(l.Config, "env") {
		name := lf.field.Tag.Get("env")
		raw := getenv(name)
		if raw == "" && name == "PETCTL_API_KEYS" {
			if one := getenv("PETCTL_API_KEY"); one != "" {
				name, raw = "PETCTL_API_KEY", one
			}
		}
		if raw == "" {
			continue
		}
		if err := setText(lf.value, raw); err != nil {
			ps = append(ps, Problem{Source: name, Key: lf.key, Msg: err.Error()})
			continue
		}
		if lf.value.Kind() == reflect.Slice && lf.value.Len() == 0 {
			// PETCTL_API_KEYS=',' must not fall back to the development key.
			ps = append(ps, Problem{Source: name, Key: lf.key, Msg: fmt.Sprintf("%q names nothing: give comma-separated values, or unset it", raw)})
			continue
		}
		l.sources[lf.key] = name
	}
	return ps
}

// SetFlag sets the setting whose flag tag is name from the flag's values;
// a list takes every value, a scalar the last. A value that does not fit
// is reported as Problems, with the flag and the key.
func (l *Loaded) SetFlag(name string, values ...string) error {
	for _, lf := range leaves(l.Config, "flag") {
		if lf.field.Tag.Get("flag") != name {
			continue
		}
		if len(values) == 0 {
			return nil
		}
		var err error
		if lf.value.Kind() == reflect.Slice {
			lf.value.Set(reflect.ValueOf(append([]string{}, values...)))
		} else {
			err = setText(lf.value, values[len(values)-1])
		}
		if err != nil {
			return Problems{{Source: "--" + name, Key: lf.key, Msg: err.Error()}}
		}
		l.sources[lf.key] = "--" + name
		return nil
	}
	return fmt.Errorf("--%s is not a configuration flag", name)
}

// setText sets a scalar or a comma-separated list from text.
func setText(v reflect.Value, s string) error {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q: want an integer", s)
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q: want a number", s)
		}
		v.SetFloat(f)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q: want true or false", s)
		}
		v.SetBool(b)
	case reflect.Slice:
		var items []string
		for _, it := range strings.Split(s, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		v.Set(reflect.ValueOf(items))
	default:
		return fmt.Errorf("cannot be set from text")
	}
	return nil
}

// Check finds every value that cannot be read as its key says: outside
// its enum or bounds (from the tags), not an address or an instant, or at
// odds with another setting of the file. What a value means for the
// document and the server (an API key a request cannot carry, an origin,
// the latency limit) is the engine's to check, once: Combine adds its
// problems.
func (l *Loaded) Check() error {
	var ps Problems
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{Source: l.Source(key), Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	var walk func(v reflect.Value, key string)
	walk = func(v reflect.Value, key string) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f, fv := t.Field(i), v.Field(i)
			k := join(key, yamlName(f))
			if msg := checkBounds(f, fv); msg != "" {
				bad(k, "%s", msg)
			}
			switch {
			case f.Type.Kind() == reflect.Struct && f.Type != rangeType:
				walk(fv, k)
			case f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() == reflect.Struct && f.Type.Elem() != rangeType:
				keys := fv.MapKeys()
				sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
				for _, mk := range keys {
					walk(fv.MapIndex(mk), join(k, mk.String()))
				}
			}
		}
	}
	walk(reflect.ValueOf(l.Config).Elem(), "")
	c := l.Config
	if _, _, err := net.SplitHostPort(c.Server.Addr); err != nil {
		bad("server.addr", "%q: want host:port, for example 127.0.0.1:4010", c.Server.Addr)
	}
	if c.Lists.Pagination == "cursor" && c.Lists.CursorParam == "" {
		bad("lists.cursorParam", "pagination is cursor: name the cursor parameter")
	}
	if c.Clock.Now != "" {
		if _, err := parseNow(c.Clock.Now); err != nil {
			bad("clock.now", "%v", err)
		}
	}
	if c.Auth.Mode == "open" && len(c.Auth.Keys) > 0 {
		bad("auth.keys", "keys are given but auth.mode is open, which accepts any token: remove the keys or use mode keys")
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

func checkBounds(f reflect.StructField, v reflect.Value) string {
	if enum := f.Tag.Get("enum"); enum != "" {
		allowed := strings.Split(enum, ",")
		if !slices.Contains(allowed, v.String()) {
			return fmt.Sprintf("%q is not one of %s", v.String(), strings.Join(allowed, ", "))
		}
	}
	lo, hi := f.Tag.Get("min"), f.Tag.Get("max")
	if lo == "" && hi == "" {
		return ""
	}
	var x float64
	show := func() string { return fmt.Sprint(v.Interface()) }
	switch {
	case f.Type == durationType:
		x = float64(v.Int())
		duration := func(s string) float64 { d, _ := time.ParseDuration(s); return float64(d) }
		if lo != "" && x < duration(lo) {
			return fmt.Sprintf("%s: want at least %s", show(), lo)
		}
		if hi != "" && x > duration(hi) {
			return fmt.Sprintf("%s: want at most %s", show(), hi)
		}
		return ""
	case v.Kind() == reflect.Float64:
		x = v.Float()
	default:
		x = float64(v.Int())
	}
	if l, err := strconv.ParseFloat(lo, 64); err == nil && x < l {
		return fmt.Sprintf("%s: want at least %s", show(), lo)
	}
	if h, err := strconv.ParseFloat(hi, 64); err == nil && x > h {
		return fmt.Sprintf("%s: want at most %s", show(), hi)
	}
	return ""
}
