package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// newTestStore holds n records with ids 1..n; record i has color red when i%3==0, else blue,
// and size "big" when i is even.
func newTestStore(n int) *table {
	s := newTable(true, false, []string{"color", "size"})
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
		{"no limit", Query{Filters: map[string][]string{"color": {"red"}}}, "3,6,9,12,15,18", false},
		{"filter", Query{Limit: 2, Filters: map[string][]string{"color": {"red"}}}, "3,6", true},
		{"two filters", Query{Limit: 10, Filters: map[string][]string{"color": {"red"}, "size": {"big"}}}, "6,12,18", false},
		{"no match", Query{Limit: 10, Filters: map[string][]string{"color": {"green"}}}, "", false},
		{"newest first", Query{Limit: 3, Desc: true}, "20,19,18", true},
		{"newest first, filtered", Query{Limit: 2, Desc: true, Filters: map[string][]string{"color": {"red"}}}, "18,15", true},
		{"after a cursor", Query{Limit: 3, After: 5, HasAfter: true}, "6,7,8", true},
		{"after a cursor, filtered", Query{Limit: 3, After: 6, HasAfter: true, Filters: map[string][]string{"color": {"red"}}}, "9,12,15", true},
		{"after a cursor, newest first", Query{Limit: 3, After: 5, HasAfter: true, Desc: true}, "4,3,2", true},
		{"after the last", Query{Limit: 3, After: 20, HasAfter: true}, "", false},
		{"last page exactly", Query{Limit: 2, After: 18, HasAfter: true}, "19,20", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := s.page(tc.q, nil)
			got, last, more := p.Items, p.Last, p.More
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
	if r, ok := s.get("", "3"); !ok || string(r.JSON) != "3" {
		t.Errorf("get 3 = %q %v", r.JSON, ok)
	}
	for _, k := range []string{"0", "6", "abc", ""} {
		if _, ok := s.get("", k); ok {
			t.Errorf("get %q found a record", k)
		}
	}
	rec, err := s.create(func(seq int64) (entry, bool, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("new")}, false, nil
	})
	if err != nil || rec.seq != 6 {
		t.Fatalf("create = %v %v, want seq 6", rec.seq, err)
	}
	_, err = s.create(func(seq int64) (entry, bool, error) { return entry{}, false, fmt.Errorf("refused") })
	if err == nil || s.len() != 6 {
		t.Errorf("a failed create changed the store: len %d, err %v", s.len(), err)
	}
	rec, _ = s.create(func(seq int64) (entry, bool, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("next")}, false, nil
	})
	if rec.seq != 7 {
		t.Errorf("seq after a failed create = %d, want 7 (no gap needed, none made)", rec.seq)
	}
}

func TestStoreStringKeysSkipTakenIDs(t *testing.T) {
	s := newTable(false, false, nil)
	s.load([]entry{{seq: 1, key: "2", raw: []byte("fixture")}})
	rec, err := s.create(func(seq int64) (entry, bool, error) {
		return entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte("new")}, false, nil
	})
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
		s.insertLocked(&entries[i])
	}
}

// snapshot returns the raw records in seq order.
func (s *table) snapshot() [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out [][]byte
	for i := range s.seqs {
		if !s.isDead(i) {
			out = append(out, s.data.get(s.spans[i]))
		}
	}
	return out
}

// colorEntry is a record of newTestStore's shape: raw is its text.
func colorEntry(seq int64, raw, color string) *entry {
	return &entry{seq: seq, key: strconv.FormatInt(seq, 10), raw: []byte(raw), vals: []string{color, ""}, has: 1}
}

