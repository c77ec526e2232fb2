package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// TestEngineConforms runs every check against petctl serve's engine: all
// pass, every operation is exercised, and what the run created is listed.
func TestEngineConforms(t *testing.T) {
	t.Parallel()
	o := runAgainst(t, storeOrdersAnswered, nil, func(c *conformance.Config) { c.RequireCoverage = true })
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if o.res.Skipped != 0 {
		t.Errorf("%d checks skipped against the engine, want 0\n%s", o.res.Skipped, o.out)
	}
	if len(o.res.NotExercised) != 0 {
		t.Errorf("not exercised: %v", o.res.NotExercised)
	}
	if len(o.res.Created) == 0 {
		t.Fatal("the run lists no created records")
	}
	for _, r := range o.res.Created {
		if !regexp.MustCompile(`^petctl conform test [A-J]+$`).MatchString(r.Name) || r.ID == "" {
			t.Errorf("created record %+v: want a name 'petctl conform test N' (N in letters) and an id", r)
		}
		if !strings.Contains(o.out, r.Name) {
			t.Errorf("the console report does not list %s", r.Name)
		}
	}
	// docs/conformance.md documents every group of checks the run has.
	doc := readFile(t, "../docs/conformance.md")
	for _, sr := range o.res.Report.SpecReports {
		if len(sr.ContainerHierarchyTexts) > 1 {
			if g := sr.ContainerHierarchyTexts[1]; !strings.Contains(doc, "| `"+g+"` |") {
				t.Errorf("docs/conformance.md does not document the group %q", g)
			}
		}
	}
	for name, want := range map[string]string{
		"answer to limit=0":                      "400 validation_failed",
		"answer to limit=101":                    "400 validation_failed",
		"status given when none is sent":         "absent",
		"pets order":                             "ascending by id",
		"fields of pets items beyond the schema": "none",
	} {
		if got, ok := o.observation(name); !ok || !strings.HasPrefix(got, want) {
			t.Errorf("observation %q = %q, want %q", name, got, want)
		}
	}
}

// TestRequireCoverage: an operation not exercised fails the run only with
// --require-coverage, as the coverage check, which says why it was not
// exercised; the counts of the header, the summary and the result agree.
func TestRequireCoverage(t *testing.T) {
	t.Parallel()
	base := serve(t, petstore(t, storeOrdersAnswered))
	readOnly := func(c *conformance.Config) { c.ReadOnly = true }
	o := conform(t, base, readOnly)
	if !o.res.OK() {
		t.Fatalf("read-only run failed: %q", o.failed())
	}
	o = conform(t, base, readOnly, func(c *conformance.Config) { c.RequireCoverage = true })
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], "coverage") {
		t.Fatalf("failed = %q, want the coverage check alone", f)
	}
	if _, msg := o.state(t, "coverage the document"); !strings.Contains(msg, "1 of 4 operations of the document were not: createPet (--read-only") {
		t.Errorf("the coverage failure does not say createPet was skipped by --read-only: %q", msg)
	}
	// The console names the failure in the summary's list, and counts the
	// checks the header announced.
	for _, want := range []string{
		"FAIL coverage · the document: every operation of the document is exercised (--require-coverage)",
		"  failed:\n    coverage (1)\n      the document: every operation of the document is exercised (--require-coverage)",
	} {
		if !strings.Contains(o.out, want) {
			t.Errorf("the console lacks %q:\n%s", want, o.out)
		}
	}
	n := o.res.Passed + o.res.Failed + o.res.Skipped
	if o.res.Failed != 1 || o.res.OK() {
		t.Errorf("%d checks failed, OK %t: want the coverage check failed, and the run with it", o.res.Failed, o.res.OK())
	}
	if !strings.Contains(o.out, fmt.Sprintf("  checks   %d ", n)) || !strings.Contains(o.out, fmt.Sprintf("FAIL %d checks: %d passed, 1 failed, %d skipped", n, o.res.Passed, o.res.Skipped)) {
		t.Errorf("the header and the summary do not both count %d checks:\n%s", n, o.out)
	}
}

// TestServeUnconfigured: petctl serve as it starts, without an answer
// configured for GET /store/orders (whose payload the document does not
// show), answers it 501: every check passes, and the operation is not
// exercised, saying why, so --require-coverage fails on it alone.
func TestServeUnconfigured(t *testing.T) {
	t.Parallel()
	o := runAgainst(t, nil, nil, nil)
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if r := o.res.NotExercised["listStoreOrders"]; !strings.Contains(r, "501 ×") {
		t.Errorf("listStoreOrders not exercised: %q, want the 501 answers named", r)
	}
	if len(o.res.NotExercised) != 1 {
		t.Errorf("not exercised: %v, want listStoreOrders alone", o.res.NotExercised)
	}
	o = runAgainst(t, nil, nil, func(c *conformance.Config) { c.RequireCoverage = true })
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], "coverage") {
		t.Errorf("failed = %q, want the coverage check alone", f)
	}
}

