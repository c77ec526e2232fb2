package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// safeBuffer is written by the command while the test reads it.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func noEnv(string) string { return "" }

func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut safeBuffer
	code := run(context.Background(), args, &out, &errOut, testEnv(env))
	return code, out.String(), errOut.String()
}

// testEnv is the environment of a test's petctl: env, and a store kept in
// memory unless the test names a state (tests run side by side in one
// folder, and a state file there would be shared by all of them).
func testEnv(env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok || k != "PETCTL_STATE" {
			return v
		}
		return "none"
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	dir := t.TempDir()
	badSpec := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badSpec, []byte("openapi: 3.1.0\ninfo: [\n"), 0o600)
	swagger := filepath.Join(dir, "swagger.yaml")
	os.WriteFile(swagger, []byte("swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n"), 0o600)
	typoSpec := filepath.Join(dir, "typo.yaml")
	os.WriteFile(typoSpec, []byte("openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths:\n  /pets:\n    get:\n      responses:\n        '200': {descriptionn: ok}\n"), 0o600)
	badFixture := filepath.Join(dir, "pets.json")
	os.WriteFile(badFixture, []byte(`[{"id":1,"name":"x","categoryId":1,"status":"adopted"}]`), 0o600)
	tests := []struct {
		name   string
		args   []string
		wantIn string
	}{
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"serve", "--nope"}, "unknown flag: --nope"},
		{"bad addr", []string{"serve", "--addr", "4010"}, "--addr"},
		{"missing spec", []string{"serve", "--spec", filepath.Join(dir, "none.yaml")}, "no such file"},
		{"malformed spec", []string{"serve", "--spec", badSpec}, "bad.yaml"},
		{"swagger 2", []string{"serve", "--spec", swagger}, "not supported"},
		{"spec breaking the OpenAPI schema", []string{"serve", "--spec", typoSpec}, "line 7 (paths./pets.get.responses.200.descriptionn)"},
		{"the same, conform", []string{"conform", "--url", "http://127.0.0.1:9/v1", "--api-key", "k", "--spec", typoSpec}, "is not a valid OpenAPI 3.1.0 document"},
		{"missing fixtures", []string{"serve", "--fixtures", filepath.Join(dir, "none.json")}, "no such file"},
		{"bad fixture record", []string{"serve", "--fixtures", badFixture}, "pets[0]"},
		{"bad max body", []string{"serve", "--max-body", "0"}, "--max-body"},
		{"bad log format", []string{"serve", "--log-format", "xml"}, "--log-format"},
		{"empty key", []string{"serve", "--api-key", ""}, "empty"},
		{"extra argument", []string{"version", "now"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != exitUsage {
				t.Errorf("exit code = %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tc.wantIn) {
				t.Errorf("stderr %q does not mention %q", stderr, tc.wantIn)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || !strings.HasPrefix(stderr, "petctl: ") {
				t.Errorf("stderr is not one line starting with 'petctl: ': %q", stderr)
			}
		})
	}
}

func TestVersionAndSpec(t *testing.T) {
	code, out, _ := runCLI(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "petctl ") || !strings.Contains(out, "libopenapi-validator") {
		t.Errorf("version: %d %q", code, out)
	}
	code, out, _ = runCLI(t, nil, "spec")
	if code != 0 || out != string(spec.DefaultDocument()) {
		t.Errorf("spec: exit %d, output is not the embedded document", code)
	}
	if _, err := spec.Parse([]byte(out), "printed"); err != nil {
		t.Errorf("printed spec does not parse: %v", err)
	}
}

// TestServe runs the whole command on a free port, calls it, and stops it
// the way a signal does.
func TestServe(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		key     string
		wantOut string
	}{
		{"development key", nil, nil, devKey, "petctl-dev-key (development key"},
		{"key flag", []string{"--api-key", "k1", "--api-key", "k2"}, nil, "k2", "2 configured"},
		{"keys from the environment", nil, map[string]string{"PETCTL_API_KEYS": "e1, e2"}, "e2", "2 configured"},
		{"key from the environment", nil, map[string]string{"PETCTL_API_KEY": "solo"}, "solo", "1 configured"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out, errOut safeBuffer
			a := &app{ctx: ctx, out: &out, err: &errOut, getenv: testEnv(tc.env)}
			ready := make(chan string, 1)
			cmd := newServeCmd(a, func(o *serveOptions) error {
				o.ready = func(base string) { ready <- base }
				return serveRun(a, o)
			})
			cmd.SetArgs(append([]string{"--addr", "127.0.0.1:0"}, tc.args...))
			done := make(chan error, 1)
			go func() { done <- cmd.Execute() }()
			var base string
			select {
			case base = <-ready:
			case err := <-done:
				t.Fatalf("serve stopped: %v; stderr: %s", err, errOut.String())
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not start")
			}
			if !strings.Contains(out.String(), tc.wantOut) || !strings.Contains(out.String(), base) || !strings.Contains(out.String(), "curl") {
				t.Errorf("banner lacks %q, the base URL or a curl command:\n%s", tc.wantOut, out.String())
			}
			if !strings.HasSuffix(base, "/v1") {
				t.Errorf("base URL %q lacks the /v1 prefix", base)
			}
			req, _ := http.NewRequest(http.MethodGet, base+"/pets?limit=2", nil)
			req.Header.Set("Authorization", "Bearer "+tc.key)
			client := &http.Client{Timeout: 5 * time.Second}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !strings.Contains(string(body), `"id":1`) {
				t.Errorf("GET /pets: %d %s", res.StatusCode, body)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("serve returned %v after a stop, want nil", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("serve did not stop")
			}
			if strings.Contains(errOut.String(), tc.key) && tc.key != devKey {
				t.Errorf("the log contains the API key")
			}
		})
	}
}

// TestServeAddressInUse: an address that cannot be bound is one line,
// exit 2, that names the address, where it was set, and the flag, the
// environment variable and the key that choose another.
func TestServeAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	cfg := filepath.Join(t.TempDir(), "petctl.yaml")
	if err := os.WriteFile(cfg, []byte("server:\n  addr: "+addr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		from string
	}{
		{"flag", []string{"--addr", addr}, nil, "(from --addr)"},
		{"environment", nil, map[string]string{"PETCTL_ADDR": addr}, "(from PETCTL_ADDR)"},
		{"file", []string{"--config", cfg}, nil, "(from " + cfg + ":2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.env, append([]string{"serve"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if n := strings.Count(stderr, "\n"); n != 1 {
				t.Errorf("%d lines on stderr, want 1:\n%s", n, stderr)
			}
			for _, want := range []string{"petctl: cannot listen on " + addr + " " + tc.from, "address already in use", "--addr, PETCTL_ADDR or server.addr in petctl.yaml"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q lacks %q", stderr, want)
				}
			}
		})
	}
}
