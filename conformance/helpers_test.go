package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/internal/parallel"
	"github.com/petctl/petctl/spec"
)

const testKey = "conform-test-key-5b1f0c"

// syncBuffer is written by the run while a failing test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func petstoreSpec(t *testing.T) *spec.Spec {
	t.Helper()
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fixture(t *testing.T, name string) engine.FixtureFile {
	t.Helper()
	data, err := fs.ReadFile(fixtures.Files, name)
	if err != nil {
		t.Fatal(err)
	}
	return engine.FixtureFile{Name: name, Data: data}
}

// petstore is petctl serve's engine with the embedded spec and animals.
func petstore(t *testing.T, mutate ...func(*engine.Options)) http.Handler {
	t.Helper()
	o := engine.Options{Spec: petstoreSpec(t), Keys: []string{testKey}, Fixtures: []engine.FixtureFile{fixture(t, "petstore/pets.json")}}
	for _, m := range mutate {
		m(&o)
	}
	srv, err := engine.New(o)
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	return srv
}

// storeOrdersAnswered configures serve to answer GET /store/orders, whose
// payload the document does not show, as a deployment does: unconfigured,
// serve answers it 501 and the run counts it not exercised (see
// TestServeUnconfigured).
func storeOrdersAnswered(o *engine.Options) {
	o.Responses = map[string]engine.Stub{"listStoreOrders": {Status: http.StatusOK, Body: json.RawMessage(`[]`)}}
}

// serve starts h behind httptest and returns the base URL with /v1.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	return serveRaw(t, h) + "/v1"
}

// serveRaw starts h behind httptest and returns its root URL.
func serveRaw(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// outcome is a run with its console output.
type outcome struct {
	res *conformance.Result
	out string
}

// runSpec is the Petstore document and its validator for the runs, built
// once, as building a validator is costly. Runs in parallel tests share
// them: a Spec and its Validator are read by concurrent requests in the
// engine too. The engines parse their own copy.
var runSpec = sync.OnceValues(func() (*spec.Spec, *spec.Validator) {
	s, err := spec.Default()
	if err != nil {
		panic(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		panic(err)
	}
	return s, v
})

// conform runs the suite against base; the run must not fail to start.
func conform(t *testing.T, base string, mutate ...func(*conformance.Config)) outcome {
	t.Helper()
	var out syncBuffer
	doc, val := runSpec()
	cfg := conformance.Config{BaseURL: base, APIKey: testKey, RunID: "test", Timeout: 5 * time.Second, Out: &out, Err: &out, Spec: doc, Validator: val}
	for _, m := range mutate {
		m(&cfg)
	}
	res, err := conformance.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out.String())
	}
	return outcome{res: res, out: out.String()}
}

// runAgainst runs the suite against petctl serve's engine changed three
// ways, each nil for none: edit changes its options, wrap its answers and
// cfg the run's configuration.
func runAgainst(t *testing.T, edit func(*engine.Options), wrap func(http.Handler) http.Handler, cfg func(*conformance.Config)) outcome {
	t.Helper()
	var h http.Handler
	if edit != nil {
		h = petstore(t, edit)
	} else {
		h = petstore(t)
	}
	if wrap != nil {
		h = wrap(h)
	}
	if cfg != nil {
		return conform(t, serve(t, h), cfg)
	}
	return conform(t, serve(t, h))
}

// failed lists the full names of the failed checks (and the coverage node).
func (o outcome) failed() []string {
	var out []string
	for _, sr := range o.res.Report.SpecReports {
		if sr.State.Is(types.SpecStateFailureStates) {
			out = append(out, strings.TrimSpace(sr.FullText()+" "+sr.LeafNodeText))
		}
	}
	return out
}

// state returns the state and message of the one check whose name holds text.
func (o outcome) state(t *testing.T, text string) (types.SpecState, string) {
	t.Helper()
	var found []types.SpecReport
	for _, sr := range o.res.Report.SpecReports {
		if strings.Contains(sr.FullText(), text) {
			found = append(found, sr)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d checks are named like %q, want 1", len(found), text)
	}
	return found[0].State, found[0].Failure.Message
}

func (o outcome) observation(name string) (string, bool) {
	for _, ob := range o.res.Observations {
		if ob.Name == name {
			return ob.Value, true
		}
	}
	return "", false
}

// ---- handler wrappers that break or vary one thing

// recorded is the engine's answer, for a wrapper to change before it is written.
type recorded struct {
	status int
	header http.Header
	body   []byte
}

// editResponse runs h and lets edit change the answer to requests match accepts.
func editResponse(h http.Handler, match func(*http.Request) bool, edit func(*http.Request, *recorded)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		res := &recorded{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()}
		edit(r, res)
		for k, v := range res.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", itoa(len(res.body)))
		w.WriteHeader(res.status)
		_, _ = w.Write(res.body)
	})
}

