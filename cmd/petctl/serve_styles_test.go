package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeLoadingStyles runs petctl serve as a user does, flags and
// configuration file, on the documents of fixtures/styles that isolate a
// way of loading: the base path from servers[0] with its variables, a
// variable or the base path set by configuration (/ for the root), a
// document split over files, the quirks of generated documents served with
// a warning naming the line, and a $ref outside the folder allowed by
// refFolders. Each answers at the base path it should, and no line on
// standard error is the library's own.
func TestServeLoadingStyles(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	styles, err := filepath.Abs("../../fixtures/styles")
	if err != nil {
		t.Fatal(err)
	}
	vars := filepath.Join(styles, "servervars.yaml")
	dir := t.TempDir()
	config := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	variable := config("variable.yaml", "spec: "+vars+"\nserver:\n  variables: {basePath: v3}\n")
	refFolders := config("refs.yaml", "spec: "+filepath.Join(styles, "outside/doc/openapi.yaml")+"\nrefFolders: ["+filepath.Join(styles, "outside/shared")+"]\n")
	tests := []struct {
		name       string
		args       []string
		base       string // the path of the base URL
		path       string // a path under it
		status     int    // its answer with the development key
		wantStderr string
	}{
		// getFile takes its key in the query: 401 says the route is there.
		{"server variables from their defaults", []string{"--spec", vars}, "/v2", "/files/a", 401, ""},
		{"a server variable set in petctl.yaml", []string{"--config", variable}, "/v3", "/files/a", 401, ""},
		{"--base-path over the servers", []string{"--spec", vars, "--base-path", "/mock"}, "/mock", "/files/a", 401, ""},
		{"--base-path / mounts at the root", []string{"--spec", vars, "--base-path", "/"}, "", "/files/a", 401, ""},
		{"a document split over files", []string{"--spec", filepath.Join(styles, "multifile/openapi.yaml")}, "/notes/v1", "/notes", 200, ""},
		{"generator quirks served with a warning", []string{"--spec", filepath.Join(styles, "quirks.yaml")}, "/api", "/items", 200,
			"spec " + filepath.Join(styles, "quirks.yaml") + " line 21 (paths./items.get.responses.200): the key 200 is not a string (quote it: '200') (served; --strict refuses it)"},
		{"a $ref outside the folder, allowed by refFolders", []string{"--config", refFolders}, "", "/things", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, _, stderr := startServeStreams(t, nil, tc.args...)
			u, err := url.Parse(base)
			if err != nil || u.Path != tc.base {
				t.Fatalf("base URL %q, want the path %q", base, tc.base)
			}
			if r := call(t, "GET", base+tc.path, devKey, ""); r.status != tc.status {
				t.Errorf("GET %s: %d %s, want %d", tc.path, r.status, r.body, tc.status)
			}
			if r := call(t, "GET", base+"/petctl-elsewhere"+tc.path, devKey, ""); r.status != 404 {
				t.Errorf("GET /petctl-elsewhere%s: %d, want 404", tc.path, r.status)
			}
			// The log reaches stderr through its buffer's own goroutine.
			waitFor(t, "stderr to say "+tc.wantStderr, func() bool {
				return strings.Contains(stderr.String(), tc.wantStderr)
			})
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if line != "" && !strings.HasPrefix(line, "time=") {
					t.Errorf("stderr has a line that is not petctl's log: %q", line)
				}
			}
		})
	}
}

// TestServeRefusesLoadingStyles: what a document's loading refuses is one
// line and exit code 2 from petctl serve, with the file, the line and the
// reason: a quirk under --strict, a $ref leaving the folder, a server
// variable set outside its enum.
func TestServeRefusesLoadingStyles(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	styles, err := filepath.Abs("../../fixtures/styles")
	if err != nil {
		t.Fatal(err)
	}
	outsideEnum := filepath.Join(t.TempDir(), "petctl.yaml")
	if err := os.WriteFile(outsideEnum, []byte("spec: "+filepath.Join(styles, "servervars.yaml")+"\nserver:\n  variables: {scheme: ftp}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"a quirk under --strict", []string{"serve", "--strict", "--spec", filepath.Join(styles, "quirks.yaml")},
			[]string{"quirks.yaml is not a valid OpenAPI 3.0.3 document", "line 21 (paths./items.get.responses.200): the key 200 is not a string (quote it: '200')"}},
		{"a $ref leaving the folder", []string{"serve", "--spec", filepath.Join(styles, "outside/doc/openapi.yaml")},
			[]string{"openapi.yaml line 16", `$ref "../shared/thing.yaml"`, "leaves the document's folder", "refFolders"}},
		{"a server variable outside its enum", []string{"serve", "--config", outsideEnum},
			[]string{`{scheme}: the configured value "ftp" is not one of http, https`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || !strings.HasPrefix(stderr, "petctl: ") {
				t.Errorf("stderr is not one line starting with 'petctl: ': %q", stderr)
			}
		})
	}
}
