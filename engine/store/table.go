package store

import (
	"cmp"
	"fmt"
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
		a.chunks = append(a.chunks, newChunk(len(b)))
		last++
	}
	c := a.chunks[last]
	off := len(c)
	a.chunks[last] = append(c, b...)
	return span{chunk: uint32(last), off: uint32(off), n: uint32(len(b))}
}

// newChunk is an empty chunk for a record of n bytes and those after it.
func newChunk(n int) []byte {
	size := arenaChunk
	if n > size/4 {
		size = n // a large record gets a block of its own
	}
	return make([]byte, 0, size)
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

// scopeSep joins the ids of a record's parents into its scope, and a scope
// to an id in a key: neither can appear in an id a path carries.
const scopeSep = "\x1f"

// table keeps one collection's records in seq order with an index per
// filter, so a filtered page costs O(log n + limit), never a full scan.
//
// Positions never move while records change: a replace points its
// position at new bytes (the old ones stay in the arena for readers that
// hold them), a delete leaves a tombstone (a bit in dead) that every scan,
// count and export skips. The index lists keep a tombstone's position
// until half of a list is tombstones (stale counts them): taking one
// position out of a list moves every position after it, and the list of
// a common value holds a fair share of the table (BenchmarkTableDelete,
// a million records of one value: 300 µs a delete that way, under 1 µs
// this way). Slices the
// baseline or an export share with the live state are copied before the
// first change that would write into them (copy-on-write), so neither
// ever sees a change. When tombstones or replaced bytes outweigh the live
// records, compact rebuilds the table without them.
//
// Every change goes through one method per kind, the places a persistence
// layer hooks: insertLocked (create), replaceLocked (replace, patch),
// deleteLocked (delete), restoreBaseline (reset) and loadColumns (load and
// import).
type table struct {
	mu sync.RWMutex
	// limits are set before the store is shared and never change.
	limits  storeLimits
	bytes   int64 // live record JSON, for limits.maxBytes
	garbage int64 // arena bytes no live record uses
	seqs    []int64
	spans   []span
	keys    []string         // string ids only; integer keys are their seq
	scopes  []string         // scoped tables only: each record's parents' ids
	byKey   map[string]int32 // string ids: scope-qualified key -> position
	integer bool             // ids are integers: positions are found by binary search
	scoped  bool
	data    arena
	nextSeq int64
	// noNext is set once the largest int64 is taken: no seq follows it.
	noNext bool
	// dead marks tombstones, a bit per position; nil until the first delete.
	dead  []uint64
	ndead int
	// fields are the filter fields, and for a scoped table the scope last;
	// index[i] maps a value of fields[i] to the ascending positions of the
	// records that hold it: the live ones, and tombstones, as many as
	// stale[i] counts for the value (none where it has no entry).
	fields []string
	index  []map[string][]int32
	stale  []map[string]int
	// canon turns a filter value as a client sent it into the canonical
	// text the index holds (07 into 7); canon(i, v) is for fields[i]. nil
	// takes values as they are.
	canon func(i int, v string) string
	// base is the state reset returns to (the fixtures), shared with the
	// live state: every slice in it is clipped, so appends never write
	// into it.
	base *tableState
	// spansShared is set while the spans slice is shared (with the
	// baseline or an export): a replace copies it first. owned[i] names
	// the index lists of fields[i] that the live state made itself and may
	// change in place.
	spansShared bool
	owned       []map[string]bool
}

// tableState is a view of a table's contents.
type tableState struct {
	seqs    []int64
	spans   []span
	bytes   int64
	garbage int64
	keys    []string
	scopes  []string
	byKey   map[string]int32
	chunks  [][]byte
	index   []map[string][]int32
	stale   []map[string]int
	dead    []uint64
	ndead   int
	nextSeq int64
	noNext  bool
}

// newTable makes an empty table without limits; its collection sets them
// before it is shared. A scoped table keeps each record's scope, and an
// index of them after the filter fields.
func newTable(integer, scoped bool, filterFields []string) *table {
	s := &table{integer: integer, scoped: scoped, nextSeq: 1, fields: slices.Clone(filterFields),
		limits: storeLimits{maxRecords: math.MaxInt, maxBytes: math.MaxInt64}}
	if scoped {
		s.fields = append(s.fields, scopeSep)
	}
	s.reset(0)
	return s
}

// scopeIndex is the position of the scope in fields, -1 when unscoped.
func (s *table) scopeIndex() int {
	if !s.scoped {
		return -1
	}
	return len(s.fields) - 1
}

func (s *table) reset(n int) {
	s.bytes, s.garbage = 0, 0
	s.seqs = make([]int64, 0, n)
	s.spans = make([]span, 0, n)
	s.keys, s.byKey, s.scopes = nil, nil, nil
	if !s.integer {
		s.keys = make([]string, 0, n)
		s.byKey = make(map[string]int32, n)
	}
	if s.scoped {
		s.scopes = make([]string, 0, n)
	}
	s.data = arena{}
	s.index = make([]map[string][]int32, len(s.fields))
	for i := range s.index {
		s.index[i] = map[string][]int32{}
	}
	s.stale = nil
	s.dead, s.ndead = nil, 0
	s.nextSeq, s.noNext = 1, false
	s.spansShared, s.owned = false, nil
}

// entry is what the caller hands over to store a record: its seq, id and
// scope, its JSON, and the values of its filter fields (vals[i] for
// fields[i], present when bit i of has is set).
type entry struct {
	seq   int64
	key   string
	scope string
	raw   []byte
	vals  []string
	has   uint64
}

// mapKey is the key byKey holds a record under.
func (s *table) mapKey(scope, key string) string {
	if !s.scoped {
		return key
	}
	return scope + scopeSep + key
}

// loadColumns replaces the contents with built records sorted by seq,
// adopting the columns' slices and arena rather than copying them: a load
// of fixtures, or an import.
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
			sc := ""
			if s.scoped {
				sc = c.scopes[pos]
			}
			s.byKey[s.mapKey(sc, k)] = int32(pos)
		}
	}
	if s.scoped {
		s.scopes = c.scopes
	}
	s.index = c.index
	if n := len(s.seqs); n > 0 {
		s.advancePast(s.seqs[n-1])
	}
}

