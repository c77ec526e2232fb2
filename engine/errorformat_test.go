package engine

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// rawDo sends a request and reads the answer whole, with no assumption
// about the format of its errors (testEnv.do holds them to petctl's own).
func rawDo(t *testing.T, method, url, body string, header map[string]string) result {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return result{status: res.StatusCode, header: res.Header, body: data}
}

func rawGet(t *testing.T, url string) result {
	t.Helper()
	return rawDo(t, http.MethodGet, url, "", nil)
}

// validError checks an error answer against the document, as a client
// holding the server to it would: the response the operation declares for
// the status (exactly, by range or as default), else the document's most
// common error schema.
func validError(t *testing.T, s *spec.Spec, v *spec.Validator, op *spec.Operation, method, url string, r result) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ps spec.Problems
	if op != nil && op.Declares(r.status) {
		ps = v.Response(req, op, r.status, r.header, r.body)
	} else {
		ps = v.Schema(s.ErrorSchema(), r.body)
	}
	if len(ps) > 0 {
		t.Errorf("%s %s: %d %s is not valid against the document: %v", method, url, r.status, r.body, ps)
	}
}

// checkAnswer fails unless r has the status, the Content-Type and the
// body, exactly or, when want ends in "…", its start.
func checkAnswer(t *testing.T, r result, status int, ctype, want string) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d (%s)", r.status, status, r.body)
	}
	if got := r.header.Get("Content-Type"); got != ctype {
		t.Errorf("Content-Type %q, want %q", got, ctype)
	}
	if prefix, part := strings.CutSuffix(want, "…"); part {
		if !strings.HasPrefix(string(r.body), prefix) {
			t.Errorf("body %s, want one starting %s", r.body, prefix)
		}
	} else if string(r.body) != want {
		t.Errorf("body %s, want %s", r.body, want)
	}
}

// serveStyle serves a document of fixtures/styles with the test key.
func serveStyle(t *testing.T, name string, mutate ...func(*Options)) (*testEnv, *spec.Spec) {
	t.Helper()
	s, err := spec.Load("../fixtures/styles/" + name)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "X-Key", ""), s
}

// TestErrorsInTheDocumentsFormat: each error is written in the format the
// operation declares for its status (RFC 9457 problem+json, a nested
// object with an integer code, plain text, other field names with an enum
// and required extras), else its default's, else the document's most
// common; the status of a validation failure is the one the operation
// declares; and every answer is valid against the document. The
// operations answer from the document (issue 17's actions), so faults
// make the statuses they do not otherwise answer.
func TestErrorsInTheDocumentsFormat(t *testing.T) {
	env, s := serveStyle(t, "errors.yaml", func(o *Options) {
		o.Faults = map[string]Fault{"problemJSON": {Rate: 1, Status: 404}, "plainText": {Rate: 1, Status: 503}}
	})
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	key := map[string]string{"X-Key": testKey}
	tests := []struct {
		name         string
		op           string // the operationId, "" for none
		method, path string
		body         string
		header       map[string]string
		status       int
		ctype        string
		want         string // the body, exactly, or a part of it when it ends in "…"
	}{
		{"problem+json, 404 declared", "problemJSON", "GET", "/problems/7", "", key, 404, "application/problem+json",
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"fault injected by configuration: problemJSON fails at rate 1 with status 404; nothing was done","instance":"/errs/problems/7"}`},
		{"problem+json, a bad parameter under default", "problemJSON", "GET", "/problems/x", "", key, 400, "application/problem+json",
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"path parameter 'id'…`},
		{"problem+json, no key", "problemJSON", "GET", "/problems/7", "", nil, 401, "application/problem+json",
			`{"type":"about:blank","title":"Unauthorized","status":401,"detail":"a valid API key is required: send it as 'X-Key: <API_KEY>'…`},
		{"nested error with an integer code", "nestedError", "GET", "/nested", "", nil, 401, "application/json",
			`{"error":{"code":401,"status":"Unauthorized","message":"a valid API key is required: send it as 'X-Key: <API_KEY>'…`},
		{"plain text", "plainText", "GET", "/text", "", nil, 401, "text/plain",
			`a valid API key is required: send it as 'X-Key: <API_KEY>'…`},
		{"plain text, undeclared status: the most common format", "plainText", "GET", "/text", "", key, 503, "application/problem+json",
			`{"type":"about:blank","title":"Service Unavailable","status":503,…`},
		{"422 where only 422 is declared", "otherNames", "POST", "/other", `{"n":"x"}`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"}, 422, "application/json",
			`{"errorCode":"VALIDATION_FAILED","errorMessage":"body field 'n': got string, want integer","httpStatus":422,"timestamp":"…`},
		{"malformed JSON is a validation failure too", "otherNames", "POST", "/other", `{`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"}, 422, "application/json",
			`{"errorCode":"BAD_REQUEST",…`},
		{"a 4XX range", "otherNames", "POST", "/other", `{"n":1}`, map[string]string{"X-Key": testKey, "Content-Type": "text/csv"}, 415, "application/json",
			`{"errorCode":"BAD_REQUEST",…`},
		{"a status declared without a body", "noErrorBody", "GET", "/silent", "", nil, 401, "application/problem+json",
			`{"type":"about:blank","title":"Unauthorized","status":401,…`},
		{"unknown path", "", "GET", "/nope", "", key, 404, "application/problem+json",
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"no operation is declared at /errs/nope;…`},
		{"method not allowed", "", "DELETE", "/nested", "", key, 405, "application/problem+json",
			`{"type":"about:blank","title":"Method Not Allowed","status":405,…`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := env.base + tc.path
			r := rawDo(t, tc.method, url, tc.body, tc.header)
			checkAnswer(t, r, tc.status, tc.ctype, tc.want)
			var op *spec.Operation
			if tc.op != "" {
				op = s.Operation(tc.op)
			}
			validError(t, s, v, op, tc.method, url, r)
		})
	}
}

