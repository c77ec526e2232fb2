package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestShellQuote runs the quoted words through a real shell: what comes
// out is what went in, with $PETCTL_API_KEY expanded and nothing else.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, in := range []string{
		`plain`,
		`it's "quoted" $HOME \n`,
		`{"name":"a'b","x":"$(id)"}`,
		"Bearer $PETCTL_API_KEY",
		"http://h/v1/pets?key=$PETCTL_API_KEY&x='y'",
	} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(in)).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(in, "$PETCTL_API_KEY", os.Getenv("PETCTL_API_KEY"))
		if string(out) != want {
			t.Errorf("shellQuote(%q) through sh = %q, want %q", in, out, want)
		}
	}
}

// TestCurlRepeatsTheRequest pastes a failure's curl command into a shell
// with PETCTL_API_KEY set: the server sees the same request.
func TestCurlRepeatsTheRequest(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	const key = "curl-key-1f2e"
	type seen struct{ method, uri, auth, ctype, body string }
	got := make(chan seen, 2)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 1024)
		n, _ := r.Body.Read(b)
		got <- seen{r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(b[:n])}
		w.WriteHeader(418)
	}))
	defer hs.Close()
	base, _ := url.Parse(hs.URL + "/v1")
	c := newClient(base, keyOnly(key), 5*time.Second, time.Second, time.Minute)
	s := &suite{client: c}
	bearer := &spec.Scheme{Name: "bearer", Kind: spec.SchemeBearer, In: "header", Param: "Authorization"}
	op := securedBy(bearer, &spec.Operation{ID: "createPet", Method: http.MethodPost, Path: "/pets"})
	r := &request{op: op, alt: op.Requirements[0], query: url.Values{"q": {"it's"}}, body: []byte(`{"name":"O'Hara $x"}`)}
	ex, err := c.do(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	first := <-got
	cmd := exec.Command("sh", "-c", s.curl(ex)+" -o /dev/null")
	cmd.Env = append(os.Environ(), "PETCTL_API_KEY="+key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", s.curl(ex), err, out)
	}
	second := <-got
	if first != second {
		t.Errorf("curl sent %+v, the run sent %+v", second, first)
	}
	if strings.Contains(s.curl(ex), key) {
		t.Errorf("the curl command contains the key: %s", s.curl(ex))
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"Thu, 01 Jan 2026 00:00:05 GMT", 5 * time.Second, true},
		{"Wed, 31 Dec 2025 23:00:00 GMT", 0, true},
		{"", 0, false},
		{"-1", 0, false},
		{"soon", 0, false},
	}
	for _, tc := range tests {
		got, ok := retryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %s, %t; want %s, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestErrorProblems: an error response is judged by the media type and
// schema its document declares for the operation and status (or the
// default), and the field that carries the status by the HTTP status;
// a status declared without a body is not judged.
func TestErrorProblems(t *testing.T) {
	doc, err := spec.Load("../fixtures/styles/errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	val, err := doc.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("http://127.0.0.1:1/errs")
	s := newSuite(Config{APIKey: "k", Timeout: time.Second}, base, doc, val)
	const problem = "application/problem+json"
	tests := []struct {
		op, path    string
		status      int
		ctype, body string
		want        string // a problem it must report; "" for none
	}{
		{"problemJSON", "/problems/1", 404, problem, `{"type":"about:blank","title":"Not Found","status":404}`, ""},
		{"problemJSON", "/problems/1", 404, "application/json", `{"type":"about:blank","title":"Not Found","status":404}`, "Content-Type"},
		{"problemJSON", "/problems/1", 404, problem, `{"type":"about:blank","title":"Not Found","status":400}`, "status is 400, want 404"},
		{"problemJSON", "/problems/1", 404, problem, `{"code":"not_found","message":"m","status":404}`, "body"},
		{"problemJSON", "/problems/1", 503, problem, `{"type":"about:blank","title":"Unavailable","status":503}`, ""},
		{"nestedError", "/nested", 500, "application/json", `{"error":{"code":500,"message":"m"}}`, ""},
		{"nestedError", "/nested", 500, "application/json", `{"error":{"code":404,"message":"m"}}`, "error.code is 404, want 500"},
		{"nestedError", "/nested", 500, "application/json", `{"code":"internal","message":"m","status":500}`, "error"},
		{"plainText", "/text", 404, "text/plain", `no such thing`, ""},
		{"plainText", "/text", 404, "application/json", `{"code":"not_found","message":"m","status":404}`, "Content-Type"},
		{"otherNames", "/other", 422, "application/json", `{"errorCode":"VALIDATION_FAILED","errorMessage":"m","httpStatus":422,"timestamp":"2026-01-01T00:00:00Z","traceId":"00000000-0000-4000-8000-000000000001"}`, ""},
		{"otherNames", "/other", 409, "application/json", `{"code":"conflict","message":"m","status":409}`, "body"},
		{"noErrorBody", "/silent", 401, "text/html", `<h1>no</h1>`, ""},
	}
	for _, tc := range tests {
		op := doc.Operation(tc.op)
		req, _ := http.NewRequest(op.Method, "http://127.0.0.1:1/errs"+tc.path, nil)
		ex := &Exchange{Op: op, Status: tc.status, Header: http.Header{"Content-Type": {tc.ctype}}, Body: []byte(tc.body), httpReq: req}
		got := strings.Join(s.errorProblems(ex), "; ")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %d %s %s: problems %q, want %q", tc.op, tc.status, tc.ctype, tc.body, got, tc.want)
		}
	}
}

// TestErrorProblemsApplicationCode: a number named code with nothing
// beside it to say it is the status (OpenAPI's petstore-expanded Error,
// fixtures/styles/default-errors.yaml) is the application's own code: a
// deployment's 1002 on a 401 was failed as "want 401 (the HTTP status)".
func TestErrorProblemsApplicationCode(t *testing.T) {
	doc, err := spec.Load("../fixtures/styles/default-errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	val, err := doc.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("http://127.0.0.1:1/dflt")
	s := newSuite(Config{APIKey: "k", Timeout: time.Second}, base, doc, val)
	op := doc.Operation("listItems")
	req, _ := http.NewRequest(op.Method, "http://127.0.0.1:1/dflt/items", nil)
	for body, want := range map[string]string{
		`{"code":1002,"message":"no key"}`: "",
		`{"code":401,"message":"no key"}`:  "",
		`{"code":"E1","message":"no key"}`: "body",
	} {
		ex := &Exchange{Op: op, Status: 401, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body), httpReq: req}
		got := strings.Join(s.errorProblems(ex), "; ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("401 %s: problems %q, want %q", body, got, want)
		}
	}
}

func TestDeprecationHeaders(t *testing.T) {
	sunset := time.Date(2030, 12, 5, 0, 0, 0, 0, time.UTC)
	op := &spec.Operation{ID: "getPet", Deprecated: true, Sunset: sunset}
	tests := []struct {
		deprecation, sunset []string
		wantDep, wantSun    string
	}{
		{[]string{"@1795305600"}, []string{"Thu, 05 Dec 2030 00:00:00 GMT"}, "", ""},
		{[]string{"@1922659200"}, nil, "", "no Sunset"},
		{[]string{"@1922659201"}, []string{"Thu, 05 Dec 2030 00:00:01 GMT"}, "after the removal date", "want Thu, 05 Dec 2030"},
		{[]string{"true"}, []string{"Thu, 5 Dec 2030 00:00:00 GMT"}, "expired draft", "not an IMF-fixdate"},
		{[]string{"Sun, 22 Nov 2026 00:00:00 GMT"}, []string{"Thursday, 05-Dec-30 00:00:00 GMT"}, "not RFC 9745", "not an IMF-fixdate"},
		{nil, []string{"a", "b"}, "no Deprecation", "2 Sunset headers"},
	}
	for _, tc := range tests {
		ex := &Exchange{Header: http.Header{}}
		for _, v := range tc.deprecation {
			ex.Header.Add("Deprecation", v)
		}
		for _, v := range tc.sunset {
			ex.Header.Add("Sunset", v)
		}
		if got := deprecationProblem(ex, op); (tc.wantDep == "") != (got == "") || !strings.Contains(got, tc.wantDep) {
			t.Errorf("Deprecation %q: %q, want %q", tc.deprecation, got, tc.wantDep)
		}
		if got := sunsetProblem(ex, op); (tc.wantSun == "") != (got == "") || !strings.Contains(got, tc.wantSun) {
			t.Errorf("Sunset %q: %q, want %q", tc.sunset, got, tc.wantSun)
		}
	}
}

// TestClientBounds: bodies are capped, cross-host redirects are not
// followed, a Retry-After beyond the bound is not waited for.
func TestClientBounds(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the client followed a redirect to another host (%s), with %q", r.URL, r.Header.Get("Authorization"))
	}))
	defer other.Close()
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/big":
			w.Write([]byte(strings.Repeat("x", MaxBodyBytes+10)))
		case "/v1/away":
			http.Redirect(w, r, otherURL+"/v1/big", http.StatusFound)
		case "/v1/here":
			http.Redirect(w, r, "/v1/ok", http.StatusMovedPermanently)
		case "/v1/ok":
			w.WriteHeader(204)
		case "/v1/slow-down":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(429)
		}
	}))
	defer hs.Close()
	base, _ := url.Parse(hs.URL + "/v1")
	c := newClient(base, keyOnly("k"), 5*time.Second, time.Second, time.Minute)
	c.sleep = func(_ context.Context, d time.Duration) error {
		t.Errorf("the client waited %s", d)
		return nil
	}
	get := func(path string) *Exchange {
		ex, err := c.do(t.Context(), &request{op: &spec.Operation{Method: "GET", Path: path}})
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}
	if ex := get("/big"); !ex.Truncated || len(ex.Body) != MaxBodyBytes {
		t.Errorf("big body: truncated %t, %d bytes", ex.Truncated, len(ex.Body))
	}
	if ex := get("/away"); ex.Status != http.StatusFound {
		t.Errorf("cross-host redirect: %d, want the 302 itself", ex.Status)
	}
	if ex := get("/here"); ex.Status != 204 {
		t.Errorf("same-host redirect: %d, want it followed to 204", ex.Status)
	}
	if ex := get("/slow-down"); ex.Status != 429 {
		t.Errorf("Retry-After of an hour: %d, want the 429 itself", ex.Status)
	}
}