// insertLocked stores a new record at the end, for a create: the one
// place a record is added after a load.
func (s *table) insertLocked(e *entry) Record {
	sp := s.data.add(e.raw)
	pos := int32(len(s.seqs))
	s.seqs = append(s.seqs, e.seq)
	s.spans = append(s.spans, sp)
	s.bytes += int64(sp.n)
	if !s.integer {
		s.keys = append(s.keys, e.key)
		s.byKey[s.mapKey(e.scope, e.key)] = pos
	}
	if s.scoped {
		s.scopes = append(s.scopes, e.scope)
	}
	for i := range e.vals {
		if e.has&(1<<i) != 0 {
			s.index[i][e.vals[i]] = append(s.index[i][e.vals[i]], pos)
		}
	}
	if s.scoped {
		sx := s.scopeIndex()
		s.index[sx][e.scope] = append(s.index[sx][e.scope], pos)
	}
	if e.seq >= s.nextSeq {
		s.advancePast(e.seq)
	}
	// Not recordAt: the id is at hand, and formatting an integer id
	// again would cost every create an allocation.
	return Record{ID: e.key, Scope: e.scope, JSON: s.data.get(sp), seq: e.seq}
}

// replaceLocked points the live record at pos at e's bytes, for a replace
// or a patch; its id, scope and place in the order stay. old holds the
// filter values of the record it replaces.
func (s *table) replaceLocked(pos int, old, e *entry) Record {
	prev := s.spans[pos]
	if s.spansShared {
		s.spans = slices.Clone(s.spans)
		s.spansShared = false
	}
	for i := range s.fields {
		if i == s.scopeIndex() {
			continue
		}
		ov, had := s.entryValue(old, i)
		nv, has := s.entryValue(e, i)
		if had == has && ov == nv {
			continue
		}
		if had {
			s.listRemove(i, ov, int32(pos))
		}
		if has {
			s.listInsert(i, nv, int32(pos))
		}
	}
	s.spans[pos] = s.data.add(e.raw)
	s.bytes += int64(len(e.raw)) - int64(prev.n)
	s.garbage += int64(prev.n)
	return s.recordAt(pos)
}

