package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
	bolt "go.etcd.io/bbolt"
)

// petstoreOrigin is the origin of a Petstore store.
func originOf(s *spec.Spec) Origin {
	return Origin{Document: Digest{Name: s.Source, SHA256: s.Digest}, Fixtures: []Digest{{Name: "petstore/pets.json", SHA256: "f"}}}
}

// openState opens a state file and attaches it to d's store.
func openState(t *testing.T, d *testDoc, path string, fresh bool) (Journal, []string) {
	t.Helper()
	j, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	notes, err := d.store.Attach(j, originOf(d.spec), fresh)
	if err != nil {
		t.Fatal(err)
	}
	return j, notes
}

func exportOf(t *testing.T, s *Store) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Export(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func createPets(t *testing.T, c *Collection, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc, _ := DecodeStrict(fmt.Appendf(nil, `{"name":"Pet %d","categoryId":%d,"status":"sold"}`, i, 1000+i))
			if _, err := c.Create(doc, Write{Now: time.Now()}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestFileStateKeepsEveryChange(t *testing.T) {
	for _, sync := range SyncModes {
		t.Run(string(sync), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			d := openPetstore(t)
			j, err := OpenFile(path, FileOptions{Sync: sync, Interval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.store.Attach(j, originOf(d.spec), false); err != nil {
				t.Fatal(err)
			}
			createPets(t, d.store.colls["pets"], 64)
			want := exportOf(t, d.store)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}

			again := openPetstore(t)
			openState(t, again, path, false)
			if got := exportOf(t, again.store); got != want {
				t.Errorf("after a restart the store holds\n%.300s\nwant\n%.300s", got, want)
			}
			if got, want := again.store.colls["pets"].Len(), 150+64; got != want {
				t.Errorf("%d pets after a restart, want %d", got, want)
			}
			// The next id follows the stored ones.
			doc, _ := DecodeStrict([]byte(`{"name":"Next","categoryId":1}`))
			rec, err := again.store.colls["pets"].Create(doc, Write{Now: time.Now()})
			if err != nil || rec.ID != "215" {
				t.Errorf("create after a restart = id %q, %v; want 215", rec.ID, err)
			}
		})
	}
}

// TestFileStateNeverReusesAnID: creates leave the next seq to the records
// (a start takes the one after the largest), so a restart after the
// largest was deleted must still not give its id again.
func TestFileStateNeverReusesAnID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	pets := d.store.colls["pets"]
	createPets(t, pets, 3) // ids 151 to 153
	if _, err := pets.Delete(nil, "153", nil); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"154", "155"} { // a restart before each create
		again := openPetstore(t)
		j, _ := openState(t, again, path, false)
		doc, _ := DecodeStrict([]byte(`{"name":"Next","categoryId":1}`))
		rec, err := again.store.colls["pets"].Create(doc, Write{Now: time.Now()})
		if err != nil || rec.ID != want {
			t.Errorf("create after a restart = id %q, %v; want %s", rec.ID, err, want)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFileStateKeepsResetsAndImports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	createPets(t, d.store.colls["pets"], 5)
	fx, err := d.store.Parse([]FixtureFile{{Name: "import.json", Data: []byte(`{"pets":[{"id":7,"name":"Only","categoryId":1}]}`)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.store.Import(fx, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	again := openPetstore(t)
	j, _ = openState(t, again, path, false)
	if got := exportOf(t, again.store); !strings.Contains(got, `"name":"Only"`) || again.store.colls["pets"].Len() != 1 {
		t.Fatalf("after an import and a restart the store holds %.200s, want the one imported pet", got)
	}
	if err := again.store.Reset(); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	third := openPetstore(t)
	openState(t, third, path, false)
	if got, want := exportOf(t, third.store), exportOf(t, openPetstore(t).store); got != want {
		t.Errorf("after a reset and a restart the store is not the fixtures")
	}
}

func TestFileStateKeepsStringIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openLibrary(t)
	j, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.store.Attach(j, originOf(d.spec), false); err != nil {
		t.Fatal(err)
	}
	books := d.store.colls["books"]
	doc, _ := DecodeStrict([]byte(`{"title":"New","author":"A","genre":"fiction","year":2001}`))
	rec, err := books.Create(doc, Write{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	want := exportOf(t, d.store)
	_ = j.Close()
	again := openLibrary(t)
	openState(t, again, path, false)
	if got := exportOf(t, again.store); got != want {
		t.Errorf("after a restart the library holds\n%.300s\nwant\n%.300s", got, want)
	}
	if _, ok := again.store.colls["books"].Get(nil, rec.ID); !ok {
		t.Errorf("book %s is not found after a restart", rec.ID)
	}
}

func TestFileStateRefusesWhatIsNotPetctls(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := bolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("widgets")); return err }); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	folder := filepath.Join(dir, "folder")
	_ = os.Mkdir(folder, 0o755)
	tests := []struct {
		name, path, want string
	}{
		{"not a database", garbage, "state " + garbage + " is not a petctl state file, or it is damaged"},
		{"another program's database", foreign, "state " + foreign + ` was not made by petctl (it holds "widgets")`},
		{"a folder", folder, "state " + folder + " is a folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, err := OpenFile(tc.path, FileOptions{})
			if err == nil {
				defer j.Close()
				d := openPetstore(t)
				_, err = d.store.Attach(j, originOf(d.spec), false)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestFileStateInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	j, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, err = OpenFile(path, FileOptions{})
	if want := "is in use by another process"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("opening a state twice: got %v, want %q", err, want)
	}
}

// TestStateUnderAnotherDocument: records a new document refuses are each
// named, and the start is refused; a fresh start drops them; records the
// new document accepts are kept.
func TestStateUnderAnotherDocument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	createPets(t, d.store.colls["pets"], 3) // status sold
	_ = j.Close()

	// The created pets have categories from 1000; the fixtures' are below 10.
	small := strings.Replace(string(spec.DefaultDocument()), `          description: ID of the category the animal belongs to.
        status:
          $ref: '#/components/schemas/PetStatus'
    Pets:`, `          description: ID of the category the animal belongs to.
          maximum: 999
        status:
          $ref: '#/components/schemas/PetStatus'
    Pets:`, 1)
	s, err := spec.Parse([]byte(small), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d2 := openDoc(t, s, "petstore/pets.json")
	j2, err := OpenFile(path, FileOptions{})
	if err == nil {
		_, err = d2.store.Attach(j2, originOf(s), false)
	}
	var se *StateError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *StateError", err)
	}
	msg := err.Error()
	for _, want := range []string{"state " + path + ": pets[150] (id 151): field 'categoryId'", "pets[152] (id 153):", "--state-reset", "was made with embedded petstore.yaml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	// Refused, the state is as it was.
	if _, err := d2.store.Attach(j2, originOf(s), true); err != nil {
		t.Fatal(err)
	}
	_ = j2.Close()
	d3 := openDoc(t, s, "petstore/pets.json")
	openState(t, d3, path, false)
	if got := d3.store.colls["pets"].Len(); got != 150 {
		t.Errorf("a fresh start holds %d pets, want the 150 fixtures", got)
	}

	// A document the records fit: they are kept.
	path2 := filepath.Join(t.TempDir(), "state")
	d4 := openPetstore(t)
	j4, _ := openState(t, d4, path2, false)
	createPets(t, d4.store.colls["pets"], 2)
	_ = j4.Close()
	renamed := strings.Replace(string(spec.DefaultDocument()), "The animal's name.", "What the animal is called.", -1)
	s5, err := spec.Parse([]byte(renamed), "renamed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d5 := openDoc(t, s5, "petstore/pets.json")
	openState(t, d5, path2, false)
	if got := d5.store.colls["pets"].Len(); got != 152 {
		t.Errorf("under a document the records fit, %d pets, want 152", got)
	}
}

// TestFileStateReadsAfterDroppingPages: the pages a load lets go of
// (dropPages, between any two records) are read again from the file, the
// same bytes, and the store's own memory is left alone.
func TestFileStateReadsAfterDroppingPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	createPets(t, d.store.colls["pets"], 64)
	want := exportOf(t, d.store)
	fj := j.(*fileJournal)
	read := func(drop bool) [][]byte {
		t.Helper()
		var out [][]byte
		if _, _, err := fj.load("pets", func(_ int64, v []byte) error {
			out = append(out, bytes.Clone(v))
			if drop {
				dropPages(fj.db, fj.path)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	kept, again := read(false), read(true)
	if len(kept) != 150+64 || len(again) != len(kept) {
		t.Fatalf("%d records read, then %d with pages dropped; want %d", len(kept), len(again), 150+64)
	}
	for i := range kept {
		if !bytes.Equal(again[i], kept[i]) {
			t.Fatalf("record %d read with pages dropped is %q, want %q", i, again[i], kept[i])
		}
	}
	if got := exportOf(t, d.store); got != want {
		t.Errorf("after the pages were dropped the store holds\n%.300s\nwant\n%.300s", got, want)
	}
}

// stringIDPetstore is the Petstore with string pet ids: the records a
// state of the integer-id Petstore holds are stored in another layout
// (encodeValue writes a string id before the JSON), and do not fit it.
func stringIDPetstore(t *testing.T) *spec.Spec {
	t.Helper()
	doc := strings.Replace(string(spec.DefaultDocument()), "        id:\n          type: integer\n          format: int64\n          description: Unique identifier assigned on creation.",
		"        id:\n          type: string\n          description: Unique identifier assigned on creation.", 1)
	doc = strings.ReplaceAll(doc, "          description: ID of the animal.\n          schema:\n            type: integer\n            format: int64",
		"          description: ID of the animal.\n          schema:\n            type: string")
	s, err := spec.Parse([]byte(doc), "string-ids.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Resources[0].ID.Type != "string" {
		t.Fatalf("the pets' ids are %s, want string", s.Resources[0].ID.Type)
	}
	return s
}

// TestStateInAnotherLayout: records stored in another layout than the one
// the served document gives their collection (its ids turned from
// integers to strings: another document, or the same one read otherwise
// by another petctl) are read as they were stored and each checked
// against the document, never taken for damage nor misread.
func TestStateInAnotherLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	createPets(t, d.store.colls["pets"], 2)
	_ = j.Close()
	s := stringIDPetstore(t)
	petstore := originOf(d.spec)
	for _, tc := range []struct {
		name   string
		origin Origin
		why    string
	}{
		{"another document", originOf(s), "was made with embedded petstore.yaml (sha256 2f7761f23c9a), and the records above do not fit string-ids.yaml"},
		{"the same document, read otherwise", petstore, "was made with embedded petstore.yaml by a petctl that reads it otherwise"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := OpenFile(path, FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			_, err = newDoc(t, s).store.Attach(j, tc.origin, false)
			if err == nil {
				t.Fatal("the integer-id records were taken by a store of string ids")
			}
			msg := err.Error()
			if strings.Contains(msg, "damaged") {
				t.Errorf("records stored in another layout are called damaged:\n%.600s", msg)
			}
			// The first MaxFixtureProblems named, and how many more.
			for _, want := range []string{"pets[0] (id 1): field 'id': got number, want string", "pets[19] (id 20): field 'id'", "pets: 132 more bad records", tc.why, "--state-reset"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal does not say %q:\n%s", want, msg)
				}
			}
		})
	}
	// The state is as it was: the Petstore takes it whole.
	again := openPetstore(t)
	openState(t, again, path, false)
	if got := again.store.colls["pets"].Len(); got != 152 {
		t.Errorf("after the refusals the Petstore holds %d pets, want 152", got)
	}
}

// TestStateOfAnotherLayoutVersion: a state written in a layout this
// petctl does not read (by a newer or older petctl) is refused, naming
// both layouts; --state-reset, which the refusal suggests, starts it
// afresh from the fixtures.
func TestStateOfAnotherLayoutVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	createPets(t, d.store.colls["pets"], 2)
	fj := j.(*fileJournal)
	if err := fj.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(metaBucket)
		meta := strings.Replace(string(b.Get(metaKey)), fmt.Sprintf(`"version":%d`, stateVersion), `"version":99`, 1)
		return b.Put(metaKey, []byte(meta))
	}); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()

	j, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, err = openPetstore(t).store.Attach(j, originOf(d.spec), false)
	if want := fmt.Sprintf("has petctl's state layout 99, and this petctl reads layout %d", stateVersion); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a state of layout 99: got %v, want %q", err, want)
	}
	fresh := openPetstore(t)
	if _, err := fresh.store.Attach(j, originOf(d.spec), true); err != nil {
		t.Fatalf("--state-reset over a state of layout 99: %v", err)
	}
	_ = j.Close()
	again := openPetstore(t)
	openState(t, again, path, false)
	if got := again.store.colls["pets"].Len(); got != 150 {
		t.Errorf("after the reset the state holds %d pets, want the 150 fixtures", got)
	}
}

// TestStateRelaidWhenItFits: records stored with other filter fields than
// the ones a petctl that reads the same document otherwise gives their
// collection (here categoryId where status was) are checked, kept, and
// stored again in the served layout: each list filter finds them, at this
// start and the next.
func TestStateRelaidWhenItFits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	createPets(t, d.store.colls["pets"], 2) // categories 1000 and 1001
	_ = j.Close()
	doc := strings.Replace(string(spec.DefaultDocument()), `        - name: status
          in: query
          required: false
          description: Filter by availability.
          schema:
            $ref: '#/components/schemas/PetStatus'`, `        - name: categoryId
          in: query
          required: false
          description: Filter by category.
          schema:
            type: integer
            format: int64`, 1)
	s, err := spec.Parse([]byte(doc), "by-category.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for start := range 2 {
		byCategory := newDoc(t, s)
		if got := byCategory.store.colls["pets"].filterFields; !slices.Equal(got, []string{"categoryId"}) {
			t.Fatalf("the pets' filter fields are %v, want [categoryId]", got)
		}
		j, err := OpenFile(path, FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := byCategory.store.Attach(j, originOf(d.spec), false); err != nil {
			t.Fatalf("start %d: %v", start, err)
		}
		page := byCategory.store.colls["pets"].Page(Query{Filters: map[string][]string{"categoryId": {"1001"}}, Limit: 10})
		if len(page.Items) != 1 || !strings.Contains(string(page.Items[0]), `"categoryId":1001`) {
			t.Errorf("start %d: the pets of category 1001 are %q, want the one created", start, page.Items)
		}
		_ = j.Close()
	}
}

// TestTakeOverInAnotherLayout: a reload to a document that stores the
// records in another layout (integer ids turned to strings) reads the
// records served until now in theirs, and names each one it refuses.
func TestTakeOverInAnotherLayout(t *testing.T) {
	old := openPetstore(t)
	old.store.Freeze()
	defer old.store.Thaw()
	err := newDoc(t, stringIDPetstore(t)).store.TakeOver(old.store, false)
	if err == nil {
		t.Fatal("the integer-id records were taken by a store of string ids")
	}
	if msg := err.Error(); strings.Contains(msg, "damaged") || !strings.Contains(msg, "the records served until now: pets[0] (id 1): field 'id': got number, want string") {
		t.Errorf("the refusal does not name each record:\n%s", msg)
	}
}

// damagePages overwrites every page of the state file at path that bbolt
// reports as of type kind ("leaf", "freelist") with bytes no page holds.
func damagePages(t *testing.T, path, kind string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	size := db.Info().PageSize
	var ids []int
	if err := db.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			p, err := tx.Page(id)
			if err != nil || p == nil {
				return err
			}
			if p.Type == kind {
				ids = append(ids, id)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if len(ids) == 0 {
		t.Fatalf("the state has no %s page", kind)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, id := range ids {
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, size), int64(id*size)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFileStateDamaged: a state file whose pages are damaged (its records
// or its freelist) stops the start with an error naming it, never a
// panic; started afresh (--state-reset, as the error says), it is replaced
// by a new file that holds the fixtures.
func TestFileStateDamaged(t *testing.T) {
	for _, kind := range []string{"leaf", "freelist"} {
		t.Run(kind, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			d := openPetstore(t)
			j, _ := openState(t, d, path, false)
			createPets(t, d.store.colls["pets"], 64)
			_ = j.Close()
			damagePages(t, path, kind)
			// A copy to start afresh from, as a later petctl does: a panic
			// of bbolt opening the first leaves it locked by this process.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copied := filepath.Join(t.TempDir(), "state")
			if err := os.WriteFile(copied, data, 0o600); err != nil {
				t.Fatal(err)
			}

			attach := func(path string, fresh bool) error {
				j, err := OpenFile(path, FileOptions{Fresh: fresh})
				if err != nil {
					return err
				}
				defer j.Close()
				_, err = openPetstore(t).store.Attach(j, originOf(d.spec), fresh)
				return err
			}
			err = attach(path, false)
			if want := "state " + path + " is damaged"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--state-reset") {
				t.Fatalf("a state with damaged %s pages: %v, want %q and --state-reset", kind, err, want)
			}
			if err := attach(copied, true); err != nil {
				t.Fatalf("started afresh: %v", err)
			}
			again := openPetstore(t)
			openState(t, again, copied, false)
			if got := again.store.colls["pets"].Len(); got != 150 {
				t.Errorf("after starting afresh the state holds %d pets, want the 150 fixtures", got)
			}
		})
	}
}

// TestFileStateCutShort: a state file cut short (a copy that stopped, a
// disk that filled while it was copied), at any page, stops the start with
// an error naming it as damaged, or, cut only where no page is used, serves
// every record it held: never the end of the process, which bbolt reading
// a page past the end of its memory map would be (SIGBUS).
func TestFileStateCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d := openPetstore(t)
	j, _ := openState(t, d, path, false)
	for range 4 { // commits enough to spread records, branches and freelist over the file
		createPets(t, d.store.colls["pets"], 100)
	}
	want := exportOf(t, d.store)
	_ = j.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096 // bbolt's page on Linux, the smallest elsewhere
	dir := t.TempDir()
	damaged, served := 0, 0
	for size := 2 * page; size < len(data); size += page / 2 {
		// A file of its own each: one that bbolt refused as it opened it
		// stays locked by this process (openBolt).
		cut := filepath.Join(dir, fmt.Sprint(size))
		if err := os.WriteFile(cut, data[:size], 0o600); err != nil {
			t.Fatal(err)
		}
		j, err := OpenFile(cut, FileOptions{})
		if err == nil {
			again := openPetstore(t)
			_, err = again.store.Attach(j, originOf(d.spec), false)
			if err == nil && exportOf(t, again.store) != want {
				t.Fatalf("cut to %d of %d bytes, the state serves other records than it held", size, len(data))
			}
			_ = j.Close()
		}
		switch {
		case err == nil:
			served++
		case strings.Contains(err.Error(), "state "+cut+" is damaged"):
			damaged++
		default:
			t.Fatalf("cut to %d of %d bytes: %v, want it named as damaged", size, len(data), err)
		}
	}
	if damaged == 0 {
		t.Errorf("no cut of the %d-byte state was refused as damaged", len(data))
	}
	t.Logf("%d cuts refused as damaged, %d served whole", damaged, served)
}
