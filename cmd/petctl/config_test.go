package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/config"
)

// startServe runs `petctl serve args...` on a free port until the test
// ends, and returns its base URL and standard output.
func startServe(t *testing.T, env map[string]string, args ...string) (string, *safeBuffer) {
	t.Helper()
	base, out, _ := startServeStreams(t, env, args...)
	return base, out
}

// startServeStreams is startServe with standard error too.
func startServeStreams(t *testing.T, env map[string]string, args ...string) (string, *safeBuffer, *safeBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut safeBuffer
	a := &app{ctx: ctx, out: &out, err: &errOut, getenv: testEnv(env)}
	ready := make(chan string, 1)
	cmd := newServeCmd(a, func(o *serveOptions) error {
		o.ready = func(base string) { ready <- base }
		return serveRun(a, o)
	})
	cmd.SetArgs(append([]string{"--addr", "127.0.0.1:0"}, args...))
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop")
		}
	})
	select {
	case base := <-ready:
		return base, &out, &errOut
	case err := <-done:
		t.Fatalf("serve stopped: %v; stderr: %s", err, errOut.String())
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start")
	}
	return "", nil, nil
}

type reply struct {
	status int
	header http.Header
	body   string
}

func call(t *testing.T, method, url, key, body string) reply {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header, string(data)}
}

