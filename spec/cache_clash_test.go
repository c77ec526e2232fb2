package spec

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// clashingDoc pairs operations whose schemas libopenapi's hash, the key of
// libopenapi-validator's schema cache, takes for one: a bound under
// another keyword (a body, a parameter, a response), and a $ref with a
// sibling required against the same $ref alone (lago's create and update
// bodies).
const clashingDoc = `openapi: 3.1.0
info: {title: clashes, version: "1"}
paths:
  /min:
    post:
      operationId: postMin
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {n: {type: integer, minimum: 5}}}}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object, properties: {n: {type: integer, minimum: 5}}}}}}
    get:
      operationId: getMin
      parameters: [{name: q, in: query, schema: {type: integer, minimum: 5}}]
      responses: {"204": {description: none}}
  /max:
    post:
      operationId: postMax
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {n: {type: integer, maximum: 5}}}}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object, properties: {n: {type: integer, maximum: 5}}}}}}
    get:
      operationId: getMax
      parameters: [{name: q, in: query, schema: {type: integer, maximum: 5}}]
      responses: {"204": {description: none}}
  /range-min:
    post:
      operationId: postMinRange
      requestBody: {required: true, content: {application/*: {schema: {type: object, properties: {n: {type: integer, minimum: 5}}}}}}
      responses: {"204": {description: none}}
  /range-max:
    post:
      operationId: postMaxRange
      requestBody: {required: true, content: {application/*: {schema: {type: object, properties: {n: {type: integer, maximum: 5}}}}}}
      responses: {"204": {description: none}}
  /content-min:
    get:
      operationId: getMinContent
      parameters: [{name: q, in: query, content: {application/json: {schema: {type: integer, minimum: 5}}}}]
      responses: {"204": {description: none}}
  /content-max:
    get:
      operationId: getMaxContent
      parameters: [{name: q, in: query, content: {application/json: {schema: {type: integer, maximum: 5}}}}]
      responses: {"204": {description: none}}
  /header:
    get:
      operationId: getHeader
      responses:
        "200":
          description: ok
          headers: {X-N: {required: true, schema: {type: integer, maximum: 5}}}
          content: {application/json: {schema: {type: object}}}
  /taxes:
    post:
      operationId: createTax
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {tax: {$ref: '#/components/schemas/Tax', required: [name]}}}}}}
      responses: {"204": {description: none}}
    put:
      operationId: updateTax
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {tax: {$ref: '#/components/schemas/Tax'}}}}}}
      responses: {"204": {description: none}}
components:
  schemas:
    Tax: {type: object, properties: {name: {type: string}, rate: {type: number}}}
    Min: {type: object, properties: {n: {type: integer, minimum: 5}}}
    Max: {type: object, properties: {n: {type: integer, maximum: 5}}}
`

// TestCacheKeyClashes: each of two operations whose schemas share a key in
// libopenapi-validator's schema cache is validated against its own
// schema, whichever of them the validator met first.
func TestCacheKeyClashes(t *testing.T) {
	type check struct {
		op, target, body string
		valid            bool
	}
	pairs := map[string][2][]check{
		"body": {
			{{"postMin", "/min", `{"n": 7}`, true}, {"postMin", "/min", `{"n": 3}`, false}},
			{{"postMax", "/max", `{"n": 7}`, false}, {"postMax", "/max", `{"n": 3}`, true}},
		},
		"query parameter": {
			{{"getMin", "/min?q=7", "", true}, {"getMin", "/min?q=3", "", false}},
			{{"getMax", "/max?q=7", "", false}, {"getMax", "/max?q=3", "", true}},
		},
		"$ref sibling": {
			{{"createTax", "/taxes", `{"tax": {"rate": 1}}`, false}, {"createTax", "/taxes", `{"tax": {"name": "vat", "rate": 1}}`, true}},
			{{"updateTax", "/taxes", `{"tax": {"rate": 1}}`, true}},
		},
		"body under a media range": {
			{{"postMinRange", "/range-min", `{"n": 7}`, true}, {"postMinRange", "/range-min", `{"n": 3}`, false}},
			{{"postMaxRange", "/range-max", `{"n": 7}`, false}, {"postMaxRange", "/range-max", `{"n": 3}`, true}},
		},
		"query parameter with content": {
			{{"getMinContent", "/content-min?q=7", "", true}, {"getMinContent", "/content-min?q=3", "", false}},
			{{"getMaxContent", "/content-max?q=7", "", false}, {"getMaxContent", "/content-max?q=3", "", true}},
		},
		"document": {
			// a component schema's name: Validator.Schema, as for a record
			{{"#Min", "", `{"n": 3}`, false}, {"#Min", "", `{"n": 7}`, true}},
			{{"#Max", "", `{"n": 7}`, false}, {"#Max", "", `{"n": 3}`, true}},
		},
		"response": {
			// the invalid body first: the quick path refuses it, and the
			// library's compile is what answers (and is cached)
			{{"postMin", "", `{"n": 3}`, false}, {"postMin", "", `{"n": 7}`, true}},
			{{"postMax", "", `{"n": 7}`, false}, {"postMax", "", `{"n": 3}`, true}},
		},
	}
	for name, pair := range pairs {
		for _, order := range [][2]int{{0, 1}, {1, 0}} {
			s, v := parseValidated(t, clashingDoc, "clashes.yaml")
			for _, side := range order {
				for _, c := range pair[side] {
					var ps Problems
					if name, ok := strings.CutPrefix(c.op, "#"); ok {
						ps = v.Schema(s.Model.Components.Schemas.GetOrZero(name).Schema(), []byte(c.body))
						if (len(ps) == 0) != c.valid {
							t.Errorf("%s, %s first: %s %s: valid %v, want %v (%v)", name, pair[order[0]][0].op, c.op, c.body, len(ps) == 0, c.valid, ps)
						}
						continue
					}
					op := s.Operation(c.op)
					if c.target == "" {
						ps = v.Response(httptest.NewRequest(op.Method, op.Path, nil), op, 200, http.Header{"Content-Type": {JSON}}, []byte(c.body))
					} else {
						r := httptest.NewRequest(op.Method, c.target, strings.NewReader(c.body))
						if c.body != "" {
							r.Header.Set("Content-Type", "application/json; charset=utf-8")
						}
						ps = v.Request(r, op)
					}
					if (len(ps) == 0) != c.valid {
						t.Errorf("%s, %s first: %s %s %s: valid %v, want %v (%v)", name, pair[order[0]][0].op, c.op, c.target, c.body, len(ps) == 0, c.valid, ps)
					}
				}
			}
		}
	}
}