// TestLibrary runs the suite against the second document the engine
// serves: another base path, resource, id, page size parameter and an API
// key in a header. Nothing in the checks is Petstore-specific.
func TestLibrary(t *testing.T) {
	t.Parallel()
	doc := fixture(t, "library/openapi.yaml")
	s, err := spec.Parse(doc.Data, doc.Name)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.New(engine.Options{Spec: s, Keys: []string{testKey}, Fixtures: []engine.FixtureFile{fixture(t, "library/books.json")}})
	if err != nil {
		t.Fatal(err)
	}
	hs := serveRaw(t, srv)
	runDoc, err := spec.Parse(doc.Data, doc.Name) // the run's own copy; the engine has s
	if err != nil {
		t.Fatal(err)
	}
	o := conform(t, hs+"/api/v2", func(c *conformance.Config) { c.Spec, c.Validator = runDoc, nil; c.RequireCoverage = true })
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	for _, want := range []string{"searchBooks (GET /books) with an empty key gives 401", "pageSize=50 is accepted", "genre=poetry returns only items"} {
		if st, _ := o.state(t, want); st.String() != "passed" {
			t.Errorf("%q is %s, want passed", want, st)
		}
	}
}

// TestSameRequests: the same document sends the same requests, in the
// same order, run after run.
func TestSameRequests(t *testing.T) {
	t.Parallel()
	record := func() []string {
		var mu sync.Mutex
		var log []string
		inner := petstore(t)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			log = append(log, r.Method+" "+r.URL.RequestURI()+" "+string(readBody(r)))
			mu.Unlock()
			inner.ServeHTTP(w, r)
		})
		conform(t, serve(t, h))
		mu.Lock()
		defer mu.Unlock()
		return log
	}
	a, b := record(), record()
	if !slices.Equal(a, b) {
		t.Errorf("two runs sent different requests:\n%q\n%q", a, b)
	}
	if len(a) < 30 {
		t.Errorf("%d requests, want the full suite", len(a))
	}
}

// TestFailureMessage: a failure names the check and the operation, the
// request as curl, the response status, headers and a body excerpt.
func TestFailureMessage(t *testing.T) {
	t.Parallel()
	wrongKey := func(r *http.Request) bool {
		return is("GET", "/v1/pets")(r) && r.Header.Get("Authorization") == "Bearer petctl-conform-wrong-key-0000"
	}
	h := editRequest(petstore(t), wrongKey, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testKey) })
	h = editResponse(h, wrongKey, func(_ *http.Request, res *recorded) {
		res.body = []byte(`[{"id":1,"name":"Milo 100%s %d","categoryId":3,"status":"available"}]`)
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) { c.LabelFilter = "auth && listPets" })
	_, msg := o.state(t, "listPets (GET /pets) with a wrong key")
	for _, want := range []string{
		"auth · listPets (GET /pets): with a wrong key gives 401",
		"curl -sS -i 'http://127.0.0.1:",
		"-H 'Authorization: Bearer petctl-conform-wrong-key-0000'",
		"response: 200 OK",
		"headers:  Content-Type: application/json",
		`body:     [{"id":1,"name":"Milo 100%s %d"`, // printed as sent, not formatted
		"got:      200, want 401",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure message lacks %q:\n%s", want, msg)
		}
	}
	// The label filter left the other checks skipped with the reason.
	if st, reason := o.state(t, "createPet (POST /pets) without credentials"); st.String() != "skipped" || !strings.Contains(reason, "--label-filter") {
		t.Errorf("a check the filter leaves out is %s (%q)", st, reason)
	}
}

