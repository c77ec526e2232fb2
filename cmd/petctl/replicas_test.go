package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/petctl/petctl/engine/store/redistest"
)

// TestThreeReplicasOneTruth: three petctl serve processes on one Redis,
// creates and reads through all three at once. Every create answered 201
// is read back at once on another replica, ids are unique, nothing is
// lost, and the three list the same store at the end.
func TestThreeReplicasOneTruth(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	url := redistest.Start(t)
	env := []string{"PETCTL_STORE_BACKEND=redis", "PETCTL_STORE_URL=" + url}
	var bases []string
	for range 3 {
		_, base := startPetctlEnv(t, env)
		bases = append(bases, base)
	}
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
