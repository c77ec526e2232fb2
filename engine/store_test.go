package engine

import (
	"fmt"
	"strconv"
	"testing"
)

// newTestStore holds n records with ids 1..n; record i has color red when i%3==0, else blue,
// and size "big" when i is even.
func newTestStore(n int) *collectionStore {
	s := newCollectionStore(true, []string{"color", "size"})
	entries := make([]entry, 0, n)
	for i := 1; i <= n; i++ {
		color := "blue"
		if i%3 == 0 {
			color = "red"
		}
		e := entry{seq: int64(i), key: strconv.Itoa(i), raw: []byte(strconv.Itoa(i)), vals: []string{color, ""}, has: 1}
		if i%2 == 0 {
			e.vals[1], e.has = "big", 3
		}
		entries = append(entries, e)
	}
	s.load(entries)
	return s
}

func ids(raws [][]byte) string {
	out := ""
	for i, r := range raws {
		if i > 0 {
			out += ","
		}
		out += string(r)
	}
	return out
}

func TestStorePage(t *testing.T) {
	s := newTestStore(20)
	tests := []struct {
		name     string
		q        query
		want     string
		wantMore bool
	}{
		{"first page", query{limit: 3}, "1,2,3", true},
		{"no limit", query{filters: map[string]string{"color": "red"}}, "3,6,9,12,15,18", false},
		{"filter", query{limit: 2, filters: map[string]string{"color": "red"}}, "3,6", true},
		{"two filters", query{limit: 10, filters: map[string]string{"color": "red", "size": "big"}}, "6,12,18", false},
		{"no match", query{limit: 10, filters: map[string]string{"color": "green"}}, "", false},
		{"newest first", query{limit: 3, desc: true}, "20,19,18", true},
		{"newest first, filtered", query{limit: 2, desc: true, filters: map[string]string{"color": "red"}}, "18,15", true},
		{"after a cursor", query{limit: 3, after: 5, hasAfter: true}, "6,7,8", true},
		{"after a cursor, filtered", query{limit: 3, after: 6, hasAfter: true, filters: map[string]string{"color": "red"}}, "9,12,15", true},
		{"after a cursor, newest first", query{limit: 3, after: 5, hasAfter: true, desc: true}, "4,3,2", true},
		{"after the last", query{limit: 3, after: 20, hasAfter: true}, "", false},
		{"last page exactly", query{limit: 2, after: 18, hasAfter: true}, "19,20", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, last, more := s.page(tc.q)
			if ids(got) != tc.want || more != tc.wantMore {
				t.Errorf("page = %q more=%v, want %q more=%v", ids(got), more, tc.want, tc.wantMore)
			}
			// last is the seq of the page's last record, which the cursor names.
			if len(got) > 0 && strconv.FormatInt(last, 10) != string(got[len(got)-1]) {
				t.Errorf("page last = %d, want %s", last, got[len(got)-1])
			}
		})
	}
}

func TestStoreGetAndCreate(t *testing.T) {
	s := newTestStore(5)
	if r, ok := s.get("3"); !ok || string(r.raw) != "3" {
		t.Errorf("get 3 = %q %v", r.raw, ok)
	}
	for _, k := range []string{"0", "6", "abc", ""} {
		if _, ok := s.get(k); ok {
			t.Errorf("get %q found a record", k)
		}
	}
	rec, err := s.create(func(seq int64) (entry, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("new")}, nil
	})
	if err != nil || rec.seq != 6 {
		t.Fatalf("create = %v %v, want seq 6", rec.seq, err)
	}
	_, err = s.create(func(seq int64) (entry, error) { return entry{}, fmt.Errorf("refused") })
	if err == nil || s.len() != 6 {
		t.Errorf("a failed create changed the store: len %d, err %v", s.len(), err)
	}
	rec, _ = s.create(func(seq int64) (entry, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("next")}, nil
	})
	if rec.seq != 7 {
		t.Errorf("seq after a failed create = %d, want 7 (no gap needed, none made)", rec.seq)
	}
}

func TestStoreStringKeysSkipTakenIDs(t *testing.T) {
	s := newCollectionStore(false, nil)
	s.load([]entry{{seq: 1, key: "2", raw: []byte("fixture")}})
	rec, err := s.create(func(seq int64) (entry, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("new")}, nil
	})
	if err != nil || rec.key != "3" {
		t.Errorf("created key %q, want 3: key 2 is taken by a fixture", rec.key)
	}
}
