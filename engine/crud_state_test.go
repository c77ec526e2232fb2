package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/engine/store/redistest"
)

// TestCRUDKeptByTheStateFile: a replace, a merge patch, a JSON Patch, a
// delete and a cascading delete made over HTTP are what a server started
// again on the same state file serves, and the next id follows the
// deleted ones.
func TestCRUDKeptByTheStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	serve := func() (*testEnv, store.Journal) {
		j := openState(t, path)
		return newCRUD(t, func(o *Options) { o.State, o.Cascade = j, true }), j
	}
	env, j := serve()
	play(t, env, []exchange{
		{name: "owner 1", method: "POST", path: "/owners", body: `{"name":"Ann","city":"Oslo"}`, status: 201},
		{name: "owner 2", method: "POST", path: "/owners", body: `{"name":"Ben","city":"Oslo"}`, status: 201},
		{name: "owner 3", method: "POST", path: "/owners", body: `{"name":"Cy"}`, status: 201},
		{name: "pet of 1", method: "POST", path: "/owners/1/pets", body: `{"name":"Rex","species":"dog"}`, status: 201},
		{name: "pet of 2", method: "POST", path: "/owners/2/pets", body: `{"name":"Kit","species":"cat"}`, status: 201, save: map[string]string{"kit": "id"}},
		{name: "second pet of 2", method: "POST", path: "/owners/2/pets", body: `{"name":"Tom","species":"cat"}`, status: 201, save: map[string]string{"tom": "id"}},
		{name: "pet of 3", method: "POST", path: "/owners/3/pets", body: `{"name":"Zed","species":"dog"}`, status: 201},
		{name: "replace", method: "PUT", path: "/owners/1", body: `{"name":"Ann R."}`, status: 200},
		{name: "merge patch", method: "PATCH", path: "/owners/2", body: `{"city":"Rome"}`, ctype: "application/merge-patch+json", status: 200},
		{name: "JSON Patch", method: "PATCH", path: "/owners/2/pets/{kit}", ctype: "application/json-patch+json",
			body: `[{"op":"replace","path":"/name","value":"Kitty"}]`, status: 200},
		{name: "delete", method: "DELETE", path: "/owners/2/pets/{tom}", status: 200},
		{name: "cascading delete", method: "DELETE", path: "/owners/3", status: 204},
	})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	again, _ := serve()
	play(t, again, []exchange{
		{name: "replaced", path: "/owners/1", status: 200, want: map[string]string{"name": "Ann R.", "city": "<absent>"}},
		{name: "patched", path: "/owners/2", status: 200, want: map[string]string{"name": "Ben", "city": "Rome"}},
		{name: "deleted", path: "/owners/3", status: 404},
		{name: "the owners", path: "/owners", status: 200, want: map[string]string{"owners.#": "2", "meta.total_count": "2"}},
		{name: "the filter index holds the patch", path: "/owners?city=Rome", status: 200, want: map[string]string{"owners.#": "1", "owners.0.id": "2"}},
		{name: "pets of 2", path: "/owners/2/pets", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "Kitty"}},
		{name: "pets of 1", path: "/owners/1/pets", status: 200, want: map[string]string{"data.#": "1", "data.0.name": "Rex"}},
		{name: "the next id follows the deleted one", method: "POST", path: "/owners", body: `{"name":"Di"}`, status: 201, want: map[string]string{"id": "4"}},
	})
	if n := again.srv.colls["pets"].data.Len(); n != 2 {
		t.Errorf("after a restart the store holds %d pets, want 2 (Tom deleted, Zed by the cascade)", n)
	}
}

