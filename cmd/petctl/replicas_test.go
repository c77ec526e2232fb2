package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/engine/store/redistest"
)

// startReplicas starts a redis-server (or skips the test without one) and
// three petctl serve args... on it, and returns their base URLs.
func startReplicas(t *testing.T, args ...string) []string {
	t.Helper()
	env := []string{"PETCTL_STORE_BACKEND=redis", "PETCTL_STORE_URL=" + redistest.Start(t)}
	var bases []string
	for range 3 {
		_, base := startPetctlEnv(t, env, args...)
		bases = append(bases, base)
	}
	return bases
}

// TestThreeReplicasOneTruth: three petctl serve processes on one Redis,
// creates and reads through all three at once. Every create answered 201
// is read back at once on another replica, ids are unique, nothing is
// lost, and the three list the same store at the end.
func TestThreeReplicasOneTruth(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	bases := startReplicas(t)
	const writers, each = 6, 25
	var mu sync.Mutex
	acked := map[string]string{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				on := bases[(w+i)%3]
				name := fmt.Sprintf("w%d-%d", w, i)
				code, body := keyed(t, "POST", on+"/pets", fmt.Sprintf(`{"name":%q,"categoryId":%d}`, name, w))
				if code != http.StatusCreated {
					t.Errorf("create on %s: %d %s", on, code, body)
					return
				}
				var pet struct{ ID int64 }
				_ = json.Unmarshal([]byte(body), &pet)
				id := fmt.Sprint(pet.ID)
				mu.Lock()
				if prev, dup := acked[id]; dup {
					t.Errorf("id %s given to %s and %s", id, prev, name)
				}
				acked[id] = name
				mu.Unlock()
				// Read back at once on the next replica.
				other := bases[(w+i+1)%3]
				if code, body := keyed(t, "GET", other+"/pets/"+id, ""); code != http.StatusOK || !strings.Contains(body, name) {
					t.Errorf("pet %s created on %s reads %d %s on %s", id, on, code, body, other)
				}
			}
		}()
	}
	wg.Wait()
	if got, want := len(acked), writers*each; got != want {
		t.Errorf("%d creates answered, want %d", got, want)
	}
	var exports []string
	for _, base := range bases {
		pets := exportedPets(t, base)
		data, _ := json.Marshal(pets)
		exports = append(exports, string(data))
		checkPets(t, 0, pets, acked)
		if got, want := len(pets), 150+writers*each; got != want {
			t.Errorf("%s holds %d pets, want %d", base, got, want)
		}
	}
	if exports[0] != exports[1] || exports[1] != exports[2] {
		t.Errorf("the three replicas list different stores")
	}
}