// TestSameValueAcrossTypes: a field the write's schema types otherwise
// than the answer's compares as the answer's type: the same number or text
// passes, another fails, and a value that cannot be the answer's type is
// not judged. Nested fields compare the same way.
func TestSameValueAcrossTypes(t *testing.T) {
	num := &spec.Schema{Types: []string{"number"}}
	str := &spec.Schema{Types: []string{"string"}}
	boolean := &spec.Schema{Types: []string{"boolean"}}
	list := &spec.Schema{Types: []string{"array"}, Items: &spec.Schema{Types: []string{"object"}, Properties: []*spec.Property{{Name: "value", Schema: str}}}}
	instant := &spec.Schema{Types: []string{"string"}, Format: "date-time"}
	one := int64(1)
	device := &spec.Schema{Types: []string{"object"}, AllOf: []*spec.Schema{
		{Types: []string{"object"}, Properties: []*spec.Property{{Name: "phone", Schema: str}, {Name: "ip", Schema: str}}},
		{MaxProperties: &one}}}
	for _, tc := range []struct {
		name      string
		ps        *spec.Schema
		got, sent string
		want      bool
	}{
		{"text read as its number", num, `20.50`, `"20.5"`, true},
		{"text read as another number", num, `21`, `"20.5"`, false},
		{"text that is no number", num, `3`, `"twenty"`, true},
		{"a number read as its text", str, `"7"`, `7`, true},
		{"a number read as other text", str, `"8"`, `7`, false},
		{"text read as its boolean", boolean, `true`, `"true"`, true},
		{"text read as the other boolean", boolean, `false`, `"true"`, false},
		{"the same type differs", str, `"a"`, `"b"`, false},
		{"nested, read as text", list, `[{"value":"5"},{"value":"6.5"}]`, `[{"value":5},{"value":6.5}]`, true},
		{"nested, one differs", list, `[{"value":"5"},{"value":"6"}]`, `[{"value":5},{"value":6.5}]`, false},
		{"nested, one missing", list, `[{"value":"5"}]`, `[{"value":5},{"value":6.5}]`, false},
		{"nested, with fields the server assigned", list, `[{"value":"5","id":"a1"}]`, `[{"value":5}]`, true},
		{"Unix seconds read as their instant", instant, `"2022-04-29T13:59:51Z"`, `1651240791`, true},
		{"Unix seconds read as another instant", instant, `"2022-04-29T13:59:52Z"`, `1651240791`, false},
		{"an array the answer's schema leaves undescribed", &spec.Schema{Types: []string{"array"}}, `[1]`, `[2]`, false},
		{"text read as a whole number", &spec.Schema{Types: []string{"integer"}}, `3`, `"3.5"`, true},
		{"text with a pattern", &spec.Schema{Types: []string{"string"}, Pattern: "^[a-z]+$"}, `"abc"`, `7`, true},
		{"text that is no instant", instant, `"2022-04-29T13:59:52Z"`, `"soon"`, true},
		{"an instant read as another", instant, `"2022-04-29T13:59:52Z"`, `"2022-04-29T13:59:51Z"`, false},
		{"one of the properties sent, where the answer holds one", device, `{"ip":"192.0.2.1"}`, `{"phone":"+1","ip":"192.0.2.1"}`, true},
		{"one sent, another read, where the answer holds one", device, `{"ip":"192.0.2.1"}`, `{"phone":"+1","ip":"192.0.2.9"}`, false},
		{"as sent, where the answer holds one", device, `{}`, `{"phone":"+1"}`, false},
	} {
		if got := sameValue(tc.ps, decodeJSON([]byte(tc.got)), decodeJSON([]byte(tc.sent))); got != tc.want {
			t.Errorf("%s: sameValue(%s, sent %s) = %v, want %v", tc.name, tc.got, tc.sent, got, tc.want)
		}
	}
}