// TestCacheKeyClashesConcurrently: operations whose schemas share a cache
// key, validated at once from many goroutines, each get their own
// schema's verdict (and, under -race, no race).
func TestCacheKeyClashesConcurrently(t *testing.T) {
	s, v := parseValidated(t, clashingDoc, "clashes.yaml")
	concurrently(8, 40, func(g, i int) {
		n := (g*40 + i) % 11 // 0 to 10: below, at and above the bound
		for _, c := range []struct {
			op    string
			valid bool
		}{{"postMin", n >= 5}, {"postMax", n <= 5}} {
			op := s.Operation(c.op)
			if ps := v.Request(jsonRequest(op.Method, op.Path, fmt.Sprintf(`{"n": %d}`, n)), op); (len(ps) == 0) != c.valid {
				t.Errorf("%s n=%d: valid %v, want %v (%v)", c.op, n, len(ps) == 0, c.valid, ps)
			}
		}
	})
}

// concurrently calls each of fns from each of goroutines goroutines at
// once, n times in each (fn(g, i): the goroutine, the call), and waits.
func concurrently(goroutines, n int, fns ...func(g, i int)) {
	var wg sync.WaitGroup
	for g := range goroutines {
		for _, fn := range fns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					fn(g, i)
				}
			}()
		}
	}
	wg.Wait()
}

// jsonRequest is a request with a JSON body.
func jsonRequest(method, target, body string) *http.Request {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Content-Type", JSON)
	return r
}

// TestCacheKeyClashesBeyondTheTable: a response header's schema shares its
// key with a query parameter's (the library validates both as
// parameters); a Content-Type whose parameters do not parse still picks
// its body's schema, as the library picks it.
func TestCacheKeyClashesBeyondTheTable(t *testing.T) {
	header := func(v *Validator, op *Operation, n string) Problems {
		return v.Response(httptest.NewRequest(op.Method, op.Path, nil), op, 200, http.Header{"Content-Type": {JSON}, "X-N": {n}}, []byte(`{}`))
	}
	query := func(v *Validator, op *Operation, q string) Problems {
		return v.Request(httptest.NewRequest(op.Method, op.Path+"?q="+q, nil), op)
	}
	for _, headerFirst := range []bool{true, false} {
		s, v := parseValidated(t, clashingDoc, "clashes.yaml")
		h, q := s.Operation("getHeader"), s.Operation("getMin")
		if headerFirst {
			if ps := header(v, h, "3"); len(ps) > 0 {
				t.Errorf("header X-N: 3 refused: %v", ps)
			}
		}
		if ps := query(v, q, "3"); len(ps) == 0 {
			t.Errorf("header first %v: query q=3 accepted, want minimum 5", headerFirst)
		}
		if ps := header(v, h, "3"); len(ps) > 0 {
			t.Errorf("header first %v: header X-N: 3 refused: %v", headerFirst, ps)
		}
	}

	s, v := parseValidated(t, clashingDoc, "clashes.yaml")
	for _, c := range []struct {
		op    string
		valid bool
	}{{"postMax", true}, {"postMin", false}} {
		op := s.Operation(c.op)
		r := httptest.NewRequest(op.Method, op.Path, strings.NewReader(`{"n": 3}`))
		r.Header.Set("Content-Type", "application/json; charset")
		if ps := v.Request(r, op); (len(ps) == 0) != c.valid {
			t.Errorf("%s {\"n\": 3} with a Content-Type whose parameter does not parse: valid %v, want %v (%v)", c.op, len(ps) == 0, c.valid, ps)
		}
	}
}

