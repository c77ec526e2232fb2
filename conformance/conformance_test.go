package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
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
	o := conform(t, serve(t, petstore(t)), func(c *conformance.Config) { c.RequireCoverage = true })
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
		if !strings.HasPrefix(r.Name, "petctl-conform-test-") || r.ID == "" {
			t.Errorf("created record %+v: want a name petctl-conform-test-N and an id", r)
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

// TestBrokenServers breaks one thing at a time and proves that the check
// meant to catch it fails, and no other.
func TestBrokenServers(t *testing.T) {
	wrongKey := func(r *http.Request) bool {
		return r.Header.Get("Authorization") == "Bearer petctl-conform-wrong-key-0000"
	}
	validKey := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testKey) }
	tests := []struct {
		name   string
		wrap   func(h http.Handler) http.Handler
		engine func(*engine.Options)
		cfg    func(*conformance.Config)
		want   []string // each names exactly one failed check; nothing else fails
	}{
		{
			name: "a wrong key is accepted on listPets",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool { return is("GET", "/v1/pets")(r) && wrongKey(r) }, validKey)
			},
			want: []string{"auth listPets (GET /pets) with a wrong key gives 401"},
		},
		{
			name: "getPet needs no credentials",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool {
					return isPrefix("GET", "/v1/pets/")(r) && r.Header.Get("Authorization") == ""
				}, validKey)
			},
			want: []string{"auth getPet (GET /pets/{petId}) without credentials gives 401"},
		},
		{
			name: "Basic is accepted on createPet",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool {
					return is("POST", "/v1/pets")(r) && strings.HasPrefix(r.Header.Get("Authorization"), "Basic ")
				}, validKey)
			},
			want: []string{"auth createPet (POST /pets) with another scheme (Basic) gives 401"},
		},
		{
			name: "an empty bearer token is accepted on listStoreOrders",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool {
					return is("GET", "/v1/store/orders")(r) && strings.TrimSpace(r.Header.Get("Authorization")) == "Bearer"
				}, validKey)
			},
			want: []string{"auth listStoreOrders (GET /store/orders) with an empty bearer token gives 401"},
		},
		{
			name: "error bodies lack status",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, everything, func(_ *http.Request, res *recorded) {
					if res.status >= 400 {
						editJSON(res, eachObject(func(o map[string]any) { delete(o, "status") }))
					}
				})
			},
			want: []string{
				"responses listPets (GET /pets) every error response is the Error body",
				"responses createPet (POST /pets) every error response is the Error body",
				"responses getPet (GET /pets/{petId}) every error response is the Error body",
				"responses listStoreOrders (GET /store/orders) every error response is the Error body",
			},
		},
		{
			name: "the 404 body's status differs from the HTTP status",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					if res.status == 404 {
						editJSON(res, eachObject(func(o map[string]any) { o["status"] = 400 }))
					}
				})
			},
			want: []string{"responses getPet (GET /pets/{petId}) every error response is the Error body"},
		},
		{
			name: "an HTML error page for an unknown animal",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					if res.status == 404 {
						res.header.Set("Content-Type", "text/html; charset=utf-8")
						res.body = []byte("<html><body><h1>Not Found</h1></body></html>")
					}
				})
			},
			want: []string{"responses getPet (GET /pets/{petId}) every error response is the Error body"},
		},
		{
			name: "limit is ignored",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("GET", "/v1/pets"), func(r *http.Request) {
					q := r.URL.Query()
					q.Del("limit")
					r.URL.RawQuery = q.Encode()
				})
			},
			want: []string{"pagination listPets (GET /pets) limit=1 returns at most 1"},
		},
		{
			name: "a default page of 30",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool { return is("GET", "/v1/pets")(r) && !r.URL.Query().Has("limit") },
					func(r *http.Request) { r.URL.RawQuery += "&limit=30" })
			},
			want: []string{"pagination listPets (GET /pets) without limit returns at most the default, 20"},
		},
		{
			name: "limit=100 refused",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, func(r *http.Request) bool { return is("GET", "/v1/pets")(r) && r.URL.Query().Get("limit") == "100" },
					func(r *http.Request, res *recorded) {
						if r.URL.Query().Get("status") == "" && strings.Contains(r.Header.Get("Authorization"), testKey) {
							res.status, res.body = 400, errorBody(400, "validation_failed")
						}
					})
			},
			// the population count and the list observations use limit=100 too: they are skipped, not passed
			want: []string{"pagination listPets (GET /pets) limit=100 is accepted"},
		},
		{
			name:   "limit=101 gets 101 items",
			engine: func(o *engine.Options) { o.Lists.ClampLimit = true },
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, func(r *http.Request) bool { return is("GET", "/v1/pets")(r) && r.URL.Query().Get("limit") == "101" },
					func(_ *http.Request, res *recorded) {
						editJSON(res, func(v any) any {
							list := v.([]any)
							return append(list, list[0])
						})
					})
			},
			want: []string{"pagination listPets (GET /pets) limit=101 gets no 5xx and at most 100 items"},
		},
		{
			name: "a 500 for limit=0",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, func(r *http.Request) bool { return is("GET", "/v1/pets")(r) && r.URL.Query().Get("limit") == "0" },
					func(_ *http.Request, res *recorded) {
						res.status, res.body = 500, errorBody(500, "internal_error")
					})
			},
			want: []string{"pagination listPets (GET /pets) limit=0 gets no 5xx"},
		},
		{
			name: "the status filter is ignored",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("GET", "/v1/pets"), func(r *http.Request) {
					q := r.URL.Query()
					q.Del("status")
					r.URL.RawQuery = q.Encode()
				})
			},
			want: []string{
				"filters listPets (GET /pets) status=available returns only items whose status is available",
				"filters listPets (GET /pets) status=pending returns only items whose status is pending",
				"filters listPets (GET /pets) status=sold returns only items whose status is sold",
				"filters listPets (GET /pets) an unknown status value gets a 4xx or no other items",
			},
		},
		{
			name: "the legacy Deprecation: true",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Deprecation", "true")
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every response carries Deprecation"},
		},
		{
			name: "Deprecation after the removal date",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Deprecation", "@1922745600") // 2030-12-06, a day after the removal date
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every response carries Deprecation"},
		},
		{
			name: "a Sunset a day late",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Sunset", "Fri, 06 Dec 2030 00:00:00 GMT")
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every response carries Sunset"},
		},
		{
			name: "a Sunset that is not an IMF-fixdate",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Sunset", "2030-12-05T00:00:00Z")
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every response carries Sunset"},
		},
		{
			name: "no deprecation headers on a 404 of getPet",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					if res.status == 404 {
						res.header.Del("Deprecation")
						res.header.Del("Sunset")
					}
				})
			},
			want: []string{
				"deprecation getPet (GET /pets/{petId}) every response carries Deprecation",
				"deprecation getPet (GET /pets/{petId}) every response carries Sunset",
			},
		},
		{
			name: "deprecation headers on listPets",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("GET", "/v1/pets"), func(_ *http.Request, res *recorded) {
					res.header.Set("Deprecation", "@1795219200")
					res.header.Set("Sunset", "Thu, 05 Dec 2030 00:00:00 GMT")
				})
			},
			want: []string{"deprecation listPets (GET /pets) no response carries Deprecation or Sunset"},
		},
		{
			name: "an empty Deprecation header on listPets",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("GET", "/v1/pets"), func(_ *http.Request, res *recorded) {
					res.header["Deprecation"] = []string{""}
				})
			},
			want: []string{"deprecation listPets (GET /pets) no response carries Deprecation or Sunset"},
		},
		{
			name: "the created animal lacks its status",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("POST", "/v1/pets"), func(_ *http.Request, res *recorded) {
					if res.status == 201 {
						editJSON(res, eachObject(func(o map[string]any) { delete(o, "status") }))
					}
				})
			},
			want: []string{"create createPet (POST /pets) a valid body gives 201"},
		},
		{
			name: "malformed JSON is created",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("POST", "/v1/pets"), func(r *http.Request) {
					if !json.Valid(readBody(r)) {
						setBody(r, []byte(`{"name":"accepted-anyway","categoryId":1}`))
					}
				})
			},
			want: []string{"create createPet (POST /pets) malformed JSON gives 400"},
		},
		{
			name: "a missing categoryId is filled in",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("POST", "/v1/pets"), func(r *http.Request) {
					var obj map[string]any
					if json.Unmarshal(readBody(r), &obj) == nil && obj != nil && obj["categoryId"] == nil {
						obj["categoryId"] = 1
						b, _ := json.Marshal(obj)
						setBody(r, b)
					}
				})
			},
			want: []string{"create createPet (POST /pets) without categoryId gives 400"},
		},
		{
			name: "an unknown status is stored as available",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("POST", "/v1/pets"), func(r *http.Request) {
					var obj map[string]any
					if json.Unmarshal(readBody(r), &obj) == nil && obj["status"] == "petctl-conform-unknown" {
						obj["status"] = "available"
						b, _ := json.Marshal(obj)
						setBody(r, b)
					}
				})
			},
			want: []string{"create createPet (POST /pets) an unknown status"},
		},
		{
			name: "a created animal reads back renamed",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/15"), func(r *http.Request, res *recorded) {
					if res.status == 200 && len(r.URL.Path) == len("/v1/pets/151") {
						editJSON(res, eachObject(func(o map[string]any) { o["name"] = "renamed" }))
					}
				})
			},
			want: []string{"read getPet (GET /pets/{petId}) the created item reads back the same"},
		},
		{
			name: "a numeric name is accepted",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("POST", "/v1/pets"), func(r *http.Request) {
					var obj map[string]any
					if json.Unmarshal(readBody(r), &obj) == nil {
						if n, ok := obj["name"].(float64); ok {
							obj["name"] = strings.Repeat("x", int(n)%5+1)
							b, _ := json.Marshal(obj)
							setBody(r, b)
						}
					}
				})
			},
			want: []string{"create createPet (POST /pets) name of the wrong type (a number) gives 400"},
		},
		{
			name: "an unknown id gives 200",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("GET", "/v1/pets/9007199254740991"), func(r *http.Request) { r.URL.Path = "/v1/pets/1" })
			},
			want: []string{"read getPet (GET /pets/{petId}) an unknown id gives 404"},
		},
		{
			name: "an unknown id gives 500",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("GET", "/v1/pets/9007199254740991"), func(_ *http.Request, res *recorded) {
					res.status, res.body = 500, errorBody(500, "internal_error")
				})
			},
			want: []string{"read getPet (GET /pets/{petId}) an unknown id gives 404"},
		},
		{
			name: "the created animal's id is a string",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("POST", "/v1/pets"), func(_ *http.Request, res *recorded) {
					if res.status == 201 {
						editJSON(res, eachObject(func(o map[string]any) { o["id"] = scalar(o["id"]) }))
					}
				})
			},
			want: []string{"responses createPet (POST /pets) every response matches the document"},
		},
		{
			name: "an empty body for a create",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("POST", "/v1/pets"), func(r *http.Request, res *recorded) {
					if res.status == 201 && !strings.Contains(string(readBody(r)), `"status"`) {
						res.body = nil
					}
				})
			},
			want: []string{"responses createPet (POST /pets) every response matches the document"},
		},
		{
			name: "the removal date has passed (--now) but getPet still answers",
			cfg: func(c *conformance.Config) {
				c.Now = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) removed on 5 December 2030: the operation is gone"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mutate []func(*engine.Options)
			if tc.engine != nil {
				mutate = append(mutate, tc.engine)
			}
			h := petstore(t, mutate...)
			if tc.wrap != nil {
				h = tc.wrap(h)
			}
			var cfg []func(*conformance.Config)
			if tc.cfg != nil {
				cfg = append(cfg, tc.cfg)
			}
			o := conform(t, serve(t, h), cfg...)
			failed := o.failed()
			if o.res.OK() {
				t.Fatalf("the run passed; want %q to fail", tc.want)
			}
			var unexpected []string
			matched := map[string]int{}
			for _, f := range failed {
				hit := false
				for _, w := range tc.want {
					if strings.Contains(f, w) {
						matched[w]++
						hit = true
					}
				}
				if !hit {
					unexpected = append(unexpected, f)
				}
			}
			for _, w := range tc.want {
				if matched[w] != 1 {
					t.Errorf("%d failed checks are named like %q, want 1", matched[w], w)
				}
			}
			if len(unexpected) > 0 {
				t.Errorf("other checks failed too: %q", unexpected)
			}
			if t.Failed() {
				t.Logf("console report:\n%s", o.out)
			}
		})
	}
}

