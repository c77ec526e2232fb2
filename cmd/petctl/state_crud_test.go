package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestKill9KeepsAcknowledgedCRUD is TestKill9KeepsAcknowledgedWrites on a
// document with full CRUD: writers each stream creates, replaces (PUT),
// merge patches (PATCH) and deletes of their own owners at a real petctl
// serve --state FILE (store.sync always), killed with SIGKILL at a random
// moment, round after round. After each restart every owner reads exactly
// as its last acknowledged write left it (in the list and by id), every
// acknowledged delete is gone (404, not listed), the write that was in
// flight at the kill is either applied whole or not at all, every owner
// is valid against the item schema, ids are unique, and nothing else is
// listed.
func TestKill9KeepsAcknowledgedCRUD(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	const rounds, writers = 6, 4
	// Writes time out soon, as the kill ends them; the checks after a
	// restart wait longer, as a race-built server on two loaded cores
	// (load 30 seen) may take more than 5 s to answer its first list.
	client := &http.Client{Timeout: 5 * time.Second}
	reads := &http.Client{Timeout: 30 * time.Second}
	valid := ownerSchema(t)
	ws := make([]*ownerWriter, writers)
	for w := range ws {
		ws[w] = &ownerWriter{owners: map[string]map[string]any{}, deleted: map[string]bool{}, touched: map[string]bool{}}
	}
	var ids sync.Map // id -> the writer that was answered it, across the test
	var acked [4]atomic.Int64
	var inFlight, applied int
	check := func(round int, base string) {
		t.Helper()
		listed := map[string]map[string]any{}
		for _, o := range listOwners(t, reads, base) {
			id := fmt.Sprint(o["id"])
			if listed[id] != nil {
				t.Errorf("round %d: owner %s is listed twice", round, id)
			}
			listed[id] = o
			if err := valid(o); err != nil {
				t.Errorf("round %d: owner %s is not whole after kill -9: %v: %v", round, id, o, err)
			}
		}
		claimed := map[string]bool{}
		for w, ow := range ws {
			if ow.pending != nil {
				inFlight++
				if ow.settle(listed) {
					applied++
				}
			}
			for id, want := range ow.owners {
				claimed[id] = true
				switch got := listed[id]; {
				case got == nil:
					t.Errorf("round %d: writer %d's owner %s is gone after kill -9, want %v as last acknowledged", round, w, id, want)
				case !reflect.DeepEqual(got, want):
					t.Errorf("round %d: writer %d's owner %s is listed as %v after kill -9, want %v as last acknowledged", round, w, id, got, want)
				}
			}
			for id := range ow.deleted {
				if listed[id] != nil {
					t.Errorf("round %d: owner %s was deleted (204) and is listed after kill -9: %v", round, id, listed[id])
				}
			}
			for id := range ow.touched {
				code, data, err := ownerCall(reads, "GET", base+"/owners/"+id, "", "")
				if err != nil {
					t.Fatal(err)
				}
				if want, live := ow.owners[id]; live {
					got, _ := ownerJSON(data)
					if code != http.StatusOK || !reflect.DeepEqual(got, want) {
						t.Errorf("round %d: GET owner %s after kill -9: %d %s, want 200 %v", round, id, code, data, want)
					}
				} else if code != http.StatusNotFound {
					t.Errorf("round %d: GET deleted owner %s after kill -9: %d %s, want 404", round, id, code, data)
				}
			}
			clear(ow.touched)
		}
		for id, o := range listed {
			if !claimed[id] {
				t.Errorf("round %d: owner %s is listed but no write made it: %v", round, id, o)
			}
		}
	}
	write := func(base string, round, w, i int) bool {
		ow := ws[w]
		name := fmt.Sprintf("r%d-w%d-%d", round, w, i)
		op := ow.next(name, base)
		ow.pending = &op
		code, data, err := ownerCall(client, op.method, op.url, op.ctype, op.body)
		if err != nil {
			return false // killed: op stays in flight
		}
		ow.pending = nil
		if code != op.status {
			t.Errorf("%s %s %s answered %d %s, want %d", op.method, op.url, op.body, code, data, op.status)
			return false
		}
		kind := slices.Index([]string{"POST", "PUT", "PATCH", "DELETE"}, op.method)
		acked[kind].Add(1)
		if op.method == "DELETE" {
			delete(ow.owners, op.id)
			ow.deleted[op.id] = true
			ow.touched[op.id] = true
			return true
		}
		got, err := ownerJSON(data)
		if err != nil {
			t.Errorf("%s %s answered %s: %v", op.method, op.url, data, err)
			return false
		}
		id := op.id
		if op.method == "POST" {
			id = fmt.Sprint(got["id"])
			if prev, taken := ids.LoadOrStore(id, w); taken {
				t.Errorf("id %s was answered to writer %v and again to writer %d", id, prev, w)
			}
		}
		if !op.made(got) {
			t.Errorf("%s %s %s answered %v, want %v", op.method, op.url, op.body, got, op.want)
			return false
		}
		ow.owners[id] = got
		ow.touched[id] = true
		return true
	}
	killMidStream(t, []string{"--spec", crudDoc, "--state", filepath.Join(t.TempDir(), "state")}, rounds, writers, check, write)
	for kind, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		if acked[kind].Load() == 0 {
			t.Errorf("no %s was acknowledged: the test did not stream every kind of write", method)
		}
	}
	t.Logf("acknowledged over %d kills: %d creates, %d replaces, %d patches, %d deletes; in flight at a kill: %d, of which %d applied",
		rounds, acked[0].Load(), acked[1].Load(), acked[2].Load(), acked[3].Load(), inFlight, applied)
}

