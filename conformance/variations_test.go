package conformance_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/internal/race"
)

// TestLegitimateVariations are deployments that do what the description
// leaves open in other ways than petctl serve: each must pass, with what
// it did recorded.
func TestLegitimateVariations(t *testing.T) {
	t.Parallel()
	later := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		engine  func(*engine.Options)
		wrap    func(http.Handler) http.Handler
		cfg     func(*conformance.Config)
		observe map[string]string // observation name -> prefix of its value
		check   func(t *testing.T, o outcome)
		// retries: the runner waits and retries on its own timers, a path
		// of its own that the detector watches too (race.Light).
		retries bool
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
			name: "an unknown status filter ignored",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool {
					return is("GET", "/v1/pets")(r) && r.URL.Query().Get("status") == "petctl-conform-unknown"
				}, func(r *http.Request) {
					q := r.URL.Query()
					q.Del("status")
					r.URL.RawQuery = q.Encode()
				})
			},
			observe: map[string]string{"answer to status=petctl-conform-unknown": "200 with 100 items: ignored"},
		},
		{
			name: "a limit out of range ignored",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool {
					return is("GET", "/v1/pets")(r) && (r.URL.Query().Get("limit") == "0" || r.URL.Query().Get("limit") == "abc")
				}, func(r *http.Request) {
					q := r.URL.Query()
					q.Del("limit")
					r.URL.RawQuery = q.Encode()
				})
			},
			observe: map[string]string{"answer to limit=0": "200 with 20 items", "answer to limit=abc": "200 with 20 items"},
		},
		{
			// A gateway that refuses credentials before getPet is reached
			// sends no deprecation headers; they are recorded, not required.
			name: "getPet's refusals without deprecation headers",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					if res.status == 401 {
						res.header.Del("Deprecation")
						res.header.Del("Sunset")
					}
				})
			},
			observe: map[string]string{"Deprecation on the refusals of credentials of getPet": "absent from all 4 responses"},
		},
		{
			// Stricter than its document: no digits in a name. The run's
			// names are letters and spaces.
			name: "names without digits only",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("POST", "/v1/pets"), func(r *http.Request, res *recorded) {
					var obj map[string]any
					if json.Unmarshal(readBody(r), &obj) == nil && strings.ContainsAny(fmt.Sprint(obj["name"]), "0123456789") {
						res.status, res.body = 400, errorBody(400, "validation_failed")
					}
				})
			},
		},
		{
			name:    "a 429 without Retry-After, backed off",
			retries: true,
			wrap: func(h http.Handler) http.Handler {
				var once sync.Once
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					limited := false
					if is("GET", "/v1/pets")(r) {
						once.Do(func() { limited = true })
					}
					if limited {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(429)
						_, _ = w.Write(errorBody(429, "rate_limited"))
						return
					}
					h.ServeHTTP(w, r)
				})
			},
			check: func(t *testing.T, o outcome) {
				if o.res.Waited != time.Second {
					t.Errorf("waited %s for the 429 without Retry-After, want the first backoff, 1s", o.res.Waited)
				}
			},
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
			name:    "a 429 with Retry-After, waited out",
			retries: true,
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
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.retries {
				race.Light(t)
			} else {
				race.Split(t, i)
			}
			o := runAgainst(t, tc.engine, tc.wrap, tc.cfg)
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
	t.Parallel()
	empty := func(o *engine.Options) { o.Fixtures = nil }
	o := runAgainst(t, empty, nil, nil)
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if len(o.res.Created) < 21 {
		t.Errorf("%d records created, want at least 21 to exceed the default page of 20", len(o.res.Created))
	}
	o = runAgainst(t, empty, nil, func(c *conformance.Config) { c.ReadOnly = true })
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
	o = runAgainst(t, empty, nil, func(c *conformance.Config) { c.LabelFilter = "!write" })
	if len(o.res.Created) != 0 {
		t.Errorf("--label-filter '!write' created %d records: %v", len(o.res.Created), o.res.Created)
	}
	st, msg = o.state(t, "limit=1 returns at most 1")
	if st.String() != "skipped" || !strings.Contains(msg, "--label-filter") {
		t.Errorf("pagination check under '!write' is %s (%q), want skipped by the filter", st, msg)
	}
}

// TestFilterWithoutItems: a filter value no item has proves nothing; the
// check creates an item with it when writes are allowed, is skipped with
// the reason when not, and fails when the item created is not found.
func TestFilterWithoutItems(t *testing.T) {
	t.Parallel()
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

	o := runAgainst(t, available, nil, nil)
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

	o = runAgainst(t, available, nil, func(c *conformance.Config) { c.ReadOnly = true })
	st, msg := o.state(t, check)
	if st.String() != "skipped" || !strings.Contains(msg, "no item has status pending") || !strings.Contains(msg, "--read-only") {
		t.Errorf("read-only %s: %s (%q), want skipped with the reason", check, st, msg)
	}

	// A deployment whose filter finds nothing, even what was just created.
	blind := func(h http.Handler) http.Handler {
		return editResponse(h, func(r *http.Request) bool {
			return r.Method == "GET" && r.URL.Path == "/v1/pets" && r.URL.Query().Get("status") == "pending"
		}, func(_ *http.Request, res *recorded) { res.body = []byte("[]") })
	}
	o = runAgainst(t, available, blind, nil)
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], check) {
		t.Errorf("failed = %q, want only %q", f, check)
	}
}