// deleteLocked leaves a tombstone at pos, for a delete: the record leaves
// every scan, count and the id map; the index lists count it stale until
// they are pruned. old holds its filter values.
func (s *table) deleteLocked(pos int, old *entry) {
	if s.dead == nil {
		s.dead = make([]uint64, (len(s.seqs)+63)/64+1)
	}
	for len(s.dead)*64 <= pos {
		s.dead = append(s.dead, 0)
	}
	s.dead[pos/64] |= 1 << (pos % 64)
	s.ndead++
	for i := range s.fields {
		if v, ok := s.entryValue(old, i); ok {
			s.markStale(i, v)
		}
	}
	if !s.integer {
		sc := ""
		if s.scoped {
			sc = s.scopes[pos]
		}
		delete(s.byKey, s.mapKey(sc, s.keys[pos]))
	}
	n := int64(s.spans[pos].n)
	s.bytes -= n
	s.garbage += n
}

// entryValue is e's value for fields[i].
func (s *table) entryValue(e *entry, i int) (string, bool) {
	if i == s.scopeIndex() {
		return e.scope, true
	}
	if i < len(e.vals) && e.has&(1<<i) != 0 {
		return e.vals[i], true
	}
	return "", false
}

// listRemove takes pos out of the index list of value v of fields[i],
// for a replace that changes the value.
func (s *table) listRemove(i int, v string, pos int32) {
	list := s.index[i][v]
	at, ok := slices.BinarySearch(list, pos)
	if !ok {
		return
	}
	if len(list) == 1 {
		delete(s.index[i], v)
		return
	}
	s.index[i][v] = slices.Delete(s.ownList(i, v, list), at, at+1)
	s.pruneIfStale(i, v)
}

// markStale counts a tombstone the index list of value v of fields[i]
// still holds.
func (s *table) markStale(i int, v string) {
	if s.stale == nil {
		s.stale = make([]map[string]int, len(s.fields))
	}
	if s.stale[i] == nil {
		s.stale[i] = map[string]int{}
	}
	s.stale[i][v]++
	s.pruneIfStale(i, v)
}

// staleIn is the number of tombstones in the index list of value v of
// fields[i].
func (s *table) staleIn(i int, v string) int {
	if s.stale == nil || s.stale[i] == nil {
		return 0
	}
	return s.stale[i][v]
}