// editRequest changes requests match accepts before h sees them.
func editRequest(h http.Handler, match func(*http.Request) bool, edit func(*http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) {
			edit(r)
		}
		h.ServeHTTP(w, r)
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func is(method, path string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Method == method && r.URL.Path == path }
}

// isPrefix matches a path prefix; an empty method matches any method.
func isPrefix(method, prefix string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return (method == "" || r.Method == method) && strings.HasPrefix(r.URL.Path, prefix)
	}
}

func everything(*http.Request) bool { return true }

// editJSON decodes a body, lets f change it and encodes it again.
func editJSON(res *recorded, f func(v any) any) {
	var v any
	if json.Unmarshal(res.body, &v) != nil {
		return
	}
	res.body, _ = json.Marshal(f(v))
}

// eachObject applies f to an object or to each object of an array.
func eachObject(f func(map[string]any)) func(any) any {
	return func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			f(x)
		case []any:
			for _, it := range x {
				if obj, ok := it.(map[string]any); ok {
					f(obj)
				}
			}
		}
		return v
	}
}

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

func setBody(r *http.Request, b []byte) {
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
}

func errorBody(status int, code string) []byte {
	b, _ := json.Marshal(map[string]any{"code": code, "message": "broken on purpose", "status": status})
	return b
}

// TestMain lets more tests run at once than one per CPU: many wait, on
// servers' time-outs and slow bodies, or on a child process (inOwnProcess),
// and Ginkgo runs one suite at a time in a process anyway.
func TestMain(m *testing.M) {
	parallel.AtLeast(4)
	os.Exit(m.Run())
}

// ownProcessEnv names, in a child process of the test binary, the one
// test the child is there to run.
const ownProcessEnv = "PETCTL_CONFORM_OWN_PROCESS"

// inOwnProcess runs the calling test in a child process of the test binary,
// beside the other tests, and fails it when it fails there. It returns true
// in the child, where the caller goes on with the test's body, and false
// in the parent, where the caller returns:
//
//	if !inOwnProcess(t) {
//		return
//	}
//
// Ginkgo runs one suite at a time in a process (its state is global; see
// runner.go), so a slow run, one that waits out time-outs or reads 4 MiB
// bodies under the race detector, holds up all the others in-process; in
// a process of its own it runs beside them.
func inOwnProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(ownProcessEnv) == t.Name() {
		return true
	}
	t.Parallel()
	var run []string
	for _, part := range strings.Split(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	args := []string{"-test.run=" + strings.Join(run, "/"), "-test.count=1", "-test.v"}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(d).String())
	}
	// With -cover the child's counts join the parent's.
	if f := flag.Lookup("test.gocoverdir"); f != nil && f.Value.String() != "" {
		args = append(args, "-test.gocoverdir="+f.Value.String())
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), ownProcessEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err == nil && bytes.Contains(out, []byte("--- SKIP: "+t.Name()+" (")) {
		t.Skipf("skipped in its own process:\n%s", out)
	}
	// The child must have run the test: a pattern that matched nothing
	// would pass having checked nothing.
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name()+" (")) {
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, out)
	}
	if testing.Verbose() {
		t.Logf("in its own process:\n%s", out)
	}
	return false
}

// styleDoc loads a document of fixtures/styles, a fresh copy each call:
// the engine and the run each parse their own (conformServed).
func styleDoc(t *testing.T, name string) func() *spec.Spec {
	return func() *spec.Spec {
		t.Helper()
		s, err := spec.Load("../fixtures/styles/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// conformServed runs the suite at the document's base path against
// petctl serve's engine: load gives a fresh copy of the document each
// call, o the engine's other options, wrap changes its answers (nil for
// none) and mutate the run's configuration.
func conformServed(t *testing.T, load func() *spec.Spec, o engine.Options, wrap func(http.Handler) http.Handler, mutate ...func(*conformance.Config)) outcome {
	t.Helper()
	o.Spec = load()
	srv, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	return conform(t, serveRaw(t, h)+o.Spec.BasePath, append([]func(*conformance.Config){func(c *conformance.Config) {
		c.Spec, c.Validator = load(), nil
	}}, mutate...)...)
}