// TestUsageAndReach: configuration problems are UsageErrors before any
// request; a target that does not answer is an UnreachableError.
func TestUsageAndReach(t *testing.T) {
	t.Parallel()
	base := serve(t, petstore(t))
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	file := dir + "/file"
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		cfg    conformance.Config
		usage  bool
		wantIn string
	}{
		{"no url", conformance.Config{APIKey: testKey}, true, "--url is required"},
		{"ftp url", conformance.Config{BaseURL: "ftp://x/v1", APIKey: testKey}, true, "want an http or https URL"},
		{"credentials in the url", conformance.Config{BaseURL: "http://u:secret@127.0.0.1:1/v1", APIKey: testKey}, true, `--url "http://127.0.0.1:1/v1": give the credentials with --basic`},
		{"a token in the url", conformance.Config{BaseURL: "https://ghp_token@127.0.0.1:1/v1", APIKey: testKey}, true, `--url "https://127.0.0.1:1/v1": give the credentials`},
		{"no key", conformance.Config{BaseURL: base}, true, "no API key or other credential"},
		{"bad label filter", conformance.Config{BaseURL: base, APIKey: testKey, LabelFilter: "auth &&"}, true, `--label-filter "auth &&": Unexpected EOF.`},
		{"filter selects nothing", conformance.Config{BaseURL: base, APIKey: testKey, LabelFilter: "auht"}, true, "selects none of the"},
		{"read-only skips all it selects", conformance.Config{BaseURL: base, APIKey: testKey, LabelFilter: "create", ReadOnly: true}, true, "--read-only skips all"},
		{"report under a file", conformance.Config{BaseURL: base, APIKey: testKey, JUnitReport: file + "/j.xml"}, true, "--junit-report"},
		{"report is a folder", conformance.Config{BaseURL: base, APIKey: testKey, JSONReport: dir}, true, "is a folder"},
		{"bad run id", conformance.Config{BaseURL: base, APIKey: testKey, RunID: "a b"}, true, "--run-id"},
		{"refused", conformance.Config{BaseURL: closed, APIKey: testKey}, false, "connection refused"},
		{"no such host", conformance.Config{BaseURL: "http://petctl-conform.invalid/v1", APIKey: testKey, Timeout: 2 * time.Second}, false, "cannot reach"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := conformance.Run(context.Background(), tc.cfg)
			if res != nil {
				t.Errorf("a result came back: %+v", res)
			}
			var ue *conformance.UsageError
			var unreachable *conformance.UnreachableError
			switch {
			case tc.usage && !errors.As(err, &ue):
				t.Fatalf("err = %v (%T), want a UsageError", err, err)
			case !tc.usage && !errors.As(err, &unreachable):
				t.Fatalf("err = %v (%T), want an UnreachableError", err, err)
			}
			if !strings.Contains(err.Error(), tc.wantIn) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line mentioning %q", err, tc.wantIn)
			}
		})
	}
}

// TestTimeout: a deployment that answers slower than --timeout fails the
// check with the request named; one that never answers the probe is unreachable.
func TestTimeout(t *testing.T) {
	t.Parallel()
	slow := func(o *engine.Options) {
		o.Latency = map[string]engine.Delay{"listStoreOrders": {Min: 2 * time.Second, Max: 2 * time.Second}}
	}
	o := runAgainst(t, slow, nil, func(c *conformance.Config) {
		c.Timeout = 300 * time.Millisecond
		c.LabelFilter = "listStoreOrders && observe"
	})
	st, msg := o.state(t, "listStoreOrders (GET /store/orders) the answer to a request with a valid key")
	if st.String() != "failed" || !strings.Contains(msg, "time-out of 300ms") || !strings.Contains(msg, "curl") {
		t.Errorf("slow operation: %s %q", st, msg)
	}
	all := func(o *engine.Options) {
		o.Latency = map[string]engine.Delay{engine.AllOperations: {Min: 2 * time.Second, Max: 2 * time.Second}}
	}
	_, err := conformance.Run(context.Background(), conformance.Config{BaseURL: serve(t, petstore(t, all)), APIKey: testKey, Timeout: 200 * time.Millisecond})
	var unreachable *conformance.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Errorf("err = %v, want unreachable", err)
	}
}

// TestFailFast: the first failure stops the run; the checks after it are
// skipped, saying why.
func TestFailFast(t *testing.T) {
	t.Parallel()
	h := editRequest(petstore(t), func(r *http.Request) bool { return r.Header.Get("Authorization") == "" }, func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+testKey)
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) { c.FailFast = true })
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], "listPets (GET /pets) without credentials gives 401") {
		t.Fatalf("failed = %q, want the first check alone", f)
	}
	if o.res.Passed != 0 || o.res.Skipped < 50 {
		t.Errorf("passed %d, skipped %d: want nothing run after the failure", o.res.Passed, o.res.Skipped)
	}
	if !strings.Contains(o.out, "--fail-fast stopped the run at the first failure") {
		t.Errorf("the summary does not say why the checks were skipped:\n%s", o.out)
	}
}
