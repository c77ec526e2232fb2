package store

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// arenaChunk is the size of the blocks record JSON is packed into. Packing
// keeps a million records to a few hundred allocations the garbage
// collector never has to scan (they hold no pointers).
const arenaChunk = 1 << 20

// span locates one record's JSON in an arena.
type span struct {
	chunk, off, n uint32
}

// arena is append-only: bytes once written never change, so readers may
// keep slices of them without a lock.
type arena struct {
	chunks [][]byte
}

func (a *arena) add(b []byte) span {
	last := len(a.chunks) - 1
	if last < 0 || len(a.chunks[last])+len(b) > cap(a.chunks[last]) {
		size := arenaChunk
		if len(b) > size/4 {
			size = len(b) // a large record gets a block of its own
		}
		a.chunks = append(a.chunks, make([]byte, 0, size))
		last++
	}
	c := a.chunks[last]
	off := len(c)
	a.chunks[last] = append(c, b...)
	return span{chunk: uint32(last), off: uint32(off), n: uint32(len(b))}
}

func (a *arena) get(s span) []byte {
	c := a.chunks[s.chunk]
	return c[s.off : s.off+s.n : s.off+s.n]
}

// adopt appends another arena's chunks and returns the offset to add to its
// spans' chunk numbers.
func (a *arena) adopt(o *arena) uint32 {
	base := uint32(len(a.chunks))
	a.chunks = append(a.chunks, o.chunks...)
	return base
}

// storeLimits cap what one collection holds: a create, an import or the
// fixtures that would pass them are refused whole, so a client cannot grow
// the process without bound.
type storeLimits struct {
	coll       string // the collection, for messages
	maxRecords int
	maxBytes   int64 // of record JSON, as stored
}

// check returns a *FullError when a collection of records records and bytes
// bytes of JSON would pass a limit.
func (l storeLimits) check(records int, bytes int64) error {
	switch {
	case records > l.maxRecords:
		return &FullError{Key: "maxRecords", Collection: l.coll, Unit: "records", Would: int64(records), Max: int64(l.maxRecords)}
	case bytes > l.maxBytes:
		return &FullError{Key: "maxBytes", Collection: l.coll, Unit: "bytes of record JSON", Would: bytes, Max: l.maxBytes}
	}
	return nil
}

// table keeps one collection's records in id order with an index per
// filter, so a filtered page costs O(log n + limit), never a full scan.
type table struct {
	mu sync.RWMutex
	// limits are set before the store is shared and never change.
	limits  storeLimits
	bytes   int64   // record JSON held, for limits.maxBytes
	seqs    []int64 // sorted
	spans   []span
	keys    []string         // string ids only; integer keys are their seq
	byKey   map[string]int32 // key -> position, for string ids only
	integer bool             // ids are integers: positions are found by binary search
	data    arena
	nextSeq int64
	// noNext is set once the largest int64 is taken: no seq follows it.
	noNext bool
	// fields are the filter fields; index[i] maps a value of fields[i] to
	// the ascending positions of the records that hold it.
	fields []string
	index  []map[string][]int32
	// canon turns a filter value as a client sent it into the canonical
	// text the index holds (07 into 7); canon(i, v) is for fields[i]. nil
	// takes values as they are.
	canon func(i int, v string) string
	// base is the state reset returns to (the fixtures), shared with the
	// live state: every slice in it is clipped, so appends never write
	// into it.
	base *tableState
}

// tableState is a view of a table's contents.
type tableState struct {
	seqs    []int64
	spans   []span
	bytes   int64
	keys    []string
	byKey   map[string]int32
	chunks  [][]byte
	index   []map[string][]int32
	nextSeq int64
	noNext  bool
}

// newTable makes an empty table without limits; its collection sets them
// before it is shared.
func newTable(integer bool, filterFields []string) *table {
	s := &table{integer: integer, nextSeq: 1, fields: filterFields,
		limits: storeLimits{maxRecords: math.MaxInt, maxBytes: math.MaxInt64}}
	s.reset(0)
	return s
}

func (s *table) reset(n int) {
	s.bytes = 0
	s.seqs = make([]int64, 0, n)
	s.spans = make([]span, 0, n)
	s.keys, s.byKey = nil, nil
	if !s.integer {
		s.keys = make([]string, 0, n)
		s.byKey = make(map[string]int32, n)
	}
	s.data = arena{}
	s.index = make([]map[string][]int32, len(s.fields))
	for i := range s.index {
		s.index[i] = map[string][]int32{}
	}
	s.nextSeq, s.noNext = 1, false
}