func scalar(v any) any {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestLegitimateVariations are deployments that do what the description
// leaves open in other ways than petctl serve: each must pass, with what
// it did recorded.
func TestLegitimateVariations(t *testing.T) {
	later := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		engine  func(*engine.Options)
		wrap    func(http.Handler) http.Handler
		cfg     func(*conformance.Config)
		observe map[string]string // observation name -> prefix of its value
		check   func(t *testing.T, o outcome)
	}{
		{
			name:    "limit clamped to its bounds",
			engine:  func(o *engine.Options) { o.Lists.ClampLimit = true },
			observe: map[string]string{"answer to limit=101": "200 with 100 items", "answer to limit=0": "200 with 1 items"},
		},
		{
			name:    "newest first",
			engine:  func(o *engine.Options) { o.Lists.NewestFirst = true },
			observe: map[string]string{"pets order": "descending"},
		},
		{
			name:    "a cursor beyond the limit",
			engine:  func(o *engine.Options) { o.Lists.CursorParam = "cursor" },
			observe: map[string]string{"pets pagination beyond the limit": "Link: <"},
		},
		{
			name: "a status given when none is sent",
			engine: func(o *engine.Options) {
				o.Defaults = map[string]map[string]json.RawMessage{"pets": {"status": json.RawMessage(`"available"`)}}
			},
			observe: map[string]string{"status given when none is sent": `"available"`},
		},
		{
			name: "store orders answered with a payload",
			engine: func(o *engine.Options) {
				o.Responses = map[string]engine.Stub{"listStoreOrders": {Status: 200, Body: json.RawMessage(`{"orders":[]}`)}}
			},
			observe: map[string]string{"answer of GET /store/orders": "200"},
		},
		{
			name: "an empty list for an unknown status",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, func(r *http.Request) bool {
					return is("GET", "/v1/pets")(r) && r.URL.Query().Get("status") == "petctl-conform-unknown"
				}, func(_ *http.Request, res *recorded) {
					res.status, res.body = 200, []byte("[]")
				})
			},
			observe: map[string]string{"answer to status=petctl-conform-unknown": "200 with 0 items"},
		},
		{
			name: "fields beyond the schemas",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("", "/v1/pets"), func(_ *http.Request, res *recorded) {
					editJSON(res, eachObject(func(o map[string]any) {
						if res.status < 300 {
							o["createdAt"] = "2026-01-01T00:00:00Z"
						} else {
							o["requestId"] = "r-1"
						}
					}))
				})
			},
			observe: map[string]string{"fields of pets items beyond the schema": "createdAt", "fields of pets error bodies beyond the schema": "requestId"},
		},
		{
			name:   "gone after the removal date (--now)",
			engine: func(o *engine.Options) { o.Now = func() time.Time { return later } },
			cfg:    func(c *conformance.Config) { c.Now = later },
			check: func(t *testing.T, o outcome) {
				if st, _ := o.state(t, "removed on 5 December 2030"); st.String() != "passed" {
					t.Errorf("the removal check is %s, want passed", st)
				}
				if st, msg := o.state(t, "an unknown id gives"); st.String() != "skipped" || !strings.Contains(msg, "removed on") {
					t.Errorf("the read checks of a removed operation are %s (%q), want skipped with the reason", st, msg)
				}
			},
		},
		{
			name: "a 429 with Retry-After, waited out",
			wrap: func(h http.Handler) http.Handler {
				var once sync.Once
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					limited := false
					if r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/v1/pets/") {
						once.Do(func() { limited = true })
					}
					if limited {
						w.Header().Set("Retry-After", "1")
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(429)
						_, _ = w.Write(errorBody(429, "rate_limited"))
						return
					}
					h.ServeHTTP(w, r)
				})
			},
			check: func(t *testing.T, o outcome) {
				if o.res.Waited < time.Second {
					t.Errorf("waited %s for the 429, want its Retry-After of 1s", o.res.Waited)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mutate []func(*engine.Options)
			if tc.engine != nil {
				mutate = append(mutate, tc.engine)
			}
			h := petstore(t, mutate...)
			if tc.wrap != nil {
				h = tc.wrap(h)
			}
			var cfg []func(*conformance.Config)
			if tc.cfg != nil {
				cfg = append(cfg, tc.cfg)
			}
			o := conform(t, serve(t, h), cfg...)
			if f := o.failed(); len(f) > 0 || !o.res.OK() {
				t.Fatalf("failed checks: %q\n%s", f, o.out)
			}
			for name, want := range tc.observe {
				if got, ok := o.observation(name); !ok || !strings.HasPrefix(got, want) {
					t.Errorf("observation %q = %q, want it to start with %q", name, got, want)
				}
			}
			if tc.check != nil {
				tc.check(t, o)
			}
		})
	}
}

