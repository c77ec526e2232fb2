package spec

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOnlySpecImportsLibopenapi: the document model is spec's alone. Every
// other package reads the document through spec's types, so a change of
// libopenapi (or of how petctl reads a document) has one home.
func TestOnlySpecImportsLibopenapi(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "spec" && filepath.Dir(path) == root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/pb33f/") {
				t.Errorf("%s imports %s: only spec/ reads the document with libopenapi", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDesignGraphIsTheImports: the package graph of docs/design.md is the
// code's, arrow for arrow: every import between petctl's packages is an
// arrow and every arrow an import (libopenapi's node standing for
// github.com/pb33f/), so the picture a newcomer reads first cannot drift.
// internal/, bench/ and the packages of test helpers (*test) are left out.
// The README's layout table names every package of the graph.
func TestDesignGraphIsTheImports(t *testing.T) {
	const module = "github.com/petctl/petctl/"
	root := ".."
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "## Packages\n\n```mermaid\ngraph TD\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/design.md has no mermaid graph under ## Packages")
	}
	// A node is id, id[label] or id[(label)]; its label starts with the
	// package's path, or "(" for the library.
	node := regexp.MustCompile(`^\s*(\w+)(?:\[\(?([^<\]]*))?`)
	paths := map[string]string{} // node id -> package path, "lib" for libopenapi
	var arrows [][2]string
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		from, to, ok := strings.Cut(line, "-->")
		if !ok {
			t.Fatalf("docs/design.md: %q is not an arrow", line)
		}
		var ids [2]string
		for i, side := range []string{from, to} {
			m := node.FindStringSubmatch(side)
			if m == nil {
				t.Fatalf("docs/design.md: %q: no node in %q", line, side)
			}
			ids[i] = m[1]
			if label := strings.TrimSpace(m[2]); label != "" {
				if strings.HasPrefix(side[strings.Index(side, "[")+1:], "(") {
					label = "lib"
				}
				paths[m[1]] = strings.TrimSuffix(label, "/")
			}
		}
		arrows = append(arrows, ids)
	}
	drawn := map[[2]string]bool{}
	for _, a := range arrows {
		from, to := paths[a[0]], paths[a[1]]
		if from == "" || to == "" {
			t.Fatalf("docs/design.md: node %s or %s has no label naming its package", a[0], a[1])
		}
		drawn[[2]string{from, to}] = true
	}

	imported := map[[2]string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || strings.HasSuffix(name, "test") || rel == "internal" || rel == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case strings.HasPrefix(p, "github.com/pb33f/"):
				imported[[2]string{pkg, "lib"}] = true
			case strings.HasPrefix(p, module):
				imported[[2]string{pkg, strings.TrimPrefix(p, module)}] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imported) < 10 {
		t.Fatalf("only %d imports found: %v", len(imported), imported)
	}
	for e := range imported {
		if !drawn[e] {
			t.Errorf("%s imports %s, and docs/design.md's graph has no arrow for it", e[0], e[1])
		}
	}
	for e := range drawn {
		if !imported[e] {
			t.Errorf("docs/design.md draws %s --> %s, which the code does not import", e[0], e[1])
		}
	}
	// The README's layout table names every package drawn.
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, _ := strings.Cut(string(readme), "## Layout\n")
	layout, _, _ = strings.Cut(layout, "\n## ")
	for _, p := range paths {
		if p != "lib" && !strings.Contains(layout, "`"+p+"`") && !strings.Contains(layout, "`"+p+"/`") {
			t.Errorf("README.md's layout table does not name %s", p)
		}
	}
}
