package engine

import (
	"slices"
	"sort"
	"strconv"
	"sync"
)

// record is one stored item: its id and its canonical JSON, which was
// validated against the item schema before it was stored and never changes.
type record struct {
	seq int64  // insertion order; equals the id for integer ids
	key string // the id as it appears in a path
	raw []byte
}

// collectionStore keeps one collection's records in id order with an index
// per filter, so a filtered page costs O(log n + limit), never a full scan.
type collectionStore struct {
	mu      sync.RWMutex
	records []record         // sorted by seq
	byKey   map[string]int32 // key -> position, for string ids only
	integer bool             // ids are integers: positions are found by binary search
	nextSeq int64
	// index maps a filter field to its values to the ascending positions of
	// the records that hold the value.
	index map[string]map[string][]int32
}

func newCollectionStore(integer bool, filterFields []string) *collectionStore {
	s := &collectionStore{integer: integer, nextSeq: 1, index: map[string]map[string][]int32{}}
	if !integer {
		s.byKey = map[string]int32{}
	}
	for _, f := range filterFields {
		s.index[f] = map[string][]int32{}
	}
	return s
}

// entry is what the caller of insert hands over: a record and the values of
// its filter fields.
type entry struct {
	rec    record
	values map[string]string // filter field -> canonical value; absent when the record lacks it
}

// load replaces the contents with entries, which must be sorted by seq.
func (s *collectionStore) load(entries []entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = make([]record, 0, len(entries))
	if s.byKey != nil {
		s.byKey = make(map[string]int32, len(entries))
	}
	for f := range s.index {
		s.index[f] = map[string][]int32{}
	}
	s.nextSeq = 1
	for _, e := range entries {
		s.appendLocked(e)
	}
}

func (s *collectionStore) appendLocked(e entry) {
	pos := int32(len(s.records))
	s.records = append(s.records, e.rec)
	if s.byKey != nil {
		s.byKey[e.rec.key] = pos
	}
	for f, v := range e.values {
		if idx, ok := s.index[f]; ok {
			idx[v] = append(idx[v], pos)
		}
	}
	if e.rec.seq >= s.nextSeq {
		s.nextSeq = e.rec.seq + 1
	}
}

// create assigns the next seq, lets build make the entry for it, and stores
// the entry only when build succeeds: a failed create leaves nothing behind.
// A string id that fixtures already use is skipped.
func (s *collectionStore) create(build func(seq int64) (entry, error)) (record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		e, err := build(s.nextSeq)
		if err != nil {
			return record{}, err
		}
		if s.byKey != nil {
			if _, taken := s.byKey[e.rec.key]; taken {
				s.nextSeq++
				continue
			}
		}
		s.appendLocked(e)
		return e.rec, nil
	}
}

// get returns the record with the given path key.
func (s *collectionStore) get(key string) (record, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.integer {
		pos, ok := s.byKey[key]
		if !ok {
			return record{}, false
		}
		return s.records[pos], true
	}
	id, err := strconv.ParseInt(key, 10, 64)
	if err != nil {
		return record{}, false
	}
	i := sort.Search(len(s.records), func(i int) bool { return s.records[i].seq >= id })
	if i < len(s.records) && s.records[i].seq == id {
		return s.records[i], true
	}
	return record{}, false
}

// query describes a page of a list.
type query struct {
	filters  map[string]string // field -> canonical value
	limit    int               // 0 means no limit
	desc     bool              // newest first
	after    int64             // continue after this seq, when hasAfter
	hasAfter bool
}

// page returns the raw records of a page, in order, and whether more follow.
func (s *collectionStore) page(q query) ([][]byte, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// Candidate positions: the shortest index list of the filters, the other
	// filters checked by binary search in their own lists.
	var cand []int32
	var others [][]int32
	all := len(q.filters) == 0
	for f, v := range q.filters {
		list := s.index[f][v]
		if cand == nil || len(list) < len(cand) {
			if cand != nil {
				others = append(others, cand)
			}
			cand = list
		} else {
			others = append(others, list)
		}
		if len(list) == 0 {
			return nil, false
		}
	}
	n := len(s.records)
	if !all {
		n = len(cand)
	}
	at := func(i int) int32 {
		if all {
			return int32(i)
		}
		return cand[i]
	}
	// Find where to start: the first candidate past the cursor.
	start := 0
	if q.hasAfter {
		afterPos := sort.Search(len(s.records), func(i int) bool { return s.records[i].seq > q.after })
		if q.desc {
			afterPos = sort.Search(len(s.records), func(i int) bool { return s.records[i].seq >= q.after })
		}
		start = sort.Search(n, func(i int) bool { return int(at(i)) >= afterPos })
	}
	var out [][]byte
	more := false
	step, i := 1, start
	if q.desc {
		step, i = -1, n-1
		if q.hasAfter {
			i = start - 1
		}
	}
	for ; i >= 0 && i < n; i += step {
		pos := at(i)
		if !inAll(others, pos) {
			continue
		}
		if q.limit > 0 && len(out) == q.limit {
			more = true
			break
		}
		out = append(out, s.records[pos].raw)
	}
	return out, more
}

func inAll(lists [][]int32, pos int32) bool {
	for _, l := range lists {
		if _, ok := slices.BinarySearch(l, pos); !ok {
			return false
		}
	}
	return true
}

// len returns the number of records.
func (s *collectionStore) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.records)
}

// snapshot returns the raw records in seq order.
func (s *collectionStore) snapshot() [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([][]byte, len(s.records))
	for i, r := range s.records {
		out[i] = r.raw
	}
	return out
}
