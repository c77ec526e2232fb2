package store

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/petctl/petctl/spec"
)

// Record is one stored item: its id and its canonical JSON (fields in the
// item schema's order), which was validated against the item schema before
// it was stored and never changes.
type Record struct {
	ID   string // the id as it appears in a path
	JSON []byte // the store's own bytes: read them, never write to them
	seq  int64  // the record's place in id order; the id itself for integer ids
}

// Query describes a page of a list.
type Query struct {
	// Filters maps a field to the value a record must hold, as the client
	// sent it: Page reads it as the field's type does (07 finds 7).
	Filters  map[string]string
	Limit    int   // 0 means no limit
	Desc     bool  // newest first
	After    int64 // continue after the record whose place this is, when HasAfter
	HasAfter bool
}

// Check is how a collection holds records to its item schema.
type Check struct {
	// Compiled is the item schema compiled exactly as the response
	// validator compiles it; nil when it could not be compiled, and then
	// Describe decides alone, the slower, equivalent way.
	Compiled *spec.ResponseSchema
	// Describe validates a record's JSON the slow way (libopenapi-validator)
	// and says in one line what is wrong with it, for messages; nil when
	// nothing is. compiled is the compiled schema's refusal, when it
	// refused: Describe says that when it finds nothing itself, so that it
	// returns nil only when compiled is nil.
	Describe func(raw []byte, compiled error) error
}

// Limits cap what one collection holds: a create, an import or fixtures
// that would pass them are refused whole (a *FullError). 0 means no limit.
type Limits struct {
	MaxRecords int
	MaxBytes   int64 // of record JSON, as stored
}

// Collection holds the records of one spec.Collection: it builds each
// record from a decoded object, holds it to the item schema, and keeps it
// in id order with an index per filter. It is safe for concurrent use.
type Collection struct {
	def   *spec.Collection
	table *table
	// schema is Check.Compiled; describe is Check.Describe.
	schema   *spec.ResponseSchema
	describe func(raw []byte, compiled error) error
	// plan accepts, quickly, records the compiled schema surely accepts;
	// nil when the item schema is not of the shape it handles.
	plan *spec.ObjectPlan
	// filterFields are the item fields some list filter names, at most 64.
	filterFields []string
	// filterPos[i] is the position in def.Fields of filterFields[i].
	filterPos []int
	// fieldPos maps a field name to its position in def.Fields.
	fieldPos map[string]int
	idPos    int
	uuidIDs  bool
	// journal keeps the records beyond this process (see Journal); nil
	// keeps them in memory only. Set by Store.Attach before the
	// collection is shared.
	journal Journal
	// owner is the store the collection is in.
	owner *Store
	// applied is how far a shared journal's log of this collection has
	// been applied; changed under the table's write lock.
	applied atomic.Int64
}

// NewCollection makes an empty collection for def, whose records check
// holds to the item schema and limits bound.
func NewCollection(def *spec.Collection, check Check, limits Limits) *Collection {
	c := &Collection{def: def, schema: check.Compiled, describe: check.Describe, fieldPos: map[string]int{}, idPos: -1}
	names := make([]string, len(def.Fields))
	for i, f := range def.Fields {
		names[i] = f.Name
		c.fieldPos[f.Name] = i
	}
	c.idPos = c.fieldPosOf(def.IDField)
	for _, f := range def.Filters {
		if !slices.Contains(c.filterFields, f.Field) && len(c.filterFields) < 64 {
			c.filterFields = append(c.filterFields, f.Field)
			c.filterPos = append(c.filterPos, c.fieldPosOf(f.Field))
		}
	}
	if f := def.Field(def.IDField); f != nil && f.Schema != nil && f.Schema.Format == "uuid" {
		c.uuidIDs = true
	}
	if c.schema != nil {
		c.plan = c.schema.Plan(names)
	}
	c.table = newTable(def.IDType == "integer", c.filterFields)
	c.table.canon = c.filterKey
	c.table.limits = storeLimits{coll: def.Name, maxRecords: limits.MaxRecords, maxBytes: limits.MaxBytes}
	if limits.MaxRecords <= 0 {
		c.table.limits.maxRecords = math.MaxInt
	}
	if limits.MaxBytes <= 0 {
		c.table.limits.maxBytes = math.MaxInt64
	}
	return c
}

func (c *Collection) fieldPosOf(name string) int {
	if i, ok := c.fieldPos[name]; ok {
		return i
	}
	return -1
}

