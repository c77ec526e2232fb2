package spec

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestRequestMemoAgreesWithValidator sends the same requests to a validator
// with the memo and to one without, twice, and wants the same verdicts: the
// memo may only save work, never change an answer.
func TestRequestMemoAgreesWithValidator(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	memo, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full.memo = nil
	type req struct {
		op, method, target, body string
	}
	var reqs []req
	for _, q := range []string{"", "limit=20", "limit=1", "limit=100", "limit=0", "limit=101", "limit=abc", "limit=20.5",
		"status=sold", "status=lost", "status=sold&limit=5", "limit=5&status=sold", "limit=%32%30", "status=SOLD", "other=1", "limit="} {
		reqs = append(reqs, req{"listPets", "GET", "/v1/pets?" + q, ""})
	}
	for _, id := range []string{"1", "42", "-1", "x", "9223372036854775807", "9223372036854775808", "1.5", "%31"} {
		reqs = append(reqs, req{"getPet", "GET", "/v1/pets/" + id, ""})
	}
	for _, b := range []string{`{"name":"a","categoryId":1}`, `{"name":"a"}`, `{"name":"a","categoryId":"x"}`, `{"name":"a","categoryId":1,"status":"lost"}`} {
		reqs = append(reqs, req{"createPet", "POST", "/v1/pets", b})
	}
	reqs = append(reqs, req{"listStoreOrders", "GET", "/v1/store/orders?x=1", ""})
	newReq := func(r req) *http.Request {
		var body io.Reader
		if r.body != "" {
			body = strings.NewReader(r.body)
		}
		hr := httptest.NewRequest(r.method, r.target, body)
		if r.body != "" {
			hr.Header.Set("Content-Type", JSON)
		}
		return hr
	}
	accepted, acceptedCreates := 0, 0
	for round := 0; round < 2; round++ {
		for _, r := range reqs {
			op := s.Operation(r.op)
			got := memo.Request(newReq(r), op)
			want := full.Request(newReq(r), op)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("round %d, %s %s %s: memo says %v, the validator %v", round, r.method, r.target, r.body, got, want)
			}
			if round == 0 && len(want) == 0 && memo.memo.kinds[op] != memoNone {
				accepted++
				if r.op == "createPet" {
					acceptedCreates++
				}
			}
		}
	}
	// The case list must exercise both verdicts, and the memo must have
	// been used, for the comparison to mean anything.
	if accepted == 0 || accepted == len(reqs) {
		t.Fatalf("%d of %d memoizable requests accepted; want some of each verdict", accepted, len(reqs))
	}
	// All accepted createPet requests share one request line, and the
	// reads of /pets/1, /pets/42 and /pets/-1 another: their ids pass the
	// exact check, so the memo keys them on /pets/{petId}.
	if got, want := memo.memo.size(), accepted-acceptedCreates+1-2; got != want {
		t.Errorf("the memo holds %d request lines, want %d", got, want)
	}
}

func TestMemoizable(t *testing.T) {
	doc := `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    get:
      operationId: plain
      parameters:
        - {name: q, in: query, schema: {type: integer}}
      responses: {'200': {description: ok}}
  /b:
    get:
      operationId: withHeader
      parameters:
        - {name: X-Mode, in: header, required: true, schema: {type: string, enum: [fast]}}
      responses: {'200': {description: ok}}
  /c:
    get:
      operationId: withCookie
      parameters:
        - {name: session, in: cookie, schema: {type: integer}}
      responses: {'200': {description: ok}}
  /d/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer}}
    post:
      operationId: withBody
      requestBody:
        content:
          application/json: {schema: {type: object}}
      responses: {'200': {description: ok}}
`
	s, err := Parse([]byte(doc), "memo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"plain": true, "withHeader": false, "withCookie": false, "withBody": false} {
		if got := memoizable(s.Operation(id)); got != want {
			t.Errorf("memoizable(%s) = %v, want %v", id, got, want)
		}
	}
	// A header parameter changes the verdict for the same request line,
	// which is why such operations are never memoized.
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	op := s.Operation("withHeader")
	good := httptest.NewRequest("GET", "/b", nil)
	good.Header.Set("X-Mode", "fast")
	if ps := v.Request(good, op); len(ps) > 0 {
		t.Fatalf("good request refused: %v", ps)
	}
	if ps := v.Request(httptest.NewRequest("GET", "/b", nil), op); len(ps) == 0 {
		t.Error("a request without the required header was accepted after one with it")
	}
}

