package conformance_test

// petctl serve for a document of the shapes the corpus showed the checks
// mishandling: a resource nested under one whose own checks delete their
// record (meilisearch's documents under an index, lago's alerts under a
// subscription), items whose id is in their path only, with no field to
// hold it (meilisearch's keys, lago's entitlements), a list whose offset
// and limit are required, one whose filter is (lago's wallets by
// customer), and a page size whose minimum is 0.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/internal/race"
	"github.com/petctl/petctl/spec"
)

const shapesDocument = `openapi: 3.1.0
info: {title: Shapes, version: "1"}
servers: [{url: /v1}]
security: [{bearer: []}]
paths:
  /owners:
    get:
      operationId: listOwners
      responses:
        '200':
          description: The owners.
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Owner'}}
    post:
      operationId: createOwner
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Owner'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Owner'}
        '400': {$ref: '#/components/responses/Error'}
  /owners/{ownerId}:
    parameters:
      - {name: ownerId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getOwner
      responses:
        '200':
          description: The owner.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Owner'}
        '404': {$ref: '#/components/responses/Error'}
    delete:
      operationId: deleteOwner
      responses:
        '204': {description: Deleted.}
        '404': {$ref: '#/components/responses/Error'}
  /owners/{ownerId}/pets:
    parameters:
      - {name: ownerId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: listPets
      parameters:
        - {name: name, in: query, required: true, schema: {type: string}}
      responses:
        '200':
          description: The owner's pets.
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
        '404': {$ref: '#/components/responses/Error'}
    post:
      operationId: createPet
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
        '400': {$ref: '#/components/responses/Error'}
        '404': {$ref: '#/components/responses/Error'}
  /owners/{ownerId}/pets/{petId}:
    parameters:
      - {name: ownerId, in: path, required: true, schema: {type: integer}}
      - {name: petId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getPet
      responses:
        '200':
          description: The pet.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
        '404': {$ref: '#/components/responses/Error'}
    delete:
      operationId: deletePet
      responses:
        '204': {description: Deleted.}
        '404': {$ref: '#/components/responses/Error'}
  /keys:
    get:
      operationId: listKeys
      parameters:
        - {name: offset, in: query, required: true, schema: {type: integer, minimum: 0, default: 0}}
        - {name: limit, in: query, required: true, schema: {type: integer, minimum: 0, default: 20}}
      responses:
        '200':
          description: A page of keys.
          content:
            application/json:
              schema:
                type: object
                required: [results, offset, limit, total]
                properties:
                  results: {type: array, items: {$ref: '#/components/schemas/Key'}}
                  offset: {type: integer}
                  limit: {type: integer}
                  total: {type: integer}
        '400': {$ref: '#/components/responses/Error'}
    post:
      operationId: createKey
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Key'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Key'}
        '400': {$ref: '#/components/responses/Error'}
  /keys/{uidOrKey}:
    parameters:
      - {name: uidOrKey, in: path, required: true, schema: {type: string}}
    get:
      operationId: getKey
      responses:
        '200':
          description: The key.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Key'}
        '404': {$ref: '#/components/responses/Error'}
    patch:
      operationId: patchKey
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema:
              type: object
              properties:
                description: {type: string}
      responses:
        '200':
          description: Patched.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Key'}
        '400': {$ref: '#/components/responses/Error'}
        '404': {$ref: '#/components/responses/Error'}
    delete:
      operationId: deleteKey
      responses:
        '204': {description: Deleted.}
        '404': {$ref: '#/components/responses/Error'}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  responses:
    Error:
      description: An error.
      content:
        application/json:
          schema:
            type: object
            required: [code, message, status]
            properties:
              code: {type: string}
              message: {type: string}
              status: {type: integer}
  schemas:
    Owner:
      type: object
      required: [id, name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, maxLength: 60}
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string, maxLength: 60}
        ownerId: {type: integer, readOnly: true}
    Key:
      type: object
      required: [name, key, createdAt]
      properties:
        name: {type: string, maxLength: 60}
        description: {type: string, maxLength: 60}
        key: {type: string, readOnly: true}
        createdAt: {type: string, format: date-time, readOnly: true}
`

// conformShapes runs every check against petctl serve for the shapes
// document, its answers changed by wrap (nil for none).
func conformShapes(t *testing.T, wrap func(http.Handler) http.Handler) outcome {
	t.Helper()
	load := func() *spec.Spec {
		s, err := spec.Parse([]byte(shapesDocument), "shapes.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	srv, err := engine.New(engine.Options{Spec: load(), Keys: []string{testKey}})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	return conform(t, serveRaw(t, h)+"/v1", func(c *conformance.Config) {
		c.Spec, c.Validator, c.Bearer = load(), nil, testKey
	})
}

