package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a git repository in a temporary folder whose main branch
// holds the files given, and returns its folder.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, content := range files {
		writeFileT(t, filepath.Join(dir, name), content)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=petctl", "-c", "user.email=petctl@example.com", "commit", "-q", "-m", "base"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

func writeFileT(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiffBaseRef runs the CI gate as the recipe in docs/spec-diff.md
// does: the document as main has it against the working copy, exit 1 and
// a failed JUnit case for a breaking change, exit 0 once it is undone.
func TestDiffBaseRef(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	base := readFileT(t, "../../spec/diff/testdata/base.yaml")
	repo := gitRepo(t, map[string]string{"api/openapi.yaml": base, "api/README.md": "not a document"})
	doc := filepath.Join(repo, "api", "openapi.yaml")
	junitPath := filepath.Join(t.TempDir(), "reports", "diff.xml")

	code, out, errOut := runCLI(t, nil, "diff", "--base-ref", "main", doc, "--now", "2026-06-01", "--junit-report", junitPath)
	if code != exitOK || !strings.Contains(out, "no changes") {
		t.Fatalf("unchanged: exit %d, want 0\nstdout:\n%s\nstderr: %s", code, out, errOut)
	}

	writeFileT(t, doc, strings.Replace(base, "enum: [good, bad]", "enum: [good, bad, ugly]", 1))
	code, out, errOut = runCLI(t, nil, "diff", "--base-ref", "main", doc, "--now", "2026-06-01", "--junit-report", junitPath)
	if code != exitFailure {
		t.Fatalf("a new enum value in a response: exit %d, want 1\nstdout:\n%s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"main:api/openapi.yaml → " + doc, "BREAKING  schema Rating (in responses): enum value ugly added", "FAIL: 1 changes: 1 breaking"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if got, want := errOut, "petctl: FAIL: 1 changes: 1 breaking, 0 flagged, 0 safe\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(readFileT(t, junitPath)), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 1 || suites.Failures != 1 || len(suites.Suite.Cases) != 1 || suites.Suite.Cases[0].Failure == nil {
		t.Errorf("JUnit: got %+v, want one failed case", suites)
	}
}

// TestDiffUsage: every usage and document problem is one line and exit 2.
func TestDiffUsage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	writeFileT(t, good, readFileT(t, "../../spec/diff/testdata/base.yaml"))
	bad := filepath.Join(dir, "bad.yaml")
	writeFileT(t, bad, "openapi: 3.1.0\ninfo: [\n")
	repo := gitRepo(t, map[string]string{"other.yaml": "openapi: 3.1.0\n"})
	untracked := filepath.Join(repo, "new.yaml")
	writeFileT(t, untracked, readFileT(t, "../../spec/diff/testdata/base.yaml"))
	tests := []struct {
		name   string
		args   []string
		wantIn string
	}{
		{"one document", []string{"diff", good}, "diff takes two documents"},
		{"three documents", []string{"diff", good, good, good}, "diff takes two documents"},
		{"base ref and two documents", []string{"diff", "--base-ref", "main", good, good}, "takes one document"},
		{"a bad notice", []string{"diff", "--min-notice", "soon", good, good}, "--min-notice \"soon\""},
		{"a negative notice", []string{"diff", "--min-notice", "-5d", good, good}, "--min-notice \"-5d\""},
		{"a bad date", []string{"diff", "--now", "tomorrow", good, good}, "--now \"tomorrow\""},
		{"a document that is not YAML", []string{"diff", good, bad}, "bad.yaml"},
		{"a missing document", []string{"diff", good, filepath.Join(dir, "none.yaml")}, "none.yaml"},
		{"not in a git work tree", []string{"diff", "--base-ref", "main", good}, "git work tree"},
		{"an unknown ref", []string{"diff", "--base-ref", "nope", untracked}, "--base-ref nope: no such branch"},
		{"a file the ref lacks", []string{"diff", "--base-ref", "main", untracked}, "new.yaml does not exist at main"},
		{"an option as a ref", []string{"diff", "--base-ref=--output=x", untracked}, "want a branch, tag or commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "petctl: ") || !strings.Contains(errOut, tt.wantIn) {
				t.Errorf("stderr = %q; want one line naming %q", errOut, tt.wantIn)
			}
		})
	}
}

// TestDiffBaseRefMultiFile: with --base-ref, a document split over files
// is read as the ref has each of its files, and a change in one of them
// (a new enum value in a response schema's file) breaks the gate, placed
// at its line in that file.
func TestDiffBaseRefMultiFile(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for _, name := range []string{"openapi.yaml", "paths/things.yaml", "paths/thing.yaml", "schemas/Thing.yaml", "schemas/NewThing.yaml"} {
		files["api/"+name] = readFileT(t, "../../spec/diff/testdata/multi/"+name)
	}
	repo := gitRepo(t, files)
	doc, schema := filepath.Join(repo, "api", "openapi.yaml"), filepath.Join(repo, "api", "schemas", "Thing.yaml")
	writeFileT(t, schema, strings.Replace(files["api/schemas/Thing.yaml"], "enum: [small, large]", "enum: [small, large, huge]", 1))
	code, out, errOut := runCLI(t, nil, "diff", "--base-ref", "main", doc, "--now", "2026-06-01")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"BREAKING  GET /things (listThings) response 200 application/json field [].kind: enum value huge added", "(" + schema + ":10)", "FAIL: 1 changes: 1 breaking"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}
