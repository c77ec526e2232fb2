package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/engine/store/redistest"
)

// openReplica is a Petstore store attached to the Redis at url: one replica.
func openReplica(t *testing.T, url string) *testDoc {
	t.Helper()
	d := openPetstore(t)
	j, err := OpenRedis(url, RedisOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	if _, err := d.store.Attach(j, originOf(d.spec), false); err != nil {
		t.Fatal(err)
	}
	return d
}

func create(t *testing.T, c *Collection, name string) Record {
	t.Helper()
	doc, _ := DecodeStrict(fmt.Appendf(nil, `{"name":%q,"categoryId":1,"status":"sold"}`, name))
	rec, err := c.Create(doc, Write{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestRedisReplicasShareOneStore: a create on one replica is read and
// listed on the other at once; ids follow one counter across replicas;
// reset and import reach every replica.
func TestRedisReplicasShareOneStore(t *testing.T) {
	url := redistest.Start(t)
	a, b := openReplica(t, url), openReplica(t, url)
	pa, pb := a.store.colls["pets"], b.store.colls["pets"]

	rec := create(t, pa, "From A")
	if rec.ID != "151" {
		t.Errorf("the first create has id %s, want 151", rec.ID)
	}
	if got, ok := pb.Get(nil, "151"); !ok || !strings.Contains(string(got.JSON), "From A") {
		t.Errorf("replica B reads 151 as %s, %v; want A's create", got.JSON, ok)
	}
	if items := pb.Page(Query{Filters: map[string][]string{"status": {"sold"}}, Desc: true, Limit: 1}).Items; len(items) != 1 || !strings.Contains(string(items[0]), "From A") {
		t.Errorf("replica B's newest sold pet is %q, want A's create", items)
	}
	if rec := create(t, pb, "From B"); rec.ID != "152" {
		t.Errorf("B's create after A's has id %s, want 152", rec.ID)
	}

	fx, err := a.store.Parse([]FixtureFile{{Name: "import.json", Data: []byte(`{"pets":[{"id":5,"name":"Imported","categoryId":1}]}`)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.Import(fx, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if got := pb.Len(); got != 1 {
		t.Errorf("after A's import B holds %d pets, want 1", got)
	}
	if rec := create(t, pb, "After import"); rec.ID != "6" {
		t.Errorf("after the import B creates id %s, want 6", rec.ID)
	}
	if err := b.store.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := pa.Len(); got != 150 {
		t.Errorf("after B's reset A holds %d pets, want the 150 fixtures", got)
	}

	// A third replica, started now, takes what Redis holds.
	create(t, pa, "Late")
	c := openReplica(t, url)
	if got, want := exportOf(t, c.store), exportOf(t, a.store); got != want {
		t.Errorf("a replica started later holds another store")
	}
}

// createConcurrently creates perGoroutine pets from each of goroutines
// goroutines on every replica at once, and returns the ids given, each to
// the name of its create; an id given twice is an error.
func createConcurrently(t *testing.T, replicas []*testDoc, goroutines, perGoroutine int) map[string]string {
	t.Helper()
	var mu sync.Mutex
	ids := map[string]string{}
	var wg sync.WaitGroup
	for r, d := range replicas {
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perGoroutine {
					name := fmt.Sprintf("r%d-g%d-%d", r, g, i)
					rec := create(t, d.store.colls["pets"], name)
					mu.Lock()
					if prev, dup := ids[rec.ID]; dup {
						t.Errorf("id %s given to %s and %s", rec.ID, prev, name)
					}
					ids[rec.ID] = name
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	return ids
}

// TestRedisConcurrentCreates: creates from two replicas at once, many
// each: none lost, ids unique, both replicas list the same records.
func TestRedisConcurrentCreates(t *testing.T) {
	url := redistest.Start(t)
	replicas := []*testDoc{openReplica(t, url), openReplica(t, url)}
	const each = 40
	ids := createConcurrently(t, replicas, 4, each/4)
	if got, want := len(ids), 2*each; got != want {
		t.Errorf("%d ids, want %d", got, want)
	}
	ea, eb := exportOf(t, replicas[0].store), exportOf(t, replicas[1].store)
	if ea != eb {
		t.Errorf("the replicas list different records")
	}
	for id, name := range ids {
		if !strings.Contains(ea, fmt.Sprintf(`"id":%s,"name":%q`, id, name)) {
			t.Errorf("pet %s (%s) is not in the store", id, name)
		}
	}
}

func TestRedisUnreachable(t *testing.T) {
	_, err := OpenRedis("redis://127.0.0.1:1/0", RedisOptions{Timeout: 200 * time.Millisecond})
	if want := "redis 127.0.0.1:1/0 cannot be reached"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	_, err = OpenRedis("redis://user:secret@127.0.0.1:1/0", RedisOptions{Timeout: 200 * time.Millisecond})
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("the error %v shows the password", err)
	}
}

// rename replaces the pet with id under its name, as a PUT does.
func rename(c *Collection, id, name string) (Record, error) {
	rec, _, err := c.Put(Write{ID: id, Now: time.Now()}, false, func(*Record) (any, error) {
		return DecodeStrict(fmt.Appendf(nil, `{"name":%q,"categoryId":1}`, name))
	})
	return rec, err
}

// TestRedisReplicasShareReplacesAndDeletes: replaces from two replicas
// at once on the same records all land, each replica then reads the same
// store; a delete on one is gone on the other, from reads, lists and
// counts.
func TestRedisReplicasShareReplacesAndDeletes(t *testing.T) {
	url := redistest.Start(t)
	a, b := openReplica(t, url), openReplica(t, url)
	pa, pb := a.store.colls["pets"], b.store.colls["pets"]
	var wg sync.WaitGroup
	for r, c := range []*Collection{pa, pb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if _, err := rename(c, fmt.Sprint(1+i%5), fmt.Sprintf("R%d-%d", r, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got, want := exportOf(t, b.store), exportOf(t, a.store); got != want {
		t.Errorf("after concurrent replaces the replicas differ")
	}
	if _, err := pb.Delete(nil, "2", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := pa.Get(nil, "2"); ok {
		t.Error("replica A still reads pet 2, deleted on B")
	}
	if got := pa.Len(); got != 149 {
		t.Errorf("replica A counts %d pets, want 149", got)
	}
	if _, err := pa.Delete(nil, "2", nil); err != ErrNotFound {
		t.Errorf("a second delete on A = %v, want ErrNotFound", err)
	}
	if _, err := rename(pa, "2", "Back"); err != ErrNotFound {
		t.Errorf("a replace of the deleted pet on A = %v, want ErrNotFound", err)
	}
}

// TestApplyLoggedInPlace: another replica's replace and delete are
// applied to the table in place, without reading the collection whole;
// one this copy cannot place asks for a reload.
func TestApplyLoggedInPlace(t *testing.T) {
	d := openPetstore(t)
	c := d.store.colls["pets"]
	doc, _ := DecodeStrict([]byte(`{"id":1,"name":"Elsewhere","categoryId":1,"status":"sold"}`))
	b, err := c.build(doc, 1, fromFixture, Write{Now: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	val := string(encodeValue(nil, c, &b.entry))
	c.table.mu.Lock()
	tests := []struct {
		name string
		v    map[string]any
		want bool
	}{
		{"a replace", map[string]any{"op": "put", "seq": "1", "val": val}, true},
		{"the same again", map[string]any{"op": "put", "seq": "1", "val": val}, true},
		{"a delete", map[string]any{"op": "del", "seq": "2"}, true},
		{"a delete of a deleted record", map[string]any{"op": "del", "seq": "2"}, false},
		{"a delete of an unknown record", map[string]any{"op": "del", "seq": "999"}, false},
		{"a reload", map[string]any{"op": "reload"}, false},
	}
	for _, tt := range tests {
		if got := c.applyLogged(tt.v); got != tt.want {
			t.Errorf("%s: applied = %v, want %v", tt.name, got, tt.want)
		}
	}
	c.table.mu.Unlock()
	if rec, ok := c.Get(nil, "1"); !ok || !strings.Contains(string(rec.JSON), "Elsewhere") {
		t.Errorf("pet 1 reads %s, want the replace", rec.JSON)
	}
	if items := c.Page(Query{Filters: map[string][]string{"status": {"sold"}}, Limit: 1}).Items; len(items) != 1 || !strings.Contains(string(items[0]), "Elsewhere") {
		t.Errorf("the first sold pet is %q, want the replaced pet 1: the status index lacks it", items)
	}
	if _, ok := c.Get(nil, "2"); ok || c.Len() != 149 {
		t.Errorf("pet 2 is still there (len %d)", c.Len())
	}
}

// replicasThenKill starts a redis-server (persistent or not) and two
// replicas with a short time-out for each exchange; A creates pet 151, B
// reads it, and Redis is killed.
func replicasThenKill(t *testing.T, persistent bool) (srv *redistest.Server, a, b *testDoc) {
	t.Helper()
	srv = redistest.StartServer(t, persistent)
	var replicas []*testDoc
	for range 2 {
		d := openPetstore(t)
		j, err := OpenRedis(srv.URL, RedisOptions{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = j.Close() })
		if _, err := d.store.Attach(j, originOf(d.spec), false); err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, d)
	}
	a, b = replicas[0], replicas[1]
	create(t, a.store.colls["pets"], "Before")
	if _, ok := b.store.colls["pets"].Get(nil, "151"); !ok {
		t.Fatal("B does not read A's create")
	}
	srv.Kill()
	return srv, a, b
}

// unavailable says whether err is a change refused because its journal
// could not take it: what the engine answers 503 store_unavailable, and
// names its journal once.
func unavailable(t *testing.T, what string, err error) {
	t.Helper()
	var je *JournalError
	if !errors.As(err, &je) {
		t.Errorf("%s: %v (%T), want a *JournalError", what, err, err)
		return
	}
	if msg := err.Error(); strings.Count(msg, je.Journal) != 1 {
		t.Errorf("%s: %q names %s %d times, want once", what, msg, je.Journal, strings.Count(msg, je.Journal))
	}
}

// TestRedisGoneAndBack: while Redis is away every change (a create, a
// replace, a delete, a reset) is refused as the journal's, and reads
// answer from the replica's own copy; once it is back with what it held,
// both replicas go on where they were: nothing lost, ids following on.
func TestRedisGoneAndBack(t *testing.T) {
	srv, a, b := replicasThenKill(t, true)
	pa, pb := a.store.colls["pets"], b.store.colls["pets"]

	doc, _ := DecodeStrict([]byte(`{"name":"Away","categoryId":1}`))
	_, err := pa.Create(doc, Write{Now: time.Now()})
	unavailable(t, "a create while Redis is away", err)
	_, err = rename(pb, "151", "Away")
	unavailable(t, "a replace while Redis is away", err)
	_, err = pb.Delete(nil, "1", nil)
	unavailable(t, "a delete while Redis is away", err)
	unavailable(t, "a reset while Redis is away", a.store.Reset())
	if rec, ok := pb.Get(nil, "151"); !ok || !strings.Contains(string(rec.JSON), "Before") {
		t.Errorf("B reads pet 151 as %s, %v while Redis is away; want its own copy", rec.JSON, ok)
	}
	if Health(b.store.journal) == nil {
		t.Error("B's health says nothing while Redis is away")
	}

	srv.Restart()
	if rec := create(t, pb, "After"); rec.ID != "152" {
		t.Errorf("the first create after Redis came back has id %s, want 152", rec.ID)
	}
	if rec, ok := pa.Get(nil, "152"); !ok || !strings.Contains(string(rec.JSON), "After") {
		t.Errorf("A reads 152 as %s, %v; want B's create", rec.JSON, ok)
	}
	if got, want := exportOf(t, a.store), exportOf(t, b.store); got != want || pa.Len() != 152 {
		t.Errorf("after Redis came back A holds %d pets, and the replicas differ: %v", pa.Len(), got != want)
	}
	if err := Health(a.store.journal); err != nil {
		t.Errorf("A's health after Redis came back: %v", err)
	}
}

// TestRedisComesBackEmpty: a Redis restarted without its data (no
// persistence, or flushed) no longer holds the store the replicas served.
// They do not take the empty one for it: reads answer from their own
// copy, every change is refused, naming why, and health says so, until
// petctl is restarted.
func TestRedisComesBackEmpty(t *testing.T) {
	srv, a, b := replicasThenKill(t, false)
	pa, pb := a.store.colls["pets"], b.store.colls["pets"]
	srv.Restart()

	if got := pb.Len(); got != 151 {
		t.Errorf("B holds %d pets after Redis came back empty, want its own 151", got)
	}
	if rec, ok := pb.Get(nil, "151"); !ok || !strings.Contains(string(rec.JSON), "Before") {
		t.Errorf("B reads pet 151 as %s, %v; want its own copy", rec.JSON, ok)
	}
	doc, _ := DecodeStrict([]byte(`{"name":"Into the void","categoryId":1}`))
	_, err := pa.Create(doc, Write{Now: time.Now()})
	unavailable(t, "a create on the emptied Redis", err)
	if err == nil || !strings.Contains(err.Error(), "no longer holds the store") {
		t.Errorf("a create on A after Redis came back empty: %v, want it refused, saying why", err)
	}
	_, err = rename(pb, "1", "Into the void")
	unavailable(t, "a replace on the emptied Redis", err)
	if err := Health(b.store.journal); err == nil || !strings.Contains(err.Error(), "no longer holds the store") {
		t.Errorf("B's health after Redis came back empty: %v", err)
	}
}
