package reference_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/reference"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
)

// testKey is the key the engine accepts in these tests.
const testKey = "reference-test-key-0123456789"

// petstore serves the reference beside a real engine with the Petstore.
func petstore(t *testing.T) *httptest.Server {
	t.Helper()
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	pets, err := fs.ReadFile(fixtures.Files, "petstore/pets.json")
	if err != nil {
		t.Fatal(err)
	}
	api, err := engine.New(engine.Options{Spec: s, Keys: []string{testKey}, Fixtures: []engine.FixtureFile{{Name: "pets.json", Data: pets}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(reference.Mount(s, api, reference.Options{Reserved: engine.AdminPrefix}))
	t.Cleanup(srv.Close)
	return srv
}

// client never follows redirects: the tests read them.
var client = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, method, url string, header http.Header) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, string(body)}
}

// TestMountServesPageAndAPI: beside the Petstore (base path /v1), the
// reference answers at /docs and / leads there; every other request
// reaches the engine, which answers with the API's Error body.
func TestMountServesPageAndAPI(t *testing.T) {
	srv := petstore(t)
	for _, c := range []struct {
		name, method, path string
		header             http.Header
		status             int
		want               map[string]string // headers
		body               string            // a part of the body
	}{
		{"the page", "GET", "/docs", nil, 200, map[string]string{"Content-Type": "text/html; charset=utf-8", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "frame-ancestors 'none'"}, `<article class="op deprecated" id="op-getPet"`},
		{"its script", "GET", "/docs/reference.js", nil, 200, map[string]string{"Content-Type": "text/javascript; charset=utf-8"}, "sessionStorage"},
		{"its style sheet", "GET", "/docs/reference.css", nil, 200, map[string]string{"Content-Type": "text/css; charset=utf-8"}, ".op-head"},
		{"the root leads to it", "GET", "/", nil, 302, map[string]string{"Location": "/docs"}, ""},
		{"so does HEAD", "HEAD", "/", nil, 302, map[string]string{"Location": "/docs"}, ""},
		{"a trailing slash", "GET", "/docs/", nil, 301, map[string]string{"Location": "/docs"}, ""},
		{"no such file", "GET", "/docs/nothing.js", nil, 404, nil, ""},
		{"not read with POST", "POST", "/docs", nil, 405, map[string]string{"Allow": "GET, HEAD"}, ""},
		{"HEAD of the page", "HEAD", "/docs", nil, 200, map[string]string{"Content-Type": "text/html; charset=utf-8"}, ""},
		{"the API without a key", "GET", "/v1/pets", nil, 401, map[string]string{"Content-Type": "application/json"}, `"status":401`},
		{"the API with the key", "GET", "/v1/pets?limit=2", http.Header{"Authorization": {"Bearer " + testKey}}, 200, nil, `"name"`},
		{"POST / goes to the API", "POST", "/", nil, 404, map[string]string{"Content-Type": "application/json"}, `"status":404`},
		{"the admin endpoints", "GET", engine.AdminPrefix + "health", nil, 200, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := send(t, c.method, srv.URL+c.path, c.header)
			if a.status != c.status {
				t.Fatalf("%s %s: got %d, want %d: %.300s", c.method, c.path, a.status, c.status, a.body)
			}
			for k, v := range c.want {
				if got := a.header.Get(k); !strings.HasPrefix(got, v) {
					t.Errorf("%s: got %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(a.body, c.body) {
				t.Errorf("body lacks %q: %.300s", c.body, a.body)
			}
		})
	}
}

// TestMountRendersOnFirstRead: Mount leaves the page unrendered, API
// requests leave it so, and the first requests for the page or its files,
// however many arrive together, render it once.
func TestMountRendersOnFirstRead(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	api, err := engine.New(engine.Options{Spec: s, Keys: []string{testKey}})
	if err != nil {
		t.Fatal(err)
	}
	h := reference.Mount(s, api, reference.Options{Reserved: engine.AdminPrefix})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, p := range []string{"/v1/pets", "/", engine.AdminPrefix + "health"} {
		send(t, "GET", srv.URL+p, nil)
	}
	if n := reference.Renders(h); n != 0 {
		t.Fatalf("rendered %d times before the page was asked for", n)
	}
	var wg sync.WaitGroup
	for _, p := range []string{"/docs", "/docs/reference.js", "/docs", "/docs/reference.css"} {
		wg.Go(func() {
			if a := send(t, "GET", srv.URL+p, nil); a.status != http.StatusOK {
				t.Errorf("GET %s: %d %.200s", p, a.status, a.body)
			}
		})
	}
	wg.Wait()
	send(t, "GET", srv.URL+"/docs", nil)
	if n := reference.Renders(h); n != 1 {
		t.Fatalf("rendered %d times, want once", n)
	}
}

// TestMountCaching: the page is sent gzipped to a client that takes it,
// and not at all to one that has it already.
func TestMountCaching(t *testing.T) {
	srv := petstore(t)
	plain := send(t, "GET", srv.URL+"/docs", nil)
	zipped := send(t, "GET", srv.URL+"/docs", http.Header{"Accept-Encoding": {"gzip"}})
	if zipped.header.Get("Content-Encoding") != "gzip" || len(zipped.body) >= len(plain.body) {
		t.Fatalf("gzip: Content-Encoding %q, %d bytes for %d plain", zipped.header.Get("Content-Encoding"), len(zipped.body), len(plain.body))
	}
	zr, err := gzip.NewReader(strings.NewReader(zipped.body))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, []byte(plain.body)) {
		t.Errorf("the gzipped page is not the page (%v)", err)
	}
	if refused := send(t, "GET", srv.URL+"/docs", http.Header{"Accept-Encoding": {"gzip;q=0"}}); refused.header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 got Content-Encoding %q", refused.header.Get("Content-Encoding"))
	}
	etag := plain.header.Get("ETag")
	if again := send(t, "GET", srv.URL+"/docs", http.Header{"If-None-Match": {etag}}); etag == "" || again.status != 304 || again.body != "" {
		t.Errorf("If-None-Match %q: got %d with %d bytes, want 304 and none", etag, again.status, len(again.body))
	}
}

