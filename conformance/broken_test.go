package conformance_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/internal/race"
)

// brokenCase is the engine broken in one way, and the checks meant to
// catch it: each want names exactly one failed check, and nothing else
// may fail.
type brokenCase struct {
	name   string
	wrap   func(h http.Handler) http.Handler
	engine func(*engine.Options)
	cfg    func(*conformance.Config)
	want   []string // each names exactly one failed check; nothing else fails
}

// TestBrokenServers breaks one thing at a time and proves that the check
// meant to catch it fails, and no other.
func TestBrokenServers(t *testing.T) {
	t.Parallel()
	// Each group's first case runs under -race (race.Split): the checks of
	// a group fail the same way for each of its cases.
	for _, group := range [][]brokenCase{brokenAuth(), brokenCreate(), brokenRead(), brokenStateful(), brokenPagination(), brokenFilters(), brokenDeprecation(), brokenResponses(), brokenAccess()} {
		for i, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				race.Split(t, i)
				o := runAgainst(t, tc.engine, tc.wrap, tc.cfg)
				onlyFailed(t, o, tc.want)
			})
		}
	}
}

// onlyFailed fails t unless each of want names exactly one failed check of
// o and no other check failed.
func onlyFailed(t *testing.T, o outcome, want []string) {
	t.Helper()
	failed := o.failed()
	if o.res.OK() {
		t.Fatalf("the run passed; want %q to fail", want)
	}
	var unexpected []string
	matched := map[string]int{}
	for _, f := range failed {
		hit := false
		for _, w := range want {
			if strings.Contains(f, w) {
				matched[w]++
				hit = true
			}
		}
		if !hit {
			unexpected = append(unexpected, f)
		}
	}
	for _, w := range want {
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
}

// brokenAuth: the auth checks catch a deployment that takes a request it must refuse.
func brokenAuth() []brokenCase {
	wrongKey := func(r *http.Request) bool {
		return r.Header.Get("Authorization") == "Bearer petctl-conform-wrong-key-0000"
	}
	validKey := func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testKey) }
	return []brokenCase{
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
			name:   "an empty bearer token is accepted on listStoreOrders",
			engine: storeOrdersAnswered,
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool {
					return is("GET", "/v1/store/orders")(r) && strings.TrimSpace(r.Header.Get("Authorization")) == "Bearer"
				}, validKey)
			},
			want: []string{"auth listStoreOrders (GET /store/orders) with an empty bearer token gives 401"},
		},
	}
}

// brokenCreate: the create checks catch a create that does not do what was sent, or takes what it must refuse.
func brokenCreate() []brokenCase {
	return []brokenCase{
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
	}
}

// brokenRead: the read checks catch an item that does not read back, and an unknown id that is found.
func brokenRead() []brokenCase {
	return []brokenCase{
		{
			name: "a created animal reads back renamed",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/15"), func(r *http.Request, res *recorded) {
					if res.status == 200 && len(r.URL.Path) == len("/v1/pets/151") {
						editJSON(res, eachObject(func(o map[string]any) { o["name"] = "renamed" }))
					}
				})
			},
			want: []string{"stateful getPet (GET /pets/{petId}) the created item reads back equal"},
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
				return editResponse(h, is("GET", "/v1/pets/9007199254740991"), func(r *http.Request, res *recorded) {
					if res.status == 404 {
						res.status, res.body = 500, errorBody(500, "internal_error")
					}
				})
			},
			want: []string{"read getPet (GET /pets/{petId}) an unknown id gives 404"},
		},
	}
}

// storesNothing answers a create 201 with the animal sent, under an id
// it stores nothing at (what it stores, under another, no answer names).
func storesNothing(h http.Handler) http.Handler {
	var n atomic.Int64
	return editResponse(h, is("POST", "/v1/pets"), func(_ *http.Request, res *recorded) {
		if res.status == 201 {
			editJSON(res, eachObject(func(o map[string]any) { o["id"] = 100000 + n.Add(1) }))
		}
	})
}

// brokenStateful: the stateful checks catch a deployment that does not
// keep what it answers it created.
func brokenStateful() []brokenCase {
	return []brokenCase{
		{
			name: "201 and nothing stored",
			wrap: storesNothing,
			want: []string{
				"stateful getPet (GET /pets/{petId}) the created item reads back equal",
				"stateful listPets (GET /pets) the list contains the created item",
			},
		},
		{
			// Without a read, the list is where the record must show.
			name: "201 and nothing stored, after getPet's removal",
			wrap: storesNothing,
			engine: func(o *engine.Options) {
				o.Now = func() time.Time { return time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC) }
			},
			cfg:  func(c *conformance.Config) { c.Now = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC) },
			want: []string{"stateful listPets (GET /pets) the list contains the created item"},
		},
		{
			name: "every create answered with the same id",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("POST", "/v1/pets"), func(_ *http.Request, res *recorded) {
					if res.status == 201 {
						editJSON(res, eachObject(func(o map[string]any) { o["id"] = 151 }))
					}
				})
			},
			want: []string{"stateful createPet (POST /pets) two creates give 201 and two distinct ids"},
		},
	}
}