func TestRequestMemoIsBounded(t *testing.T) {
	s, v := defaultValidated(t)
	op := s.Operation("listPets")
	for i := 0; i < memoEntries+10; i++ {
		// Distinct query strings the validator accepts (an unknown parameter is allowed).
		r := httptest.NewRequest("GET", fmt.Sprintf("/v1/pets?limit=1&n=%d", i), nil)
		if ps := v.Request(r, op); len(ps) > 0 {
			t.Fatalf("request %d refused: %v", i, ps)
		}
	}
	if got := v.memo.size(); got > memoEntries || got == 0 {
		t.Errorf("the memo holds %d entries, want 1..%d", got, memoEntries)
	}
	long := httptest.NewRequest("GET", "/v1/pets?limit=1&pad="+strings.Repeat("x", memoKeyBytes), nil)
	if _, kind := v.memo.key(long, op); kind != memoNone {
		t.Error("a request line longer than the bound was memoized")
	}
}

// TestRequestBodyMemoAgreesWithValidator sends create requests with valid
// and broken bodies and Content-Types, twice, to a validator with the memo
// and to one without, and wants the same verdicts; and wants the quick
// body check to have been used.
func TestRequestBodyMemoAgreesWithValidator(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	memo, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full.memo = nil
	op := s.Operation("createPet")
	if memo.memo.kinds[op] != memoBody {
		t.Fatal("createPet's body has no plan")
	}
	bodies := []string{
		`{"name":"a","categoryId":1}`, `{"name":"a","categoryId":1,"status":"sold"}`, `{"name":"","categoryId":-3,"extra":[1,{}]}`,
		`{"name":"a"}`, `{"categoryId":1}`, `{"name":"a","categoryId":"1"}`, `{"name":"a","categoryId":1.5}`, `{"name":"a","categoryId":1.0}`,
		`{"name":"a","categoryId":9223372036854775807}`, `{"name":"a","categoryId":1e19}`, `{"name":"a","categoryId":-1e19}`,
		`{"name":"a","categoryId":1,"status":"lost"}`, `{"name":"a","categoryId":1,"status":null}`, `{"name":null,"categoryId":1}`,
		`{"name":1,"name":"a","categoryId":1}`, `{"name":"a","name":1,"categoryId":1}`, `{"name":"a","categoryId":1} x`,
		`{"name":"a","categoryId":1} {}`, "{\"name\":\"\xff\",\"categoryId\":1}", `[]`, `null`, `"a"`, ``, `  `, `{"name":"a","categoryId":1e400}`,
	}
	cts := [][]string{{JSON}, {"application/json; charset=utf-8"}, {"Application/JSON"}, {"text/plain"}, nil, {JSON, "text/plain"}}
	quick, quickDocs := 0, 0
	for round := 0; round < 2; round++ {
		for _, ct := range cts {
			for _, b := range bodies {
				req := func() *http.Request {
					r := httptest.NewRequest("POST", "/v1/pets", strings.NewReader(b))
					if ct != nil {
						r.Header["Content-Type"] = ct
					}
					return r
				}
				key, kind := memo.memo.key(req(), op)
				if kind == memoBody && memo.memo.accepted(key) && memo.memo.quickBody(req(), op) {
					quick++
				}
				got := memo.Request(req(), op)
				want := full.Request(req(), op)
				if (len(got) == 0) != (len(want) == 0) {
					t.Fatalf("round %d, Content-Type %q, body %q: memo says %v, the validator %v", round, ct, b, got, want)
				}
				// The same with the body decoded by the caller, as the
				// engine does (numbers as json.Number).
				if doc, ok := decodeOne(b); ok {
					if kind == memoBody && memo.memo.accepted(key) && memo.memo.quickDoc(req(), op, doc) {
						quickDocs++
					}
					got := memo.RequestDecoded(req(), op, doc)
					if (len(got) == 0) != (len(want) == 0) {
						t.Fatalf("round %d, Content-Type %q, decoded body %q: memo says %v, the validator %v", round, ct, b, got, want)
					}
				}
			}
		}
	}
	if quick < 10 || quickDocs < 10 {
		t.Errorf("the quick body checks accepted %d and %d (decoded) requests; the comparison needs them to accept some", quick, quickDocs)
	}
	// quickBody puts the body back for the validator.
	r := httptest.NewRequest("POST", "/v1/pets", strings.NewReader(`{"name":"a","categoryId":1}`))
	r.Header.Set("Content-Type", JSON)
	memo.memo.quickBody(r, op)
	if rest, _ := io.ReadAll(r.Body); string(rest) != `{"name":"a","categoryId":1}` {
		t.Errorf("body after quickBody: %q", rest)
	}
}