// pruneIfStale rebuilds the index list of value v of fields[i] without its
// tombstones once they are half of it, so that a list is never more than
// twice its live length and a delete costs a constant amortised: the
// rebuild, in proportion to the list, follows as many deletes as it has
// live positions left. The rebuilt list is a new slice, the old one stays
// with whatever shares it.
func (s *table) pruneIfStale(i int, v string) {
	n := s.staleIn(i, v)
	list := s.index[i][v]
	if n == 0 || 2*n < len(list) {
		return
	}
	delete(s.stale[i], v)
	live := make([]int32, 0, len(list)-n)
	for _, p := range list {
		if !s.isDead(int(p)) {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		delete(s.index[i], v)
		return
	}
	s.index[i][v] = live
	s.markOwned(i, v)
}

// listInsert puts pos into the index list of value v of fields[i], in order.
func (s *table) listInsert(i int, v string, pos int32) {
	list := s.index[i][v]
	at, ok := slices.BinarySearch(list, pos)
	if ok {
		return
	}
	s.index[i][v] = slices.Insert(s.ownList(i, v, list), at, pos)
}

// ownList returns list, copied first unless the live state made it: the
// baseline's lists are shared until then.
func (s *table) ownList(i int, v string, list []int32) []int32 {
	if s.owned != nil && s.owned[i][v] {
		return list
	}
	s.markOwned(i, v)
	return slices.Clone(list)
}

// markOwned records that the live state made the index list of value v of
// fields[i] itself.
func (s *table) markOwned(i int, v string) {
	if s.owned == nil {
		s.owned = make([]map[string]bool, len(s.fields))
	}
	if s.owned[i] == nil {
		s.owned[i] = map[string]bool{}
	}
	s.owned[i][v] = true
}

// heldBytes is the table's part of Store.HeldBytes, but for the arena's
// chunks, which it hands to chunk (records of one file share one).
func (s *table) heldBytes(chunk func([]byte)) int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	const spanBytes = 12 // three uint32
	n := int64(cap(s.seqs))*8 + int64(cap(s.spans))*spanBytes + int64(cap(s.dead))*8
	for _, c := range s.data.chunks {
		chunk(c)
	}
	for _, m := range s.index {
		for _, l := range m {
			n += int64(cap(l)) * 4
		}
	}
	return n
}

// isDead reports whether pos holds a tombstone.
func (s *table) isDead(pos int) bool {
	return s.dead != nil && pos/64 < len(s.dead) && s.dead[pos/64]&(1<<(pos%64)) != 0
}

// live is the number of live records.
func (s *table) live() int { return len(s.seqs) - s.ndead }

// compactIfWorthIt rebuilds the table without tombstones and replaced
// bytes once they outweigh the live records, so that churn (a create and
// a delete, again and again) costs memory in proportion to what is live.
// Positions change: a caller compacts once its change is complete.
func (s *table) compactIfWorthIt() {
	const floor = 1 << 20
	if s.ndead > 1024 && s.ndead > s.live() || s.garbage > floor && s.garbage > s.bytes {
		s.compactLocked()
	}
}

// compactLocked rebuilds the table from its live records: new slices, a
// new arena and new indexes; the old ones stay with whoever shares them.
// Seqs are kept, so cursors stay valid.
func (s *table) compactLocked() {
	n := s.live()
	seqs, spans := make([]int64, 0, n), make([]span, 0, n)
	var keys, scopes []string
	if !s.integer {
		keys = make([]string, 0, n)
	}
	if s.scoped {
		scopes = make([]string, 0, n)
	}
	newPos := make([]int32, len(s.seqs))
	var a arena
	for pos := range s.seqs {
		if s.isDead(pos) {
			newPos[pos] = -1
			continue
		}
		newPos[pos] = int32(len(seqs))
		seqs = append(seqs, s.seqs[pos])
		spans = append(spans, a.add(s.data.get(s.spans[pos])))
		if keys != nil {
			keys = append(keys, s.keys[pos])
		}
		if scopes != nil {
			scopes = append(scopes, s.scopes[pos])
		}
	}
	index := make([]map[string][]int32, len(s.index))
	s.stale = nil // the rebuilt lists hold no tombstones
	for i, m := range s.index {
		index[i] = make(map[string][]int32, len(m))
		for v, list := range m {
			out := make([]int32, 0, len(list))
			for _, p := range list {
				if np := newPos[p]; np >= 0 {
					out = append(out, np)
				}
			}
			if len(out) > 0 {
				index[i][v] = out
			}
		}
	}
	s.seqs, s.spans, s.keys, s.scopes, s.data, s.index = seqs, spans, keys, scopes, a, index
	if keys != nil {
		s.byKey = make(map[string]int32, len(keys))
		for pos, k := range keys {
			sc := ""
			if scopes != nil {
				sc = scopes[pos]
			}
			s.byKey[s.mapKey(sc, k)] = int32(pos)
		}
	}
	s.dead, s.ndead, s.garbage = nil, 0, 0
	s.spansShared, s.owned = false, nil
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
		garbage: s.garbage,
		keys:    slices.Clip(s.keys),
		scopes:  slices.Clip(s.scopes),
		chunks:  clipChunks(s.data.chunks),
		dead:    slices.Clone(s.dead),
		ndead:   s.ndead,
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
	st.stale = cloneStale(s.stale)
	st.byKey = maps.Clone(s.byKey)
	s.base = st
	s.restoreLocked(st)
}

