package store

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petctl/petctl/spec"
)

// Record is one stored item: its id, its scope and its canonical JSON
// (fields in the item schema's order), which was validated against the
// item schema before it was stored and never changes.
type Record struct {
	ID    string // the id as it appears in a path; "" for a singleton
	Scope string // the ids of its parents, joined (see JoinScope); "" at the top
	JSON  []byte // the store's own bytes: read them, never write to them
	seq   int64  // the record's place in the order; the id itself for integer ids
}

// Place is the record's place in the order: what Query.After takes to
// continue after it.
func (r Record) Place() int64 { return r.seq }

// JoinScope is the Scope of the records under the parents with these ids,
// outermost first.
func JoinScope(parents []string) string {
	switch len(parents) {
	case 0:
		return ""
	case 1:
		return parents[0]
	}
	return strings.Join(parents, scopeSep)
}

// SplitScope is the parents' ids a Scope joins, outermost first; nil for
// the top.
func SplitScope(scope string) []string {
	if scope == "" {
		return nil
	}
	return strings.Split(scope, scopeSep)
}

// Query describes a page of a list.
type Query struct {
	// Filters maps a field to the values a record may hold (any of them),
	// as the client sent them: Page reads each as the field's type does
	// (07 finds 7).
	Filters map[string][]string
	// Scope, when set, keeps the records of one parent (see JoinScope);
	// nil lists every parent's.
	Scope    *string
	Limit    int   // 0 means no limit
	Offset   int   // matches skipped before the page
	Desc     bool  // newest first
	After    int64 // continue after the record whose place this is, when HasAfter
	HasAfter bool
	// Count asks for the number of matches (Page.Total), which costs a
	// count of the index lists or a scan.
	Count bool
	// SortBy orders by a field's value (ascending, or descending with
	// SortDesc) instead of the store's order; a cursor does not apply then.
	SortBy   string
	SortDesc bool
	// Alive, when set, keeps only the records whose scope it accepts (a
	// view over every parent's items leaves out those under a deleted
	// one); Count then counts by a scan.
	Alive func(scope string) bool
}