// brokenAccess: the access checks catch a deployment that refuses the
// valid key on one operation, which passes every refusal check there.
func brokenAccess() []brokenCase {
	return []brokenCase{
		{
			name: "the valid key refused on GET /store/orders",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, is("GET", "/v1/store/orders"), func(_ *http.Request, res *recorded) {
					res.status, res.body = 401, errorBody(401, "unauthorized")
				})
			},
			want: []string{"access listStoreOrders (GET /store/orders) a valid request with the credential is let through"},
		},
		{
			// Other checks call it first: each of their requests got the
			// 500, and the access check judged none of them.
			name: "every request to GET /store/orders with the key answered 500",
			wrap: func(h http.Handler) http.Handler {
				withKey := func(r *http.Request) bool {
					return is("GET", "/v1/store/orders")(r) && r.Header.Get("Authorization") == "Bearer "+testKey
				}
				return editResponse(h, withKey, func(_ *http.Request, res *recorded) {
					res.status, res.body = 500, errorBody(500, "internal")
				})
			},
			want: []string{"access listStoreOrders (GET /store/orders) a valid request with the credential is let through"},
		},
	}
}

// brokenPagination: the pagination checks catch a page size that is not held.
func brokenPagination() []brokenCase {
	return []brokenCase{
		{
			name: "limit is ignored",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, is("GET", "/v1/pets"), func(r *http.Request) {
					q := r.URL.Query()
					q.Del("limit")
					r.URL.RawQuery = q.Encode()
				})
			},
			// The created animal, past the first 20, is not listed where
			// limit=100 would show it.
			want: []string{"pagination listPets (GET /pets) limit=1 returns at most 1", "stateful listPets (GET /pets) the list contains the created item"},
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
			want: []string{"pagination listPets (GET /pets) limit=101 is refused (400) or ignored with at most 100 items"},
		},
		{
			name: "a 500 for limit=0",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, func(r *http.Request) bool { return is("GET", "/v1/pets")(r) && r.URL.Query().Get("limit") == "0" },
					func(_ *http.Request, res *recorded) {
						res.status, res.body = 500, errorBody(500, "internal_error")
					})
			},
			want: []string{"pagination listPets (GET /pets) limit=0 is refused (400) or ignored"},
		},
	}
}

// brokenFilters: the filter checks catch a filter that is not applied.
func brokenFilters() []brokenCase {
	return []brokenCase{
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
			},
		},
	}
}

// brokenDeprecation: the deprecation checks catch headers that are wrong, missing or out of place, and an operation that outlives its removal.
func brokenDeprecation() []brokenCase {
	return []brokenCase{
		{
			name: "the legacy Deprecation: true",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Deprecation", "true")
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every answer of its own carries Deprecation"},
		},
		{
			name: "Deprecation after the removal date",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Deprecation", "@1922745600") // 2030-12-06, a day after the removal date
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every answer of its own carries Deprecation"},
		},
		{
			name: "a Sunset a day late",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Sunset", "Fri, 06 Dec 2030 00:00:00 GMT")
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every answer of its own carries Sunset"},
		},
		{
			name: "a Sunset that is not an IMF-fixdate",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix("GET", "/v1/pets/"), func(_ *http.Request, res *recorded) {
					res.header.Set("Sunset", "2030-12-05T00:00:00Z")
				})
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) every answer of its own carries Sunset"},
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
				"deprecation getPet (GET /pets/{petId}) every answer of its own carries Deprecation",
				"deprecation getPet (GET /pets/{petId}) every answer of its own carries Sunset",
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
			name: "the removal date has passed (--now) but getPet still answers",
			cfg: func(c *conformance.Config) {
				c.Now = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
			},
			want: []string{"deprecation getPet (GET /pets/{petId}) removed on 5 December 2030: the operation is gone"},
		},
	}
}

// brokenResponses: the response checks catch error bodies that are not the Error body, and responses the document does not describe.
func brokenResponses() []brokenCase {
	return []brokenCase{
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
				"responses listPets (GET /pets) every error response has the media type and schema",
				"responses createPet (POST /pets) every error response has the media type and schema",
				"responses getPet (GET /pets/{petId}) every error response has the media type and schema",
				"responses listStoreOrders (GET /store/orders) every error response has the media type and schema",
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
			want: []string{"responses getPet (GET /pets/{petId}) every error response has the media type and schema"},
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
			want: []string{"responses getPet (GET /pets/{petId}) every error response has the media type and schema"},
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
	}
}

// scalar is v as a string holding its JSON text: 7 becomes "7".
func scalar(v any) any {
	b, _ := json.Marshal(v)
	return string(b)
}
