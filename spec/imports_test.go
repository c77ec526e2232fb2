package spec

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
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