// claiming is a document served at the root whose own paths are given.
func claiming(t *testing.T, paths ...string) *spec.Spec {
	t.Helper()
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\ninfo: {title: Claims, version: '1'}\nservers: [{url: 'http://claims.test'}]\npaths:\n")
	for _, p := range paths {
		b.WriteString("  '" + p + "':\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {type: object}\n")
	}
	s, err := spec.Parse([]byte(b.String()), "claims.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMountYieldsToTheDocument: a document whose paths answer at /docs,
// or at /, keeps them; the reference moves under the reserved prefix, and
// the banner's Path says where.
func TestMountYieldsToTheDocument(t *testing.T) {
	o := reference.Options{Reserved: engine.AdminPrefix}
	moved := engine.AdminPrefix + "docs"
	for _, c := range []struct {
		name       string
		paths      []string
		page, root string // where the page is; where / leads ("" for the API)
	}{
		{"a path elsewhere", []string{"/things"}, "/docs", "/docs"},
		{"/docs itself", []string{"/docs"}, moved, moved},
		{"a template that matches /docs", []string{"/{collection}"}, moved, moved},
		{"a path under /docs", []string{"/docs/{file}.js"}, moved, moved},
		{"the root", []string{"/", "/things"}, "/docs", ""},
		{"/docs and the root", []string{"/", "/docs"}, moved, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := claiming(t, c.paths...)
			if got := reference.Path(s, o); got != c.page {
				t.Errorf("Path = %q, want %q", got, c.page)
			}
			eng, err := engine.New(engine.Options{Spec: s, OpenAuth: true})
			if err != nil {
				t.Fatal(err)
			}
			var reached []string // the paths the engine was asked for
			api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached = append(reached, r.URL.Path)
				eng.ServeHTTP(w, r)
			})
			srv := httptest.NewServer(reference.Mount(s, api, o))
			defer srv.Close()
			if a := send(t, "GET", srv.URL+c.page, nil); a.status != 200 || !strings.Contains(a.body, "<title>Claims 1") || !strings.Contains(a.body, `src="docs/reference.js"`) {
				t.Errorf("GET %s: %d %.200s, want the page, its script beside it", c.page, a.status, a.body)
			}
			if a := send(t, "GET", srv.URL+c.page+"/reference.js", nil); a.status != 200 {
				t.Errorf("GET %s/reference.js: %d, want the script", c.page, a.status)
			}
			reached = nil
			root := send(t, "GET", srv.URL+"/", nil)
			switch {
			case c.root != "" && (root.status != 302 || root.header.Get("Location") != c.root):
				t.Errorf("GET /: %d to %q, want 302 to %s", root.status, root.header.Get("Location"), c.root)
			case c.root == "" && strings.Join(reached, " ") != "/":
				t.Errorf("GET /: %d %.200s, want the API's answer", root.status, root.body)
			}
			if c.page != "/docs" {
				reached = nil
				if a := send(t, "GET", srv.URL+"/docs", nil); strings.Join(reached, " ") != "/docs" {
					t.Errorf("GET /docs: %d %.200s, want the API's answer", a.status, a.body)
				}
			}
		})
	}
	if got := reference.Path(claiming(t, "/docs"), reference.Options{}); got != "" {
		t.Errorf("with no reserved prefix and /docs taken, Path = %q, want none", got)
	}
}