// entry is what the caller hands over to store a record: its seq and key,
// its JSON, and the values of its filter fields (vals[i] for fields[i],
// present when bit i of has is set).
type entry struct {
	seq  int64
	key  string
	raw  []byte
	vals []string
	has  uint64
}

// loadColumns replaces the contents with built records sorted by seq,
// adopting the columns' slices and arena rather than copying them.
func (s *table) loadColumns(c *columns) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadColumnsLocked(c)
}

func (s *table) loadColumnsLocked(c *columns) {
	s.reset(0)
	s.seqs, s.spans, s.data, s.bytes = c.seqs, c.spans, c.data, c.bytes()
	if !s.integer {
		s.keys = c.keys
		s.byKey = make(map[string]int32, len(c.keys))
		for pos, k := range c.keys {
			s.byKey[k] = int32(pos)
		}
	}
	s.index = c.index
	if n := len(s.seqs); n > 0 {
		s.advancePast(s.seqs[n-1])
	}
}

func (s *table) appendLocked(e *entry, sp span) {
	pos := int32(len(s.seqs))
	s.seqs = append(s.seqs, e.seq)
	s.spans = append(s.spans, sp)
	s.bytes += int64(sp.n)
	if !s.integer {
		s.keys = append(s.keys, e.key)
		s.byKey[e.key] = pos
	}
	for i := range s.fields {
		if e.has&(1<<i) != 0 {
			s.index[i][e.vals[i]] = append(s.index[i][e.vals[i]], pos)
		}
	}
	if e.seq >= s.nextSeq {
		s.advancePast(e.seq)
	}
}

// advancePast makes the next seq the one after seq; after the largest
// int64 there is none (adding one would wrap to the smallest).
func (s *table) advancePast(seq int64) {
	if seq == math.MaxInt64 {
		s.noNext = true
		return
	}
	s.nextSeq = seq + 1
}

// markBaseline makes the current contents what restoreBaseline returns to.
func (s *table) markBaseline() {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &tableState{
		seqs:    slices.Clip(s.seqs),
		spans:   slices.Clip(s.spans),
		bytes:   s.bytes,
		keys:    slices.Clip(s.keys),
		byKey:   s.byKey,
		chunks:  clipChunks(s.data.chunks),
		index:   s.index,
		nextSeq: s.nextSeq,
		noNext:  s.noNext,
	}
	st.index = make([]map[string][]int32, len(s.index))
	for i, m := range s.index {
		st.index[i] = make(map[string][]int32, len(m))
		for v, list := range m {
			st.index[i][v] = slices.Clip(list)
		}
	}
	st.byKey = maps.Clone(s.byKey)
	s.base = st
	s.restoreLocked(st)
}

// restoreBaseline returns the store to the contents markBaseline saw. Its
// cost is the number of distinct filter values and string ids, not records.
func (s *table) restoreBaseline() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restoreBaselineLocked()
}

func (s *table) restoreBaselineLocked() {
	if s.base != nil {
		s.restoreLocked(s.base)
	}
}

// baseline is the state restoreBaseline returns to: the contents when
// there is none yet. The caller holds the lock.
func (s *table) baselineLocked() *tableState {
	if s.base != nil {
		return s.base
	}
	return &tableState{seqs: s.seqs, spans: s.spans, bytes: s.bytes, keys: s.keys,
		chunks: s.data.chunks, nextSeq: s.nextSeq, noNext: s.noNext}
}

func (s *table) restoreLocked(st *tableState) {
	s.seqs, s.spans, s.keys, s.bytes = st.seqs, st.spans, st.keys, st.bytes
	s.byKey = maps.Clone(st.byKey)
	s.data = arena{chunks: clipChunks(st.chunks)}
	s.index = make([]map[string][]int32, len(st.index))
	for i, m := range st.index {
		s.index[i] = maps.Clone(m)
	}
	s.nextSeq, s.noNext = st.nextSeq, st.noNext
}

// clipChunks returns chunks with the last one clipped to its length, so the
// next add starts a new chunk instead of writing behind a saved state.
func clipChunks(chunks [][]byte) [][]byte {
	out := slices.Clip(slices.Clone(chunks))
	if n := len(out); n > 0 {
		out[n-1] = slices.Clip(out[n-1])
	}
	return out
}

