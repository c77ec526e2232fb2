package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestQueryParsedOnce: in the pipeline the query is parsed by one step,
// decodeQuery, into the call, and every later step reads it there: a step
// that parsed it again could read it otherwise than the one that refused a
// query Go cannot decode (docs/design.md, "A request's path through the
// engine"). The admin endpoints and the token endpoint are served before
// the pipeline (ServeHTTP) and read their own queries and forms.
func TestQueryParsedOnce(t *testing.T) {
	outside := map[string]bool{"admin.go": true, "oauth.go": true}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || outside[name] {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, _ := sel.X.(*ast.Ident)
				parses := sel.Sel.Name == "Query" && len(call.Args) == 0 || // r.URL.Query()
					pkg != nil && pkg.Name == "url" && sel.Sel.Name == "ParseQuery"
				switch {
				case !parses:
				case name == "pipeline.go" && fn.Name.Name == "decodeQuery":
					found++
				default:
					t.Errorf("%s: %s parses the request's query again: read call.query, which decodeQuery parsed", fset.Position(call.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
	if found != 1 {
		t.Errorf("decodeQuery parses the query %d times, want once", found)
	}
}