// TestThreeReplicasOneTruthCRUD is TestThreeReplicasOneTruth with updates,
// on a document with full CRUD: six writers at once create owners and
// replace (PUT) them through all three replicas, each answer read back at
// once on another replica, and each pair of writers merge-patches (PATCH)
// one shared owner through two different replicas, one writer its name
// and the other its city. A writer reads its field of the shared owner,
// on yet another replica, as it last patched it: a patch built on a stale
// copy (a lost update) would bring an older value back. At the end the
// three replicas list the same owners, each as its last write left it,
// every create is there, and ids are unique.
func TestThreeReplicasOneTruthCRUD(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	bases := startReplicas(t, "--spec", crudDoc)
	client := &http.Client{Timeout: 10 * time.Second}
	// call sends one request and returns the owner answered, or nil after
	// reporting an answer other than status.
	call := func(method, url, ctype, body string, status int) map[string]any {
		t.Helper()
		code, data, err := ownerCall(client, method, url, ctype, body)
		o, jerr := ownerJSON(data)
		if err != nil || code != status || jerr != nil {
			t.Errorf("%s %s %s: %d %s %v, want %d and an owner", method, url, body, code, data, err, status)
			return nil
		}
		return o
	}
	const pairs, steps = 3, 15
	fields := []string{"name", "city"}
	shared := make([]map[string]any, pairs) // as created; at the end as the pair's last patches left it
	for p := range shared {
		if shared[p] = call("POST", bases[p%3]+"/owners", "application/json", fmt.Sprintf(`{"name":"shared-%d","city":"start-%d"}`, p, p), http.StatusCreated); shared[p] == nil {
			t.FailNow()
		}
	}
	var mu sync.Mutex
	ids := map[string]int{}                      // id -> the writer that created it
	written := map[string]map[string]any{}       // id -> the owner as its writer last wrote it
	lastPatched := make([]map[string]any, pairs) // the pair's fields as they last patched them
	for p := range lastPatched {
		lastPatched[p] = map[string]any{}
	}
	var wg sync.WaitGroup
	for w := range 2 * pairs {
		p, field := w/2, fields[w%2]
		last := shared[p][field]
		sharedURL := fmt.Sprint("/owners/", shared[p]["id"])
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := map[string]map[string]any{}
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				maps.Copy(written, mine)
				lastPatched[p][field] = last
			}()
			readBack := func(on, id string, o map[string]any) {
				t.Helper()
				if got := call("GET", on+"/owners/"+id, "", "", http.StatusOK); got != nil && !reflect.DeepEqual(got, o) {
					t.Errorf("owner %s reads %v on %s, want %v as just answered", id, got, on, o)
				}
			}
			for i := range steps {
				a, b, c := bases[(w+i)%3], bases[(w+i+1)%3], bases[(w+i+2)%3]
				name := fmt.Sprintf("w%d-%d", w, i)
				o := call("POST", a+"/owners", "application/json", fmt.Sprintf(`{"name":%q}`, name), http.StatusCreated)
				if o == nil {
					return
				}
				id := fmt.Sprint(o["id"])
				mu.Lock()
				if prev, dup := ids[id]; dup {
					t.Errorf("id %s given to writer %d and writer %d", id, prev, w)
				}
				ids[id] = w
				mu.Unlock()
				mine[id] = o
				readBack(b, id, o)

				rid := slices.Sorted(maps.Keys(mine))[rand.IntN(len(mine))]
				put := map[string]any{"id": mine[rid]["id"], "createdAt": mine[rid]["createdAt"], "name": name + "-put", "city": "c-" + name}
				if o = call("PUT", c+"/owners/"+rid, "application/json", fmt.Sprintf(`{"name":%q,"city":%q}`, put["name"], put["city"]), http.StatusOK); o == nil {
					return
				}
				if !reflect.DeepEqual(o, put) {
					t.Errorf("PUT owner %s on %s answered %v, want %v", rid, c, o, put)
				}
				mine[rid] = o
				readBack(a, rid, o)

				if s := call("GET", b+sharedURL, "", "", http.StatusOK); s != nil && s[field] != last {
					t.Errorf("shared owner %s reads %s %v on %s, want %v as writer %d last patched it: an update was lost", sharedURL, field, s[field], b, last, w)
				}
				if o = call("PATCH", c+sharedURL, "application/merge-patch+json", fmt.Sprintf(`{%q:%q}`, field, name), http.StatusOK); o == nil {
					return
				}
				if o[field] != name {
					t.Errorf("PATCH %s {%s: %s} on %s answered %v", sharedURL, field, name, c, o)
				}
				last = name
			}
		}()
	}
	wg.Wait()
	for p, s := range shared {
		maps.Copy(s, lastPatched[p])
		written[fmt.Sprint(s["id"])] = s
	}
	if got, want := len(ids), 2*pairs*steps; got != want {
		t.Errorf("%d creates answered, want %d", got, want)
	}
	var lists []string
	for _, base := range bases {
		owners := listOwners(t, client, base)
		lists = append(lists, jsonOf(owners))
		listed := map[string]map[string]any{}
		for _, o := range owners {
			listed[fmt.Sprint(o["id"])] = o
		}
		if got, want := len(owners), len(written); got != want || len(listed) != len(owners) {
			t.Errorf("%s lists %d owners (%d ids), want %d", base, got, len(listed), want)
		}
		for id, o := range written {
			if got := listed[id]; !reflect.DeepEqual(got, o) {
				t.Errorf("%s lists owner %s as %v, want %v as last written", base, id, got, o)
			}
		}
	}
	if lists[0] != lists[1] || lists[1] != lists[2] {
		t.Errorf("the three replicas list different owners")
	}
}