// TestWithoutPinned: a field the create's answer pins to null or a const
// is not held against the reads that follow; the others are.
func TestWithoutPinned(t *testing.T) {
	answer := &spec.Schema{Types: []string{"object"}, Properties: []*spec.Property{
		{Name: "customer", Schema: &spec.Schema{Nullable: true}},
		{Name: "state", Schema: &spec.Schema{Types: []string{"string"}, HasConst: true, Const: "queued"}},
		{Name: "name", Schema: &spec.Schema{Types: []string{"string"}}},
		{Name: "note", Schema: &spec.Schema{Types: []string{"string"}, Nullable: true}},
	}}
	item := map[string]any{"customer": nil, "state": "queued", "name": "a", "note": nil}
	got := withoutPinned(item, answer)
	if _, ok := got["customer"]; ok {
		t.Error("customer, pinned to null, is kept")
	}
	if _, ok := got["state"]; ok {
		t.Error("state, pinned to a const, is kept")
	}
	if _, ok := got["name"]; !ok {
		t.Error("name is dropped")
	}
	if _, ok := got["note"]; !ok {
		t.Error("note, a nullable string, is dropped")
	}
	if len(item) != 4 {
		t.Errorf("the created item itself was changed: %v", item)
	}
}

// TestAcceptPrefersJSON: Accept names what the operation produces, its
// successes' types first; where a success declares JSON beside text/plain
// (ASP.NET documents list text/plain first), JSON leads and the others go
// at q=0.5, so a deployment that takes the first type listed answers JSON;
// an operation without JSON keeps its own types at full weight.
func TestAcceptPrefersJSON(t *testing.T) {
	t.Parallel()
	doc, err := spec.Parse([]byte(`openapi: 3.0.3
info: {title: Accept, version: "1"}
paths:
  /series:
    get:
      operationId: listSeries
      responses:
        '200':
          description: A list.
          content:
            text/plain: {schema: {type: array, items: {type: object}}}
            application/json: {schema: {type: array, items: {type: object}}}
            text/json: {schema: {type: array, items: {type: object}}}
        '404':
          description: None.
          content:
            application/problem+json: {schema: {type: object}}
  /picture:
    get:
      operationId: picture
      responses:
        '200':
          description: A picture.
          content:
            image/png: {schema: {type: string, format: binary}}
        default:
          description: An error.
          content:
            application/json: {schema: {type: object}}
`), "accept.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for op, want := range map[string]string{
		"listSeries": "application/json, text/json, text/plain;q=0.5, application/problem+json",
		"picture":    "image/png, application/json",
	} {
		if got := accept(doc.Operation(op)); got != want {
			t.Errorf("accept(%s) = %q, want %q", op, got, want)
		}
	}
}

