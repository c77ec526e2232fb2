package conformance

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestGinkgoOnlyInTheRunner: the checks are plain functions of *T, and
// runner.go is the one file that registers them with Ginkgo, runs the
// suite and drives Ginkgo's process globals (its global suite, its
// formatter), so that a check group's file reads without Ginkgo and the
// workarounds it needs have one home. The other files read Ginkgo's report
// types only.
func TestGinkgoOnlyInTheRunner(t *testing.T) {
	runnerOnly := []string{"github.com/onsi/ginkgo/v2", "github.com/onsi/ginkgo/v2/extensions/globals", "github.com/onsi/ginkgo/v2/formatter"}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, only := range runnerOnly {
				switch {
				case p != only:
				case name == "runner.go":
					seen = true
				default:
					t.Errorf("%s imports %s: register, run and reset Ginkgo in runner.go only", name, p)
				}
			}
		}
	}
	if !seen {
		t.Error("runner.go imports none of Ginkgo's running packages: is the runner elsewhere?")
	}
}