// TestRequestBodyWholeSchemaAgreesWithValidator: a body schema outside the
// plan's shape (a nested object, an array of objects, a composition,
// multipleOf, a number past float64's range) is held to the schema the
// validator compiles, and the memo's verdict is the validator's on every
// body, decoded by the memo or by the caller (numbers as json.Number).
func TestRequestBodyWholeSchemaAgreesWithValidator(t *testing.T) {
	s, err := Parse([]byte(`openapi: 3.0.3
info: {title: Nested, version: "1"}
paths:
  /add_ons:
    post:
      operationId: createAddOn
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [add_on]
              properties:
                add_on:
                  type: object
                  required: [name, amount_cents]
                  properties:
                    name: {type: string, minLength: 1}
                    amount_cents: {type: integer, minimum: 0, maximum: 9007199254740992}
                    rate: {type: number, multipleOf: 0.1}
                    code: {type: string, readOnly: true}
                    taxes:
                      type: array
                      maxItems: 2
                      items: {type: object, required: [code], properties: {code: {type: string, enum: [vat, gst]}}}
                    target:
                      oneOf:
                        - {type: object, required: [plan], properties: {plan: {type: string}}, additionalProperties: false}
                        - {type: object, required: [charge], properties: {charge: {type: integer}}, additionalProperties: false}
      responses:
        '201': {description: Created.}
`), "nested.yaml")
	if err != nil {
		t.Fatal(err)
	}
	memo, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full := memo.Plain()
	op := s.Operation("createAddOn")
	if memo.memo.kinds[op] != memoBody {
		t.Fatal("createAddOn's body takes no quick path")
	}
	bodies := []string{
		`{"add_on":{"name":"a","amount_cents":1}}`, `{"add_on":{"name":"","amount_cents":1}}`, `{"add_on":{"name":"a"}}`, `{}`,
		`{"add_on":{"name":"a","amount_cents":-1}}`, `{"add_on":{"name":"a","amount_cents":1.5}}`, `{"add_on":{"name":"a","amount_cents":1.0}}`,
		`{"add_on":{"name":"a","amount_cents":9007199254740993}}`, `{"add_on":{"name":"a","amount_cents":9007199254740994}}`,
		`{"add_on":{"name":"a","amount_cents":1e400}}`, `{"add_on":{"name":"a","amount_cents":1,"rate":0.3}}`,
		`{"add_on":{"name":"a","amount_cents":1,"rate":0.7}}`, `{"add_on":{"name":"a","amount_cents":1,"rate":0.35}}`,
		`{"add_on":{"name":"a","amount_cents":1,"code":"x"}}`, `{"add_on":{"name":"a","amount_cents":1,"taxes":[{"code":"vat"}]}}`,
		`{"add_on":{"name":"a","amount_cents":1,"taxes":[{"code":"vat"},{"code":"gst"},{"code":"vat"}]}}`,
		`{"add_on":{"name":"a","amount_cents":1,"taxes":[{"code":"sales"}]}}`, `{"add_on":{"name":"a","amount_cents":1,"taxes":[{}]}}`,
		`{"add_on":{"name":"a","amount_cents":1,"target":{"plan":"p"}}}`, `{"add_on":{"name":"a","amount_cents":1,"target":{"charge":2}}}`,
		`{"add_on":{"name":"a","amount_cents":1,"target":{"plan":"p","charge":2}}}`, `{"add_on":{"name":"a","amount_cents":1,"target":{}}}`,
		`{"add_on":null}`, `{"add_on":[]}`, `[]`, `null`, `"a"`,
	}
	quick, accepted := 0, 0
	for round := 0; round < 2; round++ {
		for _, b := range bodies {
			req := func() *http.Request {
				r := httptest.NewRequest("POST", "/add_ons", strings.NewReader(b))
				r.Header.Set("Content-Type", JSON)
				return r
			}
			want := full.Request(req(), op)
			if len(want) == 0 {
				accepted++
			}
			if got := memo.Request(req(), op); (len(got) == 0) != (len(want) == 0) {
				t.Fatalf("round %d, body %q: memo says %v, the validator %v", round, b, got, want)
			}
			doc, ok := decodeOne(b)
			if !ok {
				continue
			}
			key, kind := memo.memo.key(req(), op)
			if kind == memoBody && memo.memo.accepted(key) && memo.memo.quickDoc(req(), op, doc) {
				quick++
			}
			if got := memo.RequestDecoded(req(), op, doc); (len(got) == 0) != (len(want) == 0) {
				t.Fatalf("round %d, decoded body %q: memo says %v, the validator %v", round, b, got, want)
			}
		}
	}
	if quick < 10 || accepted < 10 {
		t.Errorf("the quick path accepted %d of the %d bodies the validator accepted; the comparison needs some", quick, accepted)
	}
	// The caller's document is left as it was decoded.
	doc, _ := decodeOne(`{"add_on":{"name":"a","amount_cents":1}}`)
	r := httptest.NewRequest("POST", "/add_ons", nil)
	r.Header.Set("Content-Type", JSON)
	if !memo.memo.quickDoc(r, op, doc) {
		t.Error("the quick path does not accept a valid add-on")
	}
	if n := doc.(map[string]any)["add_on"].(map[string]any)["amount_cents"]; n != json.Number("1") {
		t.Errorf("the quick path changed the caller's number to %#v", n)
	}
}