// TestCRUDSharedByRedisReplicas: a replace, a patch and a delete made on
// one replica are what the other serves at once.
func TestCRUDSharedByRedisReplicas(t *testing.T) {
	url := redistest.Start(t)
	replica := func() *testEnv {
		j, err := store.OpenRedis(url, store.RedisOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = j.Close() })
		return newCRUD(t, func(o *Options) { o.State, o.Cascade = j, true })
	}
	a, b := replica(), replica()
	type step struct {
		env    *testEnv
		method string
		path   string
		body   string
		ctype  string
		status int
		field  string // of the answer, and its value
		want   string
	}
	vars := map[string]string{}
	for i, st := range []step{
		{a, "POST", "/owners", `{"name":"Ann","city":"Oslo"}`, "", 201, "id", "1"},
		{a, "POST", "/owners/1/pets", `{"name":"Rex","species":"dog"}`, "", 201, "name", "Rex"},
		{b, "GET", "/owners/1/pets/{rex}", "", "", 200, "name", "Rex"},
		{b, "PUT", "/owners/1", `{"name":"Ann B."}`, "", 200, "name", "Ann B."},
		{a, "GET", "/owners/1", "", "", 200, "name", "Ann B."},
		{a, "PATCH", "/owners/1/pets/{rex}", `[{"op":"replace","path":"/name","value":"Rexy"}]`, "application/json-patch+json", 200, "name", "Rexy"},
		{b, "GET", "/owners/1/pets/{rex}", "", "", 200, "name", "Rexy"},
		{b, "DELETE", "/owners/1/pets/{rex}", "", "", 200, "name", "Rexy"},
		{a, "GET", "/owners/1/pets/{rex}", "", "", 404, "", ""},
		{a, "GET", "/owners/1/pets", "", "", 200, "data.#", "0"},
		{a, "POST", "/owners", `{"name":"Ben"}`, "", 201, "id", "2"},
		{b, "DELETE", "/owners/2", "", "", 204, "", ""},
		{a, "GET", "/owners", "", "", 200, "owners.#", "1"},
		{a, "POST", "/owners", `{"name":"Cy"}`, "", 201, "id", "3"},
	} {
		st.env.t = t
		path := st.path
		for k, v := range vars {
			path = strings.ReplaceAll(path, "{"+k+"}", v)
		}
		r := st.env.do(request{method: st.method, path: path, body: st.body, ctype: st.ctype})
		if r.status != st.status {
			t.Fatalf("step %d: %s %s: status %d, want %d: %s", i, st.method, path, r.status, st.status, r.body)
		}
		var doc any
		if len(r.body) > 0 {
			if err := json.Unmarshal(r.body, &doc); err != nil {
				t.Fatalf("step %d: answer is not JSON: %s", i, r.body)
			}
		}
		if st.field != "" {
			if got := lookup(doc, st.field); got != st.want {
				t.Errorf("step %d: %s %s: %s = %s, want %s", i, st.method, path, st.field, got, st.want)
			}
		}
		if st.method == "POST" && st.path == "/owners/1/pets" {
			vars["rex"] = lookup(doc, "id")
		}
	}
	if got, want := a.srv.colls["pets"].data.Len(), 0; got != want {
		t.Errorf("replica A holds %d pets, want %d", got, want)
	}
}

// TestConcurrentPatchesOnTwoReplicasLoseNone: two replicas merge-patch
// the same record at once, A its name and B its city. No patch is lost:
// every answer carries the other replica's latest acknowledged patch (or
// a later one), and at the end both replicas read the last of each.
func TestConcurrentPatchesOnTwoReplicasLoseNone(t *testing.T) {
	url := redistest.Start(t)
	replica := func() *testEnv {
		j, err := store.OpenRedis(url, store.RedisOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = j.Close() })
		return newCRUD(t, func(o *Options) { o.State = j })
	}
	a, b := replica(), replica()
	if r := a.do(request{method: "POST", path: "/owners", body: `{"name":"A0","city":"B0"}`}); r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	// patch sends one merge patch to env and returns the answer's fields.
	patch := func(env *testEnv, body string) (map[string]any, error) {
		req, err := http.NewRequest("PATCH", env.base+"/owners/1", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/merge-patch+json")
		req.Header.Set(env.authHeader, env.authPrefix+testKey)
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("status %d: %s", resp.StatusCode, data)
		}
		var doc map[string]any
		return doc, json.Unmarshal(data, &doc)
	}
	// index reads the number after the replica's letter ("B7" is 7).
	index := func(v any, letter string) int {
		s, _ := v.(string)
		n, err := strconv.Atoi(strings.TrimPrefix(s, letter))
		if !strings.HasPrefix(s, letter) || err != nil {
			return -1
		}
		return n
	}
	const rounds = 40
	var acked [2]atomic.Int64 // the last patch each replica had answered
	sides := []struct {
		env          *testEnv
		mine, theirs string // the field this side patches, the other's
		letter, them string // the prefix of this side's values, the other's
	}{
		{a, "name", "city", "A", "B"},
		{b, "city", "name", "B", "A"},
	}
	var wg sync.WaitGroup
	for s, side := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= rounds; i++ {
				seen := acked[1-s].Load()
				got, err := patch(side.env, fmt.Sprintf(`{%q:"%s%d"}`, side.mine, side.letter, i))
				if err != nil {
					t.Errorf("replica %s, patch %d: %v", side.letter, i, err)
					return
				}
				if g, w := index(got[side.mine], side.letter), i; g != w {
					t.Errorf("replica %s, patch %d: %s = %v, want %s%d", side.letter, i, side.mine, got[side.mine], side.letter, w)
				}
				if g := index(got[side.theirs], side.them); g < int(seen) {
					t.Errorf("replica %s, patch %d: %s = %v, but %s%d was answered before this patch began: an update was lost",
						side.letter, i, side.theirs, got[side.theirs], side.them, seen)
				}
				acked[s].Store(int64(i))
			}
		}()
	}
	wg.Wait()
	for _, env := range []*testEnv{a, b} {
		env.t = t
		r := env.do(request{path: "/owners/1"})
		var doc any
		if err := json.Unmarshal(r.body, &doc); err != nil {
			t.Fatalf("GET /owners/1: %d %s", r.status, r.body)
		}
		for field, want := range map[string]string{"name": fmt.Sprintf("A%d", rounds), "city": fmt.Sprintf("B%d", rounds)} {
			if got := lookup(doc, field); got != want {
				t.Errorf("after the patches %s reads %s = %s, want %s", env.base, field, got, want)
			}
		}
	}
}
