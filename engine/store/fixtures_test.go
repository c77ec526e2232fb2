package store

import (
	"errors"
	"testing"
	"time"
)

// TestFixtureErrorsAreStructured: a caller reads where a bad record is, and
// why, from the error's fields, never from its wording; the wording stays
// what users have always read.
func TestFixtureErrorsAreStructured(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		want     error // the first problem, as a *RecordError, *DuplicateError or *FileError
		wantText string
	}{
		{"refused by the item schema", `[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1,"status":"adopted"}]`,
			&RecordError{Place: Place{File: "pets.json", Collection: "pets", Index: 1}, ID: "2"}, "fixtures pets.json: pets[1] (id 2): "},
		{"not an object", `[1]`,
			&RecordError{Place: Place{File: "pets.json", Collection: "pets", Index: 0}}, "fixtures pets.json: pets[0]: want a JSON object"},
		{"malformed record", `[{"id":1,"name":"a","categoryId":1} {"id":2}]`,
			&RecordError{Place: Place{File: "pets.json", Collection: "pets", Index: 0}}, "fixtures pets.json: pets[0]: malformed JSON at byte 37: ',' or ']' expected after a record, found '{'"},
		{"duplicate id", `[{"id":1,"name":"a","categoryId":1},{"id":1,"name":"b","categoryId":1}]`,
			&DuplicateError{Place: Place{File: "pets.json", Collection: "pets", Index: 1}, ID: "1", First: Place{File: "pets.json", Collection: "pets", Index: 0}},
			"fixtures pets.json: pets[1]: id 1 is already used by fixtures pets.json: pets[0]"},
		{"not an array", `"pets"`,
			&FileError{File: "pets.json"}, "fixtures pets.json: want an array of records, or an object that maps collection names to arrays"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := openPetstore(t)
			fx, err := d.store.Parse([]FixtureFile{{Name: "pets.json", Data: []byte(tc.data)}}, nil)
			if err == nil {
				errs := d.store.Load(fx, time.Now())
				if len(errs) != 1 {
					t.Fatalf("got %d collection errors %v, want 1", len(errs), errs)
				}
				err = errs[0]
			}
			if err == nil {
				t.Fatal("the fixtures were accepted")
			}
			if got := err.Error(); len(got) < len(tc.wantText) || got[:len(tc.wantText)] != tc.wantText {
				t.Errorf("text %q, want it to start %q", got, tc.wantText)
			}
			switch want := tc.want.(type) {
			case *RecordError:
				var got *RecordError
				if !errors.As(err, &got) {
					t.Fatalf("got %T %v, want a *RecordError", err, err)
				}
				if got.Place != want.Place || got.ID != want.ID || got.Err == nil {
					t.Errorf("got %#v, want %#v and a reason", *got, *want)
				}
			case *DuplicateError:
				var got *DuplicateError
				if !errors.As(err, &got) {
					t.Fatalf("got %T %v, want a *DuplicateError", err, err)
				}
				if *got != *want {
					t.Errorf("got %#v, want %#v", *got, *want)
				}
			case *FileError:
				var got *FileError
				if !errors.As(err, &got) {
					t.Fatalf("got %T %v, want a *FileError", err, err)
				}
				if got.File != want.File || got.Err == nil {
					t.Errorf("got %#v, want file %s and a reason", *got, want.File)
				}
			}
		})
	}
}