// TestFewItems: a deployment holding fewer items than the default page
// gets them created, named after the run; read-only, the pagination
// checks are skipped with the reason, never passed.
func TestFewItems(t *testing.T) {
	empty := func(o *engine.Options) { o.Fixtures = nil }
	o := conform(t, serve(t, petstore(t, empty)))
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if len(o.res.Created) < 21 {
		t.Errorf("%d records created, want at least 21 to exceed the default page of 20", len(o.res.Created))
	}
	o = conform(t, serve(t, petstore(t, empty)), func(c *conformance.Config) { c.ReadOnly = true })
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if len(o.res.Created) != 0 {
		t.Errorf("--read-only created %v", o.res.Created)
	}
	st, msg := o.state(t, "without limit returns at most the default")
	if st.String() != "skipped" || !strings.Contains(msg, "--read-only") {
		t.Errorf("pagination check is %s (%q), want skipped because of --read-only", st, msg)
	}
	if o.res.NotExercised["createPet"] == "" {
		t.Errorf("createPet is not reported as not exercised under --read-only: %v", o.res.NotExercised)
	}
	// '!write' (a documented filter) leaves out every check that may
	// create a record, the pagination checks that would populate included.
	o = conform(t, serve(t, petstore(t, empty)), func(c *conformance.Config) { c.LabelFilter = "!write" })
	if len(o.res.Created) != 0 {
		t.Errorf("--label-filter '!write' created %d records: %v", len(o.res.Created), o.res.Created)
	}
	st, msg = o.state(t, "limit=1 returns at most 1")
	if st.String() != "skipped" || !strings.Contains(msg, "--label-filter") {
		t.Errorf("pagination check under '!write' is %s (%q), want skipped by the filter", st, msg)
	}
}

