package main

import (
	"html"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestDocsBuild: the static reference is index.html with its style sheet
// and script, its try-it pointed at --server or the document's first server.
func TestDocsBuild(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		server string // try-it's server in the page's data
		stderr string
	}{
		{"the Petstore", nil, "https://api.example.com/v1", ""},
		{"--server", []string{"--server", "http://127.0.0.1:4010/v1"}, "http://127.0.0.1:4010/v1", ""},
		{"another document", []string{"--spec", "../../fixtures/library/openapi.yaml"}, "http://library.local/api/v2", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			code, stdout, stderr := runCLI(t, nil, append([]string{"docs", "build", "--out", out}, c.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, name := range []string{"index.html", "reference.css", "reference.js"} {
				if _, err := os.Stat(filepath.Join(out, name)); err != nil {
					t.Errorf("%s was not written: %v", name, err)
				}
			}
			page, err := os.ReadFile(filepath.Join(out, "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"server":"` + c.server + `"`, `href="reference.css"`, `src="reference.js"`} {
				if !strings.Contains(string(page), want) {
					t.Errorf("index.html lacks %s", want)
				}
			}
			_, csp, _ := strings.Cut(html.UnescapeString(string(page)), "connect-src ")
			csp, _, _ = strings.Cut(csp, ";")
			if !slices.Contains(strings.Fields(csp), origin(c.server)) {
				t.Errorf("the page may connect to %s, not to %s", csp, origin(c.server))
			}
			if strings.Contains(string(page), `id="mock-url"`) {
				t.Error("the static page offers a mock, which it is not served beside")
			}
			if !strings.Contains(stdout, "try-it sends to "+c.server) || stderr != c.stderr {
				t.Errorf("stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

func origin(u string) string {
	scheme, rest, _ := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	return scheme + "://" + host
}

// TestDocsBuildUsage: bad input is one line and exit 2.
func TestDocsBuildUsage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, []byte("x"), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no --out", nil, "docs build needs --out DIR"},
		{"--out is a file", []string{"--out", file}, "is a file, not a folder"},
		{"a relative --server", []string{"--out", dir, "--server", "/v1"}, `--server "/v1": want an absolute http:// or https:// URL`},
		{"--server with a query", []string{"--out", dir, "--server", "https://x.example/v1?a=1"}, "without ?query"},
		{"no such spec", []string{"--out", dir, "--spec", filepath.Join(dir, "none.yaml")}, "none.yaml: no such file or directory"},
		{"an argument", []string{"--out", dir, "extra"}, "unknown command"},
		{"--out under a file", []string{"--out", filepath.Join(file, "site")}, "a-file/site: not a directory"},
		// /proc takes no new folder, even from root.
		{"--out that cannot be made", []string{"--out", "/proc/petctl-docs-test/site"}, "--out /proc/petctl-docs-test/site: cannot create the folder: no such file or directory"},
	} {
		if strings.HasPrefix(c.name, "--out that") && runtime.GOOS != "linux" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, append([]string{"docs", "build"}, c.args...)...)
			if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line with %q", code, stderr, c.want)
			}
		})
	}
}

// TestDocsBuildWithoutServer: a document that names no server still gets
// its reference, with a warning that try-it has nowhere to send requests.
func TestDocsBuildWithoutServer(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "noserver.yaml")
	if err := os.WriteFile(doc, []byte(strings.Replace(string(spec.DefaultDocument()), "servers:\n  - url: https://api.example.com/v1\n    description: Production ({base_url}; includes the version prefix /v1)\n  - url: https://staging.example.com/v1\n    description: Staging ({staging_url}; same path layout)\n", "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, nil, "docs", "build", "--out", filepath.Join(dir, "site"), "--spec", doc)
	if code != exitOK || !strings.Contains(stderr, "the document names no server") {
		t.Errorf("exit %d, stderr %q: want 0 and the warning", code, stderr)
	}
}

// TestServeReference: serve's banner names the reference, and it answers there.
func TestServeReference(t *testing.T) {
	dir := t.TempDir()
	claims := filepath.Join(dir, "claims.yaml")
	os.WriteFile(claims, []byte("openapi: 3.1.0\ninfo: {title: Claims, version: '1'}\npaths:\n  /docs:\n    get:\n      responses:\n        '200': {description: ok}\n"), 0o600)
	for _, c := range []struct {
		name string
		args []string
		line string // the banner's line, ORIGIN for the server's
	}{
		{"the Petstore", nil, "  reference  ORIGIN/docs (try-it sends to this mock)\n"},
		{"a document that has /docs", []string{"--spec", claims}, "  reference  ORIGIN/__petctl/docs (the document's own paths claim /docs)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, banner := startServe(t, nil, c.args...)
			origin := origin(base)
			line := strings.ReplaceAll(c.line, "ORIGIN", origin)
			if !strings.Contains(banner.String(), line) {
				t.Fatalf("banner lacks %q:\n%s", line, banner)
			}
			url := strings.Fields(line)[1]
			res, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				t.Errorf("GET %s: %d %s, want the page", url, res.StatusCode, res.Header.Get("Content-Type"))
			}
		})
	}
}
