// Package store is petctl's data layer: the records of every resource a
// document declares, in memory, each built into its canonical JSON and
// held to the item schema before it is stored, with an index per list
// filter and per parent; the fixture files that seed them; and the strict
// JSON reader and the encoder that records are read and written with.
//
// The engine sees a small API: a Store of Collections; Create,
// CreateMany, Get, Put (replace, and create at a path), Delete,
// DeleteUnder (a cascade), Page and Len on a collection; Parse, Load,
// Import, Export, Reset and Generate on the store. What makes it fast (an
// append-only arena, indexes that are adopted rather than copied, a
// parallel fixture builder, a hand-written JSON reader) stays inside.
//
// Beyond the process the records are kept by a Journal: a state file
// (bbolt, OpenFile) or a Redis shared by replicas (OpenRedis). The
// in-memory tables stay the serving path for both; every mutation (a
// create, a replace, a delete, a reset, an import) hands its change to the
// journal under the collection's write lock, after every check and before
// it is applied (Collection.journaled and commitTx, Store.change), so a
// journal sees each collection's changes in order.
//
// Bytes once stored never change: a replace stores a new version and
// points the record at it, a delete leaves a tombstone that every read,
// list, count and export skips, and what the baseline (Reset) or an export
// shares with the live records is copied before a change would write into
// it. Inside a collection every change goes through one method per kind
// (see table), the place a second backend or a persistence layer hooks.
package store

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Store holds the records of every collection of a document. It is safe
// for concurrent use.
type Store struct {
	// mu is held by Import, Export and Reset, so that none of them sees
	// another half done.
	mu    sync.Mutex
	colls map[string]*Collection
	names []string // sorted
	// journal keeps the records beyond this process; nil for none. Set by
	// Attach before the store is shared.
	journal Journal
	// gate is held for reading by every change for its whole course, its
	// commit included, and for writing by Freeze: a frozen store changes
	// no more, and what it holds is all committed.
	gate sync.RWMutex
	// successor, once set by Retire, takes the changes that reach this
	// store after it: those that waited while it was frozen.
	successor atomic.Pointer[Store]
}

// New makes a store of the collections, each named by its resource's Key.
func New(colls ...*Collection) *Store {
	s := &Store{colls: map[string]*Collection{}}
	for _, c := range colls {
		s.colls[c.def.Key] = c
		c.owner = s
	}
	s.names = slices.Sorted(maps.Keys(s.colls))
	return s
}

// Sizes returns the number of records of each collection.
func (s *Store) Sizes() map[string]int {
	out := make(map[string]int, len(s.colls))
	for n, c := range s.colls {
		out[n] = c.Len()
	}
	return out
}

// HeldBytes is the memory the records take that holds no pointers: their
// JSON (the arena's chunks), their order and their index lists, as the
// live state holds them (the baseline shares them until a change copies
// one). The garbage collector marks it without scanning it, which is
// what TuneGC in the engine weighs.
func (s *Store) HeldBytes() int64 {
	var n int64
	seen := map[*byte]bool{}
	chunk := func(c []byte) {
		if cap(c) > 0 && !seen[&c[:1][0]] {
			seen[&c[:1][0]] = true
			n += int64(cap(c))
		}
	}
	for _, c := range s.colls {
		n += c.table.heldBytes(chunk)
	}
	return n
}

// Load builds, validates and stores the fixtures' records, collection by
// collection; records without an id get the next ids after the largest
// given one. It returns every collection's problems, in name order: a
// *FullError when the records would pass the limits, or the first bad
// records, one per line, and how many more there are. When there are none
// the store's contents become the baseline Reset returns to.
func (s *Store) Load(fx *Fixtures, now time.Time) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(fx.sets)) {
		if err := s.colls[name].load(fx.sets[name], now); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		for _, c := range s.colls {
			c.table.markBaseline()
		}
	}
	return errs
}

