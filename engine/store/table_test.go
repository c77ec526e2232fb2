package store

import (
	"fmt"
	"strconv"
	"testing"
)

// newTestStore holds n records with ids 1..n; record i has color red when i%3==0, else blue,
// and size "big" when i is even.
func newTestStore(n int) *table {
	s := newTable(true, []string{"color", "size"})
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
		q        Query
		want     string
		wantMore bool
	}{
		{"first page", Query{Limit: 3}, "1,2,3", true},
		{"no limit", Query{Filters: map[string]string{"color": "red"}}, "3,6,9,12,15,18", false},
		{"filter", Query{Limit: 2, Filters: map[string]string{"color": "red"}}, "3,6", true},
		{"two filters", Query{Limit: 10, Filters: map[string]string{"color": "red", "size": "big"}}, "6,12,18", false},
		{"no match", Query{Limit: 10, Filters: map[string]string{"color": "green"}}, "", false},
		{"newest first", Query{Limit: 3, Desc: true}, "20,19,18", true},
		{"newest first, filtered", Query{Limit: 2, Desc: true, Filters: map[string]string{"color": "red"}}, "18,15", true},
		{"after a cursor", Query{Limit: 3, After: 5, HasAfter: true}, "6,7,8", true},
		{"after a cursor, filtered", Query{Limit: 3, After: 6, HasAfter: true, Filters: map[string]string{"color": "red"}}, "9,12,15", true},
		{"after a cursor, newest first", Query{Limit: 3, After: 5, HasAfter: true, Desc: true}, "4,3,2", true},
		{"after the last", Query{Limit: 3, After: 20, HasAfter: true}, "", false},
		{"last page exactly", Query{Limit: 2, After: 18, HasAfter: true}, "19,20", false},
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
	if r, ok := s.get("3"); !ok || string(r.JSON) != "3" {
		t.Errorf("get 3 = %q %v", r.JSON, ok)
	}
	for _, k := range []string{"0", "6", "abc", ""} {
		if _, ok := s.get(k); ok {
			t.Errorf("get %q found a record", k)
		}
	}
	rec, err := s.create(func(seq int64) (entry, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("new")}, nil
	}, nil)
	if err != nil || rec.seq != 6 {
		t.Fatalf("create = %v %v, want seq 6", rec.seq, err)
	}
	_, err = s.create(func(seq int64) (entry, error) { return entry{}, fmt.Errorf("refused") }, nil)
	if err == nil || s.len() != 6 {
		t.Errorf("a failed create changed the store: len %d, err %v", s.len(), err)
	}
	rec, _ = s.create(func(seq int64) (entry, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("next")}, nil
	}, nil)
	if rec.seq != 7 {
		t.Errorf("seq after a failed create = %d, want 7 (no gap needed, none made)", rec.seq)
	}
}

func TestStoreStringKeysSkipTakenIDs(t *testing.T) {
	s := newTable(false, nil)
	s.load([]entry{{seq: 1, key: "2", raw: []byte("fixture")}})
	rec, err := s.create(func(seq int64) (entry, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("new")}, nil
	}, nil)
	if err != nil || rec.ID != "3" {
		t.Errorf("created key %q, want 3: key 2 is taken by a fixture", rec.ID)
	}
}

// load replaces the contents with entries, which must be sorted by seq.
func (s *table) load(entries []entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset(len(entries))
	for i := range entries {
		s.appendLocked(&entries[i], s.data.add(entries[i].raw))
	}
}

// snapshot returns the raw records in seq order.
func (s *table) snapshot() [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([][]byte, len(s.seqs))
	for i := range s.seqs {
		out[i] = s.data.get(s.spans[i])
	}
	return out
}