// filterKey is the canonical text of v, sent for filterFields[i].
func (c *Collection) filterKey(i int, v string) string {
	if p := c.filterPos[i]; p >= 0 {
		return queryKey(c.def.Fields[p], v)
	}
	return v
}

// errInvalidRecord marks a built record that the item schema refuses.
var errInvalidRecord = errors.New("invalid record")

// Create builds a record from a decoded request body (numbers as
// json.Number, as DecodeStrict gives them): the next id and the other
// fields the server assigns are filled, keys that name no field are
// dropped. The record is stored only when the item schema accepts it and
// the limits allow it; otherwise the error is an *InvalidRecordError, a
// *FullError, ErrIDsExhausted, or what is wrong with a field, and nothing
// was stored.
func (c *Collection) Create(obj map[string]any, now time.Time) (Record, error) {
	if c.owner != nil {
		c.owner.gate.RLock()
		defer c.owner.gate.RUnlock()
		if next := c.owner.successor.Load(); next != nil {
			if nc := next.colls[c.def.Name]; nc != nil {
				return nc.Create(obj, now)
			}
			return Record{}, &JournalError{Journal: "the store", Err: fmt.Errorf("the document was reloaded while this create waited, and has no collection %s any more; nothing was stored", c.def.Name)}
		}
	}
	if err := c.catchUp(); err != nil {
		return Record{}, err
	}
	for attempt := 0; ; attempt++ {
		var invalid error
		var wait func() error
		rec, err := c.table.create(func(seq int64) (entry, error) {
			b, err := c.build(obj, seq, fromClient, now, nil)
			if err != nil {
				return entry{}, err
			}
			if invalid = c.validate(b.raw, b.view); invalid != nil {
				return entry{}, errInvalidRecord
			}
			return b.entry, nil
		}, c.commitPut(&wait))
		switch {
		case err == errInvalidRecord:
			return Record{}, &InvalidRecordError{Err: invalid}
		case err == errStale && attempt < maxStaleRetries:
			// Another replica created first: take its records, then build
			// this one again on the next id.
			if err := c.catchUp(); err != nil {
				return Record{}, err
			}
			continue
		case err == errStale:
			return Record{}, &JournalError{Journal: c.journal.Name(), Err: fmt.Errorf("%d other replicas' changes came first, one after another; nothing was stored", maxStaleRetries)}
		case err != nil:
			return Record{}, err
		}
		if wait != nil {
			if err := wait(); err != nil {
				return Record{}, &JournalError{Journal: c.journal.Name(), Err: err}
			}
		}
		return rec, nil
	}
}

// maxStaleRetries bounds how often a change is built again because other
// replicas changed the collection first.
const maxStaleRetries = 100

// commitPut is the table's commit of a built record: it hands it to the
// journal, and leaves in wait what returns once it is durable.
func (c *Collection) commitPut(wait *func() error) func(e *entry, next int64) error {
	if c.journal == nil {
		return nil
	}
	return func(e *entry, next int64) error {
		w, err := c.journal.put(c, e, next)
		if err != nil && err != errStale {
			return &JournalError{Journal: c.journal.Name(), Err: err}
		}
		*wait = w
		return err
	}
}

// catchUp applies what other processes changed in a shared journal
// before the collection is read or changed here; a file journal has
// nothing to apply. The write lock is taken only when there is something.
func (c *Collection) catchUp() error {
	if c.journal == nil {
		return nil
	}
	behind, err := c.journal.behind(c)
	if err != nil || !behind {
		return err
	}
	c.table.mu.Lock()
	defer c.table.mu.Unlock()
	return c.journal.catchUp(c)
}

// catchUpToRead is catchUp for a read, which has no error to return: when
// the shared store cannot be reached the read answers from what this
// process holds, and the journal's health says why.
func (c *Collection) catchUpToRead() { _ = c.catchUp() }

// Get returns the record whose id is id, as it appears in a path.
func (c *Collection) Get(id string) (Record, bool) {
	c.catchUpToRead()
	key := id
	if c.idPos >= 0 {
		key = queryKey(c.def.Fields[c.idPos], id)
	}
	return c.table.get(key)
}

// Page returns the JSON of the records of a page, in order (the store's
// own bytes: read them, never write to them), the place of the last one
// (for a cursor: Query.After) and whether more follow.
func (c *Collection) Page(q Query) (items [][]byte, last int64, more bool) {
	c.catchUpToRead()
	return c.table.page(q)
}

// Len returns the number of records.
func (c *Collection) Len() int {
	c.catchUpToRead()
	return c.table.len()
}