// TestRequireCoverage: an operation not exercised fails the run only with
// --require-coverage, and the report says why it was not exercised.
func TestRequireCoverage(t *testing.T) {
	base := serve(t, petstore(t))
	readOnly := func(c *conformance.Config) { c.ReadOnly = true }
	o := conform(t, base, readOnly)
	if !o.res.OK() {
		t.Fatalf("read-only run failed: %q", o.failed())
	}
	o = conform(t, base, readOnly, func(c *conformance.Config) { c.RequireCoverage = true })
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], "coverage") {
		t.Fatalf("failed = %q, want the coverage node alone", f)
	}
	if !strings.Contains(o.res.Report.SpecReports[len(o.res.Report.SpecReports)-1].Failure.Message, "createPet (--read-only") {
		t.Errorf("the coverage failure does not say createPet was skipped by --read-only")
	}
	// The console names the failure, and counts the checks the header announced.
	if !strings.Contains(o.out, "FAIL --require-coverage: 1 of 4 operations of the document were not exercised: createPet (--read-only") {
		t.Errorf("the console does not name the coverage failure:\n%s", o.out)
	}
	n := o.res.Passed + o.res.Failed + o.res.Skipped
	if o.res.Failed != 0 || o.res.OK() {
		t.Errorf("%d checks failed, OK %t: want no check failed, and the run failed on the coverage requirement", o.res.Failed, o.res.OK())
	}
	if !strings.Contains(o.out, fmt.Sprintf("  checks   %d ", n)) || !strings.Contains(o.out, fmt.Sprintf("FAIL %d checks: ", n)) {
		t.Errorf("the header and the summary do not both count %d checks:\n%s", n, o.out)
	}
}

