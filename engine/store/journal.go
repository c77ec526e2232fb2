package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Journal keeps a store's records beyond the memory of one process: in a
// file (OpenFile), or in a Redis shared by replicas (OpenRedis). The
// in-memory tables stay the serving path; every mutation of a collection
// (a create, a replace or patch, a delete, a reset, an import) is
// handed to the journal under the collection's write lock, after every
// check and before it is applied, so that a journal sees each collection's
// changes in the order they happen and a refused change never reaches it.
//
// Its methods are unexported: the two journals of this package are its
// only implementations, and the engine only opens, attaches and closes one.
type Journal interface {
	// Name says where the records are kept, for messages: "state FILE" or
	// "redis HOST:PORT/DB".
	Name() string
	// Close waits for every commit under way and releases the journal.
	Close() error

	// meta returns the stored state's description; nil when the journal
	// holds no state yet. A store that is not petctl's is an error.
	meta() (*stateMeta, error)
	// load calls each with every stored record of collection name, in seq
	// order, as encodeValue stored it, and returns the seq the next create
	// takes (0 when unknown) and, for a shared journal, the position of its
	// log they are at.
	load(name string, each func(seq int64, value []byte) error) (next, pos int64, err error)
	// seed writes every collection's records and the meta when the journal
	// holds no state, or over the state it holds as how says; false when
	// another process seeded it first (a shared store), and the caller
	// loads instead.
	seed(sets []*snapshot, m *stateMeta, how seedMode) (bool, error)
	// setMeta replaces the stored meta alone.
	setMeta(m *stateMeta) error
	// catchUp applies to c what other processes committed since c last saw
	// (a shared store); nothing for a file. The caller holds c's write lock.
	catchUp(c *Collection) error
	// behind says whether other processes committed changes to c that c has
	// not applied yet; cheap, without c's lock.
	behind(c *Collection) (bool, error)
	// shared says whether other processes change the same store (catchUp
	// and errStale then happen, and a commit is an exchange worth sharing).
	shared() bool
	// put commits that c holds e (a new record, or a new version at its
	// seq), and that the next create takes seq next. errStale means another
	// process changed c first and nothing was committed; the journal has
	// applied to c what it changed: build again.
	// wait, when not nil, returns once the change is durable; call it after
	// releasing the lock, so that concurrent changes share a commit.
	put(c *Collection, e *entry, next int64) (wait func() error, err error)
	// putAll commits that c holds each of es (new records, in seq order),
	// all of them or none, as put does.
	putAll(c *Collection, es []entry, next int64) (wait func() error, err error)
	// delete commits that c no longer holds the record e names (its seq
	// and id), as put does.
	delete(c *Collection, e *entry, next int64) (wait func() error, err error)
	// replace commits that each snapshot's collection now holds exactly its
	// records (a reset, an import), all together or none.
	replace(sets []*snapshot) (wait func() error, err error)
	// health is the last error the journal met, nil when it works.
	health() error
}

// Health is the last error j met, nil while it works.
func Health(j Journal) error { return j.health() }

// journalError is err, met by journal j, as a *JournalError that names j
// once: as it is when it is one already.
func journalError(j Journal, err error) error {
	if err == nil || errors.As(err, new(*JournalError)) {
		return err
	}
	return &JournalError{Journal: j.Name(), Err: err}
}

// errStale says another process changed a shared collection first.
var errStale = errors.New("the collection was changed by another process")

// JournalError says a change was refused or may be lost because its
// journal could not take it: the disk failed, Redis cannot be reached.
type JournalError struct {
	Journal string // Journal.Name
	Err     error
}

func (e *JournalError) Error() string { return fmt.Sprintf("%s: %v", e.Journal, e.Err) }

// Unwrap returns why.
func (e *JournalError) Unwrap() error { return e.Err }

// StateError says why a journal's state could not be taken at start-up:
// it is not petctl's, it is damaged, or its records do not fit the
// document. Each line of Err is one problem.
type StateError struct {
	Journal string
	Err     error
}

func (e *StateError) Error() string { return e.Err.Error() }

// Unwrap returns why.
func (e *StateError) Unwrap() error { return e.Err }

// stateFormat marks a journal's state as petctl's, so that a file another
// program made is refused rather than read as an empty store.
const stateFormat = "petctl-state"

// stateVersion is the layout of the records; a state of another version
// is refused, naming both.
const stateVersion = 1

// seedMode is what a seed does with a state the journal holds already.
type seedMode int