// restoreBaseline returns the store to the contents markBaseline saw, for
// a reset. Its cost is the number of distinct filter values and string
// ids, not records.
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

// baselineLocked is the state restoreBaseline returns to: the contents
// when there is none yet. The caller holds the lock.
func (s *table) baselineLocked() *tableState {
	if s.base != nil {
		return s.base
	}
	return s.stateLocked()
}

// stateLocked is a view of the contents as they are, for a journal to
// write: its slices are clipped or copied, so later changes never write
// into them. The caller holds the lock.
func (s *table) stateLocked() *tableState {
	s.spansShared = true // a replace copies them first
	return &tableState{seqs: slices.Clip(s.seqs), spans: slices.Clip(s.spans), bytes: s.bytes, keys: slices.Clip(s.keys),
		scopes: slices.Clip(s.scopes), chunks: slices.Clone(s.data.chunks), dead: slices.Clone(s.dead), ndead: s.ndead,
		nextSeq: s.nextSeq, noNext: s.noNext}
}

// nextAfter is the seq the next create takes once a record with seq is
// stored: 0 when none is left.
func (s *table) nextAfter(seq int64) int64 {
	switch {
	case seq < s.nextSeq || s.noNext:
		return nextOf(s.nextSeq, s.noNext)
	case seq == math.MaxInt64:
		return 0
	}
	return seq + 1
}

func (s *table) restoreLocked(st *tableState) {
	s.seqs, s.spans, s.keys, s.scopes, s.bytes, s.garbage = st.seqs, st.spans, st.keys, st.scopes, st.bytes, st.garbage
	s.byKey = maps.Clone(st.byKey)
	s.data = arena{chunks: clipChunks(st.chunks)}
	s.index = make([]map[string][]int32, len(st.index))
	for i, m := range st.index {
		s.index[i] = maps.Clone(m)
	}
	s.stale = cloneStale(st.stale)
	s.dead, s.ndead = slices.Clone(st.dead), st.ndead
	s.nextSeq, s.noNext = st.nextSeq, st.noNext
	s.spansShared, s.owned = true, nil
}

// cloneStale copies a table's stale counts, which a state and the live
// table never share: a delete changes them in place.
func cloneStale(stale []map[string]int) []map[string]int {
	if stale == nil {
		return nil
	}
	out := make([]map[string]int, len(stale))
	for i, m := range stale {
		out[i] = maps.Clone(m)
	}
	return out
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
// commit (when not nil) takes it: a failed create leaves nothing behind (a *FullError says which limit). A
// server-made string id that a record already uses is skipped; an id the
// client chose (build sets chosen) is a *ConflictError instead.
func (s *table) create(build func(seq int64) (e entry, chosen bool, err error)) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createLocked(build, nil)
}

func (s *table) createLocked(build func(seq int64) (entry, bool, error), commit func(e *entry) error) (Record, error) {
	cur := s.cursor()
	e, err := s.buildNewLocked(&cur, build)
	if err != nil {
		return Record{}, err
	}
	if commit != nil {
		if err := commit(&e); err != nil {
			return Record{}, err
		}
	}
	return s.insertLocked(&e), nil
}

