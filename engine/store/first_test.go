package store

import (
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// settingsDoc is fixtures/styles/settings.yaml's collections, empty.
func settingsDoc(t *testing.T) *testDoc {
	t.Helper()
	s, err := spec.Load("../../fixtures/styles/settings.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return newDoc(t, s)
}

// TestFirstMadeOnce: callers of First on an empty collection at the same
// moment get one record between them, however long making its value
// takes: the look and the create are one change under the lock.
func TestFirstMadeOnce(t *testing.T) {
	c := settingsDoc(t).store.colls["ui"]
	const n = 16
	var (
		start   sync.WaitGroup
		done    sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
	)
	start.Add(1)
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			rec, made, err := c.First(Write{Now: time.Now()}, func() any {
				time.Sleep(2 * time.Millisecond) // the others arrive meanwhile
				return map[string]any{"theme": "dark"}
			})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ids[rec.ID]++
			if made {
				created++
			}
		}()
	}
	start.Done()
	done.Wait()
	if len(ids) != 1 || created != 1 || c.Len() != 1 {
		t.Fatalf("%d callers got the records %v, %d of them made one, the collection holds %d; want one record, made once", n, ids, created, c.Len())
	}
}

// TestFirstSkipsDeletedAndKeepsScopes: First answers the first live record
// of its scope: past a deleted one, never another parent's, and makes one
// where the scope has none.
func TestFirstSkipsDeletedAndKeepsScopes(t *testing.T) {
	c := settingsDoc(t).store.colls["preferences"]
	now := time.Now()
	value := func(lang string) func() any {
		return func() any { return map[string]any{"newsletter": false, "language": lang} }
	}
	w := func(owner string) Write { return Write{Scope: []string{owner}, Now: now} }
	a1, made, err := c.First(w("1"), value("en"))
	if err != nil || !made {
		t.Fatalf("first of owner 1: made %v, %v", made, err)
	}
	if _, err := c.Create(map[string]any{"newsletter": true, "language": "nb"}, w("1")); err != nil {
		t.Fatal(err)
	}
	b1, made, err := c.First(w("2"), value("de"))
	if err != nil || !made || b1.ID == a1.ID {
		t.Fatalf("first of owner 2: %s made %v, %v; want a record of its own", b1.ID, made, err)
	}
	again, made, err := c.First(w("1"), value("fr"))
	if err != nil || made || again.ID != a1.ID {
		t.Fatalf("owner 1 again: %s made %v, %v; want %s, not made", again.ID, made, err, a1.ID)
	}
	if _, err := c.Delete([]string{"1"}, a1.ID, nil); err != nil {
		t.Fatal(err)
	}
	next, made, err := c.First(w("1"), value("fr"))
	if err != nil || made || string(next.JSON) == string(a1.JSON) {
		t.Fatalf("owner 1 after the delete: %s %s made %v, %v; want its second record, not made", next.ID, next.JSON, made, err)
	}
	if _, err := c.Delete([]string{"1"}, next.ID, nil); err != nil {
		t.Fatal(err)
	}
	fresh, made, err := c.First(w("1"), value("fr"))
	if err != nil || !made {
		t.Fatalf("owner 1 with none left: %s made %v, %v; want one made", fresh.JSON, made, err)
	}
	if c.Len() != 2 {
		t.Fatalf("the collection holds %d records, want 2 (one per owner)", c.Len())
	}
}
