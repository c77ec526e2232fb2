package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspect: inspect prints each resource with its id, parent and
// operations, each list's envelope and paging, and why each operation not
// served from the store is not; the configuration's overrides apply, and
// a wrong one is a usage error naming its key.
func TestInspect(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	dir := t.TempDir()
	override := filepath.Join(dir, "override.yaml")
	os.WriteFile(override, []byte("crud:\n  operations:\n    findPetsBySpecies: {kind: action}\n"), 0o600)
	wrong := filepath.Join(dir, "wrong.yaml")
	os.WriteFile(wrong, []byte("crud:\n  operations:\n    listOwners: {limitParam: size}\n"), 0o600)
	crud := "../../fixtures/styles/crud.yaml"
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string
		wantErr  string
		wantNone []string
	}{
		{"the Petstore", []string{"inspect"}, exitOK, []string{
			"/pets\n  id        id: integer (int64), assigned by the server",
			"list      GET /pets  listPets  answers 200 with the items",
			"a bare array; paging limit (size limit), page size 1..100, default 20; filters status",
			"GET     /store/orders  listStoreOrders  unpublished: its interface is not published",
			"3 of 3 CRUD operations served from the store",
		}, "", nil},
		{"every shape", []string{"inspect", "--spec", crud}, exitOK, []string{
			"parent    /owners (must exist), by ownerId; its id in ownerId",
			"patch     PATCH /owners/{ownerId}/pets/{petId}  patchOwnerPet  takes a JSON Patch (RFC 6902, application/json-patch+json)",
			"items in owners, total in meta.total_count",
			"paging cursor (size limit, cursor page_token)",
			"id        code: string matching ^[a-z][a-z0-9_]{2,30}$, chosen by the client (a taken one is 409)",
			"creates the item at its path (201); honours If-Match",
			"search    GET /pets/findBySpecies  findPetsBySpecies",
			"POST    /decisions/{uuid}/publish  publishDecision  action: its path and schemas fit no collection",
			"other operations not served from the store\n  POST    /decisions/{uuid}/publish",
			"25 of 25 CRUD operations served from the store",
		}, "", nil},
		// An operation whose every alternative needs a scheme petctl cannot
		// check answers 501 whatever else it is; one with another
		// alternative does not.
		{"schemes petctl cannot check", []string{"inspect", "--spec", "../../fixtures/styles/security.yaml"}, exitOK, []string{
			"operations answered 501: every security alternative needs a scheme petctl cannot check\n",
			"  GET     /certificate  needsClientCertificate  needs \"mtls\" (mutualTLS",
			"  GET     /digest  needsDigest  needs \"digest\" (http digest",
		}, "", []string{"certificateOrKey  needs", "needsDigest  action"}},
		{"an override", []string{"inspect", "--spec", crud, "--config", override}, exitOK, []string{
			"GET     /pets/findBySpecies  findPetsBySpecies  action: configured as an action",
		}, "", []string{"search    GET /pets/findBySpecies"}},
		{"a wrong override", []string{"inspect", "--spec", crud, "--config", wrong}, exitUsage, nil,
			"crud.operations.listOwners.limitParam: listOwners (GET /owners) has no query parameter \"size\"", nil},
		{"no such document", []string{"inspect", "--spec", filepath.Join(dir, "none.yaml")}, exitUsage, nil, "none.yaml", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the report lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(stdout, w) {
					t.Errorf("the report shows %q:\n%s", w, stdout)
				}
			}
			if !strings.Contains(stderr, tc.wantErr) || tc.wantErr == "" && stderr != "" {
				t.Errorf("stderr %q, want %q", stderr, tc.wantErr)
			}
		})
	}
}