// TestLibrary runs the suite against the second document the engine
// serves: another base path, resource, id, page size parameter and an API
// key in a header. Nothing in the checks is Petstore-specific.
func TestLibrary(t *testing.T) {
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

// TestKeyNeverShown: the key is not in the console report, the JSON report
// or the JUnit report, even when the deployment echoes it in a failing
// response; requests show $PETCTL_API_KEY instead.
func TestKeyNeverShown(t *testing.T) {
	dir := t.TempDir()
	h := editResponse(petstore(t), isPrefix("GET", "/v1/pets/"), func(r *http.Request, res *recorded) {
		if res.status == 404 {
			res.status = 200 // fails "an unknown id gives 404"
			res.body = []byte(`{"echo":"` + r.Header.Get("Authorization") + `"}`)
		}
	})
	junit, jsonReport := dir+"/junit.xml", dir+"/report.json"
	o := conform(t, serve(t, h), func(c *conformance.Config) { c.JUnitReport, c.JSONReport = junit, jsonReport; c.Verbose = true })
	if o.res.OK() {
		t.Fatal("the run passed")
	}
	files := map[string]string{"console": o.out}
	for _, p := range []string{junit, jsonReport} {
		files[p] = readFile(t, p)
	}
	for name, text := range files {
		if strings.Contains(text, testKey) {
			t.Errorf("%s contains the API key", name)
		}
	}
	for _, want := range []string{"ok   auth · listPets (GET /pets): without credentials gives 401", "       GET http://", "observed answer to limit=0: 400"} {
		if !strings.Contains(o.out, want) {
			t.Errorf("-v output lacks %q", want)
		}
	}
	if !strings.Contains(o.out, `'Authorization: Bearer '"$PETCTL_API_KEY"`) {
		t.Errorf("the failure's curl command does not use $PETCTL_API_KEY:\n%s", o.out)
	}
	var reports []struct {
		SpecReports []struct {
			State string
		}
	}
	if err := json.Unmarshal([]byte(files[jsonReport]), &reports); err != nil || len(reports) != 1 || len(reports[0].SpecReports) < 50 {
		t.Errorf("JSON report: %v, %d reports", err, len(reports))
	}
	if !strings.Contains(files[junit], "<testsuites") || !strings.Contains(files[junit], "an unknown id gives 404") {
		t.Errorf("JUnit report lacks the suite or the failed check")
	}
}

// TestFailureMessage: a failure names the check and the operation, the
// request as curl, the response status, headers and a body excerpt.
func TestFailureMessage(t *testing.T) {
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
		{"no key", conformance.Config{BaseURL: base}, true, "no API key"},
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
	slow := func(o *engine.Options) {
		o.Latency = map[string]engine.Delay{"listStoreOrders": {Min: 2 * time.Second, Max: 2 * time.Second}}
	}
	o := conform(t, serve(t, petstore(t, slow)), func(c *conformance.Config) {
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

// TestKeyEchoedNeverShown: a proxy echoes the key wherever a message can
// quote a response: in headers (WWW-Authenticate, Deprecation, Sunset, a
// pagination hint), in the Error body's status, in item fields long
// enough to be cut, in a malformed status line. The key is nowhere in
// the console output, the reports or the Result, not even in part; an
// unreachable target's error does not hold it either.
func TestKeyEchoedNeverShown(t *testing.T) {
	// Characters that JSON, XML, Go quoting and URLs each escape.
	const key = `s3cr3t-KEY<&>"abc\x`
	const part = "s3cr3t" // any part of it that survived a cut
	inner := petstore(t, func(o *engine.Options) { o.Keys = []string{key} })
	echoing := func(malformedProbe bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			echo := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			withKey := echo == key
			if withKey && (r.URL.Path == "/v1/store/orders" || malformedProbe) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_, _ = conn.Write([]byte("HTTP/1.1 " + key + " OK\r\n\r\n"))
					conn.Close()
				}
				return
			}
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			h := rec.Header()
			h.Set("WWW-Authenticate", `Bearer realm="`+echo+`"`)
			h.Set("X-Next-Page", echo)
			if strings.HasPrefix(r.URL.Path, "/v1/pets/") {
				h.Set("Deprecation", echo)
				h.Set("Sunset", echo)
			} else {
				h.Set("Deprecation", "@1"+echo)
			}
			res := &recorded{status: rec.Code, header: h, body: rec.Body.Bytes()}
			editJSON(res, eachObject(func(o map[string]any) {
				if res.status >= 400 {
					o["status"] = echo
					return
				}
				o["name"] = strings.Repeat("x", 70) + echo
				o["status"] = echo
			}))
			for k, v := range res.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", itoa(len(res.body)))
			w.WriteHeader(res.status)
			_, _ = w.Write(res.body)
		})
	}
	dir := t.TempDir()
	junit, jsonReport := dir+"/junit.xml", dir+"/report.json"
	o := conform(t, serve(t, echoing(false)), func(c *conformance.Config) {
		c.APIKey = key
		c.JUnitReport, c.JSONReport = junit, jsonReport
		c.Verbose = true
	})
	if o.res.OK() {
		t.Fatal("the run passed")
	}
	result, err := json.Marshal(o.res)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"console (stdout and stderr)": o.out, "JUnit report": readFile(t, junit), "JSON report": readFile(t, jsonReport), "Result": string(result)}
	for name, text := range texts {
		if i := strings.Index(text, part); i >= 0 {
			t.Errorf("the %s holds the key: …%s…", name, text[max(0, i-80):min(len(text), i+40)])
		}
	}
	// The echoes reached the messages, redacted: the test tests something.
	for _, want := range []string{
		`WWW-Authenticate: Bearer realm="$PETCTL_API_KEY"`,
		"Deprecation: $PETCTL_API_KEY is not RFC 9745",
		`status is "$PETCTL_API_KEY"`,
		`name is "xxxxxxxxxx`,
		"malformed HTTP status code",
	} {
		if !strings.Contains(o.out, want) {
			t.Errorf("the console output lacks %q", want)
		}
	}

	_, err = conformance.Run(context.Background(), conformance.Config{BaseURL: serve(t, echoing(true)), APIKey: key, Timeout: 5 * time.Second})
	var unreachable *conformance.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err = %v, want unreachable", err)
	}
	if strings.Contains(err.Error(), part) || !strings.Contains(err.Error(), "$PETCTL_API_KEY") {
		t.Errorf("the unreachable error %q holds the key, or does not show where it was", err)
	}
}