// TestParametersCompiledOnFirstUse: an operation's first request puts
// every parameter schema of it in the library's cache, those it did not
// carry too. Else a later request carrying one has the library render its
// schema beside the operation's other uses, writing the document's nodes
// (an enum's tags) that a body's compile reads: under -race, without the
// warm-up, the requests below report that race.
func TestParametersCompiledOnFirstUse(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: warm, version: "1"}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: a, in: query, schema: {type: integer, enum: [1, 2]}}
        - {name: kind, in: query, schema: {$ref: '#/components/schemas/Kind'}}
        - name: ids
          in: query
          content:
            application/json:
              schema: {type: array, items: {type: integer, exclusiveMinimum: 0}}
      responses:
        '200': {description: ok}
    post:
      operationId: createThing
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {kind: {$ref: '#/components/schemas/Kind'}}}
      responses:
        '201': {description: created}
components:
  schemas:
    Kind: {type: string, enum: [x, "5", "true"]}
`
	s, v := parseValidated(t, doc, "warm.yaml")
	list, create := s.Operation("listThings"), s.Operation("createThing")
	if ps := v.Request(httptest.NewRequest("GET", "/things?a=1", nil), list); ps != nil {
		t.Fatalf("?a=1: %v", ps)
	}
	kind := list.Op.Parameters[1].Schema.Schema()
	ids := list.Op.Parameters[2].Content.GetOrZero(JSON).Schema.Schema()
	for name, schema := range map[string]*base.Schema{"kind": kind, "the items of ids": ids.Items.A.Schema()} {
		if e, ok := v.opts.SchemaCache.Load(parameterUse(schema).key); !ok || e == nil || e.CompiledSchema == nil || len(e.RenderedInline) == 0 {
			t.Errorf("the first request left the schema of %s, a parameter it did not carry, to a later one", name)
		}
	}
	concurrently(4, 20, func(g, i int) {
		value, valid := "x", true
		if (g+i)%2 == 1 {
			value, valid = "y", false
		}
		if ps := v.Request(httptest.NewRequest("GET", "/things?kind="+value, nil), list); (ps == nil) != valid {
			t.Errorf("?kind=%s: valid %v, want %v (%v)", value, ps == nil, valid, ps)
		}
		// The verdict is the library's (it reads the JSON as a list of
		// commas); the render of its items is the point.
		v.Request(httptest.NewRequest("GET", "/things?ids=%5B1%2C2%5D", nil), list)
	}, func(g, i int) {
		body, valid := `{"kind": "5"}`, true
		if (g+i)%2 == 1 {
			body, valid = `{"kind": 5}`, false
		}
		if ps := v.Request(jsonRequest("POST", "/things", body), create); (ps == nil) != valid {
			t.Errorf("%s: valid %v, want %v (%v)", body, ps == nil, valid, ps)
		}
	})
}

// TestResponseHeadersCompiledOnFirstUse: a response's first validation
// puts its headers' schemas in the library's cache, a header it lacked
// too (a required one: refused, yet no schema failed to compile, so the
// use counts as made); a later response carrying it renders nothing
// beside a body's compile, nor does the quick path's hash of a response
// schema beside a request's first use (under -race).
func TestResponseHeadersCompiledOnFirstUse(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: warm, version: "1"}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: kind, in: query, schema: {$ref: '#/components/schemas/Kind'}}
      responses:
        '200':
          description: ok
          headers:
            X-Kind: {required: true, schema: {$ref: '#/components/schemas/Kind'}}
          content:
            application/json:
              schema: {type: object, properties: {kind: {$ref: '#/components/schemas/Kind'}}}
    post:
      operationId: createThing
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {kind: {$ref: '#/components/schemas/Kind'}}}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {type: object, properties: {kind: {$ref: '#/components/schemas/Kind'}}}
components:
  schemas:
    Kind: {type: string, enum: [x, "5", "true"]}
`
	s, v := parseValidated(t, doc, "warm.yaml")
	list, create := s.Operation("listThings"), s.Operation("createThing")
	get := httptest.NewRequest("GET", "/things", nil)
	if ps := v.Response(get, list, 200, http.Header{"Content-Type": {JSON}}, []byte(`{}`)); ps == nil {
		t.Fatal("a response without its required header was accepted")
	}
	header := libResponse(list, list.Responses[0]).Headers.GetOrZero("X-Kind").Schema.Schema()
	if e, ok := v.opts.SchemaCache.Load(parameterUse(header).key); !ok || e == nil || e.CompiledSchema == nil {
		t.Error("the first response left the schema of X-Kind, a header it lacked, to a later one")
	}
	concurrently(4, 10, func(_, _ int) {
		h := http.Header{"Content-Type": {JSON}, "X-Kind": {"x"}}
		if ps := v.Response(get, list, 200, h, []byte(`{"kind": "x"}`)); ps != nil {
			t.Errorf("a response with X-Kind: %v", ps)
		}
	}, func(_, _ int) {
		if ps := v.Request(jsonRequest("POST", "/things", `{"kind": "5"}`), create); ps != nil {
			t.Errorf("create: %v", ps)
		}
	}, func(_, _ int) {
		if ps := v.Response(httptest.NewRequest("POST", "/things", nil), create, 201, http.Header{"Content-Type": {JSON}}, []byte(`{"kind": "true"}`)); ps != nil {
			t.Errorf("created: %v", ps)
		}
	})
}

