package race_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLeftOutTestsRunWithoutRace: a test that leaves cases out under
// -race (race.Heavy, race.Split, corpus.RaceSkip), itself or through a
// helper of its package, is one make test's run without -race runs: it is
// in a package of NORACE_PKGS and named by NORACE_TESTS. One that is not
// would lose those cases from make test without a word.
func TestLeftOutTestsRunWithoutRace(t *testing.T) {
	root := filepath.Join("..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `\s*:=\s*(.*)$`).FindSubmatch(makefile)
		if m == nil {
			t.Fatalf("the Makefile sets no %s", name)
		}
		return strings.ReplaceAll(strings.TrimSpace(string(m[1])), "$$", "$")
	}
	named := regexp.MustCompile(value("NORACE_TESTS"))
	var pkgs []string
	for _, p := range strings.Fields(value("NORACE_PKGS")) {
		pkgs = append(pkgs, filepath.Clean(p))
	}

	leaving, calls := scanTestFiles(t, root)
	found := 0
	for dir, fns := range leaving {
		for changed := true; changed; {
			changed = false
			for caller, callees := range calls[dir] {
				if !fns[caller] && slices.ContainsFunc(callees, func(c string) bool { return fns[c] }) {
					fns[caller], changed = true, true
				}
			}
		}
		for name := range fns {
			if !strings.HasPrefix(name, "Test") {
				continue
			}
			found++
			if !slices.Contains(pkgs, dir) || !named.MatchString(name) {
				t.Errorf("%s %s leaves cases out under -race, but make test's run without it (NORACE_PKGS, NORACE_TESTS) does not run it", dir, name)
			}
		}
	}
	if found == 0 {
		t.Error("found no test that leaves cases out under -race: the search no longer sees them")
	}
	t.Logf("%d tests leave cases out under -race; make test runs each without it", found)
}

// scanTestFiles reads every test file under root. It returns, by package
// folder, the functions that leave cases out under -race themselves and
// the package's functions each function calls by name.
func scanTestFiles(t *testing.T, root string) (leaving map[string]map[string]bool, calls map[string]map[string][]string) {
	leaving, calls = map[string]map[string]bool{}, map[string]map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		if leaving[dir] == nil {
			leaving[dir], calls[dir] = map[string]bool{}, map[string][]string{}
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil && fn.Recv == nil {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						if name, ok := call.Fun.(*ast.Ident); ok {
							calls[dir][fn.Name.Name] = append(calls[dir][fn.Name.Name], name.Name)
						} else if leavesCasesOut(call.Fun) {
							leaving[dir][fn.Name.Name] = true
						}
					}
					return true
				})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return leaving, calls
}

// leavesCasesOut reports whether fun is a helper that skips cases under
// -race: race.Heavy, race.Split, corpus.RaceSkip. race.Light skips in the
// run without -race only what the run with it ran.
func leavesCasesOut(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch pkg.Name + "." + sel.Sel.Name {
	case "race.Heavy", "race.Split", "corpus.RaceSkip":
		return true
	}
	return false
}
