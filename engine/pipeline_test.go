package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
	"time"
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

// TestOrderOfChecks: a request that fails several checks at once gets the
// answer of the first, in the order of docs/errors.md's "Order of checks"
// (the steps of pipeline.go). Each row mends one fault of the row before,
// so that the next check answers; a step moved in the pipeline answers
// before its turn in one of the rows.
func TestOrderOfChecks(t *testing.T) {
	big := map[string]string{"X-Padding": strings.Repeat("p", DefaultMaxHeaderBytes)}
	html := map[string]string{"Accept": "text/html"}
	removed := newPetstore(t, func(o *Options) { o.Now = func() time.Time { return time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC) } })
	env := newPetstore(t)
	for _, c := range []struct {
		step string
		env  *testEnv
		rq   request
		code Code
		msg  string // in the message, where the code alone says too little
	}{
		{"1. header size before the route", removed, request{method: "PATCH", path: "/pets/1/x?%zz", key: "-", headers: big}, CodeHeadersTooLarge, ""},
		{"2. the path before the method", removed, request{method: "PATCH", path: "/pets/1/x?%zz", key: "-"}, CodeRouteNotFound, ""},
		{"2. the method before the removal", removed, request{method: "PATCH", path: "/pets/1?%zz", key: "-"}, CodeMethodNotAllowed, ""},
		{"3. the removal before the query", removed, request{path: "/pets/1?%zz", key: "-"}, CodeGone, ""},
		{"4. the query before authentication", env, request{path: "/pets/1?%zz", key: "-"}, CodeValidation, "cannot be decoded"},
		{"5. authentication before repeated parameters", env, request{path: "/pets?limit=1&limit=x", key: "-"}, CodeUnauthorized, ""},
		{"6. repeated parameters before the schema", env, request{path: "/pets?limit=1&limit=x"}, CodeValidation, "given 2 times"},
		{"5. authentication before Accept", env, request{method: "POST", path: "/pets", key: "-", ctype: "text/plain", body: "{bad", headers: html}, CodeUnauthorized, ""},
		{"7. Accept before the body", env, request{method: "POST", path: "/pets", ctype: "text/plain", body: "{bad", headers: html}, CodeNotAcceptable, ""},
		{"8. the Content-Type before the JSON", env, request{method: "POST", path: "/pets", ctype: "text/plain", body: "{bad"}, CodeUnsupportedMediaType, ""},
		{"8. the JSON before the schema", env, request{method: "POST", path: "/pets", body: "{bad"}, CodeMalformedJSON, ""},
		{"9. the schema before the operation", env, request{path: "/pets/x"}, CodeValidation, ""},
		{"10. the operation", env, request{path: "/pets/999999"}, CodeNotFound, ""},
	} {
		r := c.env.do(c.rq)
		if got := r.code(t); got != string(c.code) || !strings.Contains(r.message(t), c.msg) {
			t.Errorf("%s: %s %s answered %d %s, want %s %q", c.step, c.rq.method, c.rq.path, r.status, r.body, c.code, c.msg)
		}
	}
}
