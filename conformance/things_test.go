package conformance_test

// A deployment written for the tests, of a document unlike the Petstore in
// every way the checks must follow: full CRUD (replace, JSON Merge Patch,
// delete), uuid ids the server assigns, a readOnly field the item requires
// and a writeOnly one a create sends, an envelope with offset paging, errors
// as application/problem+json, 422 for invalid input, an operation that
// produces image/png, one deprecated without a date, and the refusal status
// a knob (401, 403 alone, or none declared). petctl serve on main answers
// PUT, PATCH and DELETE 501, so the stateful checks are proved here; the
// same server broken one way at a time proves each check catches it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/internal/race"
	"github.com/petctl/petctl/spec"
)

// thingsDocument is the document; %[1]s is the refusal responses each
// operation declares.
const thingsDocument = `openapi: 3.1.0
info: {title: Things, version: "1"}
servers: [{url: /api}]
security: [{thingKey: []}]
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 50, default: 10}}
        - {name: offset, in: query, schema: {type: integer, minimum: 0}}
        - {name: kind, in: query, schema: {$ref: '#/components/schemas/Kind'}}
      responses:
        '200':
          description: A page.
          content:
            application/json:
              schema:
                type: object
                required: [items, total]
                properties:
                  items: {type: array, items: {$ref: '#/components/schemas/Thing'}}
                  total: {type: integer}
        '422': {$ref: '#/components/responses/Problem'}%[1]s
    post:
      operationId: createThing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
        '400': {$ref: '#/components/responses/Problem'}
        '422': {$ref: '#/components/responses/Problem'}%[1]s
  /things/{thingId}:
    parameters:
      - {name: thingId, in: path, required: true, schema: {type: string, format: uuid}}
    get:
      operationId: getThing
      responses:
        '200':
          description: The thing.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
        '404': {$ref: '#/components/responses/Problem'}%[1]s
    put:
      operationId: replaceThing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
      responses:
        '200':
          description: Replaced.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
        '404': {$ref: '#/components/responses/Problem'}
        '422': {$ref: '#/components/responses/Problem'}%[1]s
    patch:
      operationId: patchThing
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema: {$ref: '#/components/schemas/ThingPatch'}
      responses:
        '200':
          description: Patched.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
        '404': {$ref: '#/components/responses/Problem'}
        '422': {$ref: '#/components/responses/Problem'}%[1]s
    delete:
      operationId: deleteThing
      responses:
        '204': {description: Deleted.}
        '404': {$ref: '#/components/responses/Problem'}%[1]s
  /things/{thingId}/picture:
    parameters:
      - {name: thingId, in: path, required: true, schema: {type: string, format: uuid}}
    get:
      operationId: thingPicture
      responses:
        '200':
          description: Its picture.
          content:
            image/png: {schema: {type: string, format: binary}}
        '404': {$ref: '#/components/responses/Problem'}%[1]s
  /legacy:
    get:
      operationId: legacyStatus
      deprecated: true
      responses:
        '200':
          description: Still answered.
          content:
            application/json: {schema: {type: object}}%[1]s
components:
  securitySchemes:
    thingKey: {type: apiKey, in: header, name: X-Thing-Key}
  responses:
    Problem:
      description: A problem.
      content:
        application/problem+json:
          schema: {$ref: '#/components/schemas/Problem'}
  schemas:
    Kind: {type: string, enum: [small, large]}
    Thing:
      type: object
      required: [id, name, kind]
      properties:
        id: {type: string, format: uuid, readOnly: true}
        name: {type: string, minLength: 1, maxLength: 60}
        kind: {$ref: '#/components/schemas/Kind'}
        size: {type: integer, minimum: 1, maximum: 100}
        secret: {type: string, writeOnly: true, minLength: 8}
        createdAt: {type: string, format: date-time, readOnly: true}
    ThingPatch:
      type: object
      properties:
        name: {type: string, minLength: 1, maxLength: 60}
        size: {type: integer, minimum: 1, maximum: 100}
    Problem:
      type: object
      required: [type, title, status]
      properties:
        type: {type: string}
        title: {type: string}
        status: {type: integer}
        detail: {type: string}
`

// The refusal responses a variant of the document declares.
const (
	refuses401 = "\n        '401': {$ref: '#/components/responses/Problem'}"
	refuses403 = "\n        '403': {$ref: '#/components/responses/Problem'}"
	refusesNot = ""
)

// thingsKey is the key the things server takes.
const thingsKey = "things-key-0b9e41c2"

// things is the deployment; the flags break it one way each.
type things struct {
	doc *spec.Spec
	val *spec.Validator
	// refusal is the status of a request refused for its credentials.
	refusal int

	storesNothing, sameID, ignoresUpdates, ignoresDeletes bool
	// petctlErrors answers errors as {code, message, status} in
	// application/json instead of the problem+json the document declares.
	petctlErrors bool

	mu    sync.Mutex
	items map[string]map[string]any
	order []string
	n     int
	// accepts and violations note what requests carried.
	accepts    map[string]string
	violations []string
}