// Import replaces the collections the fixtures name with their records.
// Every record is built and validated first, and then, unless ready (when
// not nil) says no, the collections are replaced together; on any problem
// nothing changes. A *FullError says a collection would pass the limits.
func (s *Store) Import(fx *Fixtures, now time.Time, ready func() error) error {
	s.gate.RLock()
	defer s.gate.RUnlock()
	if next := s.successor.Load(); next != nil {
		return next.importFrom(s, fx, now, ready)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(fx.sets) == 0 {
		return fmt.Errorf("%s names no collection; the collections are %s", fx.name(), QuoteNames(s.names))
	}
	type built struct {
		c    *Collection
		cols *columns
	}
	var all []built
	for _, name := range slices.Sorted(maps.Keys(fx.sets)) {
		c := s.colls[name]
		cols, err := c.buildFixtures(fx.sets[name], now)
		if err != nil {
			return err
		}
		all = append(all, built{c, cols})
	}
	if ready != nil {
		if err := ready(); err != nil {
			return err
		}
	}
	colls := make([]*Collection, len(all))
	sets := make([]*snapshot, len(all))
	for i, b := range all {
		colls[i], sets[i] = b.c, snapshotOfColumns(b.c, b.cols)
	}
	return s.change(colls, sets, func() {
		for _, b := range all {
			b.c.table.loadColumnsLocked(b.cols)
		}
	})
}

// Reset returns every collection to its baseline: the fixtures (and
// generated records) Load stored; what was created, replaced or deleted
// since is undone. An error says the journal could not
// take the reset, which then did not happen.
func (s *Store) Reset() error {
	s.gate.RLock()
	defer s.gate.RUnlock()
	if next := s.successor.Load(); next != nil {
		return next.Reset()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	colls := make([]*Collection, len(s.names))
	for i, name := range s.names {
		colls[i] = s.colls[name]
	}
	return s.change(colls, nil, func() {
		for _, c := range colls {
			c.table.restoreBaselineLocked()
		}
	})
}

// change replaces the contents of colls, all together, with sets (nil:
// their baselines): the journal takes the change while every table is
// locked, so that it sees it in order with the creates around it, and
// apply then makes it in memory. The caller holds s.mu.
func (s *Store) change(colls []*Collection, sets []*snapshot, apply func()) error {
	for _, c := range colls {
		c.table.mu.Lock()
	}
	var wait func() error
	var err error
	if j := s.journal; j != nil {
		for _, c := range colls {
			if err = j.catchUp(c); err != nil {
				break
			}
		}
		if err == nil {
			if sets == nil {
				for _, c := range colls {
					sets = append(sets, snapshotOf(c, c.table.baselineLocked()))
				}
			}
			wait, err = j.replace(sets)
		}
	}
	if err == nil {
		apply()
	}
	for _, c := range colls {
		c.table.mu.Unlock()
	}
	if err != nil {
		return journalError(s.journal, err)
	}
	if wait != nil {
		if err := wait(); err != nil {
			return journalError(s.journal, err)
		}
	}
	return nil
}

// Export writes the store as a fixture file: a JSON object mapping each
// collection to the array of its live records in order.
func (s *Store) Export(w io.Writer) error {
	// The records are taken under the lock (so no import is half seen) and
	// written after it is released: a client that stops reading holds its
	// own answer only, never a reset or an import.
	for _, name := range s.names {
		s.colls[name].catchUpToRead()
	}
	s.mu.Lock()
	stores := make([]frozenRecords, len(s.names))
	for i, name := range s.names {
		stores[i] = s.colls[name].table.frozen()
	}
	s.mu.Unlock()
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, '{')
	for i, name := range s.names {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
		buf = AppendJSONString(buf, name)
		buf = append(buf, ": ["...)
		written := 0
		for j := range stores[i].len() {
			if stores[i].isDead(j) {
				continue
			}
			raw := stores[i].at(j)
			if written > 0 {
				buf = append(buf, ',')
			}
			written++
			buf = append(buf, "\n  "...)
			buf = append(buf, raw...)
			if len(buf) > 60<<10 {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		buf = append(buf, "\n]"...)
	}
	buf = append(buf, "\n}\n"...)
	_, err := w.Write(buf)
	return err
}

// Freeze waits for the changes under way to be made and committed, and
// holds back every later one until Thaw: a reload reads the store, or its
// journal, whole, and nothing is changed behind it.
func (s *Store) Freeze() { s.gate.Lock() }

// Thaw lets changes through again.
func (s *Store) Thaw() { s.gate.Unlock() }

// Retire hands the store over to next, which has taken its records (a
// reload): a change that reaches this store from now on, one that waited
// while it was frozen, is made in next. Call it while the store is frozen.
func (s *Store) Retire(next *Store) { s.successor.Store(next) }

// importFrom imports fixtures parsed by another store: parsed again here,
// so that they name this store's collections.
func (s *Store) importFrom(old *Store, fx *Fixtures, now time.Time, ready func() error) error {
	var files []FixtureFile
	seen := map[string]bool{}
	for _, set := range fx.sets {
		for _, sg := range set.segs {
			if !seen[sg.file] {
				seen[sg.file] = true
				files = append(files, FixtureFile{Name: sg.file, Data: sg.data})
			}
		}
	}
	arrayOf := func(file string) (string, error) {
		for name, set := range fx.sets {
			for _, sg := range set.segs {
				if sg.file == file {
					return name, nil
				}
			}
		}
		return collectionOfFile(file)
	}
	nfx, err := s.Parse(files, arrayOf)
	if err != nil {
		return err
	}
	return s.Import(nfx, now, ready)
}