// createCursor is where the next of a batch of creates stands, before any
// of the batch is inserted: the seq it takes, what the table would hold
// with the batch's records before it, and their ids.
type createCursor struct {
	seq    int64
	noNext bool
	live   int
	bytes  int64
	// taken are the scope and id of the batch's records so far; nil for
	// a create alone.
	taken map[string]bool
}

// cursor is where a batch of creates starts; the caller holds the lock.
func (s *table) cursor() createCursor {
	return createCursor{seq: s.nextSeq, noNext: s.noNext, live: s.live(), bytes: s.bytes}
}

func (cur *createCursor) advance() {
	if cur.seq == math.MaxInt64 {
		cur.noNext = true
		return
	}
	cur.seq++
}

// buildNewLocked lets build make the entry of the create at cur and moves
// cur past it, when build succeeds and the limits allow it, with the
// batch's records before it counted as stored; a failed create leaves cur
// as it was.
func (s *table) buildNewLocked(cur *createCursor, build func(seq int64) (e entry, chosen bool, err error)) (entry, error) {
	// The count is checked before the record is built, its bytes after.
	if err := s.limits.check(cur.live+1, cur.bytes); err != nil {
		return entry{}, err
	}
	at := *cur
	for tries := 0; ; tries++ {
		if at.noNext {
			return entry{}, ErrIDsExhausted
		}
		if tries == maxIDTries {
			// The ids the schema lets the server make are taken: a
			// pattern with few matches, an enum.
			return entry{}, ErrNoFreeID
		}
		e, chosen, err := build(at.seq)
		if err != nil {
			return entry{}, err
		}
		if err := s.limits.check(cur.live+1, cur.bytes+int64(len(e.raw))); err != nil {
			return entry{}, err
		}
		// A seq the table makes is past every integer id: only an id
		// the client chose, or a string one, can be taken.
		var key string
		if cur.taken != nil {
			key = e.scope + scopeSep + e.key
		}
		if !s.integer || chosen {
			if _, taken := s.findLocked(e.scope, e.key); taken || cur.taken[key] {
				if chosen {
					return entry{}, &ConflictError{ID: e.key}
				}
				at.advance()
				continue
			}
		}
		at.advance()
		*cur = at
		cur.live++
		cur.bytes += int64(len(e.raw))
		if cur.taken != nil {
			cur.taken[key] = true
		}
		return e, nil
	}
}

// maxIDTries bounds how many taken ids a create skips before it gives up.
const maxIDTries = 1000

// find returns the position of the live record with the given scope and
// path key, holding the read lock.
func (s *table) find(scope, key string) (int, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.findLocked(scope, key)
}

func (s *table) findLocked(scope, key string) (int, bool) {
	pos := -1
	if s.integer {
		if id, err := strconv.ParseInt(key, 10, 64); err == nil {
			if i, ok := slices.BinarySearch(s.seqs, id); ok {
				pos = i
			}
		}
	} else if p, ok := s.byKey[s.mapKey(scope, key)]; ok {
		pos = int(p)
	}
	if pos < 0 || s.isDead(pos) || s.scoped && s.scopes[pos] != scope {
		return -1, false
	}
	return pos, true
}

// get returns the live record with the given scope and path key.
func (s *table) get(scope, key string) (Record, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	pos, ok := s.findLocked(scope, key)
	if !ok {
		return Record{}, false
	}
	return s.recordAt(pos), true
}

// first returns the first live record under scope, in the store's order
// (every record of an unscoped table).
func (s *table) first(scope string) (Record, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.firstLocked(scope)
}

func (s *table) firstLocked(scope string) (Record, bool) {
	q := Query{Limit: 1}
	if s.scoped {
		q.Scope = &scope
	}
	pos := -1
	s.scanLocked(q, func(p int) { pos = p })
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
	if s.scoped {
		r.Scope = s.scopes[pos]
	}
	return r
}