// TestHeaderArraysRunAlone: libopenapi-validator renders the items of an
// unexploded header or cookie array on every request that carries it,
// past its cache, so such an operation's requests run alone (under
// -race, these would race on the model otherwise).
func TestHeaderArraysRunAlone(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: alone, version: "1"}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: X-Ids, in: header, schema: {type: array, items: {type: integer, exclusiveMinimum: 0, enum: [1, 2, 3]}}}
      responses:
        '200': {description: ok}
  /others:
    get:
      operationId: listOthers
      parameters:
        - {name: X-Id, in: header, schema: {type: integer}}
        - {name: ids, in: cookie, explode: true, schema: {type: array, items: {type: integer}}}
      responses:
        '200': {description: ok}
`
	s, v := parseValidated(t, doc, "alone.yaml")
	list := s.Operation("listThings")
	if _, ok := v.renders.pinned[list]; !ok {
		t.Error("an operation with a header array does not run alone")
	}
	if _, ok := v.renders.pinned[s.Operation("listOthers")]; ok {
		t.Error("an operation with no unexploded header or cookie array runs alone")
	}
	concurrently(4, 20, func(g, i int) {
		value, valid := "1,2", true
		if (g+i)%3 == 0 {
			value, valid = "1,x", false
		}
		r := httptest.NewRequest("GET", "/things", nil)
		r.Header.Set("X-Ids", value)
		if ps := v.Request(r, list); (ps == nil) != valid {
			t.Errorf("X-Ids: %s: valid %v, want %v (%v)", value, ps == nil, valid, ps)
		}
	})
}

// TestUnwarmableParameterKeepsItsOperationAlone: a parameter schema that
// compiles in neither reading (an invalid pattern) is tried once, on the
// operation's first request; the operation's uses then stay alone, as the
// library renders that schema again on each, and requests are answered:
// one carrying the parameter with the compile's failure.
func TestUnwarmableParameterKeepsItsOperationAlone(t *testing.T) {
	const doc = `openapi: 3.1.0
info: {title: unwarmable, version: "1"}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: a, in: query, schema: {type: integer}}
        - {name: q, in: query, schema: {type: string, pattern: '['}}
      responses:
        '200': {description: ok}
`
	s, v := parseValidated(t, doc, "unwarmable.yaml")
	list := s.Operation("listThings")
	if ps := v.Request(httptest.NewRequest("GET", "/things?a=1", nil), list); ps != nil {
		t.Fatalf("?a=1: %v", ps)
	}
	q := parameterUse(list.Op.Parameters[1].Schema.Schema()).key
	if !v.renders.unwarmable[q] {
		t.Error("the schema of q, which does not compile, is not remembered as such")
	}
	if _, done := v.renders.done.Load(list); done {
		t.Error("the operation's uses no longer run alone, though the library renders q's schema on each")
	}
	if ps := v.Request(httptest.NewRequest("GET", "/things?q=y", nil), list); ps == nil || !strings.Contains(ps.Error(), "compilation failed") {
		t.Errorf("?q=y: %v, want the compile's failure", ps)
	}
	if ps := v.Request(httptest.NewRequest("GET", "/things?a=2", nil), list); ps != nil {
		t.Errorf("?a=2: %v", ps)
	}
}