// TestShapesAgainstServe: every check passes against petctl serve, and the
// whole life of a record is followed for each resource, the nested one
// under an owner of its own that no other check deletes, the keys by
// their content, their items having no field for the id.
func TestShapesAgainstServe(t *testing.T) {
	t.Parallel()
	o := conformShapes(t, nil)
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	for _, step := range []string{
		"createPet (POST /owners/{ownerId}/pets) two creates give 201 and two distinct ids",
		"getPet (GET /owners/{ownerId}/pets/{petId}) the created item reads back equal",
		"listPets (GET /owners/{ownerId}/pets) the list contains the created item",
		"deletePet (DELETE /owners/{ownerId}/pets/{petId}) delete of the created item gives 204",
		"listPets (GET /owners/{ownerId}/pets) the list lacks the deleted item",
		"deleteOwner (DELETE /owners/{ownerId}) delete of the created item gives 204",
		"getKey (GET /keys/{uidOrKey}) the created item reads back equal",
		"listKeys (GET /keys) the list contains the created item",
		"getKey (GET /keys/{uidOrKey}) the patched item reads back with the change",
		"listKeys (GET /keys) the list lacks the deleted item",
	} {
		if st, msg := o.state(t, "stateful "+step); st.String() != "passed" {
			t.Errorf("stateful %s: %s %s, want passed", step, st, msg)
		}
	}
	for _, check := range []string{
		"pagination listKeys (GET /keys) limit=1 returns at most 1",
		"pagination listKeys (GET /keys) limit=0, the minimum, is accepted",
	} {
		if st, msg := o.state(t, check); st.String() != "passed" {
			t.Errorf("%s: %s %s, want passed", check, st, msg)
		}
	}
	if v, ok := o.observation("answer to limit=0"); !ok || !strings.HasPrefix(v, "200 with ") {
		t.Errorf("observation of limit=0: %q, %t; want the 200 recorded", v, ok)
	}
}

// TestShapesBroken breaks serve for the shapes document one way at a
// time: each want names exactly one failed check, and nothing else fails.
func TestShapesBroken(t *testing.T) {
	t.Parallel()
	keysPage := func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Path == "/v1/keys" }
	tests := []struct {
		name string
		wrap func(http.Handler) http.Handler
		want []string
	}{
		{
			name: "a key listed without its name",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, keysPage, func(_ *http.Request, res *recorded) {
					editJSON(res, func(v any) any {
						page, _ := v.(map[string]any)
						eachObject(func(it map[string]any) { it["name"] = "renamed" })(page["results"])
						return v
					})
				})
			},
			want: []string{"stateful listKeys (GET /keys) the list contains the created item"},
		},
		{
			name: "a key read back renamed",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, isPrefix(http.MethodGet, "/v1/keys/"), func(_ *http.Request, res *recorded) {
					editJSON(res, eachObject(func(it map[string]any) { it["name"] = "renamed" }))
				})
			},
			want: []string{"stateful getKey (GET /keys/{uidOrKey}) the created item reads back equal"},
		},
		{
			name: "a deleted key stays",
			wrap: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if isPrefix(http.MethodDelete, "/v1/keys/")(r) && r.Header.Get("Authorization") == "Bearer "+testKey {
						w.WriteHeader(http.StatusNoContent)
						return
					}
					h.ServeHTTP(w, r)
				})
			},
			want: []string{"stateful getKey (GET /keys/{uidOrKey}) the deleted item reads back 404", "stateful listKeys (GET /keys) the list lacks the deleted item"},
		},
		{
			name: "limit=1 answers two keys",
			wrap: func(h http.Handler) http.Handler {
				return editRequest(h, func(r *http.Request) bool { return keysPage(r) && r.URL.Query().Get("limit") == "1" }, func(r *http.Request) {
					q := r.URL.Query()
					q.Set("limit", "2")
					r.URL.RawQuery = q.Encode()
				})
			},
			want: []string{"pagination listKeys (GET /keys) limit=1 returns at most 1"},
		},
		{
			name: "limit=0 refused",
			wrap: func(h http.Handler) http.Handler {
				return editResponse(h, func(r *http.Request) bool { return keysPage(r) && r.URL.Query().Get("limit") == "0" }, func(_ *http.Request, res *recorded) {
					res.status, res.body = http.StatusBadRequest, errorBody(http.StatusBadRequest, "validation_failed")
				})
			},
			want: []string{"pagination listKeys (GET /keys) limit=0, the minimum, is accepted"},
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			race.Split(t, i)
			t.Parallel()
			onlyFailed(t, conformShapes(t, tc.wrap), tc.want)
		})
	}
}