// TestShortKeyEchoedHidden: a key as short as "pets" is hidden where it was
// sent and where the deployment echoes it as a value of its own, but the
// paths, names and file names that hold the word are shown intact, so the
// output is neither mangled nor a map to the key; the run warns once.
func TestShortKeyEchoedHidden(t *testing.T) {
	const key = "pets"
	inner := petstore(t, func(o *engine.Options) { o.Keys = []string{key} })
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		res := &recorded{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		echo := r.Header.Get("Authorization")
		res.header.Set("WWW-Authenticate", `Bearer realm="`+strings.TrimPrefix(echo, "Bearer ")+`"`)
		if strings.HasPrefix(r.URL.Path, "/v1/pets/") && res.status == http.StatusNotFound {
			res.status = http.StatusOK // fails "an unknown id gives 404"
			res.body = []byte(`{"echo":"` + echo + `"}`)
		}
		for k, v := range res.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", itoa(len(res.body)))
		w.WriteHeader(res.status)
		w.Write(res.body)
	})
	dir := t.TempDir()
	junit, jsonReport := dir+"/junit.xml", dir+"/report.json"
	base := serve(t, h)
	o := conform(t, base, func(c *conformance.Config) {
		c.APIKey = key
		c.JUnitReport, c.JSONReport = junit, jsonReport
		c.Verbose = true
	})
	if o.res.OK() {
		t.Fatal("the run passed")
	}
	texts := map[string]string{"console": o.out, "JUnit report": readFile(t, junit), "JSON report": readFile(t, jsonReport)}
	for name, text := range texts {
		for _, echoed := range []string{`realm="pets"`, `"echo":"Bearer pets"`, `echo\":\"Bearer pets`, "Bearer pets"} {
			if strings.Contains(text, echoed) {
				t.Errorf("the %s shows the key where it was echoed: %q", name, echoed)
			}
		}
		if strings.Contains(text, "/v1/$PETCTL_API_KEY") || strings.Contains(text, "$PETCTL_API_KEYtore") {
			t.Errorf("the %s replaced the key inside a path or a word", name)
		}
	}
	for name, want := range map[string]string{
		"the request's path":       "       GET " + base + "/pets",
		"a check's name":           "auth · listPets (GET /pets): without credentials gives 401",
		"the document's file name": "(embedded petstore.yaml)",
		"the echo in a header":     `WWW-Authenticate: Bearer realm="$PETCTL_API_KEY"`,
		"the echo in a body":       `body:     {"echo":"Bearer $PETCTL_API_KEY"}`,
		"the key where it is sent": `'Authorization: Bearer '"$PETCTL_API_KEY"`,
	} {
		if !strings.Contains(o.out, want) {
			t.Errorf("the console output lacks %s: %q", name, want)
		}
	}
	if !strings.Contains(texts["JUnit report"], "curl -sS -i &#39;"+base+"/pets/") {
		t.Errorf("the JUnit report lacks the failure's request with its path intact")
	}
	if got := strings.Count(o.out, "warning: the API key is shorter than 8 characters"); got != 1 {
		t.Errorf("%d warnings about the short key, want 1:\n%s", got, o.out)
	}
}