// decodeOne decodes exactly one JSON value with numbers as json.Number.
func decodeOne(b string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(b))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return doc, true
}

// TestPathTemplateMemoAgreesWithValidator: requests whose path parameters
// pass the exact quick check share the memo entry of their template; the
// verdict on every value, valid, out of bounds or malformed, is the
// validator's, before and after the memo has seen the template.
func TestPathTemplateMemoAgreesWithValidator(t *testing.T) {
	doc := `openapi: 3.1.0
info: {title: t, version: "1"}
servers: [{url: /api}]
paths:
  /owners/{ownerId}/pets/{petId}:
    parameters:
      - {name: ownerId, in: path, required: true, schema: {type: integer, format: int32, minimum: 1, maximum: 1000}}
    get:
      operationId: getPet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string, format: uuid}}
        - {name: v, in: query, schema: {type: integer}}
      responses: {'200': {description: ok}}
  /tags/{tag}:
    delete:
      operationId: deleteTag
      parameters:
        - {name: tag, in: path, required: true, schema: {type: string}}
      responses: {'204': {description: gone}}
  /things/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {'200': {description: ok}}
  /slash/{id}/:
    get:
      operationId: getSlash
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses: {'200': {description: ok}}
  /codes/{code}:
    get:
      operationId: getCode
      parameters:
        - {name: code, in: path, required: true, schema: {type: string, pattern: '^[a-z]+$'}}
      responses: {'200': {description: ok}}
`
	s, err := Parse([]byte(doc), "paths.yaml")
	if err != nil {
		t.Fatal(err)
	}
	memo, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full := memo.Plain()
	uuid := "0b6f1a34-5d2e-4c8a-9f1e-2a3b4c5d6e7f"
	cases := []struct{ op, target string }{
		{"getPet", "/api/owners/1/pets/" + uuid},
		{"getPet", "/api/owners/1000/pets/" + uuid},
		{"getPet", "/api/owners/7/pets/" + uuid + "?v=3"},
		{"getPet", "/api/owners/0/pets/" + uuid},
		{"getPet", "/api/owners/1001/pets/" + uuid},
		{"getPet", "/api/owners/01/pets/" + uuid},
		{"getPet", "/api/owners/1.0/pets/" + uuid},
		{"getPet", "/api/owners/-5/pets/" + uuid},
		{"getPet", "/api/owners/2147483648/pets/" + uuid},
		{"getPet", "/api/owners/5/pets/" + strings.ToUpper(uuid)},
		{"getPet", "/api/owners/5/pets/not-a-uuid"},
		{"getPet", "/api/owners/5/pets/" + uuid + "?v=x"},
		{"deleteTag", "/api/tags/red"},
		{"deleteTag", "/api/tags/blue%20green"},
		{"deleteTag", "/api/tags/a%2Fb"},
		{"getThing", "/api/things/" + uuid},
		{"getThing", "/api/things/not-a-uuid"},
		{"getSlash", "/api/slash/3/"},
		{"getSlash", "/api/slash/x/"},
		{"getCode", "/api/codes/abc"},
		{"getCode", "/api/codes/ABC"},
	}
	for round := range 2 {
		for _, c := range cases {
			op := s.Operation(c.op)
			got := memo.Request(httptest.NewRequest(op.Method, c.target, nil), op)
			want := full.Request(httptest.NewRequest(op.Method, c.target, nil), op)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("round %d, %s: memo says %v, the validator %v", round, c.target, got, want)
			}
		}
	}
	templated := 0
	for k := range memo.memo.set {
		if k.templated {
			templated++
		}
	}
	// getPet without and with ?v=3, deleteTag, getThing (whose value must
	// pass both declarations of id); getCode's pattern is the validator's
	// to judge, and getSlash's empty last segment has no quick path.
	if templated != 4 {
		t.Errorf("%d templated memo entries, want 4: %v", templated, memo.memo.set)
	}
	if newPathShape(s.Operation("getCode")) != nil {
		t.Error("a path parameter with a pattern has a quick check")
	}
}