// TestIgnoredHeaderParameters: a header parameter named Authorization,
// Content-Type or Accept is ignored, as OpenAPI says: the credential, the
// body's media type and the Accept the client makes are what is sent, once
// each (open-zaak's documents declare Content-Type as a parameter).
func TestIgnoredHeaderParameters(t *testing.T) {
	t.Parallel()
	const key = "header-params-key-5d1c"
	got := make(chan http.Header, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hs.Close()
	base, _ := url.Parse(hs.URL)
	c := newClient(base, keyOnly(key), 5*time.Second, time.Second, time.Minute)
	bearer := &spec.Scheme{Name: "bearer", Kind: spec.SchemeBearer, In: "header", Param: "Authorization"}
	op := securedBy(bearer, &spec.Operation{ID: "createThing", Method: http.MethodPost, Path: "/things"})
	r := &request{op: op, alt: op.Requirements[0], query: url.Values{}, body: []byte(`{}`), contentType: "application/json",
		header: [][2]string{{"Authorization", "petctl conform A"}, {"content-type", "text/plain"}, {"Accept", "text/html"}, {"X-Tenant", "t1"}}}
	ex, err := c.do(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	h := <-got
	if h.Get("Authorization") != "Bearer "+key || h.Get("Content-Type") != "application/json" || h.Get("Accept") != "" || h.Get("X-Tenant") != "t1" {
		t.Errorf("sent Authorization %q, Content-Type %q, Accept %q, X-Tenant %q; want the credential, the body's type, none and t1", h.Get("Authorization"), h.Get("Content-Type"), h.Get("Accept"), h.Get("X-Tenant"))
	}
	n := 0
	for _, sh := range ex.ReqHeader {
		if strings.EqualFold(sh[0], "Content-Type") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the request shows Content-Type %d times, want once: %q", n, ex.ReqHeader)
	}
}
