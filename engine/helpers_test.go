package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
)

const testKey = "test-key-0123456789"

// syncBuffer is a log sink tests can read while the server writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testEnv is a running engine behind httptest.
type testEnv struct {
	t    *testing.T
	srv  *Server
	http *httptest.Server
	base string
	log  *syncBuffer
	// auth is the header that carries the key for this document.
	authHeader, authPrefix string
}

func embeddedFixture(t *testing.T, name string) FixtureFile {
	t.Helper()
	data, err := fs.ReadFile(fixtures.Files, name)
	if err != nil {
		t.Fatal(err)
	}
	return FixtureFile{Name: name, Data: data}
}

// newPetstore serves the embedded Petstore with its fixtures.
func newPetstore(t *testing.T, mutate ...func(*Options)) *testEnv {
	t.Helper()
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "Authorization", "Bearer ")
}

// newLibrary serves the second document from fixtures/library.
func newLibrary(t *testing.T, mutate ...func(*Options)) *testEnv {
	t.Helper()
	doc := embeddedFixture(t, "library/openapi.yaml")
	s, err := spec.Parse(doc.Data, doc.Name)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "library/books.json")}}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "X-Library-Key", "")
}

func start(t *testing.T, o Options, authHeader, authPrefix string) *testEnv {
	t.Helper()
	logs := &syncBuffer{}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	srv, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &testEnv{t: t, srv: srv, http: hs, base: hs.URL + o.Spec.BasePath, log: logs, authHeader: authHeader, authPrefix: authPrefix}
}

// result is a response read in full.
type result struct {
	status int
	header http.Header
	body   []byte
}

func (r result) list(t *testing.T) []map[string]any {
	t.Helper()
	var v []map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("body is not a JSON array of objects: %v: %q", err, r.body)
	}
	return v
}

func (r result) object(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v: %q", err, r.body)
	}
	return v
}

// request describes one call; key "" sends the environment's key, "-" none.
type request struct {
	method  string
	path    string // after the base path, or a full path when it starts with "//"
	body    string
	ctype   string // "" means application/json when there is a body, "-" none
	key     string
	headers map[string]string
}

func (e *testEnv) do(rq request) result {
	e.t.Helper()
	url := e.base + rq.path
	if strings.HasPrefix(rq.path, "//") {
		url = e.http.URL + rq.path[1:]
	}
	method := rq.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		e.t.Fatal(err)
	}
	switch {
	case rq.ctype == "-":
	case rq.ctype != "":
		req.Header.Set("Content-Type", rq.ctype)
	case rq.body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	switch rq.key {
	case "-":
	case "":
		req.Header.Set(e.authHeader, e.authPrefix+testKey)
	default:
		req.Header.Set(e.authHeader, rq.key)
	}
	for k, v := range rq.headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := result{status: res.StatusCode, header: res.Header, body: data}
	if method != http.MethodHead { // a HEAD answer has no content to check
		checkErrorBody(e.t, r)
	}
	return r
}

func (e *testEnv) get(path string) result { e.t.Helper(); return e.do(request{path: path}) }

func (e *testEnv) post(path, body string) result {
	e.t.Helper()
	return e.do(request{method: http.MethodPost, path: path, body: body})
}

// checkErrorBody asserts the promise every test relies on: a non-2xx answer
// is application/json with the Error body, status equal to the HTTP status.
func checkErrorBody(t *testing.T, r result) {
	t.Helper()
	if r.status < 300 {
		return
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("status %d: Content-Type = %q, want application/json", r.status, ct)
	}
	var e struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
		Status  *int    `json:"status"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Errorf("status %d: body is not the Error body: %v: %s", r.status, err, r.body)
		return
	}
	if e.Code == nil || *e.Code == "" || e.Message == nil || e.Status == nil {
		t.Errorf("status %d: Error body lacks code, message or status: %s", r.status, r.body)
		return
	}
	if *e.Status != r.status {
		t.Errorf("Error body status = %d, want the HTTP status %d", *e.Status, r.status)
	}
}

// errorCode returns the code of an Error body.
func (r result) code(t *testing.T) string {
	t.Helper()
	var e struct{ Code string }
	_ = json.Unmarshal(r.body, &e)
	return e.Code
}

func (r result) message(t *testing.T) string {
	t.Helper()
	var e struct{ Message string }
	_ = json.Unmarshal(r.body, &e)
	return e.Message
}

func readFixture(name string) ([]byte, error) { return fs.ReadFile(fixtures.Files, name) }

// openState opens the state file at path, closed when the test ends (a
// test that starts a server again on it closes it first itself).
func openState(t *testing.T, path string) store.Journal {
	t.Helper()
	j, err := store.OpenFile(path, store.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}