func newThings(t *testing.T, refusals string, refusal int) *things {
	t.Helper()
	doc, err := spec.Parse([]byte(fmt.Sprintf(thingsDocument, refusals)), "things.yaml")
	if err != nil {
		t.Fatal(err)
	}
	val, err := doc.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return &things{doc: doc, val: val, refusal: refusal, items: map[string]map[string]any{}, accepts: map[string]string{}}
}

func (th *things) problem(w http.ResponseWriter, status int, detail string) {
	if th.petctlErrors {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"code": strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_")), "message": detail, "status": status})
		return
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": status, "detail": detail})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// shown is an item as answered: without its writeOnly secret.
func shown(it map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range it {
		if k != "secret" {
			out[k] = v
		}
	}
	return out
}

func (th *things) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Thing-Key") != thingsKey {
		th.problem(w, th.refusal, "a valid X-Thing-Key is required")
		return
	}
	segs := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/api"), "/"), "/")
	tmpl := "/" + segs[0]
	if len(segs) > 1 {
		tmpl += "/{thingId}"
	}
	if len(segs) > 2 {
		tmpl += "/" + segs[2]
	}
	op := th.doc.Find(r.Method, tmpl)
	if op == nil {
		th.problem(w, http.StatusNotFound, "no such path")
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	th.mu.Lock()
	defer th.mu.Unlock()
	th.accepts[op.ID] = r.Header.Get("Accept")
	if ps := th.val.Request(r, op); len(ps) > 0 {
		status := http.StatusUnprocessableEntity
		if !json.Valid(body) && len(body) > 0 && op.Response(http.StatusBadRequest) != nil {
			status = http.StatusBadRequest
		}
		th.problem(w, status, ps.Error())
		return
	}
	var in map[string]any
	_ = json.Unmarshal(body, &in)
	for _, ro := range []string{"id", "createdAt"} {
		if _, ok := in[ro]; ok {
			th.violations = append(th.violations, fmt.Sprintf("%s sent the readOnly %s", op.ID, ro))
		}
	}
	if _, full := in["size"]; full && (op.ID == "createThing" || op.ID == "replaceThing") {
		// A body with the optional fields has the writeOnly one too.
		if _, ok := in["secret"]; !ok {
			th.violations = append(th.violations, op.ID+" left out the writeOnly secret")
		}
	}
	var id string
	if len(segs) > 1 {
		id = segs[1]
	}
	it, found := th.items[id]
	switch op.ID {
	case "listThings":
		var list []any
		for _, k := range th.order {
			if v := th.items[k]; v != nil && (r.URL.Query().Get("kind") == "" || v["kind"] == r.URL.Query().Get("kind")) {
				list = append(list, shown(v))
			}
		}
		total := len(list)
		limit, offset := 10, 0
		if v := r.URL.Query().Get("limit"); v != "" {
			limit, _ = strconv.Atoi(v)
		}
		if v := r.URL.Query().Get("offset"); v != "" {
			offset, _ = strconv.Atoi(v)
		}
		list = list[min(offset, len(list)):]
		list = list[:min(limit, len(list))]
		if list == nil {
			list = []any{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"items": list, "total": total})
	case "createThing":
		th.n++
		if !th.sameID || th.n == 1 {
			id = fmt.Sprintf("00000000-0000-4000-8000-%012d", th.n)
		} else {
			id = "00000000-0000-4000-8000-000000000001"
		}
		in["id"], in["createdAt"] = id, "2026-01-01T00:00:00Z"
		if !th.storesNothing {
			th.items[id] = in
			th.order = append(th.order, id)
		}
		writeJSON(w, http.StatusCreated, shown(in))
	case "getThing":
		if !found {
			th.problem(w, http.StatusNotFound, "no such thing")
			return
		}
		writeJSON(w, http.StatusOK, shown(it))
	case "thingPicture":
		if !found {
			th.problem(w, http.StatusNotFound, "no such thing")
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	case "replaceThing", "patchThing":
		if !found {
			th.problem(w, http.StatusNotFound, "no such thing")
			return
		}
		next := map[string]any{"id": it["id"], "createdAt": it["createdAt"]}
		if op.ID == "patchThing" {
			for k, v := range it {
				next[k] = v
			}
		}
		for k, v := range in {
			next[k] = v
		}
		if !th.ignoresUpdates {
			th.items[id] = next
		}
		writeJSON(w, http.StatusOK, shown(next))
	case "deleteThing":
		if !found {
			th.problem(w, http.StatusNotFound, "no such thing")
			return
		}
		if !th.ignoresDeletes {
			delete(th.items, id)
		}
		w.WriteHeader(http.StatusNoContent)
	case "legacyStatus":
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

// conformThings runs the suite against th with its own document.
func conformThings(t *testing.T, th *things, mutate ...func(*conformance.Config)) outcome {
	t.Helper()
	doc, err := spec.Parse([]byte(th.doc.Raw), "things.yaml") // the run's own copy
	if err != nil {
		t.Fatal(err)
	}
	return conform(t, serveRaw(t, th)+"/api", append([]func(*conformance.Config){func(c *conformance.Config) {
		c.Spec, c.Validator, c.APIKey = doc, nil, thingsKey
	}}, mutate...)...)
}

// TestThingsConform: a deployment that does everything its document says
// passes every check, the whole life of a record among them, with every
// operation exercised; the bodies it got kept readOnly fields out and sent
// writeOnly ones; Accept named what each operation produces.
func TestThingsConform(t *testing.T) {
	t.Parallel()
	th := newThings(t, refuses401, http.StatusUnauthorized)
	o := conformThings(t, th, func(c *conformance.Config) { c.RequireCoverage = true })
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	for _, sr := range o.res.Report.SpecReports {
		if len(sr.ContainerHierarchyTexts) > 1 && sr.ContainerHierarchyTexts[1] == "stateful" && sr.State.String() != "passed" {
			t.Errorf("%s: %s (%s), want passed", sr.FullText(), sr.State, sr.Failure.Message)
		}
	}
	for _, step := range []string{
		"createThing (POST /things) two creates give 201 and two distinct ids",
		"getThing (GET /things/{thingId}) the created item reads back equal",
		"listThings (GET /things) the list contains the created item",
		"replaceThing (PUT /things/{thingId}) replace of the created item gives 200",
		"getThing (GET /things/{thingId}) the replaced item reads back with the change",
		"patchThing (PATCH /things/{thingId}) patch of the created item gives 200",
		"getThing (GET /things/{thingId}) the patched item reads back with the change",
		"deleteThing (DELETE /things/{thingId}) delete of the created item gives 204",
		"getThing (GET /things/{thingId}) the deleted item reads back 404",
		"listThings (GET /things) the list lacks the deleted item",
	} {
		if st, _ := o.state(t, "stateful "+step); st.String() != "passed" {
			t.Errorf("stateful %s: %s, want passed", step, st)
		}
	}
	// The run deletes what it follows, and the second record of the pair.
	deleted := 0
	for _, r := range o.res.Created {
		if r.Deleted {
			deleted++
		}
	}
	if deleted != 2 || !strings.Contains(o.out, "deleted by the run") {
		t.Errorf("%d of the records created are marked deleted, want the 2 the stateful checks deleted", deleted)
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	if len(th.items) != len(o.res.Created)-deleted {
		t.Errorf("the deployment holds %d things, the run lists %d created and not deleted", len(th.items), len(o.res.Created)-deleted)
	}
	if len(th.violations) > 0 {
		t.Errorf("the bodies sent broke the document's directions: %q", slices.Compact(th.violations))
	}
	if got := th.accepts["thingPicture"]; !strings.HasPrefix(got, "image/png") || strings.Contains(got, "application/json") {
		t.Errorf("Accept of thingPicture: %q, want image/png (and the problem type), not application/json", got)
	}
	if got := th.accepts["getThing"]; got != "application/json, application/problem+json" {
		t.Errorf("Accept of getThing: %q, want application/json, application/problem+json", got)
	}
	// The invalid bodies break one constraint each, never a readOnly field.
	var invalid []string
	for _, sr := range o.res.Report.SpecReports {
		if len(sr.ContainerHierarchyTexts) > 2 && sr.ContainerHierarchyTexts[1] == "create" && strings.HasSuffix(sr.LeafNodeText, " gives 400 or 422") {
			invalid = append(invalid, strings.TrimSuffix(sr.LeafNodeText, " gives 400 or 422"))
		}
	}
	want := []string{
		"without name", "without kind",
		"name of the wrong type (a number)", "name longer than 60 characters", "name shorter than 1 characters",
		"kind of the wrong type (a number)", "an unknown kind (petctl-conform-unknown)",
		"size of the wrong type (a string)", "size below its minimum 1", "size above its maximum 100",
		"secret of the wrong type (a number)", "secret shorter than 8 characters",
		"malformed JSON",
	}
	if !slices.Equal(invalid, want) {
		t.Errorf("invalid-body checks %q, want %q", invalid, want)
	}
	if v, ok := o.observation("Deprecation of legacyStatus"); !ok || !strings.HasPrefix(v, "absent") {
		t.Errorf("the headers of an operation deprecated without a date: %q, %t; want recorded as absent", v, ok)
	}
}

// TestThingsBroken breaks the things deployment one way at a time: each
// want names exactly one failed check, and nothing else fails.
func TestThingsBroken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		break_ func(*things)
		want   []string
	}{
		{"answers 201 and stores nothing", func(th *things) { th.storesNothing = true }, []string{
			"stateful getThing (GET /things/{thingId}) the created item reads back equal",
			"stateful listThings (GET /things) the list contains the created item",
			"stateful replaceThing (PUT /things/{thingId}) replace of the created item gives 200",
			"stateful patchThing (PATCH /things/{thingId}) patch of the created item gives 200",
			"stateful deleteThing (DELETE /things/{thingId}) delete of the created item gives 204",
			// The things created to prove the kind filter are not listed either.
			"filters listThings (GET /things) kind=small returns only items whose kind is small",
			"filters listThings (GET /things) kind=large returns only items whose kind is large",
		}},
		{"gives every created thing the same id", func(th *things) { th.sameID = true }, []string{
			"stateful createThing (POST /things) two creates give 201 and two distinct ids",
			// The second create replaced the first under the one id.
			"stateful getThing (GET /things/{thingId}) the created item reads back equal",
			"stateful listThings (GET /things) the list contains the created item",
			// The list shows the one record at every position it was
			// created in, so each page repeats the one before it.
			"pagination listThings (GET /things) the page after the first limit=1 (by offset) holds other items",
		}},
		{"answers updates and keeps the old thing", func(th *things) { th.ignoresUpdates = true }, []string{
			"stateful getThing (GET /things/{thingId}) the replaced item reads back with the change",
			"stateful getThing (GET /things/{thingId}) the patched item reads back with the change",
		}},
		{"answers deletes and keeps the thing", func(th *things) { th.ignoresDeletes = true }, []string{
			"stateful getThing (GET /things/{thingId}) the deleted item reads back 404",
			"stateful listThings (GET /things) the list lacks the deleted item",
		}},
		{"errors in petctl's format, not the declared problem+json", func(th *things) { th.petctlErrors = true }, []string{
			"responses listThings (GET /things) every error response has the media type and schema",
			"responses createThing (POST /things) every error response has the media type and schema",
			"responses getThing (GET /things/{thingId}) every error response has the media type and schema",
			"responses replaceThing (PUT /things/{thingId}) every error response has the media type and schema",
			"responses patchThing (PATCH /things/{thingId}) every error response has the media type and schema",
			"responses deleteThing (DELETE /things/{thingId}) every error response has the media type and schema",
			"responses thingPicture (GET /things/{thingId}/picture) every error response has the media type and schema",
			"responses legacyStatus (GET /legacy) every error response has the media type and schema",
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			race.Split(t, i)
			th := newThings(t, refuses401, http.StatusUnauthorized)
			tc.break_(th)
			onlyFailed(t, conformThings(t, th), tc.want)
		})
	}
}

// TestRefusalStatusFromTheDocument: the auth checks expect the refusal
// status the document declares. A document that declares 403 alone wants
// 403, and a deployment answering 401 there fails them; one that declares
// none takes either, and its undeclared 401 is recorded, not judged by
// the response checks: the two can never contradict each other.
func TestRefusalStatusFromTheDocument(t *testing.T) {
	t.Parallel()
	t.Run("403 declared, 403 answered", func(t *testing.T) {
		o := conformThings(t, newThings(t, refuses403, http.StatusForbidden))
		if f := o.failed(); len(f) > 0 {
			t.Fatalf("failed checks: %q\n%s", f, o.out)
		}
		if st, _ := o.state(t, "auth getThing (GET /things/{thingId}) without credentials gives 403"); st.String() != "passed" {
			t.Errorf("the refusal check of a 403-only document: %s", st)
		}
	})
	t.Run("403 declared, 401 answered", func(t *testing.T) {
		o := conformThings(t, newThings(t, refuses403, http.StatusUnauthorized))
		var auth, other []string
		for _, f := range o.failed() {
			if strings.Contains(f, "conform auth ") && strings.Contains(f, "gives 403") {
				auth = append(auth, f)
			} else {
				other = append(other, f)
			}
		}
		if len(auth) == 0 || len(other) > 0 {
			t.Errorf("failed: auth %d, others %q; want the auth checks alone", len(auth), other)
		}
	})
	t.Run("none declared, 401 answered", func(t *testing.T) {
		o := conformThings(t, newThings(t, refusesNot, http.StatusUnauthorized))
		if f := o.failed(); len(f) > 0 {
			t.Fatalf("failed checks: %q\n%s", f, o.out)
		}
		if _, ok := o.observation("status 401 of getThing, which the document does not declare"); !ok {
			t.Errorf("the undeclared 401 is not recorded: %v", o.res.Observations)
		}
	})
}
