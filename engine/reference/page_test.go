package reference

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/internal/corpus"
	"github.com/petctl/petctl/spec"
)

// testReserved stands for the engine's admin prefix, which this package
// does not import.
const testReserved = "/__petctl/"

type document struct{ name, path string }

// documents are every document serve accepts that the repository holds:
// the Petstore, the library and the style fixtures.
func documents(t *testing.T) []document {
	t.Helper()
	docs := []document{{"petstore", ""}, {"library", "../../fixtures/library/openapi.yaml"}, {"styles/multifile", "../../fixtures/styles/multifile/openapi.yaml"}}
	styles, err := filepath.Glob("../../fixtures/styles/*.yaml")
	if err != nil || len(styles) == 0 {
		t.Fatalf("no style fixtures: %v", err)
	}
	json, err := filepath.Glob("../../fixtures/styles/*.json")
	if err != nil {
		t.Fatal(err)
	}
	styles = append(styles, json...)
	for _, p := range styles {
		docs = append(docs, document{"styles/" + filepath.Base(p), p})
	}
	return docs
}

// corpusDocs are the shared corpus's documents (found by internal/corpus),
// named corpus/NAME. The test skips when there is none.
func corpusDocs(t *testing.T) []document {
	t.Helper()
	dir, found, err := corpus.Find("../..")
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	if dir == "" {
		t.Skip(corpus.SkipReason + ": the corpus documents are not rendered")
	}
	if len(found) == 0 {
		t.Fatalf("corpus %s holds no document", dir)
	}
	docs := make([]document, len(found))
	for i, d := range found {
		docs[i] = document{"corpus/" + d.Name, d.Path}
	}
	return docs
}

// rendered is a page made for one document, with what the tests read of it.
type rendered struct {
	spec  *spec.Spec
	html  string
	data  pageData
	bytes int
	gzip  int
	took  time.Duration
}

var dataScript = regexp.MustCompile(`(?s)<script type="application/json" id="petctl-data">(.*?)</script>`)

