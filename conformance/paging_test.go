package conformance_test

import (
	"net/http"
	"net/url"
	"path"
	"strconv"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// TestNextPageChecked: fixtures/styles/crud.yaml pages its owners by a
// page number, its plans by an offset, its labels by a cursor and each
// owner's pets (a list under another) by the id after which to go on. A
// deployment that ignores the one parameter answers the first page
// again for the second: only the check of that list's next page fails.
// Served whole, or with offsets counted from 1 (which the document does
// not rule out: it declares no minimum), every one passes.
func TestNextPageChecked(t *testing.T) {
	t.Parallel()
	// run conforms the document served whole, its lists' queries at the
	// paths that match pattern (path.Match) changed by edit first.
	run := func(t *testing.T, pattern string, edit func(url.Values)) outcome {
		return conformServed(t, styleDoc(t, "crud.yaml"), engine.Options{Keys: []string{testKey}}, func(srv http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if ok, _ := path.Match(pattern, r.URL.Path); ok && r.Method == http.MethodGet {
					q := r.URL.Query()
					edit(q)
					r.URL.RawQuery = q.Encode()
				}
				srv.ServeHTTP(w, r)
			})
		})
	}
	cases := []struct {
		path, param, check string
	}{
		{"/crud/owners", "page", "pagination listOwners (GET /owners) the page after the first per_page=1 (by page)"},
		{"/crud/plans", "offset", "pagination listPlans (GET /plans) the page after the first limit=1 (by offset)"},
		{"/crud/labels", "page_token", "pagination listLabels (GET /labels) the page after the first limit=1 (by the cursor page_token)"},
		{"/crud/owners/*/pets", "after", "pagination listOwnerPets (GET /owners/{ownerId}/pets) the page after the first limit=1 (by the cursor after)"},
	}
	passes := func(t *testing.T, o outcome) {
		t.Helper()
		if f := o.failed(); len(f) > 0 || !o.res.OK() {
			t.Fatalf("failed checks %q\n%s", f, o.out)
		}
		for _, tc := range cases {
			if state, msg := o.state(t, tc.check); state != types.SpecStatePassed {
				t.Errorf("%s: %v %s", tc.check, state, msg)
			}
		}
	}
	t.Run("served whole", func(t *testing.T) {
		t.Parallel()
		passes(t, run(t, "", nil))
	})
	t.Run("offsets counted from 1", func(t *testing.T) {
		t.Parallel()
		passes(t, run(t, "/crud/plans", func(q url.Values) {
			if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 {
				q.Set("offset", strconv.Itoa(n-1))
			}
		}))
	})
	for _, tc := range cases {
		t.Run(tc.param+" ignored", func(t *testing.T) {
			t.Parallel()
			onlyFailed(t, run(t, tc.path, func(q url.Values) { q.Del(tc.param) }), []string{tc.check})
		})
	}
}

// stripeListDocument pages its charges as Stripe does: a page size, and
// starting_after, the id of the last item of the page before; the answer
// says has_more and gives no cursor.
const stripeListDocument = `openapi: 3.0.3
info: {title: Charges, version: "1"}
servers: [{url: /v1}]
security: [{key: []}]
paths:
  /charges:
    get:
      operationId: listCharges
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100, default: 10}}
        - {name: starting_after, in: query, schema: {type: string}}
      responses:
        '200':
          description: A page of charges.
          content:
            application/json:
              schema:
                type: object
                required: [object, data, has_more]
                properties:
                  object: {type: string, enum: [list]}
                  data: {type: array, items: {$ref: '#/components/schemas/Charge'}}
                  has_more: {type: boolean}
    post:
      operationId: createCharge
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [amount]
              properties:
                amount: {type: integer, minimum: 1}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Charge'}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Key}
  schemas:
    Charge:
      type: object
      required: [id, amount]
      properties:
        id: {type: string, readOnly: true}
        amount: {type: integer, minimum: 1}
`

// TestNextPageByLastID: where the answer gives no cursor (petctl serve's
// Link rel=next is taken off, as Stripe sends none) and the cursor
// parameter takes an item's id (starting_after), the page after the first
// is asked for after its last item's id; the check passes, and fails
// where starting_after is ignored. Where it takes cursors of another kind
// (GitHub's after), which the answer does not show, the 400 to an id
// skips the check: no false alarm.
func TestNextPageByLastID(t *testing.T) {
	t.Parallel()
	load := func() *spec.Spec {
		s, err := spec.Parse([]byte(stripeListDocument), "charges.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const check = "pagination listCharges (GET /charges) the page after the first limit=1 (by the cursor starting_after) holds other items"
	for _, how := range []string{"served whole", "starting_after ignored", "starting_after takes no id"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			o := conformServed(t, load, engine.Options{Keys: []string{testKey}}, func(srv http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					q := r.URL.Query()
					switch {
					case how == "starting_after ignored":
						q.Del("starting_after")
						r.URL.RawQuery = q.Encode()
					case how == "starting_after takes no id" && q.Has("starting_after"):
						http.Error(w, "not a cursor", http.StatusBadRequest)
						return
					}
					srv.ServeHTTP(withoutLink{w}, r)
				})
			})
			if how == "starting_after ignored" {
				onlyFailed(t, o, []string{check})
				return
			}
			if f := o.failed(); len(f) > 0 || !o.res.OK() {
				t.Fatalf("failed checks %q\n%s", f, o.out)
			}
			want := types.SpecStatePassed
			if how == "starting_after takes no id" {
				want = types.SpecStateSkipped
			}
			if state, msg := o.state(t, check); state != want {
				t.Errorf("%s: %v %s, want %v", check, state, msg, want)
			}
		})
	}
}

// withoutLink answers without the Link header.
type withoutLink struct{ http.ResponseWriter }

func (w withoutLink) WriteHeader(status int) {
	w.Header().Del("Link")
	w.ResponseWriter.WriteHeader(status)
}

func (w withoutLink) Write(b []byte) (int, error) {
	w.Header().Del("Link") // a Write without WriteHeader sends the headers too
	return w.ResponseWriter.Write(b)
}