// page returns the raw records of a page, in order, with the seq and id
// of the last one (for a cursor), whether more follow and, when q.Count
// asks, how many match in all.
func (s *table) page(q Query, sortKey func(raw []byte) any) Page {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var p Page
	items := make([][]byte, 0, min(max(q.Limit, 0), s.live(), 1024))
	lastPos := -1
	take := func(pos int) {
		items = append(items, s.data.get(s.spans[pos]))
		lastPos = pos
	}
	if sortKey != nil {
		p.More, p.Total = s.sortedLocked(q, sortKey, take)
	} else {
		p.More, p.Total = s.scanLocked(q, take)
	}
	p.Items = items
	if lastPos >= 0 {
		p.Last = s.seqs[lastPos]
		if !s.integer {
			p.LastID = s.keys[lastPos]
		}
	}
	return p
}

// candidates are the positions a query's filters allow, ascending: the
// shortest index list of the filters (a union for a filter of several
// values), the others checked by binary search in their own. all is set
// when no filter narrows the table. The lists may hold tombstones: stale
// of them in cand.
func (s *table) candidates(q Query) (cand []int32, stale int, others [][]int32, all, none bool) {
	all = true
	consider := func(list []int32, n int) {
		if all || len(list) < len(cand) {
			if !all {
				others = append(others, cand)
			}
			cand, stale, all = list, n, false
		} else {
			others = append(others, list)
		}
	}
	for f, vs := range q.Filters {
		i := slices.Index(s.fields, f)
		if i < 0 || len(vs) == 0 {
			return nil, 0, nil, false, true
		}
		var list []int32
		n := 0
		for j, v := range vs {
			if s.canon != nil {
				v = s.canon(i, v)
			}
			if len(vs) == 1 {
				list = s.index[i][v]
			} else if slices.ContainsFunc(vs[:j], func(w string) bool { return w == v || s.canon != nil && s.canon(i, w) == v }) {
				continue // ?status=sold&status=sold
			} else {
				list = mergeSorted(list, s.index[i][v])
			}
			n += s.staleIn(i, v) // a record holds one value of a field: the lists are disjoint
		}
		if len(list) == 0 {
			return nil, 0, nil, false, true
		}
		consider(list, n)
	}
	if s.scoped && q.Scope != nil {
		sx := s.scopeIndex()
		list := s.index[sx][*q.Scope]
		if len(list) == 0 {
			return nil, 0, nil, false, true
		}
		consider(list, s.staleIn(sx, *q.Scope))
	}
	return cand, stale, others, all, false
}