// TestTableWrites: a replace moves a record between index lists, a delete
// takes it out of every read, list, count and export, and neither the
// baseline nor an export taken before sees either.
func TestTableWrites(t *testing.T) {
	s := newTestStore(6) // red: 3, 6
	s.markBaseline()
	before := s.frozen()
	red := func() string {
		return ids(s.page(Query{Filters: map[string][]string{"color": {"red"}}}, nil).Items)
	}
	s.mu.Lock()
	s.replaceLocked(1, colorEntry(2, "2", "blue"), colorEntry(2, "two", "red")) // 2: blue -> red
	s.deleteLocked(2, colorEntry(3, "3", "red"))
	s.mu.Unlock()
	tests := []struct{ name, got, want string }{
		{"red after the writes", red(), "two,6"},
		{"all after the writes", ids(s.page(Query{}, nil).Items), "1,two,4,5,6"},
		{"page of two after the delete", ids(s.page(Query{Limit: 2, Offset: 1}, nil).Items), "two,4"},
		{"count", strconv.Itoa(s.page(Query{Count: true, Limit: 1}, nil).Total), "5"},
		{"export taken before", ids(frozenLive(before)), "1,2,3,4,5,6"},
		{"export taken after", ids(frozenLive(s.frozen())), "1,two,4,5,6"},
	}
	if _, ok := s.get("", "3"); ok {
		t.Error("the deleted record 3 still reads")
	}
	if r, ok := s.get("", "2"); !ok || string(r.JSON) != "two" {
		t.Errorf("the replaced record 2 reads %q %v", r.JSON, ok)
	}
	s.restoreBaseline()
	tests = append(tests,
		struct{ name, got, want string }{"red after reset", red(), "3,6"},
		struct{ name, got, want string }{"all after reset", ids(s.page(Query{}, nil).Items), "1,2,3,4,5,6"})
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func frozenLive(f frozenRecords) [][]byte {
	var out [][]byte
	for i := range f.len() {
		if !f.isDead(i) {
			out = append(out, f.at(i))
		}
	}
	return out
}

// TestTableChurnIsCompacted: records created and deleted again and again
// leave no trace in memory once they outnumber the live ones, and a
// cursor taken before still continues where it was.
func TestTableChurnIsCompacted(t *testing.T) {
	s := newTestStore(10)
	cursor := s.page(Query{Limit: 4}, nil).Last
	for i := range 5000 {
		rec, err := s.create(func(seq int64) (entry, bool, error) { return *colorEntry(seq, "x", "blue"), false, nil })
		if err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		pos, ok := s.findLocked("", rec.ID)
		if !ok {
			t.Fatalf("churn %d: created %s, not found", i, rec.ID)
		}
		s.deleteLocked(pos, colorEntry(rec.seq, "x", "blue"))
		s.compactIfWorthIt()
		s.mu.Unlock()
	}
	if n := len(s.seqs); n > 10+2*1024+2 {
		t.Errorf("after 5000 creates and deletes the table keeps %d positions for 10 live records", n)
	}
	if got := ids(s.page(Query{Limit: 3, After: cursor, HasAfter: true}, nil).Items); got != "5,6,7" {
		t.Errorf("cursor after churn: %q, want 5,6,7", got)
	}
	if got := ids(s.page(Query{Filters: map[string][]string{"color": {"blue"}}}, nil).Items); got != "1,2,4,5,7,8,10" {
		t.Errorf("index after churn: %q", got)
	}
}

// TestTableScopes: a scoped table finds a record under its own parent only,
// lists one parent's, and deletes a parent's subtree.
func TestTableScopes(t *testing.T) {
	c := &Collection{table: newTable(false, true, nil)}
	s := c.table
	for i, sc := range []string{"a", "b", "a", "a" + scopeSep + "x", "ab"} {
		e := entry{seq: int64(i + 1), key: "k", scope: sc, raw: []byte(strconv.Itoa(i + 1))}
		if i == 2 {
			e.key = "k2"
		}
		s.mu.Lock()
		s.insertLocked(&e)
		s.mu.Unlock()
	}
	if r, ok := s.get("b", "k"); !ok || string(r.JSON) != "2" {
		t.Errorf("get b/k = %q %v", r.JSON, ok)
	}
	if _, ok := s.get("c", "k"); ok {
		t.Error("get c/k found a record of another parent")
	}
	a := "a"
	if got := ids(s.page(Query{Scope: &a}, nil).Items); got != "1,3" {
		t.Errorf("scope a lists %q, want 1,3", got)
	}
	if n, err := c.DeleteUnder([]string{"a"}); n != 3 || err != nil {
		t.Errorf("deleted %d under a (%v), want 3 (a/k, a/k2, a/x/k; not ab/k)", n, err)
	}
	if got := ids(s.page(Query{}, nil).Items); got != "2,5" {
		t.Errorf("left %q, want 2,5", got)
	}
}

// TestTableCreateGivesUpOnTakenIDs: a create whose made ids are all taken
// (a schema that allows few) ends with ErrNoFreeID instead of trying on
// for ever; one whose id the client chose ends with a *ConflictError.
func TestTableCreateGivesUpOnTakenIDs(t *testing.T) {
	s := newTable(false, false, nil)
	s.load([]entry{{seq: 1, key: "only", raw: []byte("fixture")}})
	same := func(chosen bool) func(seq int64) (entry, bool, error) {
		return func(seq int64) (entry, bool, error) {
			return entry{seq: seq, key: "only", raw: []byte("new")}, chosen, nil
		}
	}
	if _, err := s.create(same(false)); err != ErrNoFreeID {
		t.Errorf("made ids all taken: %v, want ErrNoFreeID", err)
	}
	var conflict *ConflictError
	if _, err := s.create(same(true)); !errors.As(err, &conflict) || conflict.ID != "only" {
		t.Errorf("chosen id taken: %v, want a *ConflictError for only", err)
	}
	if s.len() != 1 {
		t.Errorf("the failed creates stored something: %d records", s.len())
	}
}

// modelRecord is TestTableIndexesAgreeWithTheRecords' view of one record.
type modelRecord struct {
	seq         int64
	raw         string
	color, size string // "" where the record has none
}

func (m modelRecord) entry() *entry {
	e := &entry{seq: m.seq, key: strconv.FormatInt(m.seq, 10), raw: []byte(m.raw), vals: []string{m.color, m.size}}
	if m.color != "" {
		e.has |= 1
	}
	if m.size != "" {
		e.has |= 2
	}
	return e
}

// modelPage is what table.page must answer for q over the live records,
// in seq order, found by looking at every one. The total counts the
// filters' matches, before and after the cursor.
func modelPage(live []modelRecord, q Query) (items string, more bool, total int) {
	var match []modelRecord
	for _, r := range live {
		ok := true
		for f, vs := range q.Filters {
			v := r.color
			if f == "size" {
				v = r.size
			}
			ok = ok && v != "" && slices.Contains(vs, v)
		}
		if !ok {
			continue
		}
		total++
		if !q.HasAfter || !q.Desc && r.seq > q.After || q.Desc && r.seq < q.After {
			match = append(match, r)
		}
	}
	if q.Desc {
		slices.Reverse(match)
	}
	if !q.Count {
		total = 0
	}
	match = match[min(q.Offset, len(match)):]
	if q.Limit > 0 && len(match) > q.Limit {
		match, more = match[:q.Limit], true
	}
	var raws [][]byte
	for _, r := range match {
		raws = append(raws, []byte(r.raw))
	}
	return ids(raws), more, total
}

// TestTableIndexesAgreeWithTheRecords runs random creates, replaces that
// move records between index lists, deletes (whose positions the lists keep
// until half of a list is tombstones), compactions, and a baseline and
// resets to it, and after each checks filtered, counted, offset, cursor and
// newest-first pages against a scan of the records themselves.
func TestTableIndexesAgreeWithTheRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 22))
	colors, sizes := []string{"red", "blue", "green", ""}, []string{"big", "small", ""}
	s := newTable(true, false, []string{"color", "size"})
	var live, base []modelRecord
	version := 0
	pick := func(vs []string) string {
		if rng.IntN(10) == 0 { // rare values make short lists
			return vs[rng.IntN(len(vs))] + "-rare"
		}
		return vs[rng.IntN(len(vs)-1)]
	}
	for step := range 6000 {
		switch op := rng.IntN(20); {
		case op < 8 || len(live) == 0:
			color, size := pick(colors), pick(sizes)
			rec, err := s.create(func(seq int64) (entry, bool, error) {
				return *modelRecord{seq: seq, raw: strconv.FormatInt(seq, 10), color: color, size: size}.entry(), false, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, modelRecord{seq: rec.seq, raw: string(rec.JSON), color: color, size: size})
		case op < 11:
			at := rng.IntN(len(live))
			old := live[at]
			version++
			next := modelRecord{seq: old.seq, raw: fmt.Sprintf("%d.v%d", old.seq, version), color: pick(colors), size: pick(sizes)}
			s.mu.Lock()
			pos, ok := s.findLocked("", strconv.FormatInt(old.seq, 10))
			if !ok {
				t.Fatalf("step %d: %d not found", step, old.seq)
			}
			s.replaceLocked(pos, old.entry(), next.entry())
			s.compactIfWorthIt()
			s.mu.Unlock()
			live[at] = next
		case op < 18:
			at := rng.IntN(len(live))
			s.mu.Lock()
			pos, ok := s.findLocked("", strconv.FormatInt(live[at].seq, 10))
			if !ok {
				t.Fatalf("step %d: %d not found", step, live[at].seq)
			}
			s.deleteLocked(pos, live[at].entry())
			s.compactIfWorthIt()
			s.mu.Unlock()
			live = slices.Delete(live, at, at+1)
		case op == 18 && base == nil:
			s.markBaseline()
			base = slices.Clone(live)
		case op == 18 || op == 19 && base != nil && rng.IntN(4) == 0:
			if base != nil {
				s.restoreBaseline()
				live = slices.Clone(base)
			}
		}
		for range 4 {
			q := Query{Limit: rng.IntN(6), Offset: rng.IntN(3), Desc: rng.IntN(3) == 0, Count: rng.IntN(2) == 0}
			if rng.IntN(3) == 0 && len(live) > 0 {
				q.After, q.HasAfter = live[rng.IntN(len(live))].seq+int64(rng.IntN(3)-1), true
			}
			q.Filters = map[string][]string{}
			switch rng.IntN(4) {
			case 0:
				q.Filters["color"] = []string{pick(colors)}
			case 1:
				q.Filters["color"] = []string{pick(colors), pick(colors)}
			case 2:
				q.Filters["color"], q.Filters["size"] = []string{pick(colors)}, []string{pick(sizes)}
			}
			p := s.page(q, nil)
			items, more, total := modelPage(live, q)
			if got := ids(p.Items); got != items || p.More != more || p.Total != total {
				t.Fatalf("step %d, %+v:\n got  %q more=%v total=%d\n want %q more=%v total=%d", step, q, got, p.More, p.Total, items, more, total)
			}
		}
	}
	// The lists never hold more tombstones than live positions.
	for i, m := range s.index {
		for v, list := range m {
			if n := s.staleIn(i, v); 2*n > len(list) {
				t.Errorf("the list of %s=%s holds %d tombstones in %d", s.fields[i], v, n, len(list))
			}
		}
	}
}
