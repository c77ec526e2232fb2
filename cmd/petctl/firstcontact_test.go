package main

// What a newcomer meets before any code: the README's first steps and
// make run. They are held to what they promise here, since a first step
// that does not work is met before any test of the code would be read.

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestMakeRunTakesArgs: make run hands ARGS to petctl serve, so that it can
// serve elsewhere than 127.0.0.1:4010, and it says what it builds (a first
// build compiles for a minute or more, which would look like a hang).
func TestMakeRunTakesArgs(t *testing.T) {
	t.Parallel()
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make on PATH")
	}
	// -n prints the recipes without running them.
	out, err := exec.Command(makePath, "-n", "--no-print-directory", "-C", "../..", "run", "ARGS=--addr 127.0.0.1:8080 --state none").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n run: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, " serve --addr 127.0.0.1:8080 --state none") {
		t.Errorf("make run ends with %q, want petctl serve given ARGS", last)
	}
	built := false
	for _, l := range lines {
		if strings.Contains(l, " build ") && strings.Contains(l, " -v ") {
			built = true
		}
	}
	if !built {
		t.Errorf("make run does not build with -v, which names each package as it compiles:\n%s", out)
	}
}

// TestReadmeFirstContact: the README names the Go version go.mod needs,
// says how to get the binary and how long the first runs take, and how to
// serve elsewhere.
func TestReadmeFirstContact(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	for _, want := range []string{
		"Go " + string(m[1]) + " or later",
		"make build",
		"go install github.com/petctl/petctl/cmd/petctl@",
		"the first `make run`",
		"the first `make test`",
		"make run ARGS='--addr ",
		"PETCTL_ADDR",
	} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}