func edit(t *testing.T, path string, pairs ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("the starter file has no %q", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestInitEditServe is the end-to-end path of a team: petctl init, edit the
// file, validate it, serve with it and see every setting over HTTP.
func TestInitEditServe(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	dir := t.TempDir()
	path := filepath.Join(dir, "petctl.yaml")
	if code, out, errOut := runCLI(t, nil, "init", path); code != 0 || !strings.Contains(out, "wrote "+path) {
		t.Fatalf("init: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, nil, "init", path); code != exitUsage || !strings.Contains(errOut, "exists") {
		t.Errorf("init over an existing file: %d %s", code, errOut)
	}
	edit(t, path,
		"  keys: []", "  keys: [team-key]",
		"  adminKey: ''", "  adminKey: admin-key",
		"outOfRangeLimit: reject", "outOfRangeLimit: clamp",
		"order: id", "order: newest-first",
		"pagination: none", "pagination: cursor",
		"defaults: {}", "defaults:\n  pets:\n    status: pending",
		"responses: {}", "responses:\n  listStoreOrders:\n    status: 200\n    body: [{orderId: 7}]",
		"now: ''", "now: 2031-01-01",
		"requestLog: 100", "requestLog: 5",
	)
	if code, out, errOut := runCLI(t, nil, "config", "validate", path); code != 0 || !strings.Contains(out, "is valid") {
		t.Fatalf("config validate: %d %s %s", code, out, errOut)
	}
	code, out, _ := runCLI(t, nil, "config", "show", "--config", path)
	if code != 0 || strings.Contains(out, "team-key") || strings.Contains(out, "admin-key") || !strings.Contains(out, "outOfRangeLimit: clamp # from "+path) {
		t.Errorf("config show: %d\n%s", code, out)
	}

	base, banner := startServe(t, nil, "--config", path)
	if !strings.Contains(banner.String(), "config     "+path) || !strings.Contains(banner.String(), "1 configured") {
		t.Errorf("banner:\n%s", banner)
	}
	const key = "team-key"
	if r := call(t, "GET", base+"/pets", "petctl-dev-key", ""); r.status != 401 {
		t.Errorf("the dev key works although keys are configured: %d", r.status)
	}
	// clamp + newest first + cursor
	r := call(t, "GET", base+"/pets?limit=500", key, "")
	var page []map[string]any
	json.Unmarshal([]byte(r.body), &page)
	if r.status != 200 || len(page) != 100 || page[0]["id"] != 150.0 {
		t.Fatalf("limit=500 with clamp and newest first: %d, %d items, first %v", r.status, len(page), page[0]["id"])
	}
	m := regexp.MustCompile(`^<([^>]+)>; rel="next"$`).FindStringSubmatch(r.header.Get("Link"))
	if m == nil {
		t.Fatalf("no Link rel=next: %q", r.header.Get("Link"))
	}
	next := call(t, "GET", strings.TrimSuffix(base, "/v1")+m[1], key, "")
	json.Unmarshal([]byte(next.body), &page)
	if next.status != 200 || len(page) != 50 || page[0]["id"] != 50.0 || next.header.Get("Link") != "" {
		t.Errorf("second page: %d, %d items, Link %q", next.status, len(page), next.header.Get("Link"))
	}
	// default status
	if r := call(t, "POST", base+"/pets", key, `{"name":"Configured","categoryId":1}`); r.status != 201 || !strings.Contains(r.body, `"status":"pending"`) {
		t.Errorf("create without status: %d %s", r.status, r.body)
	}
	// configured response
	if r := call(t, "GET", base+"/store/orders", key, ""); r.status != 200 || r.body != `[{"orderId":7}]` {
		t.Errorf("store orders: %d %s", r.status, r.body)
	}
	// the clock is past getPet's removal
	if r := call(t, "GET", base+"/pets/1", key, ""); r.status != 410 || !strings.Contains(r.body, "listPets") || !strings.Contains(r.body, `"code":"gone"`) {
		t.Errorf("getPet after its removal: %d %s", r.status, r.body)
	}
	// admin endpoints: loopback, request log size
	admin := strings.TrimSuffix(base, "/v1") + "/__petctl/"
	if r := call(t, "POST", admin+"reset", "", ""); r.status != 200 || !strings.Contains(r.body, `"pets":150`) {
		t.Errorf("reset: %d %s", r.status, r.body)
	}
	var log struct{ Requests []map[string]any }
	r = call(t, "GET", admin+"requests", "", "")
	json.Unmarshal([]byte(r.body), &log)
	if len(log.Requests) != 5 || strings.Contains(r.body, key) {
		t.Errorf("request log: %d entries: %s", len(log.Requests), r.body)
	}
}

// TestServeRehearsals: open auth, injected faults and latency, generated
// records, through the environment and flags.
func TestServeRehearsals(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	dir := t.TempDir()
	path := filepath.Join(dir, "rehearse.yaml")
	os.WriteFile(path, []byte("auth: {mode: open}\nfaults:\n  createPet: {rate: 1, status: 502}\nlatency:\n  listPets: 80ms\ncors:\n  origins: [\"https://app.example.com\"]\n"), 0o600)
	base, banner := startServe(t, map[string]string{"PETCTL_SEED": "9"}, "--config", path, "--generate", "250")
	if !strings.Contains(banner.String(), "open") || !strings.Contains(banner.String(), "pets: 250 records") {
		t.Errorf("banner:\n%s", banner)
	}
	if r := call(t, "GET", base+"/pets?limit=1", "", ""); r.status != 401 {
		t.Errorf("open auth without a token: %d", r.status)
	}
	start := time.Now()
	if r := call(t, "GET", base+"/pets?limit=1", "anything", ""); r.status != 200 {
		t.Errorf("open auth with any token: %d %s", r.status, r.body)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("listPets answered in %v despite 80ms latency", d)
	}
	if r := call(t, "POST", base+"/pets", "x", `{"name":"F","categoryId":1}`); r.status != 502 || !strings.Contains(r.body, "fault_injected") {
		t.Errorf("fault: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest("OPTIONS", base+"/pets", nil)
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Access-Control-Request-Method", "GET")
	res, err := http.DefaultClient.Do(req)
	if err == nil {
		res.Body.Close()
		if res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("localhost allowed although cors.origins names only app.example.com")
		}
	}
	// The same seed generates the same animals.
	base2, _ := startServe(t, map[string]string{"PETCTL_SEED": "9"}, "--config", path, "--generate", "250")
	a, b := call(t, "GET", base+"/pets?limit=100", "x", ""), call(t, "GET", base2+"/pets?limit=100", "x", "")
	if a.body != b.body {
		t.Error("the same seed generated different animals")
	}
}

func TestConfigRejected(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	dir := t.TempDir()
	path := filepath.Join(dir, "petctl.yaml")
	os.WriteFile(path, []byte("server:\n  adress: x\nlists:\n  order: random\nlatency:\n  nope: 5ms\nseed: lots\n"), 0o600)
	code, _, errOut := runCLI(t, nil, "config", "validate", path)
	if code != exitUsage {
		t.Errorf("exit %d, want 2", code)
	}
	// The spec-dependent problem (latency.nope) is reported with the rest.
	for _, w := range []string{"4 problems", path + ":2: server.adress: unknown key", path + ":4: lists.order", path + `:6: latency.nope: no operation "nope"`, path + `:7: seed: "lots": want an integer`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	// Spec-dependent settings are located in the file too.
	os.WriteFile(path, []byte("latency:\n  nope: 5ms\ndefaults:\n  pets: {status: lost}\n"), 0o600)
	code, _, errOut = runCLI(t, nil, "config", "validate", path)
	if code != exitUsage || !strings.Contains(errOut, path+`:2: latency.nope: no operation "nope"`) || !strings.Contains(errOut, path+`:4: defaults.pets.status: "lost" is not a valid status`) {
		t.Errorf("spec-dependent problems: %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI(t, map[string]string{"PETCTL_ORDER": "sideways"}, "serve", "--config", filepath.Join(dir, "absent.yaml"))
	if code != exitUsage || !strings.Contains(errOut, "absent.yaml") {
		t.Errorf("a named config that is missing: %d %s", code, errOut)
	}
	code, _, errOut = runCLI(t, map[string]string{"PETCTL_ORDER": "sideways"}, "config", "validate")
	if code != exitUsage || !strings.Contains(errOut, `PETCTL_ORDER: lists.order: "sideways" is not one of`) {
		t.Errorf("a bad environment value: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, nil, "serve", "--now", "someday"); code != exitUsage || !strings.Contains(errOut, "--now: clock.now") {
		t.Errorf("--now someday: %d %s", code, errOut)
	}
	if code, out, _ := runCLI(t, nil, "init", "-"); code != 0 || out != string(config.Template()) {
		t.Errorf("init -: %d", code)
	}
}

// TestEveryProblemListed: problems of the file, of the spec-dependent
// settings, of CORS and of the fixtures are all reported at once, each with
// its key and line, and a problem the checks of both the file and the
// engine see is reported once.
func TestEveryProblemListed(t *testing.T) {
	dir := t.TempDir()
	fixture := filepath.Join(dir, "pets.json")
	os.WriteFile(fixture, []byte(`[{"id":1,"name":"x","categoryId":1,"status":"adopted"}]`), 0o600)
	path := filepath.Join(dir, "petctl.yaml")
	os.WriteFile(path, []byte("seed: x\nlatency: {getPets: 10ms}\ncors:\n  origins: [nope]\nfaults:\n  createPet: {rate: 1.5}\nfixtures:\n  files: ["+strconv.Quote(fixture)+"]\n"), 0o600)
	code, _, errOut := runCLI(t, nil, "config", "validate", path)
	if code != exitUsage {
		t.Errorf("exit %d, want 2", code)
	}
	for _, w := range []string{
		"5 problems",
		path + `:1: seed: "x": want an integer`,
		path + `:2: latency.getPets: no operation "getPets"`,
		path + `:4: cors.origins[0]: "nope": want scheme://host[:port]`,
		path + `:6: faults.createPet.rate: 1.5: want at most 1`,
		path + `:8: fixtures.files: fixtures ` + fixture + `: pets[0] (id 1): field 'status'`,
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if n := strings.Count(errOut, "faults.createPet"); n != 1 {
		t.Errorf("the fault rate is reported %d times:\n%s", n, errOut)
	}
	// Several bad origins are all listed, each at its own key and line;
	// "*" with credentials, which the file's checks and the engine both
	// see, once.
	os.WriteFile(path, []byte("cors:\n  credentials: true\n  origins:\n    - ftp://x\n    - http://localhost:*\n    - http://a:99999\n    - '*'\n"), 0o600)
	code, _, errOut = runCLI(t, nil, "config", "validate", path)
	for _, w := range []string{
		"3 problems",
		path + `:4: cors.origins[0]: "ftp://x": want scheme://host[:port]`,
		path + `:6: cors.origins[2]: "http://a:99999": port "99999" is not a number`,
		path + `:7: cors.origins[3]: "*" cannot be combined with credentials`,
	} {
		if code != exitUsage || !strings.Contains(errOut, w) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, w, errOut)
		}
	}
	// serve reports the same, before it listens.
	if code, _, serveErr := runCLI(t, nil, "serve", "--config", path, "--addr", "127.0.0.1:0"); code != exitUsage || serveErr != errOut {
		t.Errorf("serve: %d\n%s", code, serveErr)
	}
}

// TestBadClockReportedOnce: a clock.now that is not an instant is one
// problem, with its key and source, whether it comes from the environment,
// a flag or the file; and it does not hide the settings checked after it.
func TestBadClockReportedOnce(t *testing.T) {
	t.Chdir(t.TempDir()) // no petctl.yaml here
	path := filepath.Join(t.TempDir(), "petctl.yaml")
	os.WriteFile(path, []byte("clock:\n  now: soon\nresponses:\n  nope: {status: 200}\n"), 0o600)
	for _, c := range []struct {
		env  map[string]string
		args []string
		want []string
	}{
		{map[string]string{"PETCTL_NOW": "tomorrow"}, []string{"config", "validate"}, []string{`configuration: PETCTL_NOW: clock.now: "tomorrow": want an RFC 3339 instant`}},
		{nil, []string{"serve", "--now", "y", "--addr", "127.0.0.1:0"}, []string{`configuration: --now: clock.now: "y": want an RFC 3339 instant`}},
		{nil, []string{"config", "validate", path}, []string{"2 problems", path + `:2: clock.now: "soon": want an RFC 3339 instant`, path + `:4: responses.nope: no such operation`}},
	} {
		code, _, errOut := runCLI(t, c.env, c.args...)
		for _, w := range c.want {
			if code != exitUsage || !strings.Contains(errOut, w) {
				t.Errorf("%v: exit %d, stderr lacks %q:\n%s", c.args, code, w, errOut)
			}
		}
		if n := strings.Count(errOut, "want an RFC 3339 instant"); n != 1 {
			t.Errorf("%v: the clock is reported %d times:\n%s", c.args, n, errOut)
		}
	}
}

// TestConfiguredResponseProblems: a configured answer HTTP cannot carry, or
// an error answer without the Error body, stops validate and serve with
// every problem at its key and line; the 1xx status that both the file's
// checks and the engine refuse is reported once.
func TestConfiguredResponseProblems(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		file string
		want []string
	}{
		{"seed: 3\nresponses:\n  listStoreOrders:\n    status: 204\n    headers:\n      Content-Length: \"100\"\n      Connection: close\n    body: {hello: world}\n", []string{
			"3 problems",
			"petctl.yaml:6: responses.listStoreOrders.headers.Content-Length: a framing header",
			"petctl.yaml:7: responses.listStoreOrders.headers.Connection: a hop-by-hop header",
			"petctl.yaml:8: responses.listStoreOrders.body: a 204 answer has no content",
		}},
		{"responses:\n  listStoreOrders:\n    status: 101\n", []string{"configuration: petctl.yaml:3: responses.listStoreOrders.status: 101: want at least 200"}},
		{"responses:\n  listStoreOrders:\n    status: 500\n    body: {hello: world}\n", []string{
			"configuration: petctl.yaml:4: responses.listStoreOrders.body: a 500 answer is the Error body {code, message, status}",
		}},
	} {
		os.WriteFile("petctl.yaml", []byte(c.file), 0o600)
		code, _, errOut := runCLI(t, nil, "config", "validate")
		for _, w := range c.want {
			if code != exitUsage || !strings.Contains(errOut, w) {
				t.Errorf("exit %d, stderr lacks %q:\n%s", code, w, errOut)
			}
		}
		if code != exitUsage {
			continue // serve would start, and serve until the test times out
		}
		if code, _, serveErr := runCLI(t, nil, "serve", "--addr", "127.0.0.1:0"); code != exitUsage || serveErr != errOut {
			t.Errorf("serve: %d\n%s", code, serveErr)
		}
	}
	// The example of docs/configuration.md is valid.
	os.WriteFile("petctl.yaml", []byte("responses:\n  listStoreOrders:\n    status: 503\n    headers: {Retry-After: \"120\"}\n    body: {code: maintenance, message: orders are down for maintenance, status: 503}\n"), 0o600)
	if code, out, errOut := runCLI(t, nil, "config", "validate"); code != 0 {
		t.Errorf("the documented 503: exit %d %s %s", code, out, errOut)
	}
}

// TestPathsRelativeToTheFile: spec and fixture paths written in a
// configuration file are relative to the file's directory; those from the
// environment and flags, to the working directory.
func TestPathsRelativeToTheFile(t *testing.T) {
	doc, err := os.ReadFile("../../spec/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("proj", 0o700)
	os.WriteFile(filepath.Join("proj", "api.yaml"), doc, 0o600)
	os.WriteFile(filepath.Join("proj", "pets.json"), []byte(`[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1}]`), 0o600)
	os.WriteFile(filepath.Join("proj", "petctl.yaml"), []byte("spec: api.yaml\nfixtures:\n  files: [pets.json]\n"), 0o600)
	code, out, errOut := runCLI(t, nil, "config", "validate", "proj/petctl.yaml")
	if code != 0 || !strings.Contains(out, "pets: 2 records") {
		t.Errorf("config validate proj/petctl.yaml: %d %s %s", code, out, errOut)
	}
	base, _ := startServe(t, nil, "--config", "proj/petctl.yaml")
	if r := call(t, "GET", base+"/pets", config.DevKey, ""); r.status != 200 || strings.Count(r.body, `"id"`) != 2 {
		t.Errorf("served fixtures: %d %s", r.status, r.body)
	}
	// From the environment, a path is the working directory's.
	code, _, errOut = runCLI(t, map[string]string{"PETCTL_FIXTURES": "pets.json"}, "config", "validate", "proj/petctl.yaml")
	if code != exitUsage || !strings.Contains(errOut, "PETCTL_FIXTURES: fixtures.files: fixtures pets.json: no such file") {
		t.Errorf("PETCTL_FIXTURES=pets.json: %d %s", code, errOut)
	}
}

// TestExposedDevKeyWarns: the development key and the open mode are for
// loopback; served elsewhere they warn on stderr, and an empty key list from
// the environment is a configuration problem, not the development key.
func TestExposedDevKeyWarns(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string // "" for no warning
	}{
		{"dev key on loopback", nil, nil, ""},
		{"dev key on every interface", nil, []string{"--addr", "0.0.0.0:0"}, "the public development key petctl-dev-key is in force"},
		{"open on every interface", map[string]string{"PETCTL_AUTH_MODE": "open"}, []string{"--addr", "0.0.0.0:0"}, "auth.mode is open"},
		{"own key on every interface", nil, []string{"--addr", "0.0.0.0:0", "--api-key", "team"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, errOut := startServeStreams(t, tc.env, tc.args...)
			got := errOut.String()
			if tc.want == "" && strings.Contains(got, "warning") {
				t.Errorf("a warning although nothing is exposed:\n%s", got)
			}
			if tc.want != "" && (!strings.Contains(got, "petctl: warning: ") || !strings.Contains(got, tc.want)) {
				t.Errorf("stderr lacks the warning %q:\n%s", tc.want, got)
			}
		})
	}
	for _, keys := range []string{",", " , "} {
		code, _, errOut := runCLI(t, map[string]string{"PETCTL_API_KEYS": keys}, "config", "validate")
		if code != exitUsage || !strings.Contains(errOut, "PETCTL_API_KEYS: auth.keys: ") || !strings.Contains(errOut, "names nothing") {
			t.Errorf("PETCTL_API_KEYS=%q: %d %s", keys, code, errOut)
		}
	}
}

// TestConfigValidateSortsCollections: config validate lists the
// collections by name, as the banner does, whatever the map's order.
func TestConfigValidateSortsCollections(t *testing.T) {
	t.Chdir(t.TempDir())
	var paths strings.Builder
	for _, name := range []string{"zebras", "apes", "moles", "cats", "birds"} {
		fmt.Fprintf(&paths, "  /%s:\n    get:\n      operationId: list%s\n      responses:\n        '200':\n          description: the %s\n"+
			"          content:\n            application/json:\n              schema:\n                type: array\n                items: {$ref: '#/components/schemas/Item'}\n", name, name, name)
	}
	doc := "openapi: 3.0.3\ninfo: {title: Many, version: '1'}\nservers: [{url: /v1}]\npaths:\n" + paths.String() +
		"components:\n  schemas:\n    Item:\n      type: object\n      required: [id]\n      properties: {id: {type: integer}}\n"
	os.WriteFile("many.yaml", []byte(doc), 0o600)
	os.WriteFile("petctl.yaml", []byte("spec: many.yaml\n"), 0o600)
	const want = "petctl.yaml is valid: serving Many 1, apes: 0 records, birds: 0 records, cats: 0 records, moles: 0 records, zebras: 0 records\n"
	for range 5 { // map order changes from run to run
		if code, out, errOut := runCLI(t, nil, "config", "validate"); code != 0 || out != want {
			t.Fatalf("config validate: %d %q %s, want %q", code, out, errOut, want)
		}
	}
}

// TestConfigSchema: the starter file's modeline names a schema next to it,
// and `petctl config schema` writes exactly docs/petctl.schema.json there.
func TestConfigSchema(t *testing.T) {
	want, err := os.ReadFile("../../docs/petctl.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, nil, "config", "schema"); code != 0 || out != string(want) {
		t.Errorf("config schema: %d, %d bytes, want docs/petctl.schema.json (%d bytes); %s", code, len(out), len(want), errOut)
	}
	if strings.Contains(string(want), `"$id"`) {
		t.Error("the schema names an $id that no URL serves")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "petctl.yaml")
	if code, _, errOut := runCLI(t, nil, "init", path); code != 0 {
		t.Fatalf("init: %d %s", code, errOut)
	}
	starter, _ := os.ReadFile(path)
	m := regexp.MustCompile(`(?m)^# yaml-language-server: \$schema=(\S+)$`).FindStringSubmatch(string(starter))
	if m == nil {
		t.Fatalf("the starter file has no modeline:\n%s", starter)
	}
	if !strings.Contains(string(starter), "petctl config schema "+m[1]) {
		t.Errorf("the starter file does not say how to write %s", m[1])
	}
	if code, out, errOut := runCLI(t, nil, "config", "schema", filepath.Join(dir, m[1])); code != 0 || !strings.Contains(out, "wrote") {
		t.Fatalf("config schema FILE: %d %s %s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(dir, m[1])); err != nil || string(got) != string(want) {
		t.Errorf("the schema the modeline names (%s, next to the file) is not docs/petctl.schema.json: %v", m[1], err)
	}
	if code, _, errOut := runCLI(t, nil, "config", "schema", filepath.Join(dir, "no", "such", "dir.json")); code != exitUsage || strings.Count(errOut, "\n") != 1 {
		t.Errorf("unwritable FILE: %d %q", code, errOut)
	}
}

// TestNumericFlagsReadable: a numeric flag that is not a number is one
// readable configuration line, with its key, not strconv's error.
func TestNumericFlagsReadable(t *testing.T) {
	for flag, want := range map[string]string{
		"--max-body": `petctl: configuration: --max-body: server.maxBodyBytes: "1MB": want an integer`,
		"--seed":     `petctl: configuration: --seed: seed: "1MB": want an integer`,
		"--generate": `petctl: configuration: --generate: fixtures.generate: "1MB": want an integer`,
	} {
		code, _, errOut := runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", flag, "1MB")
		if code != exitUsage || errOut != want+"\n" {
			t.Errorf("%s 1MB: %d %q, want %q", flag, code, errOut, want)
		}
	}
}