func renderDoc(t *testing.T, path string) *rendered {
	t.Helper()
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Reserved: testReserved}
	start := time.Now()
	files, err := render(s, o, true, Path(s, o))
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	html := files[Path(s, o)]
	r := &rendered{spec: s, html: string(html), bytes: len(html), took: took}
	m := dataScript.FindSubmatch(html)
	if m == nil {
		t.Fatal("the page has no data script")
	}
	if err := json.Unmarshal(m[1], &r.data); err != nil {
		t.Fatalf("the page's data is not JSON: %v", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(html)
	zw.Close()
	r.gzip = gz.Len()
	return r
}

var (
	articleRE    = regexp.MustCompile(`<article class="op[^"]*" id="([^"]+)"`)
	schemaRefRE  = regexp.MustCompile(`data-schema="(-?\d+)"`)
	tryPanelRE   = regexp.MustCompile(`data-try="([^"]+)"`)
	templateLeak = regexp.MustCompile(`ZgotmplZ|<no value>`)
)

// checkPage checks what every page must hold: every operation once, under
// its anchor, a try-it panel for each one not hidden (and none for the
// others), and schema links that the table resolves.
func checkPage(t *testing.T, r *rendered) {
	t.Helper()
	if m := templateLeak.FindString(r.html); m != "" {
		t.Errorf("the page holds %q: a template value went wrong", m)
	}
	anchors := map[string]bool{}
	for _, m := range articleRE.FindAllStringSubmatch(r.html, -1) {
		if anchors[m[1]] {
			t.Errorf("operation anchor %s twice", m[1])
		}
		anchors[m[1]] = true
	}
	if got, want := len(anchors), len(r.spec.Operations); got != want {
		t.Errorf("%d operations on the page, want %d", got, want)
	}
	page := buildPage(r.spec, Options{}, true, "")
	hidden := 0
	for _, g := range page.Groups {
		for _, op := range g.Ops {
			if !anchors[op.Anchor] {
				t.Errorf("%s (%s %s) is not on the page", op.ID, op.Method, op.Path)
			}
			_, hasData := r.data.Ops[op.Anchor]
			hasPanel := strings.Contains(r.html, `data-try="`+op.Anchor+`"`)
			if op.Hidden {
				hidden++
			}
			if hasData == op.Hidden || hasPanel == op.Hidden {
				t.Errorf("%s: hidden %v, try-it data %v, panel %v", op.ID, op.Hidden, hasData, hasPanel)
			}
		}
	}
	if got, want := len(tryPanelRE.FindAllString(r.html, -1)), len(r.spec.Operations)-hidden; got != want {
		t.Errorf("%d try-it panels, want %d", got, want)
	}
	n := len(r.data.Schemas)
	for _, m := range schemaRefRE.FindAllStringSubmatch(r.html, -1) {
		if i, _ := strconv.Atoi(m[1]); i < 0 || i >= n {
			t.Errorf("the page links schema %d; the table has %d", i, n)
		}
	}
	for i, e := range r.data.Schemas {
		var kids []int
		for _, p := range e.Props {
			kids = append(kids, p.Schema)
		}
		for _, k := range []*int{e.Items, e.Extra, e.Not} {
			if k != nil {
				kids = append(kids, *k)
			}
		}
		kids = append(append(append(kids, e.AllOf...), e.OneOf...), e.AnyOf...)
		for _, k := range kids {
			if k < 0 || k >= n {
				t.Errorf("schema %d links schema %d; the table has %d", i, k, n)
			}
		}
	}
}

// TestEveryDocumentRenders: the reference of every document in the
// repository, and of every corpus document, renders with every operation.
func TestEveryDocumentRenders(t *testing.T) {
	for _, d := range documents(t) {
		t.Run(d.name, func(t *testing.T) {
			checkPage(t, renderDoc(t, d.path))
		})
	}
}

// pageBudget bounds a page against its document: the schemas are a table
// rendered when opened, so the page grows with the document, not with how
// often schemas are reused or how deep they nest.
const pageBudget = 4

// TestCorpusRenders: every corpus document's reference renders with every
// operation, within pageBudget times the document's size; the largest
// page's size and render time are logged.
func TestCorpusRenders(t *testing.T) {
	var largest *rendered
	var largestName string
	for _, d := range corpusDocs(t) {
		t.Run(d.name, func(t *testing.T) {
			if why := corpus.RaceSkip(d.name); why != "" {
				t.Skip(why)
			}
			r := renderDoc(t, d.path)
			checkPage(t, r)
			size := docSize(t, d.path)
			if r.bytes > pageBudget*int(size) {
				t.Errorf("the page is %d bytes for a document of %d: over %d times", r.bytes, size, pageBudget)
			}
			t.Logf("%d operations, %d schemas: page %d bytes (%d gzipped) for a document of %d bytes, rendered in %v",
				len(r.spec.Operations), len(r.data.Schemas), r.bytes, r.gzip, size, r.took.Round(time.Millisecond))
			if largest == nil || r.bytes > largest.bytes {
				largest, largestName = r, d.name
			}
		})
	}
	if largest != nil {
		t.Logf("largest page: %s, %d bytes (%d gzipped), rendered in %v", largestName, largest.bytes, largest.gzip, largest.took.Round(time.Millisecond))
	}
}

// docSize is the size of a document, all its files for a folder's.
func docSize(t *testing.T, path string) int64 {
	t.Helper()
	if filepath.Base(path) != "openapi.yaml" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	var total int64
	filepath.Walk(filepath.Dir(path), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			total += fi.Size()
		}
		return nil
	})
	return total
}

