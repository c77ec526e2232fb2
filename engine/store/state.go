package store

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Attach makes j keep the store's records from now on. When j holds no
// state yet, or fresh is set, j is seeded with what the store holds now
// (the fixtures Load stored) and origin. Otherwise the stored records
// replace what the store holds, and the fixtures stay what a reset returns
// to.
//
// Records stored under the same document, in the layout this petctl
// gives their collection, are taken as they are, without being checked
// again: they were checked when they were stored. Under another document,
// or stored in another layout (by a petctl that reads the document
// otherwise), every record is read in the layout it was stored in, built
// and checked again, and any that the document refuses stops the start:
// the error (a *StateError) names each one, as fixtures problems are
// named. Collections the document no longer has are refused the same way.
// A state in a layout version this petctl does not read, or damaged, is
// refused unless fresh is set. The notes say what a start should tell the user: that the
// state was made from other fixtures.
func (s *Store) Attach(j Journal, origin Origin, fresh bool) (notes []string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(err error) ([]string, error) { return nil, &StateError{Journal: j.Name(), Err: err} }
	m, err := j.meta()
	// Started afresh, a state of another layout version or a damaged one
	// is made anew; one that is not petctl's is never overwritten.
	if err != nil && !(fresh && (errors.As(err, new(*versionError)) || errors.As(err, new(*damageError)))) {
		return fail(err)
	}
	meta := newMeta(origin, s)
	if m == nil || fresh {
		how := seedEmpty
		if fresh {
			how = seedAfresh
		}
		seeded, err := j.seed(s.baselines(), meta, how)
		if err != nil {
			return fail(err)
		}
		if seeded {
			s.attach(j)
			return nil, nil
		}
		// Another replica seeded the shared store first: take its records.
		if m, err = j.meta(); err != nil {
			return fail(err)
		}
		if m == nil {
			return fail(errors.New("the state was seeded by another process and is gone again"))
		}
	}
	var errs []error
	for _, name := range m.Collections {
		if _, ok := s.colls[name]; !ok {
			errs = append(errs, fmt.Errorf("%s holds collection %q, which the document does not have", j.Name(), name))
		}
	}
	sameDoc := m.Origin.Document.SHA256 == origin.Document.SHA256
	// A collection new in the document keeps its fixtures as its records.
	relaid := false // some collection's records are stored in another layout
	loaded, loadErrs := s.loadEach(j, func(name string) (recordLayout, bool) {
		if !slices.Contains(m.Collections, name) {
			return recordLayout{}, false
		}
		c := s.colls[name]
		stored := m.storedLayout(c)
		relaid = relaid || !stored.equal(c.layout())
		return stored, true
	}, !sameDoc)
	if errs = append(errs, loadErrs...); len(errs) > 0 {
		switch {
		case !sameDoc:
			errs = append(errs, fmt.Errorf("%s was made with %s (sha256 %.12s), and the records above do not fit %s: serve a document they fit, or start with --state-reset to start afresh from the fixtures (the stored records are lost)",
				j.Name(), m.Origin.Document.Name, m.Origin.Document.SHA256, origin.Document.Name))
		case relaid:
			errs = append(errs, fmt.Errorf("%s was made with %s by a petctl that reads it otherwise, and the records above do not fit it as this petctl reads it: serve them with the petctl that made them, or start with --state-reset to start afresh from the fixtures (the stored records are lost)",
				j.Name(), m.Origin.Document.Name))
		default:
			errs = append(errs, fmt.Errorf("start with --state-reset to start afresh from the fixtures (the stored records are lost)"))
		}
		return fail(errors.Join(errs...))
	}
	s.takeLoaded(loaded)
	if r, ok := j.(interface{ release() error }); ok {
		if err := r.release(); err != nil {
			return fail(err)
		}
	}
	if !m.Origin.sameSeed(origin) {
		notes = append(notes, fmt.Sprintf("%s was made with other fixtures than these; its records are kept, and a reset returns to these fixtures", j.Name()))
	}
	switch {
	case !sameDoc || relaid || !slices.Equal(m.Collections, s.names):
		// Rewritten whole: the records were built again, in the new
		// document's order of fields and this petctl's layouts, and the
		// meta names the new origin.
		if _, err := j.seed(s.current(), meta, seedOver); err != nil {
			return fail(err)
		}
	case !m.Origin.sameSeed(origin) || m.Layouts == nil:
		if err := j.setMeta(meta); err != nil {
			return fail(err)
		}
	}
	s.attach(j)
	return notes, nil
}