// TestErrorFieldsOption: errors.fields maps the fields petctl cannot read
// by their names, and names a field no error schema has, or a meaning
// petctl does not fill, as the problem it is.
func TestErrorFieldsOption(t *testing.T) {
	env, _ := serveStyle(t, "errors.yaml", func(o *Options) {
		o.ErrorFields = map[string]string{"message": "error.request", "code": "error.status"}
	})
	r := rawGet(t, env.base+"/nested")
	var got struct{ Error map[string]any }
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("%s: %v", r.body, err)
	}
	if msg, _ := got.Error["request"].(string); !strings.HasPrefix(msg, "a valid API key is required") || got.Error["status"] != "unauthorized" || got.Error["code"] != float64(401) {
		t.Errorf("body %s, want the message in error.request, the code in error.status, the status in error.code", r.body)
	}

	s, err := spec.Load("../fixtures/styles/errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Spec: s, Keys: []string{testKey}, ErrorFields: map[string]string{"message": "error.nope", "colour": "x"}})
	for _, want := range []string{
		`errors: "colour" is not a meaning petctl fills; the meanings are status, code, message, title, type, instance, time`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	_, err = New(Options{Spec: s, Keys: []string{testKey}, ErrorFields: map[string]string{"message": "error.nope"}})
	var oe *OptionError
	if err == nil || !strings.Contains(err.Error(), "errors: fields.message: no error schema petctl writes has a field error.nope; it fills ") {
		t.Errorf("err = %v, want error.nope named", err)
	} else if !errors.As(err, &oe) || oe.Key != "errors.fields.message" {
		t.Errorf("err = %#v, want an *OptionError at errors.fields.message", err)
	}
}

// TestConfiguredCodeInTheDocumentsFormat: a code configured in place of
// petctl's (errorCodes) is written in the document's format, and a
// validation failure keeps the status its operation declares for it.
func TestConfiguredCodeInTheDocumentsFormat(t *testing.T) {
	env, s := serveStyle(t, "errors.yaml", func(o *Options) {
		o.ErrorCodes = map[string]string{"validation_failed": "invalid_request", "unauthorized": "no_key"}
	})
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		op, method, path, body string
		header                 map[string]string
		status                 int
		want                   string // the start of the body
	}{
		{"otherNames", "POST", "/other", `{"n":"x"}`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"}, 422,
			`{"errorCode":"BAD_REQUEST","errorMessage":"body field 'n': got string, want integer","httpStatus":422,`},
		{"nestedError", "GET", "/nested", "", nil, 401, `{"error":{"code":401,"status":"Unauthorized","message":"a valid API key is required`},
	}
	for _, tc := range tests {
		url := env.base + tc.path
		r := rawDo(t, tc.method, url, tc.body, tc.header)
		if r.status != tc.status || !strings.HasPrefix(string(r.body), tc.want) {
			t.Errorf("%s %s: %d %s, want %d %s…", tc.method, tc.path, r.status, r.body, tc.status, tc.want)
		}
		if tc.op == "nestedError" && !strings.Contains(string(r.body), `"reason":"no_key"`) {
			t.Errorf("%s: %s, want the configured code in reason", tc.path, r.body)
		}
		validError(t, s, v, s.Operation(tc.op), tc.method, url, r)
	}
}

