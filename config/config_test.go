package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"
)

func TestTemplateIsTheDefaults(t *testing.T) {
	l, err := parse("petctl.yaml", Template())
	if err != nil {
		t.Fatalf("the starter file does not parse: %v", err)
	}
	if !reflect.DeepEqual(l.Config, Default()) {
		t.Errorf("the starter file differs from the defaults:\n%+v\n%+v", l.Config, Default())
	}
	if err := l.Check(); err != nil {
		t.Errorf("the defaults fail their own checks: %v", err)
	}
	tmpl := string(Template())
	for _, s := range settings() {
		last := s.key[strings.LastIndex(s.key, ".")+1:]
		if !strings.Contains(tmpl, last+":") {
			t.Errorf("the starter file does not show %s", s.key)
		}
		if s.field.Tag.Get("doc") == "" {
			t.Errorf("%s has no doc", s.key)
		}
	}
}

// TestDocsInSync keeps docs/petctl.schema.json and the reference in
// docs/configuration.md generated from the Config struct. Run with
// PETCTL_UPDATE_DOCS=1 to regenerate them.
func TestDocsInSync(t *testing.T) {
	schemaPath, mdPath := "../docs/petctl.schema.json", "../docs/configuration.md"
	const begin, end = "<!-- BEGIN GENERATED REFERENCE -->\n", "<!-- END GENERATED REFERENCE -->"
	md, err := os.ReadFile(mdPath)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(md, []byte(begin)), bytes.Index(md, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s lacks the generated-reference markers", mdPath)
	}
	wantMD := string(md[:i+len(begin)]) + reference() + "\n" + string(md[j:])
	if os.Getenv("PETCTL_UPDATE_DOCS") != "" {
		if err := os.WriteFile(schemaPath, Schema(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mdPath, []byte(wantMD), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaPath)
	if err != nil || !bytes.Equal(got, Schema()) {
		t.Errorf("%s is not the schema of the Config struct (%v); run PETCTL_UPDATE_DOCS=1 go test ./config", schemaPath, err)
	}
	if md, _ := os.ReadFile(mdPath); string(md) != wantMD {
		t.Errorf("the reference in %s is not generated from the Config struct; run PETCTL_UPDATE_DOCS=1 go test ./config", mdPath)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("petctl.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("petctl.schema.json")
	if err != nil {
		t.Fatalf("the JSON Schema does not compile: %v", err)
	}
	return s
}

func yamlAsJSON(t *testing.T, data string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(data), &v); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaAgreesWithTheDecoder: what petctl accepts, the schema accepts,
// and the schema refuses unknown keys and wrong types as petctl does.
func TestSchemaAgreesWithTheDecoder(t *testing.T) {
	s := compileSchema(t)
	if err := s.Validate(yamlAsJSON(t, string(Template()))); err != nil {
		t.Errorf("the schema refuses the starter file: %v", err)
	}
	if err := s.Validate(yamlAsJSON(t, fullExample)); err != nil {
		t.Errorf("the schema refuses the full example: %v", err)
	}
	for _, bad := range []string{"colour: red\n", "server: {addr: 4010}\n", "lists: {order: random}\n", "latency: {getPet: soon}\n", "faults: {x: {rate: 2}}\n"} {
		if _, err := parse("bad.yaml", []byte(bad)); err == nil {
			if l, _ := parse("bad.yaml", []byte(bad)); l.Check() == nil {
				t.Errorf("petctl accepts %q", bad)
			}
		}
		if err := s.Validate(yamlAsJSON(t, bad)); err == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}

const fullExample = `
spec: openapi.yaml
server:
  addr: 0.0.0.0:8080
  maxBodyBytes: 2048
  logFormat: json
  timeouts: {readHeader: 2s, write: 40s}
auth:
  keys: [k1, k2]
  adminKey: admin-secret
fixtures:
  files: [pets.yaml]
  generate: 100
seed: 42
lists:
  outOfRangeLimit: clamp
  order: newest-first
  pagination: cursor
  cursorParam: after
defaults:
  pets: {status: available}
responses:
  listStoreOrders:
    status: 200
    headers: {X-Mock: "yes"}
    body: [{orderId: 1}]
clock: {now: 2031-01-01}
latency: {"*": 10ms, getPet: 50ms..400ms}
faults:
  createPet: {rate: 0.25, status: 502}
  listPets: {rate: 0.1}
cors:
  origins: ["https://app.example.com"]
  credentials: true
  exposeHeaders: [Link]
  maxAge: 1m
admin: {requestLog: 10, maxImportBytes: 1000}
crud:
  cascade: true
  operations:
    findPetsByStatus: {kind: search, resource: /pets, paging: limit, limitParam: limit}
`

func TestFullExample(t *testing.T) {
	l, err := parse("petctl.yaml", []byte(fullExample))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.Server.Addr != "0.0.0.0:8080" || c.Server.Timeouts.ReadHeader != Duration(2*time.Second) || c.Server.Timeouts.Read != Duration(30*time.Second) {
		t.Errorf("server: %+v", c.Server)
	}
	if c.Latency["getPet"].String() != "50ms..400ms" || c.Latency["*"].String() != "10ms" {
		t.Errorf("latency: %v", c.Latency)
	}
	if c.Faults["listPets"] != (Fault{Rate: 0.1, Status: 503}) || c.Faults["createPet"] != (Fault{Rate: 0.25, Status: 502}) {
		t.Errorf("faults: %v", c.Faults)
	}
	if c.Responses["listStoreOrders"].Status != 200 || c.Responses["listStoreOrders"].Headers["X-Mock"] != "yes" {
		t.Errorf("responses: %+v", c.Responses)
	}
	start := time.Now()
	o, err := c.EngineOptions(start)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Lists.ClampLimit || !o.Lists.NewestFirst || o.Lists.CursorParam != "after" || o.Seed != 42 || o.Generate != 100 {
		t.Errorf("list options: %+v", o.Lists)
	}
	if want := (spec.Override{Kind: spec.KindSearch, Resource: "/pets", Paging: "limit", LimitParam: "limit"}); !o.Cascade || o.Overrides["findPetsByStatus"] != want {
		t.Errorf("crud: cascade %v, overrides %+v; want true, %+v", o.Cascade, o.Overrides, want)
	}
	if string(o.Defaults["pets"]["status"]) != `"available"` || string(o.Responses["listStoreOrders"].Body) != `[{"orderId":1}]` {
		t.Errorf("defaults %s, body %s", o.Defaults["pets"]["status"], o.Responses["listStoreOrders"].Body)
	}
	if now := o.Now(); now.Before(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)) || now.After(time.Date(2031, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("clock.now 2031-01-01 gives %v", now)
	}
	if o.RequestLogSize != 10 || o.MaxImportBytes != 1000 || o.AdminKey != "admin-secret" || len(o.Keys) != 2 {
		t.Errorf("options: %+v", o)
	}
	if c.UsesDevKey() {
		t.Error("keys are configured, yet the dev key is used")
	}
	if !Default().UsesDevKey() {
		t.Error("the defaults do not use the dev key")
	}
	zero, _ := parse("z.yaml", []byte("admin: {requestLog: 0}\n"))
	if o, _ := zero.EngineOptions(start); !o.NoRequestLog {
		t.Errorf("requestLog 0 keeps %d", o.RequestLogSize)
	}
}

// TestConfigDefaultsAreEngineDefaults: the built-in configuration gives the
// engine exactly its own defaults, so that a default changed in
// engine.DefaultOptions is the configuration's too, and no literal in the
// configuration can drift from it.
func TestConfigDefaultsAreEngineDefaults(t *testing.T) {
	got, err := Default().EngineOptions(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := reflect.ValueOf(engine.DefaultOptions())
	checked := 0
	var walk func(got, want reflect.Value, name string)
	walk = func(got, want reflect.Value, name string) {
		for i := 0; i < want.NumField(); i++ {
			f := want.Type().Field(i)
			g, w := got.Field(i), want.Field(i)
			switch {
			case w.IsZero():
				// No default: zero is the field's meaning (no keys, no latency).
			case f.Type.Kind() == reflect.Struct:
				walk(g, w, name+f.Name+".")
			case !reflect.DeepEqual(g.Interface(), w.Interface()):
				t.Errorf("%s%s: the configuration gives %v, the engine's default is %v", name, f.Name, g.Interface(), w.Interface())
				checked++
			default:
				checked++
			}
		}
	}
	walk(reflect.ValueOf(got), want, "")
	// Body and import limits, five time-outs, three CORS settings, the
	// request log, two store limits, and those the file has no key for.
	if checked < 15 {
		t.Errorf("only %d defaults compared; DefaultOptions lost some", checked)
	}
	if got.NoRequestLog {
		t.Error("the built-in configuration keeps no request log")
	}
	// The latency limit is the engine's; the key's doc states it.
	if f, _ := reflect.TypeOf(Config{}).FieldByName("Latency"); !strings.Contains(f.Tag.Get("doc"), "At most "+engine.MaxInjectedLatency.String()+".") {
		t.Errorf("the doc of latency does not state the engine's limit, %s: %q", engine.MaxInjectedLatency, f.Tag.Get("doc"))
	}
}

// TestEveryProblemAtOnce: unknown keys, wrong types and impossible values
// are all reported, each with its key and line.
func TestEveryProblemAtOnce(t *testing.T) {
	file := `server:
  adress: 127.0.0.1:1
  maxBodyBytes: lots
lists:
  order: random
  pagination: cursor
  cursorParam: ""
faults:
  createPet: {rate: 1.5, status: 200}
latency:
  getPet: 2s..1s
  listPets: 25s
auth:
  mode: open
  keys: [a]
clock: {now: tomorrow}
cors: {origins: ["*"], credentials: true}
seed: [1]
fixtures: {generate: -3}
server2: {}
`
	l, err := parse("petctl.yaml", []byte(file))
	var ps Problems
	if err != nil {
		ps = err.(Problems)
	} else if err := l.Check(); err != nil {
		ps = err.(Problems)
	}
	// Decoding stops before the checks when keys or types are wrong; the
	// value checks run on what decoded.
	want := []string{
		"petctl.yaml:2: server.adress: unknown key; the keys here are addr, basePath, variables, maxBodyBytes, logFormat, timeouts",
		`petctl.yaml:3: server.maxBodyBytes: "lots": want an integer`,
		"petctl.yaml:11: latency.getPet:",
		"petctl.yaml:18: seed: want an integer, not a list",
		"petctl.yaml:20: server2: unknown key",
	}
	got := ps.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	// The same file without its type errors: every impossible value at
	// once, those the engine checks (the latency limit, "*" with
	// credentials) with those of the file.
	fixed := strings.NewReplacer("  adress: 127.0.0.1:1\n", "", "maxBodyBytes: lots", "maxBodyBytes: 0", "seed: [1]", "seed: 1", "server2: {}\n", "", "getPet: 2s..1s", "getPet: 2s").Replace(file)
	l, err = parse("petctl.yaml", []byte(fixed))
	if err != nil {
		t.Fatal(err)
	}
	got = validate(t, l).Error()
	for _, w := range []string{
		"petctl.yaml:2: server.maxBodyBytes: 0: want at least 1",
		`petctl.yaml:4: lists.order: "random" is not one of id, newest-first`,
		"petctl.yaml:6: lists.cursorParam: pagination is cursor",
		"petctl.yaml:8: faults.createPet.rate: 1.5: want at most 1",
		"petctl.yaml:8: faults.createPet.status: 200: want at least 400",
		"petctl.yaml:11: latency.listPets: 25s is longer than the limit of 20s",
		"petctl.yaml:14: auth.keys: keys are given but auth.mode is open",
		`petctl.yaml:15: clock.now: "tomorrow": want an RFC 3339 instant`,
		`petctl.yaml:16: cors.origins[0]: "*" cannot be combined with credentials`,
		"petctl.yaml:18: fixtures.generate: -3: want at least 0",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if !strings.HasPrefix(got, "configuration: 10 problems:") {
		t.Errorf("the summary line: %s", strings.SplitN(got, "\n", 2)[0])
	}
	for _, bad := range []string{"[1, 2]\n", "server: [1]\n", "lists:\n  order: id\n  order: newest-first\n", ": : :\n", "defaults: {pets: [1]}\n"} {
		if _, err := parse("x.yaml", []byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// validate checks l as `petctl config validate` does, with the embedded
// Petstore and no fixtures: the file's checks, then the engine's.
func validate(t *testing.T, l *Loaded) error {
	t.Helper()
	var ps Problems
	if err := l.Check(); err != nil && !errors.As(err, &ps) {
		t.Fatal(err)
	}
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	o, convErr := l.EngineOptions(time.Now())
	o.Spec = s
	_, err = engine.New(o)
	return l.Combine(ps, errors.Join(convErr, err))
}

// TestLatencyWithinTheWriteTimeout: an injected latency must end before
// the write time-out, or the answer would never arrive; the engine, which
// holds both, says so at the latency's line.
func TestLatencyWithinTheWriteTimeout(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"server:\n  timeouts: {write: 1s}\nlatency:\n  getPet: 500ms..2s\n", "petctl.yaml:4: latency.getPet: 500ms..2s reaches the write time-out (server.timeouts.write 1s): the answer would never arrive"},
		{"latency:\n  '*': 30s\n", "petctl.yaml:2: latency.*: 30s is longer than the limit of 20s"},
		{"server:\n  timeouts: {write: 1s}\nlatency:\n  getPet: 999ms\n", ""},
	} {
		l, err := parse("petctl.yaml", []byte(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		err = validate(t, l)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.file, err)
		case tc.want != "" && (err == nil || err.Error() != "configuration: "+tc.want):
			t.Errorf("%q: got %v, want %q", tc.file, err, tc.want)
		}
	}
}

// TestValuesJSONCannotCarry: a value the configuration hands on as JSON
// (a default, a configured body) that JSON cannot carry is refused at its
// line, saying where in the value, as a fixture file's would be.
func TestValuesJSONCannotCarry(t *testing.T) {
	for file, want := range map[string]string{
		"defaults:\n  pets:\n    weight: .nan\n":                  "petctl.yaml:3: defaults.pets.weight: NaN is not a JSON number",
		"responses:\n  listStoreOrders:\n    body: [{n: .inf}]\n": "petctl.yaml:3: responses.listStoreOrders.body: [0].n: +Inf is not a JSON number",
		"defaults:\n  pets:\n    tags: {1: a}\n":                  "petctl.yaml:3: defaults.pets.tags: key 1 is not a string",
	} {
		_, err := parse("petctl.yaml", []byte(file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", file, err, want)
		}
	}
}

func TestLayers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "petctl.yaml")
	if err := os.WriteFile(path, []byte("server:\n  addr: 127.0.0.1:1111\n  logFormat: json\nseed: 5\nauth:\n  keys: [from-file]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PETCTL_ADDR": "127.0.0.1:2222", "PETCTL_SEED": "6", "PETCTL_API_KEY": "from-env"}
	l, err := Load(path, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetFlag("addr", "127.0.0.1:3333"); err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.Server.Addr != "127.0.0.1:3333" || c.Seed != 6 || c.Server.LogFormat != "json" || c.Auth.Keys[0] != "from-env" || c.Server.MaxBodyBytes != 1<<20 {
		t.Errorf("layers: %+v %+v", c.Server, c.Auth)
	}
	for key, src := range map[string]string{"server.addr": "--addr", "seed": "PETCTL_SEED", "server.logFormat": path + ":3", "server.maxBodyBytes": "default", "auth.keys": "PETCTL_API_KEY"} {
		if got := l.Source(key); got != src {
			t.Errorf("source of %s: %q, want %q", key, got, src)
		}
	}
	if _, err := Load(path, func(k string) string { return map[string]string{"PETCTL_SEED": "many"}[k] }); err == nil || !strings.Contains(err.Error(), `PETCTL_SEED: seed: "many": want an integer`) {
		t.Errorf("bad environment value: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a named file that is missing: %v", err)
	}
	if err := l.SetFlag("api-key", "a", "b"); err != nil || len(l.Config.Auth.Keys) != 2 {
		t.Errorf("repeated flag: %v %v", err, l.Config.Auth.Keys)
	}
	if err := l.SetFlag("generate", "x"); err == nil {
		t.Error("--generate x accepted")
	}
}

func TestShowRedacts(t *testing.T) {
	l, err := parse("petctl.yaml", []byte("auth:\n  keys: [super-secret-1]\n  adminKey: super-secret-2\nlatency: {getPet: 5ms..9ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := l.Show()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "super-secret") {
		t.Errorf("show prints a key:\n%s", s)
	}
	for _, w := range []string{"<redacted>", "getPet: 5ms..9ms", "# from petctl.yaml:4", "addr: 127.0.0.1:4010"} {
		if !strings.Contains(s, w) {
			t.Errorf("show lacks %q:\n%s", w, s)
		}
	}
	// What show prints is itself a valid configuration.
	if _, err := parse("shown.yaml", out); err != nil {
		t.Errorf("show's output does not parse: %v", err)
	}
}

func TestLocate(t *testing.T) {
	l, err := parse("petctl.yaml", []byte("seed: 1\nlatency:\n  nope: 5ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = l.Combine(nil, errors.Join(
		&engine.OptionError{Key: "latency.nope", Err: errors.New(`no operation "nope"; the operations are a, b`)},
		&engine.OptionError{Key: "fixtures.generate", Err: errors.New("-1: want 0 or more")},
	))
	if !strings.Contains(err.Error(), "petctl.yaml:3: latency.nope: no operation") {
		t.Errorf("located: %v", err)
	}
}

// TestShowCommentsAtTheirKeys: a map-valued key cites its own line, and the
// comment of an empty flow list stays on its line.
func TestShowCommentsAtTheirKeys(t *testing.T) {
	file := "defaults:\n  pets:\n    status: available\nresponses:\n  listStoreOrders:\n    status: 200\n    body: []\n"
	l, err := parse("petctl.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	out, err := l.Show()
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		lines[k] = strings.TrimSpace(line)
	}
	for k, want := range map[string]string{
		"defaults": "defaults: # from petctl.yaml:1",
		"pets":     "pets: # from petctl.yaml:2",
		"body":     "body: [] # from petctl.yaml:7",
		"clock":    "clock:",
	} {
		if lines[k] != want {
			t.Errorf("show: %q, want %q", lines[k], want)
		}
	}
	if _, err := parse("shown.yaml", out); err != nil {
		t.Errorf("show's output does not parse: %v", err)
	}
}

func TestSetBy(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"server.addr", "--addr, PETCTL_ADDR or server.addr in petctl.yaml"},
		{"auth.adminKey", "PETCTL_ADMIN_KEY or auth.adminKey in petctl.yaml"},
		{"server.timeouts.read", "server.timeouts.read in petctl.yaml"},
	} {
		if got := SetBy(tc.key); got != tc.want {
			t.Errorf("SetBy(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