// TestPetstorePage: what the issue asks of the Petstore's reference.
func TestPetstorePage(t *testing.T) {
	r := renderDoc(t, "")
	checkPage(t, r)
	h := r.html
	for _, want := range []string{
		// the servers: production, staging, this mock
		`<code>https://api.example.com/v1</code> <span class="desc">Production`,
		`<code>https://staging.example.com/v1</code> <span class="desc">Staging`,
		`<code id="mock-url">/v1</code> <span class="desc">This mock`,
		// getPet's deprecation, its removal date and replacement
		`<span class="badge dep">Deprecated</span></h3>
<p class="notice" role="note"><strong>Deprecated.</strong> Since 22 November 2026. Removal on <time datetime="2030-12-05">5 December 2030</time>. Replacement: <a href="#op-listPets">listPets (GET /pets)</a>, GET /pets with the status filter.</p>`,
		// the store orders: listed, not tried
		`<h3 class="op-head" id="op-listStoreOrders-h"><span class="method m-get">GET</span> <code class="path">/store/orders</code>`,
		`Hidden from try-it: the interface of this operation is not published.`,
		// parameters with their formats, defaults, bounds and enums
		`<tr><td><code>limit</code></td><td>query</td><td>integer<span class="fact">format int32</span><span class="fact">default 20</span><span class="fact">1 ≤ value ≤ 100</span></td>`,
		`<span class="fact">one of &#34;available&#34;, &#34;pending&#34;, &#34;sold&#34;</span>`,
		`<tr><td><code>petId</code> <span class="req">required</span></td><td>path</td><td>integer<span class="fact">format int64</span>`,
		// the credential's place
		`Sent as <code>Authorization: Bearer &lt;API key&gt;</code>`,
		`<h4>Request body <span class="req">required</span></h4>
<p>application/json · NewPet (object)</p>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("the page lacks\n%s", want)
		}
	}
	// The notice is outside the folded part: seen at a glance.
	if n, fold := strings.Index(h, `<p class="notice"`), strings.Index(h, `data-op="op-getPet"`); n < 0 || n > fold {
		t.Error("getPet's notice is not above its folded details")
	}

	newPet := schemaNamed(t, r.data.Schemas, "NewPet")
	var got []string
	for _, p := range newPet.Props {
		got = append(got, p.Name+":"+strconv.FormatBool(p.Required)+":"+r.data.Schemas[p.Schema].Type)
	}
	if want := "name:true:string categoryId:true:integer status:false:PetStatus (string)"; strings.Join(got, " ") != want {
		t.Errorf("NewPet reads %q, want %q", strings.Join(got, " "), want)
	}

	try := r.data.Ops["op-createPet"]
	var body map[string]any
	if err := json.Unmarshal([]byte(try.Body), &body); err != nil || body["name"] == nil || body["categoryId"] == nil || body["id"] != nil {
		t.Errorf("createPet's try-it body %s (%v): want name and categoryId, no id", try.Body, err)
	}
	if got := r.data.Ops["op-listPets"].Params; len(got) != 2 || got[0].Value != "20" || strings.Join(got[1].Enum, ",") != "available,pending,sold" {
		t.Errorf("listPets try-it parameters %+v: want limit 20, then status with its enum", got)
	}
	if _, ok := r.data.Ops["op-listStoreOrders"]; ok {
		t.Error("GET /store/orders has try-it data")
	}
	if got := r.data.Schemes; len(got) != 1 || got[0].Kind != "bearer" || got[0].Var != "PETCTL_API_KEY" {
		t.Errorf("schemes %+v: want bearerAuth, named PETCTL_API_KEY in curl", got)
	}
}

func schemaNamed(t *testing.T, entries []*schemaEntry, name string) *schemaEntry {
	t.Helper()
	for _, e := range entries {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no schema %s in the table", name)
	return nil
}

// TestRecursiveSchemaIsFinite: a schema that contains itself is one
// entry of the table that names itself, not an endless page.
func TestRecursiveSchemaIsFinite(t *testing.T) {
	doc := `openapi: 3.1.0
info: {title: Trees, version: "1"}
paths:
  /nodes:
    get:
      responses:
        '200':
          description: a tree
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
components:
  schemas:
    Node:
      type: object
      required: [name]
      properties:
        name: {type: string}
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        parent: {$ref: '#/components/schemas/Node'}
`
	s, err := spec.Parse([]byte(doc), "trees.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := buildPage(s, Options{}, true, "")
	node := schemaNamed(t, p.Data.Schemas, "Node")
	var self int
	for i, e := range p.Data.Schemas {
		if e == node {
			self = i
		}
	}
	byName := map[string]int{}
	for _, prop := range node.Props {
		byName[prop.Name] = prop.Schema
	}
	if byName["parent"] != self {
		t.Errorf("parent is schema %d, want Node itself (%d)", byName["parent"], self)
	}
	children := p.Data.Schemas[byName["children"]]
	if children.Items == nil || *children.Items != self || children.Type != "array of Node" {
		t.Errorf("children %+v: want an array of Node (%d)", children, self)
	}
	if len(p.Data.Schemas) > 4 {
		t.Errorf("%d schemas in the table, want at most 4 (Node, name, children, and nothing more)", len(p.Data.Schemas))
	}
}

func TestSummarise(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		name   string
		schema spec.Schema
		want   string
	}{
		{"bounds", spec.Schema{Types: []string{"integer"}, Minimum: f(1), Maximum: f(100), HasDef: true, Default: int64(20)}, "integer: default 20; 1 ≤ value ≤ 100"},
		{"exclusive", spec.Schema{Types: []string{"number"}, ExclusiveMinimum: f(0), MultipleOf: f(0.5)}, "number: 0 < value; multiple of 0.5"},
		{"lengths", spec.Schema{Types: []string{"string"}, MinLength: n(1), MaxLength: n(64), Pattern: "^[a-z]+$", Format: "hostname"}, "string: format hostname; 1 to 64 characters; pattern ^[a-z]+$"},
		{"exact items", spec.Schema{Types: []string{"array"}, MinItems: n(2), MaxItems: n(2), UniqueItems: true, Items: &spec.Schema{Name: "Pet", Types: []string{"object"}}}, "array of Pet: exactly 2 items; unique items"},
		{"enum and null", spec.Schema{Types: []string{"string"}, Nullable: true, Enum: []any{"a", "b"}}, `string: one of "a", "b"; nullable`},
		{"directions", spec.Schema{Types: []string{"string"}, ReadOnly: true}, "string: read-only (in responses only)"},
		{"named", spec.Schema{Name: "PetStatus", Types: []string{"string"}}, "PetStatus (string)"},
		{"oneOf", spec.Schema{OneOf: []*spec.Schema{{}, {}}, Discriminator: &spec.Discriminator{Property: "kind"}}, "one of 2 schemas: the member is chosen by kind"},
		{"several types", spec.Schema{Types: []string{"string", "integer"}}, "string or integer"},
		{"any", spec.Schema{}, "any"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := summarise(&c.schema)
			got := e.Type
			if len(e.Facts) > 0 {
				got += ": " + strings.Join(e.Facts, "; ")
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestParagraphs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Returns animals, at most\n`limit` of them.\n", []string{"Returns animals, at most `limit` of them."}},
		{"First.\n\nSecond\nline.", []string{"First.", "Second line."}},
		{"Kinds:\n- one\n- two\n1. three", []string{"Kinds:\n- one\n- two\n1. three"}},
		{"  \n\n ", nil},
	} {
		if got := paragraphs(c.in); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("paragraphs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestExamplesAreValid: the examples made from the schemas (not those the
// document gives), and try-it's starting values, make requests and
// responses that the validator accepts, for each of the repository's
// documents. (Run on the corpus, the same check finds schemas that
// spec.Values cannot yet satisfy: maxProperties with optional properties,
// a nullable enum, oneOf members that overlap.)
func TestExamplesAreValid(t *testing.T) {
	for _, d := range documents(t) {
		t.Run(d.name, func(t *testing.T) { checkExamples(t, d.path) })
	}
}

func checkExamples(t *testing.T, path string) {
	t.Helper()
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, op := range s.Operations {
		if op.Hidden {
			continue
		}
		req := exampleHTTPRequest(t, s, op)
		if b := op.Body; b != nil && b.Schema != nil && !s.BodySchema(op).HasExample {
			checked++
			if ps := v.Request(req, op); len(ps) > 0 {
				t.Errorf("%s: the example request is invalid: %v", op, ps)
			}
		}
		for _, r := range op.Responses {
			sch := s.ResponseSchema(r)
			if sch == nil || sch.HasExample || r.Status == 0 {
				continue
			}
			checked++
			h := http.Header{"Content-Type": {r.MediaTypes[0]}}
			if ps := v.Response(req, op, r.Status, h, []byte(example(sch, spec.InResponse))); len(ps) > 0 {
				if len(sch.OneOf) > 1 && strings.Contains(ps.Error(), "'oneOf' failed, subschemas ") {
					// Alternatives alike (fixtures/styles/alike-oneof-errors.yaml):
					// every value matches them all, so none is valid.
					continue
				}
				t.Errorf("%s: the example %s response is invalid: %v", op, r.Code, ps)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no example was checked")
	}
}

// exampleHTTPRequest is the request try-it starts with, with a key where
// the operation's first security alternative takes it.
func exampleHTTPRequest(t *testing.T, s *spec.Spec, op *spec.Operation) *http.Request {
	t.Helper()
	d := tryFor(s, op)
	p, q, h := d.Path, url.Values{}, http.Header{}
	for _, prm := range d.Params {
		if prm.Value == "" {
			continue
		}
		switch prm.In {
		case "path":
			p = strings.ReplaceAll(p, "{"+prm.Name+"}", url.PathEscape(prm.Value))
		case "query":
			q.Add(prm.Name, prm.Value)
		case "header":
			h.Add(prm.Name, prm.Value)
		case "cookie":
			h.Add("Cookie", prm.Name+"="+prm.Value)
		}
	}
	if len(op.Requirements) > 0 {
		for _, use := range op.Requirements[0] {
			switch sc := use.Scheme; {
			case sc.Bearer():
				h.Set("Authorization", "Bearer k")
			case sc.Kind == spec.SchemeBasic:
				h.Set("Authorization", "Basic dTpw")
			case sc.In == "query":
				q.Add(sc.Param, "k")
			case sc.In == "cookie":
				h.Add("Cookie", sc.Param+"=k")
			default:
				h.Set(sc.Param, "k")
			}
		}
	}
	target := "http://mock.test" + s.BasePath + p
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	var body io.Reader
	if d.Body != "" {
		body = strings.NewReader(d.Body)
		h.Set("Content-Type", d.Media[0])
	}
	req := httptest.NewRequest(d.Method, target, body)
	for k, vs := range h {
		req.Header[k] = vs
	}
	return req
}

// TestHostileDocumentIsEscaped: markup in the document's words, names and
// values stays text: the page has its two scripts and no other.
func TestHostileDocumentIsEscaped(t *testing.T) {
	const bad = `</script><script>alert(1)</script><img src=x onerror=alert(2)>"'`
	doc := `openapi: 3.1.0
info: {title: 'TBAD', version: '1', description: 'BAD'}
servers: [{url: 'https://api.example.com/v1', description: 'BAD'}]
tags: [{name: 'tagBAD', description: 'BAD'}]
paths:
  /things:
    get:
      operationId: 'listBAD'
      summary: 'BAD'
      description: 'BAD'
      tags: ['tagBAD']
      parameters:
        - name: 'qBAD'
          in: query
          description: 'BAD'
          schema: {type: string, default: 'BAD', enum: ['BAD'], pattern: 'BAD'}
      responses:
        '200':
          description: 'BAD'
          content:
            application/json:
              schema: {type: object, description: 'BAD', properties: {'pBAD': {type: string, example: 'BAD'}}}
`
	// In single-quoted YAML, a quote is written twice.
	s, err := spec.Parse([]byte(strings.ReplaceAll(doc, "BAD", strings.ReplaceAll(bad, "'", "''"))), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files, err := render(s, Options{}, true, DefaultPath)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[DefaultPath])
	if got := strings.Count(page, "<script"); got != 2 {
		t.Errorf("the page has %d script elements, want 2 (its script and its data)", got)
	}
	for _, leak := range []string{"<img", "<script>alert"} {
		if strings.Contains(page, leak) {
			i := strings.Index(page, leak)
			t.Errorf("the page holds %q unescaped: %s", leak, page[max(0, i-200):i+50])
		}
	}
}

func TestParamExample(t *testing.T) {
	for _, c := range []struct {
		name     string
		schema   spec.Schema
		required bool
		want     string
	}{
		{"a default", spec.Schema{Types: []string{"integer"}, HasDef: true, Default: int64(20)}, false, "20"},
		{"an example", spec.Schema{Types: []string{"string"}, HasExample: true, Example: "rex"}, false, "rex"},
		{"an array", spec.Schema{Types: []string{"array"}, HasExample: true, Example: []any{"a", int64(2)}}, false, "a,2"},
		{"required, generated", spec.Schema{Types: []string{"integer"}, Minimum: func() *float64 { v := 3.0; return &v }()}, true, "3"},
		{"optional, nothing given", spec.Schema{Types: []string{"integer"}}, false, ""},
	} {
		if got := paramExample(&c.schema, "p", c.required); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