const (
	// seedEmpty writes only where the journal holds no state.
	seedEmpty seedMode = iota
	// seedOver replaces the state in one change: one that fails leaves
	// the state as it was, its records all there.
	seedOver
	// seedAfresh drops the state whole (--state-reset): a file's pages,
	// damaged perhaps, are never read again.
	seedAfresh
)

// stateMeta describes a journal's state: its format and what it was made from.
type stateMeta struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Origin  Origin `json:"origin"`
	// Collections are the collections the state holds, sorted.
	Collections []string `json:"collections"`
	// Layouts are the layouts the collections' records are stored in. A
	// state written before they were kept has none: its records are taken
	// to be in the layouts of this petctl.
	Layouts map[string]recordLayout `json:"layouts,omitempty"`
}

// newMeta is the meta of a state of s's collections made from o.
func newMeta(o Origin, s *Store) *stateMeta {
	m := &stateMeta{Format: stateFormat, Version: stateVersion, Origin: o, Collections: s.names, Layouts: map[string]recordLayout{}}
	for _, name := range s.names {
		m.Layouts[name] = s.colls[name].layout()
	}
	return m
}

// storedLayout is the layout c's records are stored in under m.
func (m *stateMeta) storedLayout(c *Collection) recordLayout {
	if l, ok := m.Layouts[c.def.Key]; ok {
		return l
	}
	return c.layout()
}

// recordLayout is how a journal stores a collection's records: what encodeValue
// writes before each record's JSON. It follows from how this petctl reads
// the document (whether the ids are integers, whether the collection
// lives under a parent, which fields the list filters name), which
// another petctl, or another document, may read otherwise: a state keeps
// each collection's, so that records are read in the layout they were
// stored in, and checked again when it is not the one served.
type recordLayout struct {
	StringIDs bool     `json:"stringIds,omitempty"`
	Scoped    bool     `json:"scoped,omitempty"`
	Filters   []string `json:"filters,omitempty"`
}

// layout is the layout c's records are stored in.
func (c *Collection) layout() recordLayout {
	return recordLayout{StringIDs: !c.table.integer, Scoped: c.table.scoped, Filters: c.filterFields}
}

func (l recordLayout) equal(o recordLayout) bool {
	return l.StringIDs == o.StringIDs && l.Scoped == o.Scoped && slices.Equal(l.Filters, o.Filters)
}

// versionError says a state is petctl's, in a version of its layout this
// petctl does not read: a newer or an older petctl made it.
type versionError struct {
	name    string
	version int
}

func (e *versionError) Error() string {
	return fmt.Sprintf("%s has petctl's state layout %d, and this petctl reads layout %d; start with --state-reset to start afresh, or use the petctl that made it", e.name, e.version, stateVersion)
}

// decodeMeta reads a stored meta, refusing one that is not petctl's, or
// not in this petctl's layout (a *versionError).
func decodeMeta(name string, data []byte) (*stateMeta, error) {
	var m stateMeta
	if err := json.Unmarshal(data, &m); err != nil || m.Format != stateFormat {
		return nil, fmt.Errorf("%s was not made by petctl (its description is not petctl's); give another file, or delete it", name)
	}
	if m.Version != stateVersion {
		return nil, &versionError{name: name, version: m.Version}
	}
	return &m, nil
}

// Origin says what a state was made from, so that a later start can tell
// whether its records were checked against the same document.
type Origin struct {
	// Document is the served document: its name and the SHA-256 of every
	// file it was read from.
	Document Digest `json:"document"`
	// Fixtures are the seed files, and Generate and Seed the generated
	// records, that a reset returns to.
	Fixtures []Digest `json:"fixtures,omitempty"`
	Generate int      `json:"generate,omitempty"`
	Seed     int64    `json:"seed,omitempty"`
}

// Digest names a file and the SHA-256 of its content, in hex.
type Digest struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// sameSeed says whether two origins seed the store alike.
func (o Origin) sameSeed(p Origin) bool {
	return slices.Equal(o.Fixtures, p.Fixtures) && o.Generate == p.Generate && (o.Generate == 0 || o.Seed == p.Seed)
}

// snapshot is a collection's records at one moment, in seq order, as a
// journal's replace or seed writes them.
type snapshot struct {
	coll   *Collection
	seqs   []int64
	keys   []string // string ids only
	scopes []string // scoped collections only
	// recs are the records; those it marks dead are deleted, and no
	// journal writes them.
	recs frozenRecords
	next int64 // the seq the next create takes; 0 when none is left
}