// create assigns the next seq, lets build make the entry for it, and stores
// the entry only when build succeeds, the store's limits allow it and
// commit (when not nil) takes it: a failed create leaves nothing behind (a
// *FullError says which limit). A string id that fixtures already use is
// skipped.
func (s *table) create(build func(seq int64) (entry, error), commit func(e *entry, next int64) error) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The count is checked before the record is built, its bytes after.
	if err := s.limits.check(len(s.seqs)+1, s.bytes); err != nil {
		return Record{}, err
	}
	for {
		if s.noNext {
			return Record{}, ErrIDsExhausted
		}
		e, err := build(s.nextSeq)
		if err != nil {
			return Record{}, err
		}
		if err := s.limits.check(len(s.seqs)+1, s.bytes+int64(len(e.raw))); err != nil {
			return Record{}, err
		}
		if s.byKey != nil {
			if _, taken := s.byKey[e.key]; taken {
				s.advancePast(s.nextSeq)
				continue
			}
		}
		if commit != nil {
			next := e.seq + 1
			if e.seq == math.MaxInt64 {
				next = 0
			}
			if err := commit(&e, next); err != nil {
				return Record{}, err
			}
		}
		sp := s.data.add(e.raw)
		s.appendLocked(&e, sp)
		return Record{ID: e.key, JSON: s.data.get(sp), seq: e.seq}, nil
	}
}

// get returns the record with the given path key.
func (s *table) get(key string) (Record, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	pos := -1
	if s.integer {
		if id, err := strconv.ParseInt(key, 10, 64); err == nil {
			if i, ok := slices.BinarySearch(s.seqs, id); ok {
				pos = i
			}
		}
	} else if p, ok := s.byKey[key]; ok {
		pos = int(p)
	}
	if pos < 0 {
		return Record{}, false
	}
	return s.recordAt(pos), true
}

func (s *table) recordAt(pos int) Record {
	r := Record{JSON: s.data.get(s.spans[pos]), seq: s.seqs[pos]}
	if s.integer {
		r.ID = strconv.FormatInt(r.seq, 10)
	} else {
		r.ID = s.keys[pos]
	}
	return r
}

// page returns the raw records of a page, in order, the seq of the last
// one (for a cursor) and whether more follow.
func (s *table) page(q Query) (items [][]byte, last int64, more bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	items = make([][]byte, 0, min(max(q.Limit, 0), len(s.seqs), 1024))
	more = s.scanLocked(q, func(pos int) {
		items = append(items, s.data.get(s.spans[pos]))
		last = s.seqs[pos]
	})
	return items, last, more
}

// scanLocked calls take with the position of each record of the page, in
// order, and reports whether more follow. The caller holds the read lock.
func (s *table) scanLocked(q Query, take func(pos int)) bool {
	// Candidate positions: the shortest index list of the filters, the other
	// filters checked by binary search in their own lists.
	var cand []int32
	var others [][]int32
	all := len(q.Filters) == 0
	for f, v := range q.Filters {
		i := slices.Index(s.fields, f)
		if i < 0 {
			return false
		}
		if s.canon != nil {
			v = s.canon(i, v)
		}
		list := s.index[i][v]
		if len(list) == 0 {
			return false
		}
		if cand == nil || len(list) < len(cand) {
			if cand != nil {
				others = append(others, cand)
			}
			cand = list
		} else {
			others = append(others, list)
		}
	}
	n := len(s.seqs)
	if !all {
		n = len(cand)
	}
	at := func(i int) int {
		if all {
			return i
		}
		return int(cand[i])
	}
	// Find where to start: the first candidate past the cursor.
	start := 0
	if q.HasAfter {
		var afterPos int
		if q.Desc {
			afterPos = sort.Search(len(s.seqs), func(i int) bool { return s.seqs[i] >= q.After })
		} else {
			afterPos = sort.Search(len(s.seqs), func(i int) bool { return s.seqs[i] > q.After })
		}
		start = sort.Search(n, func(i int) bool { return at(i) >= afterPos })
	}
	taken := 0
	step, i := 1, start
	if q.Desc {
		step, i = -1, n-1
		if q.HasAfter {
			i = start - 1
		}
	}
	for ; i >= 0 && i < n; i += step {
		pos := at(i)
		if !inAll(others, int32(pos)) {
			continue
		}
		if q.Limit > 0 && taken == q.Limit {
			return true
		}
		take(pos)
		taken++
	}
	return false
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
func (s *table) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.seqs)
}

// frozenRecords are a store's records at one moment, in seq order. They
// share the store's bytes, which never change once written, and the slices
// are the store's own, clipped or copied, so they may be read after the
// lock is released while the store changes on.
type frozenRecords struct {
	spans []span
	data  arena
}

func (f frozenRecords) len() int        { return len(f.spans) }
func (f frozenRecords) at(i int) []byte { return f.data.get(f.spans[i]) }

// frozen returns the records as they are now; its cost is the number of
// arena chunks, not of records.
func (s *table) frozen() frozenRecords {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// The chunk list is copied: add rewrites the last chunk's header in it.
	return frozenRecords{spans: slices.Clip(s.spans), data: arena{chunks: slices.Clone(s.data.chunks)}}
}