// Page is a page of a list.
type Page struct {
	// Items are the records' JSON, in order: the store's own bytes.
	Items [][]byte
	// Last is the place of the last item (for a cursor: Query.After),
	// LastID its id.
	Last   int64
	LastID string
	More   bool // more match after the page
	Total  int  // when Query.Count: every match
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

// Write says where a write happens and what the server adds to it.
type Write struct {
	// Scope are the ids of the item's parents, outermost first, as the
	// path names them.
	Scope []string
	// ID is the id the path names (a replace, or a create at a path); ""
	// lets the store choose, unless the client chose one in the body.
	ID  string
	Now time.Time
	// Self makes the item's URL from its id, for a self-link field.
	Self func(id string) string
	// KeepUnsent is set for a replace: a required field its body leaves
	// out (a document's update schema may be narrower than its item)
	// keeps its stored value. A patch's result is whole, so a required
	// field it removed is missing, and the patch refused.
	KeepUnsent bool
}

// field is one property of the item schema, as the store writes it.
type field struct {
	name     string
	key      []byte // the name as JSON, and the colon: what a record's JSON writes before the value
	schema   *spec.Schema
	typ      string // the schema's type
	required bool
	// assign: a create gives it a value (a required server-assigned
	// field, or a timestamp); keep: a create does not take it from the
	// client (readOnly, or server-assigned), and an update keeps the
	// stored value unless it sends one where it may; readOnly: no write
	// ever changes it; atCreate: readOnly, yet the create's own body
	// declares it (spec.Resource.Assigned leaves it out), so a create
	// takes it from the client.
	assign, keep, readOnly, atCreate bool
}

// Collection holds the records of one spec.Resource: it builds each
// record from a decoded object, holds it to the item schema, and keeps it
// in order with an index per filter (and per parent, for a nested
// resource). It is safe for concurrent use.
type Collection struct {
	def   *spec.Resource
	table *table
	// schema is Check.Compiled; describe is Check.Describe.
	schema   *spec.ResponseSchema
	describe func(raw []byte, compiled error) error
	// plan accepts, quickly, records the compiled schema surely accepts;
	// nil when the item schema is not of the shape it handles.
	plan   *spec.ObjectPlan
	fields []field
	// fieldPos maps a field name to its position in fields.
	fieldPos map[string]int
	// filterFields are the item fields some list filter names, at most 63;
	// filterPos[i] is the position in fields of filterFields[i].
	filterFields []string
	filterPos    []int
	// idPos, parentPos and selfPos are the positions of the id, the
	// parent's id and the self link, -1 without.
	idPos, parentPos, selfPos int
	idSchema                  *spec.Schema
	// raw is set when the item is not an object (a singleton holding a
	// list or a number): a record is the value itself.
	raw bool
	// journal keeps the records beyond this process (see Journal); nil
	// keeps them in memory only. Set by Store.Attach before the
	// collection is shared.
	journal Journal
	// owner is the store the collection is in.
	owner *Store
	// applied is how far a shared journal's log of this collection has
	// been applied; changed under the table's write lock.
	applied atomic.Int64
	// creates gathers the creates waiting to commit to a shared journal.
	creates createGroup
}

// maxFilterFields bounds the filter fields: entry.has holds one bit per
// field, and a scoped table's scope takes one.
const maxFilterFields = 63

// NewCollection makes an empty collection for def, whose records check
// holds to the item schema and limits bound.
func NewCollection(def *spec.Resource, check Check, limits Limits) *Collection {
	c := &Collection{def: def, schema: check.Compiled, describe: check.Describe, fieldPos: map[string]int{}, idPos: -1, parentPos: -1, selfPos: -1}
	props, required := def.Item.Props()
	c.raw = def.Item.Type() != "object" || len(props) == 0
	if !c.raw {
		names := make([]string, len(props))
		for i, p := range props {
			names[i] = p.Name
			c.fieldPos[p.Name] = i
			f := field{name: p.Name, key: append(AppendJSONString(nil, p.Name), ':'), schema: p.Schema, typ: p.Schema.Type(), required: required[p.Name]}
			assigned := slices.Contains(def.Assigned, p.Name)
			f.readOnly = p.Schema != nil && p.Schema.ReadOnly
			f.keep = assigned || f.readOnly
			f.atCreate = f.readOnly && !assigned
			f.assign = assigned && (f.required || p.Schema != nil && (p.Schema.Format == "date-time" || p.Schema.Format == "date"))
			c.fields = append(c.fields, f)
		}
		c.idPos = c.fieldPosOf(def.IDField)
		c.parentPos = c.fieldPosOf(def.ParentField)
		c.selfPos = c.fieldPosOf(def.SelfField)
		var filters []*spec.Filter
		for _, o := range def.Ops {
			if o.List != nil {
				filters = append(filters, o.List.Filters...)
			}
		}
		for _, f := range filters {
			if !slices.Contains(c.filterFields, f.Field) && len(c.filterFields) < maxFilterFields-1 {
				c.filterFields = append(c.filterFields, f.Field)
				c.filterPos = append(c.filterPos, c.fieldPosOf(f.Field))
			}
		}
		if c.schema != nil {
			c.plan = c.schema.Plan(names)
		}
	}
	c.idSchema = def.ID.Schema
	integer := def.ID.Type == "integer" && !def.ClientIDs && !def.Singleton && (c.idPos >= 0 || def.HiddenID)
	c.table = newTable(integer, len(def.ParentParams) > 0, c.filterFields)
	c.table.canon = c.filterKey
	c.table.limits = storeLimits{coll: def.Key, maxRecords: limits.MaxRecords, maxBytes: limits.MaxBytes}
	if limits.MaxRecords <= 0 {
		c.table.limits.maxRecords = math.MaxInt
	}
	if limits.MaxBytes <= 0 {
		c.table.limits.maxBytes = math.MaxInt64
	}
	return c
}

// Resource returns what the collection holds the items of.
func (c *Collection) Resource() *spec.Resource { return c.def }

// fieldNames are the fields' names, by position.
func (c *Collection) fieldNames() []string {
	names := make([]string, len(c.fields))
	for i, f := range c.fields {
		names[i] = f.name
	}
	return names
}

func (c *Collection) fieldPosOf(name string) int {
	if i, ok := c.fieldPos[name]; ok && name != "" {
		return i
	}
	return -1
}

// filterKey is the canonical text of v, sent for filterFields[i].
func (c *Collection) filterKey(i int, v string) string {
	if i < len(c.filterPos) {
		if p := c.filterPos[i]; p >= 0 {
			return queryKey(c.fields[p].schema, v)
		}
	}
	return v
}

// pathKey is the canonical text of an id as a path carries it.
func (c *Collection) pathKey(id string) string {
	if c.def.Singleton {
		return ""
	}
	return queryKey(c.idSchema, id)
}

// errInvalidRecord marks a built record that the item schema refuses.
var errInvalidRecord = errors.New("invalid record")

// Create builds a record from a decoded request body (numbers as
// json.Number, as DecodeStrict gives them): the id and the other fields
// the server assigns are filled, the parent's id set from the scope, and
// keys that name no field dropped. The record is stored only when the
// item schema accepts it, the limits allow it and the journal takes it;
// otherwise the error is an *InvalidRecordError, a *FullError, a
// *ConflictError (an id the client chose is taken), ErrIDsExhausted, a
// *JournalError, or what is wrong with a field, and nothing was stored.
func (c *Collection) Create(obj any, w Write) (rec Record, err error) {
	nc, leave, err := c.enter()
	if err != nil {
		return Record{}, err
	}
	if nc != nil {
		return nc.Create(obj, w)
	}
	defer leave()
	if c.journal != nil && c.journal.shared() {
		return c.creates.create(c, obj, w)
	}
	err = c.journaled(func(tx *commitTx) error {
		c.table.mu.Lock()
		defer c.table.mu.Unlock()
		var err error
		rec, err = c.createLocked(obj, w, tx)
		return err
	})
	return rec, err
}

// createLocked stores the record obj makes, once tx has committed it: a
// create, or a PUT that creates at its path; the caller holds the write
// lock.
func (c *Collection) createLocked(obj any, w Write, tx *commitTx) (Record, error) {
	cur := c.table.cursor()
	e, err := c.buildNewLocked(&cur, obj, w)
	if err != nil {
		return Record{}, err
	}
	if err := tx.put(&e); err != nil {
		return Record{}, err
	}
	return c.table.insertLocked(&e), nil
}

// buildNewLocked builds the record obj makes, as the create at cur (see
// table.buildNewLocked); the caller holds the write lock.
func (c *Collection) buildNewLocked(cur *createCursor, obj any, w Write) (entry, error) {
	var invalid error
	scope := JoinScope(w.Scope)
	e, err := c.table.buildNewLocked(cur, func(seq int64) (entry, bool, error) {
		b, err := c.build(obj, seq, fromClient, w, nil)
		if err != nil {
			return entry{}, false, err
		}
		b.scope = scope
		if invalid = c.validate(b.raw, b.view, b.value); invalid != nil {
			return entry{}, false, errInvalidRecord
		}
		return b.entry, b.chosen, nil
	})
	if err == errInvalidRecord {
		return entry{}, &InvalidRecordError{Err: invalid}
	}
	return e, err
}

// CreateMany creates a record from each object, all or none: the first
// object that fails stops the batch and nothing is stored. The journal
// takes the records together once every one is built and checked.
func (c *Collection) CreateMany(objs []any, w Write) (out []Record, err error) {
	nc, leave, err := c.enter()
	if err != nil {
		return nil, err
	}
	if nc != nil {
		return nc.CreateMany(objs, w)
	}
	defer leave()
	err = c.journaled(func(tx *commitTx) error {
		var err error
		out, err = c.createManyLocked(objs, w, tx)
		return err
	})
	return out, err
}

func (c *Collection) createManyLocked(objs []any, w Write, tx *commitTx) ([]Record, error) {
	scope := JoinScope(w.Scope)
	c.table.mu.Lock()
	defer c.table.mu.Unlock()
	if err := c.table.limits.check(c.table.live()+len(objs), c.table.bytes); err != nil {
		return nil, err
	}
	// Built first, each against the table as the ones before it leave it:
	// ids must differ among the new records as well.
	var built []entry
	var total int64
	seq, noNext := c.table.nextSeq, c.table.noNext
	taken := map[string]bool{}
	for i, obj := range objs {
		for {
			if noNext {
				return nil, ErrIDsExhausted
			}
			b, err := c.build(obj, seq, fromClient, w, nil)
			if err != nil {
				return nil, &BatchError{Index: i, Err: err}
			}
			b.scope = scope
			if invalid := c.validate(b.raw, b.view, b.value); invalid != nil {
				return nil, &BatchError{Index: i, Err: &InvalidRecordError{Err: invalid}}
			}
			_, exists := c.table.findLocked(scope, b.key)
			if exists || taken[b.key] {
				if b.chosen {
					return nil, &BatchError{Index: i, Err: &ConflictError{ID: b.key}}
				}
				seq, noNext = seq+1, seq == math.MaxInt64
				continue
			}
			taken[b.key] = true
			e := b.entry
			e.raw = slices.Clone(e.raw)
			e.vals = slices.Clone(e.vals)
			built = append(built, e)
			total += int64(len(e.raw))
			seq, noNext = seq+1, seq == math.MaxInt64
			break
		}
	}
	if err := c.table.limits.check(c.table.live()+len(built), c.table.bytes+total); err != nil {
		return nil, err
	}
	if err := tx.putAll(built); err != nil {
		return nil, err
	}
	out := make([]Record, len(built))
	for i := range built {
		out[i] = c.table.insertLocked(&built[i])
	}
	return out, nil
}

// Get returns the record whose id is id, as it appears in a path, under
// the parents with the ids of scope.
func (c *Collection) Get(scope []string, id string) (Record, bool) {
	c.catchUpToRead()
	return c.table.get(JoinScope(scope), c.pathKey(id))
}

// First returns the first record under w.Scope, in the store's order;
// where there is none it creates one from make's value, as Create does
// (created is then set, and the error is Create's). The look and the
// create are one change under the collection's lock, so that callers at
// the same moment get the same record, not one each.
func (c *Collection) First(w Write, make func() any) (rec Record, created bool, err error) {
	c.catchUpToRead()
	scope := JoinScope(w.Scope)
	if rec, ok := c.table.first(scope); ok {
		return rec, false, nil
	}
	nc, leave, err := c.enter()
	if err != nil {
		return Record{}, false, err
	}
	if nc != nil {
		return nc.First(w, make)
	}
	defer leave()
	err = c.journaled(func(tx *commitTx) error {
		c.table.mu.Lock()
		defer c.table.mu.Unlock()
		if r, ok := c.table.firstLocked(scope); ok {
			rec, created = r, false
			return nil
		}
		var err error
		rec, err = c.createLocked(make(), w, tx)
		created = err == nil
		return err
	})
	return rec, created, err
}

// ErrNotFound says no record has the id (under the scope) a write names.
var ErrNotFound = errors.New("no such record")

// Put replaces the record at w.Scope and w.ID with the value next makes
// of it (the decoded new item; next sees the stored record, or nil when
// there is none). When there is none, upsert creates it at that id (and
// created is set); otherwise the error is ErrNotFound. The id, the
// parent's id and the fields the server keeps (readOnly, assigned) stay
// as they were. The new record is stored only when the item schema
// accepts it and the journal takes it; an error from next, or any other,
// changes nothing. The whole runs under the collection's lock, so next
// may check a precondition (If-Match) against what it replaces; it is
// called again when another replica changed the collection first.
func (c *Collection) Put(w Write, upsert bool, next func(old *Record) (any, error)) (rec Record, created bool, err error) {
	nc, leave, err := c.enter()
	if err != nil {
		return Record{}, false, err
	}
	if nc != nil {
		return nc.Put(w, upsert, next)
	}
	defer leave()
	err = c.journaled(func(tx *commitTx) error {
		var err error
		rec, created, err = c.putLocked(w, upsert, next, tx)
		return err
	})
	return rec, created, err
}

func (c *Collection) putLocked(w Write, upsert bool, next func(old *Record) (any, error), tx *commitTx) (rec Record, created bool, err error) {
	scope, key := JoinScope(w.Scope), c.pathKey(w.ID)
	t := c.table
	t.mu.Lock()
	defer t.mu.Unlock()
	pos, ok := t.findLocked(scope, key)
	if !ok {
		if !upsert {
			return Record{}, false, ErrNotFound
		}
		obj, err := next(nil)
		if err != nil {
			return Record{}, false, err
		}
		// The id is the path's (w.ID): a taken one is a conflict.
		rec, err := c.createLocked(obj, w, tx)
		return rec, err == nil, err
	}
	old := t.recordAt(pos)
	obj, err := next(&old)
	if err != nil {
		return Record{}, false, err
	}
	prev, err := c.decodeStored(old.JSON)
	if err != nil {
		return Record{}, false, err
	}
	b, err := c.build(obj, old.seq, fromWrite, w, &prev)
	if err != nil {
		return Record{}, false, err
	}
	b.scope, b.key = scope, old.ID
	if invalid := c.validate(b.raw, b.view, b.value); invalid != nil {
		return Record{}, false, &InvalidRecordError{Err: invalid}
	}
	if err := t.limits.check(t.live(), t.bytes-int64(len(old.JSON))+int64(len(b.raw))); err != nil {
		return Record{}, false, err
	}
	// The journal keeps the new version at the record's seq, in its place.
	if err := tx.put(&b.entry); err != nil {
		return Record{}, false, err
	}
	oldEntry := c.entryOf(&prev, scope)
	rec = t.replaceLocked(pos, &oldEntry, &b.entry)
	t.compactIfWorthIt()
	return rec, false, nil
}

// Delete removes the record with the id under scope, when check (nil for
// none) accepts it, and returns it; ErrNotFound when there is none, a
// *JournalError when the journal cannot take it. The record then reads as
// absent and leaves every list.
func (c *Collection) Delete(scope []string, id string, check func(Record) error) (old Record, err error) {
	nc, leave, err := c.enter()
	if err != nil {
		return Record{}, err
	}
	if nc != nil {
		return nc.Delete(scope, id, check)
	}
	defer leave()
	err = c.journaled(func(tx *commitTx) error {
		var err error
		old, err = c.deleteLocked(JoinScope(scope), c.pathKey(id), check, tx)
		return err
	})
	return old, err
}

func (c *Collection) deleteLocked(sc, key string, check func(Record) error, tx *commitTx) (Record, error) {
	t := c.table
	t.mu.Lock()
	defer t.mu.Unlock()
	pos, ok := t.findLocked(sc, key)
	if !ok {
		return Record{}, ErrNotFound
	}
	old := t.recordAt(pos)
	if check != nil {
		if err := check(old); err != nil {
			return Record{}, err
		}
	}
	if err := c.deleteAt(pos, old, tx); err != nil {
		return Record{}, err
	}
	t.compactIfWorthIt()
	return old, nil
}

// deleteAt hands the delete of the record at pos to the journal and then
// tombstones it; the caller holds the lock.
func (c *Collection) deleteAt(pos int, old Record, tx *commitTx) error {
	prev, err := c.decodeStored(old.JSON)
	if err != nil {
		return err
	}
	e := c.entryOf(&prev, old.Scope)
	e.seq, e.key = old.seq, old.ID
	if err := tx.del(&e); err != nil {
		return err
	}
	c.table.deleteLocked(pos, &e)
	return nil
}

// DeleteUnder removes every record under the parents with the ids of
// scope, and under their descendants (a cascade), and returns how many;
// the error is a *JournalError when the journal could not take them all
// (those it took are gone).
func (c *Collection) DeleteUnder(scope []string) (n int, err error) {
	if !c.table.scoped {
		return 0, nil
	}
	nc, leave, err := c.enter()
	if err != nil {
		return 0, err
	}
	if nc != nil {
		return nc.DeleteUnder(scope)
	}
	defer leave()
	err = c.journaled(func(tx *commitTx) error {
		var err error
		n, err = c.deleteUnderLocked(JoinScope(scope), tx)
		return err
	})
	return n, err
}

func (c *Collection) deleteUnderLocked(prefix string, tx *commitTx) (int, error) {
	t := c.table
	t.mu.Lock()
	defer t.mu.Unlock()
	var doomed []int
	for sc, list := range t.index[t.scopeIndex()] {
		if sc == prefix || strings.HasPrefix(sc, prefix+scopeSep) {
			for _, p := range list {
				doomed = append(doomed, int(p))
			}
		}
	}
	// Positions stay put until every tombstone is laid: compaction waits.
	slices.Sort(doomed)
	n := 0
	defer t.compactIfWorthIt()
	for _, pos := range doomed {
		if t.isDead(pos) {
			continue
		}
		switch err := c.deleteAt(pos, t.recordAt(pos), tx); {
		case err == nil:
			n++
		case errors.Is(err, errStale) || errors.As(err, new(*JournalError)):
			return n, err
		}
	}
	return n, nil
}

// maxStaleRetries bounds how often a change is built again because other
// replicas changed the collection first.
const maxStaleRetries = 100

// enter holds the store's gate for a change, which leave releases. When
// a reload retired the store, the change goes to the successor's
// collection instead (next, with the gate released).
func (c *Collection) enter() (next *Collection, leave func(), err error) {
	if c.owner == nil {
		return nil, func() {}, nil
	}
	c.owner.gate.RLock()
	if succ := c.owner.successor.Load(); succ != nil {
		c.owner.gate.RUnlock()
		if nc := succ.colls[c.def.Key]; nc != nil {
			return nc, nil, nil
		}
		return nil, nil, &JournalError{Journal: "the store", Err: fmt.Errorf("the document was reloaded while this change waited, and has no collection %s any more; nothing was changed", c.def.Key)}
	}
	return nil, c.owner.gate.RUnlock, nil
}

// journaled runs change, which takes the table's write lock and hands
// every change to tx before it makes it, the way each mutation meets the
// journal: after catching up with what other replicas did, and again
// (built afresh, on what the journal applied with its refusal) when
// another replica changed the collection first; it
// returns once the journal holds the change, after the lock is released
// so that concurrent changes share a commit.
func (c *Collection) journaled(change func(tx *commitTx) error) error {
	if err := c.catchUp(); err != nil {
		return journalError(c.journal, err)
	}
	return c.committed(change)
}

// committed is journaled without catching up first: for a change whose
// commit is sent even when it changes nothing, so that the journal's
// compare confirms (or, refusing it, brings up to date) every decision
// change made on the table.
func (c *Collection) committed(change func(tx *commitTx) error) error {
	for attempt := 0; ; attempt++ {
		tx := &commitTx{c: c}
		err := change(tx)
		switch {
		case err == errStale && attempt < maxStaleRetries:
			continue // the journal applied what came first
		case err == errStale:
			return &JournalError{Journal: c.journal.Name(), Err: fmt.Errorf("%d other replicas' changes came first, one after another; nothing was stored", maxStaleRetries)}
		}
		if werr := tx.wait(); werr != nil && err == nil {
			err = werr
		}
		return err
	}
}

// commitTx hands one mutation's changes to the collection's journal and
// gathers what returns once they are durable.
type commitTx struct {
	c     *Collection
	waits []func() error
}

// put commits that the collection holds e (a new record, or a new version
// at its seq); the caller holds the write lock. nil without a journal.
func (tx *commitTx) put(e *entry) error {
	j := tx.c.journal
	if j == nil {
		return nil
	}
	return tx.done(j.put(tx.c, e, tx.c.table.nextAfter(e.seq)))
}

// putAll commits that the collection holds each of es (new records, in
// seq order), all or none; the caller holds the write lock. A shared
// journal takes it even when es is empty: its errStale then says the
// table the records were built on (or refused on) was not current.
func (tx *commitTx) putAll(es []entry) error {
	j := tx.c.journal
	if j == nil || len(es) == 0 && !j.shared() {
		return nil
	}
	next := nextOf(tx.c.table.nextSeq, tx.c.table.noNext)
	if len(es) > 0 {
		next = tx.c.table.nextAfter(es[len(es)-1].seq)
	}
	return tx.done(j.putAll(tx.c, es, next))
}

// del commits that the record e names is deleted; the caller holds the
// write lock.
func (tx *commitTx) del(e *entry) error {
	j := tx.c.journal
	if j == nil {
		return nil
	}
	return tx.done(j.delete(tx.c, e, tx.c.table.nextAfter(e.seq)))
}

func (tx *commitTx) done(wait func() error, err error) error {
	if err != nil && err != errStale {
		return journalError(tx.c.journal, err)
	}
	if wait != nil {
		tx.waits = append(tx.waits, wait)
	}
	return err
}

// wait returns once every change committed is durable.
func (tx *commitTx) wait() error {
	for _, w := range tx.waits {
		if err := w(); err != nil {
			return journalError(tx.c.journal, err)
		}
	}
	return nil
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

// Page returns a page of the records, in order (the store's own bytes:
// read them, never write to them).
func (c *Collection) Page(q Query) Page {
	c.catchUpToRead()
	var key func([]byte) any
	if q.SortBy != "" {
		field := q.SortBy
		key = func(raw []byte) any {
			doc, _ := DecodeStrict(raw)
			obj, _ := doc.(map[string]any)
			return jsonView(obj[field])
		}
	}
	return c.table.page(q, key)
}

// Len returns the number of records.
func (c *Collection) Len() int {
	c.catchUpToRead()
	return c.table.len()
}

// Scoped reports whether records are kept per parent.
func (c *Collection) Scoped() bool { return c.table.scoped }