// attach sets the journal of the store and of each collection, and marks
// what has been applied of a shared journal's logs.
func (s *Store) attach(j Journal) {
	s.journal = j
	for _, c := range s.colls {
		c.journal = j
	}
}

// baselines are the snapshots of every collection's baseline, in name order.
func (s *Store) baselines() []*snapshot {
	out := make([]*snapshot, 0, len(s.names))
	for _, name := range s.names {
		c := s.colls[name]
		c.table.mu.Lock()
		out = append(out, snapshotOf(c, c.table.baselineLocked()))
		c.table.mu.Unlock()
	}
	return out
}

// current are the snapshots of every collection as it is, in name order.
func (s *Store) current() []*snapshot {
	out := make([]*snapshot, 0, len(s.names))
	for _, name := range s.names {
		c := s.colls[name]
		t := c.table
		t.mu.Lock()
		out = append(out, snapshotOf(c, t.stateLocked()))
		t.mu.Unlock()
	}
	return out
}

// loadStored reads the collection's records from j, stored in layout
// stored, into columns, and returns the seq the next create takes and the
// position of j's log they are at. Unless check is set, or they are
// stored in another layout than c's, they are taken as they are, only
// their filter values decoded; else every record is built and checked as
// a fixture is.
func (c *Collection) loadStored(j recordSource, stored recordLayout, check bool) (cols *columns, next, pos int64, err error) {
	if !check && stored.equal(c.layout()) {
		cols, err = c.fastColumns(j.Name(), func(each func(seq int64, value []byte) error) error {
			next, pos, err = j.load(c.def.Key, each)
			return err
		})
		return cols, next, pos, err
	}
	var buf []byte
	var refs []fixtureRef
	var sv storedValue
	next, pos, err = j.load(c.def.Key, func(seq int64, value []byte) error {
		if !decodeValue(value, stored, &sv) {
			return fmt.Errorf("%s is damaged: %s: record %d cannot be read", j.Name(), c.def.Key, seq)
		}
		if len(buf)+len(sv.raw) > maxFixtureBytes {
			return fmt.Errorf("%s: more than 4 GiB of records", c.def.Key)
		}
		start := len(buf)
		buf = append(buf, sv.raw...)
		refs = append(refs, fixtureRef{start: uint32(start), end: uint32(len(buf))})
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	if len(refs) == 0 {
		return &columns{index: c.emptyIndex()}, next, pos, nil
	}
	set := &fixtureSet{name: c.def.Key, segs: []fixtureSegment{{file: j.Name(), data: buf, state: true}}, refs: refs}
	cols, err = c.buildFixtures(set, time.Time{})
	return cols, next, pos, err
}

// fastColumns builds columns of records that load hands over in seq
// order, as encodeValue stored them under the same document, in c's
// layout: their JSON is copied and their filter values taken as stored,
// and nothing is checked but their order. name names their journal in
// errors.
func (c *Collection) fastColumns(name string, load func(each func(seq int64, value []byte) error) error) (*columns, error) {
	integer, scoped, layout := c.table.integer, c.table.scoped, c.layout()
	cols := &columns{index: c.emptyIndex()}
	// intern keeps one string per filter value, so that a million records
	// with three statuses hold three strings, and none is made per record.
	intern := map[string]string{}
	var sv storedValue
	err := load(func(seq int64, value []byte) error {
		pos := len(cols.seqs)
		if pos > 0 && seq <= cols.seqs[pos-1] {
			return fmt.Errorf("%s is damaged: %s: record %d is out of order", name, c.def.Key, seq)
		}
		if !decodeValue(value, layout, &sv) {
			return fmt.Errorf("%s is damaged: %s: record %d cannot be read", name, c.def.Key, seq)
		}
		if !integer {
			cols.keys = append(cols.keys, sv.key)
		}
		if scoped {
			sc, ok := intern[sv.scope]
			if !ok {
				sc = sv.scope
				intern[sc] = sc
			}
			cols.scopes = append(cols.scopes, sc)
			sx := c.table.scopeIndex()
			cols.index[sx][sc] = append(cols.index[sx][sc], int32(pos))
		}
		cols.seqs = append(cols.seqs, seq)
		cols.spans = append(cols.spans, cols.data.add(sv.raw))
		if len(sv.vals) != len(c.filterFields) {
			// Stored under other filters: decoded from the JSON.
			e, ok := c.storedEntryOf(seq, sv.key, sv.scope, sv.raw)
			if !ok {
				return fmt.Errorf("%s is damaged: %s: record %d is not an object of the item's fields", name, c.def.Key, seq)
			}
			for i := range c.filterFields {
				if e.has&(1<<i) != 0 {
					cols.index[i][e.vals[i]] = append(cols.index[i][e.vals[i]], int32(pos))
				}
			}
			return nil
		}
		for i, v := range sv.vals {
			if sv.has&(1<<i) == 0 {
				continue
			}
			k, ok := intern[string(v)]
			if !ok {
				k = string(v)
				intern[k] = k
			}
			cols.index[i][k] = append(cols.index[i][k], int32(pos))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.table.limits.check(len(cols.seqs), cols.bytes()); err != nil {
		return nil, err
	}
	return cols, nil
}

// emptyIndex is a filter (and scope) index without records.
func (c *Collection) emptyIndex() []map[string][]int32 {
	index := make([]map[string][]int32, len(c.table.fields))
	for i := range index {
		index[i] = map[string][]int32{}
	}
	return index
}

// recordSource is where loadStored reads records: a journal, or the store
// a reload takes over.
type recordSource interface {
	Name() string
	load(name string, each func(seq int64, value []byte) error) (next, pos int64, err error)
}

// servedRecords reads the records of a store a reload takes over.
type servedRecords struct{ s *Store }

func (servedRecords) Name() string { return "the records served until now" }

func (m servedRecords) load(name string, each func(seq int64, value []byte) error) (int64, int64, error) {
	c := m.s.colls[name]
	c.table.mu.Lock()
	sn := snapshotOf(c, c.table.stateLocked())
	c.table.mu.Unlock()
	var e entry
	var buf []byte
	for i, seq := range sn.seqs {
		if sn.recs.isDead(i) {
			continue
		}
		if err := sn.entry(i, &e); err != nil {
			return 0, 0, err
		}
		buf = encodeValue(buf[:0], c, &e)
		if err := each(seq, buf); err != nil {
			return 0, 0, err
		}
	}
	return sn.next, c.applied.Load(), nil
}

// TakeOver makes the records of old, the store of the document served
// until a reload, this store's: as they are when the document is the same
// (sameDoc), else each built and checked again, and any the new document
// refuses is named and nothing is taken. A collection old has records in
// and this store does not have is refused the same way. Freeze old first.
func (s *Store) TakeOver(old *Store, sameDoc bool) error {
	src := servedRecords{old}
	var errs []error
	for _, name := range old.names {
		if _, ok := s.colls[name]; !ok && old.colls[name].table.len() > 0 {
			errs = append(errs, fmt.Errorf("collection %q holds %d records, and the new document does not have it", name, old.colls[name].table.len()))
		}
	}
	loaded, loadErrs := s.loadEach(src, func(name string) (recordLayout, bool) {
		if old.colls[name] == nil {
			return recordLayout{}, false
		}
		return old.colls[name].layout(), true
	}, !sameDoc)
	if errs = append(errs, loadErrs...); len(errs) > 0 {
		return errors.Join(errs...)
	}
	s.takeLoaded(loaded)
	return nil
}

// loadedRecords are what loadStored read of one collection: its records, the next
// seq and the position in the journal they stand at.
type loadedRecords struct {
	cols      *columns
	next, pos int64
}

// loadEach reads from src the records of every collection held there
// (held, which gives the layout they are stored in), each checked against
// the document when check is set. Nothing is
// taken yet: a store takes them (takeLoaded) only when every collection
// loaded, so that a refusal leaves every collection as it was.
func (s *Store) loadEach(src recordSource, held func(name string) (recordLayout, bool), check bool) (map[string]loadedRecords, []error) {
	out := map[string]loadedRecords{}
	var errs []error
	for _, name := range s.names {
		stored, ok := held(name)
		if !ok {
			continue
		}
		cols, next, pos, err := s.colls[name].loadStored(src, stored, check)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = loadedRecords{cols, next, pos}
	}
	return out, errs
}

// takeLoaded makes what loadEach read the collections' records.
func (s *Store) takeLoaded(l map[string]loadedRecords) {
	for name, ld := range l {
		t := s.colls[name].table
		t.loadColumns(ld.cols)
		if ld.next > t.nextSeq {
			t.nextSeq = ld.next
		}
		s.colls[name].applied.Store(ld.pos)
	}
}
