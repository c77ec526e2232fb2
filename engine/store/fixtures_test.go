package store

import (
	"errors"
	"fmt"
	"strings"
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

// TestCanonicalRecordsStayInTheirFile: a record already in its canonical
// form in its file is kept there, not copied, when such records are most
// of the file; otherwise every record is copied and the file not kept.
// (The test changes the file's bytes after the load, which a caller must
// not do, to see which records share them.)
func TestCanonicalRecordsStayInTheirFile(t *testing.T) {
	canonical := func(i int) string { return fmt.Sprintf(`{"id":%d,"name":"Rex","categoryId":2}`, i) }
	loose := func(i int) string { return fmt.Sprintf(`{ "name": "Rex", "id": %d, "categoryId": 2 }`, i) }
	for _, tc := range []struct {
		name       string
		record     func(i int) string
		wantShared int // of the n records, those that share the file's bytes
	}{
		{"canonical", canonical, 6000},
		{"mostly canonical", func(i int) string {
			if i%10 == 0 {
				return loose(i)
			}
			return canonical(i)
		}, 5400},
		{"mostly loose", func(i int) string {
			if i%10 == 0 {
				return canonical(i)
			}
			return loose(i)
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 6000 // past ParallelFixtures: the workers share the file
			var b strings.Builder
			b.WriteString("[")
			for i := 1; i <= n; i++ {
				if i > 1 {
					b.WriteString(",\n")
				}
				b.WriteString(tc.record(i))
			}
			b.WriteString("]")
			data := []byte(b.String())
			d := newDoc(t, openPetstore(t).spec)
			fx, err := d.store.Parse([]FixtureFile{{Name: "pets.json", Data: data}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if errs := d.store.Load(fx, time.Now()); len(errs) > 0 {
				t.Fatal(errors.Join(errs...))
			}
			before := exportOf(t, d.store)
			for i := range data {
				if data[i] == 'R' {
					data[i] = 'X'
				}
			}
			after := exportOf(t, d.store)
			shared := strings.Count(after, `"Xex"`)
			if shared != tc.wantShared {
				t.Errorf("%d records share the file's bytes, want %d", shared, tc.wantShared)
			}
			if got := strings.Count(before, `"Rex"`); got != n {
				t.Errorf("%d records loaded as written, want %d", got, n)
			}
		})
	}
}
