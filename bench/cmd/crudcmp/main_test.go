package main

import (
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestDocumentServesTheMeasuredCRUD holds the document to what crudcmp
// measures: petctl infers each measured request as the store operation
// the target names, not an action answered from the document.
func TestDocumentServesTheMeasuredCRUD(t *testing.T) {
	s, err := spec.Load("../../../" + document)
	if err != nil {
		t.Fatal(err)
	}
	var pets *spec.Resource
	for _, r := range s.Resources {
		if r.Key == "pets" {
			pets = r
		}
	}
	if pets == nil {
		t.Fatalf("no pets resource in %s", document)
	}
	for _, tc := range []struct {
		kind         spec.OpKind
		method, path string
	}{
		{spec.KindReplace, "PUT", "/pets/{petId}"},
		{spec.KindPatch, "PATCH", "/pets/{petId}"},
		{spec.KindDelete, "DELETE", "/pets/{petId}"},
		{spec.KindList, "GET", "/pets"},
	} {
		ro := pets.Op(tc.kind)
		if ro == nil || ro.Op.Method != tc.method || ro.Op.Path != tc.path {
			t.Errorf("%s: got %+v, want %s %s", tc.kind, ro, tc.method, tc.path)
		}
	}
	if got, want := pets.Op(spec.KindPatch).Request.MediaType, "application/merge-patch+json"; got != want {
		t.Errorf("patch takes %q, want %q (crudcmp sends a JSON Merge Patch)", got, want)
	}
}