// TestFilterWithoutItems: a filter value no item has proves nothing; the
// check creates an item with it when writes are allowed, is skipped with
// the reason when not, and fails when the item created is not found.
func TestFilterWithoutItems(t *testing.T) {
	// 25 animals, all available: no pending or sold ones.
	var b strings.Builder
	b.WriteString("[")
	for i := 1; i <= 25; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"A%d","categoryId":1,"status":"available"}`, i, i)
	}
	b.WriteString("]")
	available := func(o *engine.Options) {
		o.Fixtures = []engine.FixtureFile{{Name: "pets.json", Data: []byte(b.String())}}
	}
	const check = "status=pending returns only items whose status is pending"

	o := conform(t, serve(t, petstore(t, available)))
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if st, _ := o.state(t, check); st.String() != "passed" {
		t.Errorf("%s: %s, want passed after creating a pending animal", check, st)
	}
	pending := 0
	for _, r := range o.res.Created {
		if strings.Contains(r.Check, check) {
			pending++
		}
	}
	if pending != 1 {
		t.Errorf("the filter check created %d animals, want 1", pending)
	}
	// With fewer than 100 animals, the report says limit=100 did not reach its bound.
	if v, ok := o.observation("reach of limit=100"); !ok || !strings.Contains(v, "fewer than 100") {
		t.Errorf("reach of limit=100: %q, %v", v, ok)
	}

	o = conform(t, serve(t, petstore(t, available)), func(c *conformance.Config) { c.ReadOnly = true })
	st, msg := o.state(t, check)
	if st.String() != "skipped" || !strings.Contains(msg, "no item has status pending") || !strings.Contains(msg, "--read-only") {
		t.Errorf("read-only %s: %s (%q), want skipped with the reason", check, st, msg)
	}

	// A deployment whose filter finds nothing, even what was just created.
	blind := editResponse(petstore(t, available), func(r *http.Request) bool {
		return r.Method == "GET" && r.URL.Path == "/v1/pets" && r.URL.Query().Get("status") == "pending"
	}, func(_ *http.Request, res *recorded) { res.body = []byte("[]") })
	o = conform(t, serve(t, blind))
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], check) {
		t.Errorf("failed = %q, want only %q", f, check)
	}
}