// ownerWriter is one writer's record of the owners it made: each as its
// last acknowledged write left it, the ids whose delete was acknowledged,
// those written since the last check, and the write that got no answer.
type ownerWriter struct {
	owners  map[string]map[string]any
	deleted map[string]bool
	touched map[string]bool
	pending *ownerWrite
}

// ownerWrite is one write of an owner and what it makes: want is the
// owner a replace or patch answers, or the fields a create sends (its id
// and createdAt are the server's); nil for a delete.
type ownerWrite struct {
	method, url, ctype, body string
	id                       string // "" for a create
	status                   int
	want                     map[string]any
}

// next picks the writer's next write, named name where it names one: a
// create while it has few owners, else a replace, a merge patch or a
// delete of one of them.
func (ow *ownerWriter) next(name, base string) ownerWrite {
	ids := slices.Sorted(maps.Keys(ow.owners))
	n := rand.IntN(10)
	fields := map[string]any{"name": name}
	if rand.IntN(2) == 0 {
		fields["city"] = "c-" + name
	}
	if len(ids) < 2 || n < 3 && len(ids) < 6 {
		return ownerWrite{method: "POST", url: base + "/owners", ctype: "application/json", body: jsonOf(fields), status: http.StatusCreated, want: fields}
	}
	id := ids[rand.IntN(len(ids))]
	old := ow.owners[id]
	url := base + "/owners/" + id
	switch {
	case n < 5:
		want := maps.Clone(fields)
		want["id"], want["createdAt"] = old["id"], old["createdAt"]
		return ownerWrite{method: "PUT", url: url, ctype: "application/json", body: jsonOf(fields), id: id, status: http.StatusOK, want: want}
	case n < 8:
		patch := []map[string]any{{"name": name}, {"city": "c-" + name}, {"city": nil}, fields}[rand.IntN(4)]
		return ownerWrite{method: "PATCH", url: url, ctype: "application/merge-patch+json", body: jsonOf(patch), id: id, status: http.StatusOK, want: mergePatched(old, patch)}
	}
	return ownerWrite{method: "DELETE", url: url, id: id, status: http.StatusNoContent}
}

// made reports whether got is the owner the write makes.
func (op *ownerWrite) made(got map[string]any) bool {
	if op.method != "POST" {
		return reflect.DeepEqual(got, op.want)
	}
	for _, k := range []string{"id", "createdAt"} {
		if got[k] == nil {
			return false
		}
	}
	sent := maps.Clone(got)
	delete(sent, "id")
	delete(sent, "createdAt")
	return reflect.DeepEqual(sent, op.want)
}

// settle takes what the restarted server lists as the outcome of the
// write that was in flight at the kill, when it made it whole (a create
// is found by its name, which no other write sends), and reports whether
// it did; otherwise the owner stays as last acknowledged, which the
// check then holds it to.
func (ow *ownerWriter) settle(listed map[string]map[string]any) bool {
	op := ow.pending
	ow.pending = nil
	switch op.method {
	case "POST":
		for id, o := range listed {
			if o["name"] == op.want["name"] && op.made(o) {
				ow.owners[id] = o
				ow.touched[id] = true
				return true
			}
		}
	case "DELETE":
		if listed[op.id] == nil {
			delete(ow.owners, op.id)
			ow.deleted[op.id] = true
			ow.touched[op.id] = true
			return true
		}
	default:
		ow.touched[op.id] = true
		if got := listed[op.id]; reflect.DeepEqual(got, op.want) {
			ow.owners[op.id] = got
			return true
		}
	}
	return false
}

// jsonOf is v as JSON.
func jsonOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}