// TestMergePatchMemoAgreesWithValidator: a body of a declared +json media
// type (a merge patch) takes the quick path when sent as exactly that type,
// with the validator's verdict on every body and Content-Type.
func TestMergePatchMemoAgreesWithValidator(t *testing.T) {
	s, err := Load("../fixtures/petstore-crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	memo, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	full := memo.Plain()
	op := s.Operation("patchPet")
	if memo.memo.kinds[op] != memoBody || memo.memo.media[op] != "application/merge-patch+json" {
		t.Fatalf("patchPet: memo kind %v, media %q; want its merge patch body planned", memo.memo.kinds[op], memo.memo.media[op])
	}
	bodies := []string{`{"name":"b"}`, `{"status":"sold"}`, `{"status":"lost"}`, `{"name":7}`, `{}`, `[]`, `{"name":"b"} {}`, `{"categoryId":"x"}`}
	cts := [][]string{{"application/merge-patch+json"}, {"application/merge-patch+json; charset=utf-8"}, {JSON}, nil}
	quick := 0
	for round := range 2 {
		for _, ct := range cts {
			for _, b := range bodies {
				req := func() *http.Request {
					r := httptest.NewRequest("PATCH", "/v1/pets/"+strconv.Itoa(round+1), strings.NewReader(b))
					if ct != nil {
						r.Header["Content-Type"] = ct
					}
					return r
				}
				if key, kind := memo.memo.key(req(), op); kind == memoBody && memo.memo.accepted(key) && memo.memo.quickBody(req(), op) {
					quick++
				}
				got, want := memo.Request(req(), op), full.Request(req(), op)
				if (len(got) == 0) != (len(want) == 0) {
					t.Errorf("round %d, Content-Type %q, body %q: memo says %v, the validator %v", round, ct, b, got, want)
				}
			}
		}
	}
	if quick == 0 {
		t.Error("no merge patch took the quick path")
	}
}

// TestPlainValidatorHasNoMemo: a Plain validator validates every request
// and response in full: it has no memo of accepted requests, no body plans
// and no compiled response bodies of its own, while the validator it was
// made from keeps them. The agreement tests compare a validator with its
// Plain copy; with a memo left in the copy they would compare the memo
// with itself, and the engine's plain run would take the fast paths again.
func TestPlainValidatorHasNoMemo(t *testing.T) {
	_, v := defaultValidated(t)
	if v.memo == nil || v.bodies == nil {
		t.Fatalf("the validator has no memo (%v) or no compiled bodies (%v): nothing for Plain to leave out", v.memo != nil, v.bodies != nil)
	}
	p := v.Plain()
	if p.memo != nil {
		t.Error("the Plain validator keeps the request memo and its body plans")
	}
	if p.bodies != nil {
		t.Error("the Plain validator keeps the compiled response bodies of quickResponse")
	}
	if p.answered != nil {
		t.Error("the Plain validator keeps the response memo")
	}
	if v.memo == nil || v.bodies == nil || v.answered == nil {
		t.Error("Plain took the fast paths from the validator it copied")
	}
}

// TestResponseMemo: a small body the validator accepted is remembered, so
// the same body is accepted without being validated again; a refused one is
// never remembered, and is refused, with its reason, every time; a body
// past memoKeyBytes is not kept; and each is remembered per response, not
// for another whose schema refuses it.
func TestResponseMemo(t *testing.T) {
	s, v := defaultValidated(t)
	get, list := s.Operation("getPet"), s.Operation("listPets")
	r := httptest.NewRequest("GET", "/v1/pets/1", nil)
	h := http.Header{"Content-Type": {JSON}}
	kept := v.answered.size
	pet := []byte(`{"id":1,"name":"Milo","categoryId":3,"status":"available"}`)
	for range 2 {
		checkProblems(t, "a valid pet", v.Response(r, get, 200, h, pet), "")
	}
	if kept() != 1 {
		t.Fatalf("%d bodies kept after one valid body twice, want 1", kept())
	}
	checkProblems(t, "the pet remembered for getPet, not for listPets", v.Response(r, list, 200, h, pet), "body")
	bad := []byte(`{"id":1,"name":"Milo","categoryId":3,"status":"lost"}`)
	for range 2 {
		checkProblems(t, "a pet of no status", v.Response(r, get, 200, h, bad), "status")
	}
	long := []byte(`{"id":1,"name":"` + strings.Repeat("M", memoKeyBytes) + `","categoryId":3,"status":"available"}`)
	checkProblems(t, "a valid pet past memoKeyBytes", v.Response(r, get, 200, h, long), "")
	if kept() != 1 {
		t.Errorf("%d bodies kept, want only the valid small one", kept())
	}
}
