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
}

// New makes a store of the collections, each named by its resource's Key.
func New(colls ...*Collection) *Store {
	s := &Store{colls: map[string]*Collection{}}
	for _, c := range colls {
		s.colls[c.def.Key] = c
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
	for _, b := range all {
		b.c.table.loadColumns(b.cols)
	}
	return nil
}

// Reset returns every collection to its baseline: the fixtures (and
// generated records) Load stored; what was created, replaced or deleted
// since is undone.
func (s *Store) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.colls {
		c.table.restoreBaseline()
	}
}

// Export writes the store as a fixture file: a JSON object mapping each
// collection to the array of its live records in order.
func (s *Store) Export(w io.Writer) error {
	// The records are taken under the lock (so no import is half seen) and
	// written after it is released: a client that stops reading holds its
	// own answer only, never a reset or an import.
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
		buf = appendJSONString(buf, name)
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