// TestErrorsDeclaredOnlyAsDefault: a document that declares its errors
// only as default responses has its error schema used where no operation
// declares one (an unknown path, a 405), as for one that declares 4xx
// responses; petctl's own {code, message, status} was sent there, which
// the document never declares.
func TestErrorsDeclaredOnlyAsDefault(t *testing.T) {
	env, s := serveStyle(t, "default-errors.yaml", func(o *Options) { o.MaxBodyBytes = 64 })
	faulty, _ := serveStyle(t, "default-errors.yaml", func(o *Options) {
		o.Faults = map[string]Fault{"listItems": {Rate: 1, Status: 429}, "addItem": {Rate: 1, Status: 501}}
	})
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	key := map[string]string{"X-Key": testKey}
	tests := []struct {
		name, op, method, path, body string
		header                       map[string]string
		status                       int
		want                         string // the start of the body
	}{
		{"unknown path", "", "GET", "/nope", "", key, 404, `{"code":404,"message":"no operation is declared at /dflt/nope;`},
		{"method not allowed", "", "DELETE", "/items", "", key, 405, `{"code":405,"message":"DELETE is not declared for /dflt/items;`},
		{"no key", "listItems", "GET", "/items", "", nil, 401, `{"code":401,"message":"a valid API key is required`},
		{"bad query value", "listItems", "GET", "/items?limit=0", "", key, 400, `{"code":400,"message":"query parameter 'limit'`},
		{"bad body", "addItem", "POST", "/items", `{"name":""}`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"}, 400, `{"code":400,"message":"body field 'name'`},
		{"body too large", "addItem", "POST", "/items", `{"name":"` + strings.Repeat("a", 64) + `"}`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"}, 413, `{"code":413,"message":"the request body`},
		{"a 429 fault", "listItems", "GET", "/items", "", key, 429, `{"code":429,"message":"fault injected`},
		{"a 501 fault", "addItem", "POST", "/items", `{"name":"a"}`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"}, 501, `{"code":501,"message":"fault injected`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := env.base + tc.path
			if strings.Contains(tc.name, "fault") {
				url = faulty.base + tc.path
			}
			r := rawDo(t, tc.method, url, tc.body, tc.header)
			if r.status != tc.status || !strings.HasPrefix(string(r.body), tc.want) {
				t.Errorf("%d %s, want %d %s…", r.status, r.body, tc.status, tc.want)
			}
			var op *spec.Operation
			if tc.op != "" {
				op = s.Operation(tc.op)
			}
			validError(t, s, v, op, tc.method, url, r)
			if op == nil {
				if ps := v.Schema(s.Operation("listItems").Default.Schema, r.body); len(ps) > 0 {
					t.Errorf("%s is not valid against the default's schema: %v", r.body, ps)
				}
			}
		})
	}
}

// TestErrorCodesFromExamples: where no member of an error schema's enum is
// petctl's code or the status (Meilisearch's codes), the answer takes the
// member the operation's example for that status holds, and the example's
// values for the fields no meaning fills (the type, the link), not the
// enum's first member and a made-up text ("0"). A code outside the enum
// is not taken; a member that names the status still comes first; where
// the answer's code is not the example's, the example's texts name the
// answer's (the link). Every answer is valid against the document.
func TestErrorCodesFromExamples(t *testing.T) {
	env, s := serveStyle(t, "error-examples.yaml")
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	bearer := map[string]string{"Authorization": "Bearer " + testKey}
	tests := []struct {
		name, op, path string
		header         map[string]string
		status         int
		want           string // the body after its message
	}{
		{"401 from its example", "getIndex", "/indexes/movies", nil, 401,
			`"code":"missing_authorization_header","type":"auth","link":"https://docs.example.com/errors#missing_authorization_header"}`},
		{"404 from its examples", "getIndex", "/indexes/movies", bearer, 404,
			`"code":"index_not_found","type":"invalid_request","link":"https://docs.example.com/errors#index_not_found"}`},
		// no_such_code is outside the enum: the code is picked as
		// without an example; the example's type is taken, and its link
		// with the code the answer has.
		{"an example outside the enum", "getKey", "/keys/k", nil, 401,
			`"code":"api_key_already_exists","type":"auth","link":"https://docs.example.com/errors#api_key_already_exists"}`},
		{"no example", "getKey", "/keys/k", bearer, 404, `"code":"api_key_not_found","type":"internal","link":"0"}`},
		{"a member that names the status first", "getKey", "/keys/k?limit=x", bearer, 400,
			`"code":"bad_request","type":"invalid_request","link":"https://docs.example.com/errors#bad_request"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := env.base + tc.path
			r := rawDo(t, "GET", url, "", tc.header)
			_, after, _ := strings.Cut(string(r.body), `",`)
			if r.status != tc.status || after != tc.want {
				t.Errorf("%d %s, want %d {\"message\":…,%s", r.status, r.body, tc.status, tc.want)
			}
			validError(t, s, v, s.Operation(tc.op), "GET", url, r)
		})
	}
}
