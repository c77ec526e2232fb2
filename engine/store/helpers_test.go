package store

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
)

// testDoc is a document's collections in a store, held to their item
// schemas as the engine holds them, and seeded with the document's fixtures.
type testDoc struct {
	spec  *spec.Spec
	val   *spec.Validator
	store *Store
}

func openDoc(t testing.TB, s *spec.Spec, fixture string) *testDoc {
	t.Helper()
	d := newDoc(t, s)
	data, err := fs.ReadFile(fixtures.Files, fixture)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := d.store.Parse([]FixtureFile{{Name: fixture, Data: data}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if errs := d.store.Load(fx, time.Now()); len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	return d
}

// newDoc is a document's collections in a store, held to their item
// schemas as the engine holds them, and empty.
func newDoc(t testing.TB, s *spec.Spec) *testDoc {
	t.Helper()
	val, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	var colls []*Collection
	for _, def := range s.Resources {
		compiled, err := val.CompileRecordSchema(def.Item)
		if err != nil {
			t.Fatal(err)
		}
		describe := func(raw []byte, compiled error) error {
			if ps := val.Record(def.Item, raw); len(ps) > 0 {
				return ps
			}
			return compiled
		}
		colls = append(colls, NewCollection(def, Check{Compiled: compiled, Describe: describe}, Limits{}))
	}
	return &testDoc{spec: s, val: val, store: New(colls...)}
}

// openPetstore is the embedded Petstore with its fixtures.
func openPetstore(t testing.TB) *testDoc {
	t.Helper()
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	return openDoc(t, s, "petstore/pets.json")
}

// openLibrary is the second document, fixtures/library, with its fixtures.
func openLibrary(t testing.TB) *testDoc {
	t.Helper()
	data, err := fs.ReadFile(fixtures.Files, "library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse(data, "library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return openDoc(t, s, "library/books.json")
}

// joinArray is the JSON array of already-encoded items, as a list answer
// is written.
func joinArray(items [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(items, []byte{','})...), ']')
}