// snapshotOf is the snapshot of a table state.
func snapshotOf(c *Collection, st *tableState) *snapshot {
	return &snapshot{coll: c, seqs: st.seqs, keys: st.keys, scopes: st.scopes,
		recs: frozenRecords{spans: st.spans, dead: st.dead, data: arena{chunks: st.chunks}}, next: nextOf(st.nextSeq, st.noNext)}
}

// snapshotOfColumns is the snapshot of built records.
func snapshotOfColumns(c *Collection, cols *columns) *snapshot {
	next := int64(1)
	noNext := false
	if n := len(cols.seqs); n > 0 {
		if last := cols.seqs[n-1]; last == 1<<63-1 {
			noNext = true
		} else {
			next = last + 1
		}
	}
	return &snapshot{coll: c, seqs: cols.seqs, keys: cols.keys, scopes: cols.scopes, recs: frozenRecords{spans: cols.spans, data: cols.data}, next: nextOf(next, noNext)}
}

func nextOf(next int64, noNext bool) int64 {
	if noNext {
		return 0
	}
	return next
}

// key is record i's id as it appears in a path.
func (sn *snapshot) key(i int) string {
	if sn.keys != nil {
		return sn.keys[i]
	}
	return fmt.Sprint(sn.seqs[i])
}

// scope is record i's scope; "" in an unscoped collection.
func (sn *snapshot) scope(i int) string {
	if sn.scopes != nil {
		return sn.scopes[i]
	}
	return ""
}

// entry sets e to record i's table entry; its filter values are decoded
// from its JSON.
func (sn *snapshot) entry(i int, e *entry) error {
	raw := sn.recs.at(i)
	if len(sn.coll.filterFields) == 0 {
		*e = entry{seq: sn.seqs[i], key: sn.key(i), scope: sn.scope(i), raw: raw}
		return nil
	}
	got, ok := sn.coll.storedEntryOf(sn.seqs[i], sn.key(i), sn.scope(i), raw)
	if !ok {
		return fmt.Errorf("%s: record %s cannot be read", sn.coll.def.Key, sn.key(i))
	}
	*e = got
	return nil
}

// seqBytes orders seqs as their bytes: big-endian with the sign bit
// flipped, so that negative ids sort before positive ones.
func seqBytes(seq int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seq)^1<<63)
	return b[:]
}

func seqOfBytes(b []byte) (int64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b) ^ 1<<63), true
}

// encodeValue is how a journal stores a record of c: the table's entry
// for it (for a scoped collection its scope, for a string id the id, then
// the values of the filter fields) and its JSON as the table keeps it, so
// that a load under the same document copies the bytes it reads and
// decodes no JSON.
func encodeValue(buf []byte, c *Collection, e *entry) []byte {
	nFilters := len(c.filterFields)
	if c.table.scoped {
		buf = binary.AppendUvarint(buf, uint64(len(e.scope)))
		buf = append(buf, e.scope...)
	}
	if !c.table.integer {
		buf = binary.AppendUvarint(buf, uint64(len(e.key)))
		buf = append(buf, e.key...)
	}
	buf = append(buf, byte(nFilters))
	for i := range nFilters {
		if e.has&(1<<i) == 0 {
			buf = append(buf, 0)
			continue
		}
		buf = binary.AppendUvarint(buf, uint64(len(e.vals[i]))+1)
		buf = append(buf, e.vals[i]...)
	}
	return append(buf, e.raw...)
}

// storedValue is a stored record split up: vals[i] (a slice of the value,
// when bit i of has is set) is the value of filter field i.
type storedValue struct {
	scope string
	key   string
	vals  [][]byte
	has   uint64
	raw   []byte
}

// decodeValue splits a value stored in layout l; sv.vals is reused.
func decodeValue(v []byte, l recordLayout, sv *storedValue) bool {
	sv.scope, sv.key, sv.has, sv.vals = "", "", 0, sv.vals[:0]
	if l.Scoped {
		n, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w) < n {
			return false
		}
		sv.scope, v = string(v[w:w+int(n)]), v[w+int(n):]
	}
	if l.StringIDs {
		n, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w) < n {
			return false
		}
		sv.key, v = string(v[w:w+int(n)]), v[w+int(n):]
	}
	if len(v) == 0 || v[0] > 64 {
		return false
	}
	nf := int(v[0])
	v = v[1:]
	for i := range nf {
		n, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w)+1 < n {
			return false
		}
		v = v[w:]
		if n == 0 {
			sv.vals = append(sv.vals, nil)
			continue
		}
		sv.vals = append(sv.vals, v[:n-1])
		sv.has |= 1 << i
		v = v[n-1:]
	}
	sv.raw = v
	return true
}