// mergeSorted is the ascending union of two ascending lists.
func mergeSorted(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// scanLocked calls take with the position of each record of the page, in
// order, and reports whether more follow and, when q.Count, the number of
// matches. The caller holds the read lock.
func (s *table) scanLocked(q Query, take func(pos int)) (more bool, total int) {
	cand, stale, others, all, none := s.candidates(q)
	if none {
		return false, 0
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
	step, i := 1, start
	if q.Desc {
		step, i = -1, n-1
		if q.HasAfter {
			i = start - 1
		}
	}
	skip := q.Offset
	alive := q.Alive
	if !s.scoped {
		alive = nil
	}
	// Without tombstones, filters, a cursor or a view's check, an offset
	// is a jump.
	if all && s.ndead == 0 && !q.HasAfter && alive == nil && skip > 0 {
		i += step * min(skip, n)
		skip = 0
	}
	// A view's check is only known by looking: its count is a scan.
	scanCount := q.Count && alive != nil
	taken, matched := 0, 0
	if all && s.ndead == 0 && alive == nil && skip == 0 {
		// Every position is a match: the page is a run of them (a list
		// of the Petstore's pets, unfiltered).
		for ; i >= 0 && i < n; i += step {
			if q.Limit > 0 && taken == q.Limit {
				more = true
				break
			}
			take(i)
			taken++
		}
		if q.Count {
			total = s.live()
		}
		return more, total
	}
	for ; i >= 0 && i < n; i += step {
		pos := at(i)
		if s.ndead > 0 && s.isDead(pos) || len(others) > 0 && !inAll(others, int32(pos)) || alive != nil && !alive(s.scopes[pos]) {
			continue
		}
		matched++
		if skip > 0 {
			skip--
			continue
		}
		if q.Limit > 0 && taken == q.Limit {
			more = true
			if !scanCount {
				break
			}
			continue
		}
		take(pos)
		taken++
	}
	switch {
	case scanCount:
		total = matched
	case q.Count:
		total = s.countLocked(all, cand, stale, others)
	}
	return more, total
}

// countLocked counts the live records the candidates (stale of them
// tombstones) and others allow.
func (s *table) countLocked(all bool, cand []int32, stale int, others [][]int32) int {
	switch {
	case all:
		return s.live()
	case len(others) == 0:
		return len(cand) - stale
	}
	n := 0
	for _, p := range cand {
		if inAll(others, p) && !s.isDead(int(p)) {
			n++
		}
	}
	return n
}

// sortedLocked is scanLocked for a query sorted by a field: every match is
// taken, ordered by key (then by seq), and the page cut from the result.
func (s *table) sortedLocked(q Query, key func(raw []byte) any, take func(pos int)) (more bool, total int) {
	var matches []int
	all := q
	all.Limit, all.Offset, all.Count = 0, 0, false
	s.scanLocked(all, func(pos int) { matches = append(matches, pos) })
	keys := make(map[int]any, len(matches))
	for _, p := range matches {
		keys[p] = key(s.data.get(s.spans[p]))
	}
	slices.SortStableFunc(matches, func(a, b int) int {
		c := compareValues(keys[a], keys[b])
		if q.SortDesc {
			c = -c
		}
		return c
	})
	total = len(matches)
	from := min(q.Offset, len(matches))
	rest := matches[from:]
	if q.Limit > 0 && len(rest) > q.Limit {
		rest, more = rest[:q.Limit], true
	}
	for _, p := range rest {
		take(p)
	}
	return more, total
}

// compareValues orders JSON values for sorting: absent first, then
// numbers, then strings, then the rest as their text.
func compareValues(a, b any) int {
	rank := func(v any) int {
		switch v.(type) {
		case nil:
			return 0
		case float64:
			return 1
		case string:
			return 2
		}
		return 3
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case float64:
		return cmp.Compare(x, b.(float64))
	case string:
		return cmp.Compare(x, b.(string))
	case bool:
		return cmp.Compare(strconv.FormatBool(x), strconv.FormatBool(b.(bool)))
	}
	return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func inAll(lists [][]int32, pos int32) bool {
	for _, l := range lists {
		if _, ok := slices.BinarySearch(l, pos); !ok {
			return false
		}
	}
	return true
}

// len returns the number of live records.
func (s *table) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live()
}

// frozenRecords are a store's live records at one moment, in seq order.
// They share the store's bytes, which never change once written, and the
// slices are the store's own, clipped or copied, so they may be read after
// the lock is released while the store changes on.
type frozenRecords struct {
	spans []span
	dead  []uint64
	data  arena
}

func (f frozenRecords) len() int        { return len(f.spans) }
func (f frozenRecords) at(i int) []byte { return f.data.get(f.spans[i]) }
func (f frozenRecords) isDead(i int) bool {
	return f.dead != nil && i/64 < len(f.dead) && f.dead[i/64]&(1<<(i%64)) != 0
}

// frozen returns the records as they are now; its cost is the number of
// arena chunks (and of tombstone words), not of records.
func (s *table) frozen() frozenRecords {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The spans are shared from now on: a replace copies them first.
	s.spansShared = true
	// The chunk list is copied: add rewrites the last chunk's header in it.
	return frozenRecords{spans: slices.Clip(s.spans), dead: slices.Clone(s.dead), data: arena{chunks: slices.Clone(s.data.chunks)}}
}
