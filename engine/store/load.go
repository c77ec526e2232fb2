package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// load builds, validates and stores the records of one collection.
// Records without an id get the next ids after the largest given one. A bad
// record stops the load and the store is left as it was; the error lists
// the first MaxFixtureProblems bad records in file order, one per line,
// and how many more there are.
func (c *Collection) load(set *fixtureSet, now time.Time) error {
	cols, err := c.buildFixtures(set, now)
	if err != nil {
		return err
	}
	c.table.loadColumns(cols)
	return nil
}

// columns are built records in seq order, and their filter indexes: what
// the store adopts without copying.
type columns struct {
	seqs   []int64
	spans  []span
	keys   []string // string ids only
	scopes []string // scoped collections only
	// index[j] maps a value of filter field j to the ascending positions
	// of the records that hold it.
	index []map[string][]int32
	data  arena
}

// bytes is the record JSON the columns hold.
func (c *columns) bytes() int64 {
	var n int64
	for _, sp := range c.spans {
		n += int64(sp.n)
	}
	return n
}

// ParallelFixtures is the number of records from which a collection's
// fixtures are built by one worker per CPU.
const ParallelFixtures = 4096

// pendingRecord is a record without an id, waiting for the largest id.
type pendingRecord struct {
	in    fieldValues
	extra []string
}

// buildFixtures builds and validates a collection's records, and refuses
// them (a *FullError) when they would pass the store's limits: the count
// before anything is built, the bytes once the records are.
func (c *Collection) buildFixtures(set *fixtureSet, now time.Time) (*columns, error) {
	n := len(set.refs)
	if err := c.table.limits.check(n, 0); err != nil {
		return nil, err
	}
	cols := &columns{seqs: make([]int64, n), spans: make([]span, n)}
	if !c.table.integer {
		cols.keys = make([]string, n)
	}
	if c.table.scoped {
		cols.scopes = make([]string, n)
	}
	workers := runtime.GOMAXPROCS(0)
	if n < ParallelFixtures || workers < 2 {
		workers = 1
	}
	arenas := make([]arena, workers)
	pending := make([]map[int]*pendingRecord, workers)
	fws := make([]*fixtureWorker, workers)
	// Every worker checks all of its records, so that a file with many bad
	// records is reported at once; each keeps the first of its bad records
	// and counts the rest. The workers' ranges ascend, so their lists in
	// worker order are in file order, however the work was scheduled.
	bads := make([]badRecords, workers)
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fw := c.newFixtureWorker(cols, &arenas[w])
			fws[w] = fw
			for i := lo; i < hi; i++ {
				p, err := fw.build(set, i, now)
				if err != nil {
					bads[w].add(err)
					continue
				}
				if bads[w].n > 0 {
					continue // the load fails; nothing more to build
				}
				if p != nil {
					if pending[w] == nil {
						pending[w] = map[int]*pendingRecord{}
					}
					pending[w][i] = p
				}
			}
		}()
	}
	wg.Wait()
	var bad badRecords
	for w := range bads {
		bad.first = append(bad.first, bads[w].first...)
		bad.n += bads[w].n
	}
	if err := bad.err(set.coll()); err != nil {
		return nil, err
	}
	for w := range arenas {
		base := cols.data.adopt(&arenas[w])
		for i := w * chunk; i < min((w+1)*chunk, n); i++ {
			cols.spans[i].chunk += base
		}
	}
	// Index lists hold file indexes so far; the workers' ranges ascend, so
	// appending them in worker order keeps every list ascending.
	cols.index = make([]map[string][]int32, len(c.table.fields))
	for j := range cols.index {
		cols.index[j] = map[string][]int32{}
	}
	for _, fw := range fws {
		fw.mergeIndex(cols.index)
	}
	pfw, err := c.buildPending(set, cols, pending, now)
	if err != nil {
		return nil, err
	}
	if pfw != nil {
		// Records without an id are anywhere in the file.
		pfw.mergeIndex(cols.index)
		sortLists(cols.index)
	}
	if err := c.orderColumns(set, cols); err != nil {
		return nil, err
	}
	if err := c.table.limits.check(n, cols.bytes()); err != nil {
		return nil, err
	}
	return cols, nil
}

// MaxFixtureProblems is how many bad records one load or import reports;
// the others are counted.
const MaxFixtureProblems = 20

// badRecords keeps the first MaxFixtureProblems bad records of a load, in
// the order they are added, and counts them all.
type badRecords struct {
	first []error
	n     int
}

// add records a bad record: a *RecordError or a *DuplicateError.
func (b *badRecords) add(err error) {
	if b.n++; len(b.first) < MaxFixtureProblems {
		b.first = append(b.first, err)
	}
}

// err joins the first bad records of collection coll, one per line, and
// says how many more there are; nil when there are none.
func (b *badRecords) err(coll string) error {
	if b.n == 0 {
		return nil
	}
	errs := slices.Clip(b.first[:min(len(b.first), MaxFixtureProblems)])
	if more := b.n - len(errs); more > 0 {
		errs = append(errs, fmt.Errorf("fixtures: %s: %d more bad records after these %d", coll, more, len(errs)))
	}
	return errors.Join(errs...)
}

func sortLists(index []map[string][]int32) {
	for _, m := range index {
		for _, l := range m {
			slices.Sort(l)
		}
	}
}

// fixtureWorker builds records into the columns and its own arena.
type fixtureWorker struct {
	c     *Collection
	cols  *columns
	a     *arena
	sc    scratch
	extra []string
	// index[j] maps a value of filter field j to the file indexes of the
	// records that hold it, in the order they were stored.
	index []map[string][]int32
}

func (c *Collection) newFixtureWorker(cols *columns, a *arena) *fixtureWorker {
	fw := &fixtureWorker{c: c, cols: cols, a: a, sc: scratch{in: c.newFieldValues(), view: c.newFieldValues()}}
	fw.index = make([]map[string][]int32, len(c.table.fields))
	for j := range fw.index {
		fw.index[j] = map[string][]int32{}
	}
	return fw
}

func (fw *fixtureWorker) mergeIndex(into []map[string][]int32) {
	for j, m := range fw.index {
		for v, l := range m {
			into[j][v] = append(into[j][v], l...)
		}
	}
}

// build decodes, builds and validates record i; a record without an id is
// returned to wait for the others.
func (fw *fixtureWorker) build(set *fixtureSet, i int, now time.Time) (*pendingRecord, error) {
	c := fw.c
	raw := set.raw(&set.refs[i])
	extra, ok := decodeFields(raw, c.fieldPos, &fw.sc.in, fw.extra[:0])
	fw.extra = extra
	if !ok {
		// Not the common case: DecodeStrict decides, and says why.
		doc, err := DecodeStrict(raw)
		if err != nil {
			return nil, set.refuse(i, "", err)
		}
		obj, isObj := doc.(map[string]any)
		if !isObj {
			return nil, set.refuse(i, "", errors.New("want a JSON object"))
		}
		extra = c.fromObject(obj, &fw.sc.in)
	}
	if c.idPos < 0 || !fw.sc.in.has[c.idPos] {
		p := &pendingRecord{in: c.newFieldValues(), extra: append([]string(nil), extra...)}
		copy(p.in.vals, fw.sc.in.vals)
		copy(p.in.has, fw.sc.in.has)
		return p, nil
	}
	var seq int64
	if c.table.integer {
		n, ok := fw.sc.in.vals[c.idPos].(json.Number)
		if !ok {
			return nil, set.refuse(i, "", fmt.Errorf("the id field '%s' must be an integer", c.def.IDField))
		}
		var err error
		if seq, err = exactInt(n); err != nil {
			return nil, set.refuse(i, "", fmt.Errorf("the id field '%s': %v", c.def.IDField, err))
		}
	} else {
		seq = int64(set.refs[i].index + 1)
	}
	b, err := c.buildChecked(set, i, &fw.sc, extra, seq, now)
	if err != nil {
		return nil, err
	}
	fw.store(i, b)
	return nil, nil
}

func (fw *fixtureWorker) store(i int, b built) {
	cols := fw.cols
	cols.seqs[i] = b.seq
	cols.spans[i] = fw.a.add(b.raw)
	if cols.keys != nil {
		cols.keys[i] = b.key
	}
	if cols.scopes != nil {
		cols.scopes[i] = b.scope
	}
	for j, m := range fw.index {
		// The map keeps one copy of each value, so a million records
		// with three statuses hold three strings.
		if v, ok := fw.c.table.entryValue(&b.entry, j); ok {
			m[v] = append(m[v], int32(i))
		}
	}
}

// buildPending gives the records without an id the ids after the largest
// one, in file order, and builds them; the worker it returns holds their
// index entries (nil when there were none).
func (c *Collection) buildPending(set *fixtureSet, cols *columns, pending []map[int]*pendingRecord, now time.Time) (*fixtureWorker, error) {
	var idx []int
	for _, m := range pending {
		for i := range m {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	sort.Ints(idx)
	isPending := map[int]*pendingRecord{}
	for _, m := range pending {
		for i, p := range m {
			isPending[i] = p
		}
	}
	var maxSeq int64
	if c.table.integer {
		for i, seq := range cols.seqs {
			if isPending[i] == nil && seq > maxSeq {
				maxSeq = seq
			}
		}
	}
	// maxSeq is at least 0, so this cannot overflow; past the largest int64
	// there is no id to give (as for a create: ids_exhausted), and a record
	// that would need one is refused rather than wrapped to a negative id.
	left := math.MaxInt64 - maxSeq
	var a arena
	fw := c.newFixtureWorker(cols, &a)
	var bad badRecords
	for k, i := range idx {
		p := isPending[i]
		seq := maxSeq + 1 + int64(k)
		if !c.table.integer {
			seq = int64(set.refs[i].index + 1)
		} else if int64(k) >= left {
			bad.add(set.refuse(i, "", fmt.Errorf("no id left: the record has no %s, and the largest id, %d, is taken; give it an id", c.def.IDField, int64(math.MaxInt64))))
			continue
		}
		if c.idPos >= 0 {
			p.in.vals[c.idPos], p.in.has[c.idPos] = c.newID(seq), true
		} else if !c.def.HiddenID && !c.def.Singleton {
			return nil, set.refuse(i, "", fmt.Errorf("the id field '%s' is missing", c.def.IDField))
		}
		fw.sc.in = p.in
		b, err := c.buildChecked(set, i, &fw.sc, p.extra, seq, now)
		if err != nil {
			bad.add(err)
			continue
		}
		if bad.n == 0 {
			fw.store(i, b)
		}
	}
	if err := bad.err(set.coll()); err != nil {
		return nil, err
	}
	base := cols.data.adopt(&a)
	for _, i := range idx {
		cols.spans[i].chunk += base
	}
	return fw, nil
}

// orderColumns sorts the records by seq (stable: file order among equals,
// which only string ids can have) and refuses duplicate ids.
func (c *Collection) orderColumns(set *fixtureSet, cols *columns) error {
	n := len(cols.seqs)
	// order[k] is the file index of the k-th record in seq order.
	var order []int32
	if !slices.IsSorted(cols.seqs) {
		order = make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		sort.SliceStable(order, func(a, b int) bool { return cols.seqs[order[a]] < cols.seqs[order[b]] })
	}
	at := func(k int) int {
		if order == nil {
			return k
		}
		return int(order[k])
	}
	// dups pairs each record whose id an earlier record (in file order)
	// already has with that earlier record; all are reported, in file order.
	var dups [][2]int
	if c.table.integer {
		first := 0 // the file index of the first record with the current id
		for k := 0; k < n; k++ {
			i := at(k)
			if k == 0 || cols.seqs[i] != cols.seqs[at(k-1)] {
				first = i
				continue
			}
			// stable: equal ids keep file order, so first is the earliest
			dups = append(dups, [2]int{i, first})
		}
	} else {
		seen := make(map[string]int, n)
		for k := 0; k < n; k++ {
			i := at(k)
			key := cols.keys[i]
			if cols.scopes != nil {
				key = cols.scopes[i] + scopeSep + key
			}
			if j, dup := seen[key]; dup {
				dups = append(dups, [2]int{i, j})
				continue
			}
			seen[key] = i
		}
	}
	if len(dups) > 0 {
		slices.SortFunc(dups, func(a, b [2]int) int { return a[0] - b[0] })
		var bad badRecords
		for _, d := range dups[:min(len(dups), MaxFixtureProblems)] {
			i, j := d[0], d[1]
			key := strconv.FormatInt(cols.seqs[i], 10)
			if cols.keys != nil {
				key = cols.keys[i]
			}
			bad.add(&DuplicateError{Place: set.place(i), ID: key, First: set.place(j)})
		}
		bad.n = len(dups) // the rest are counted, not described
		return bad.err(set.coll())
	}
	if order == nil {
		return nil
	}
	cols.seqs = permute(cols.seqs, order)
	cols.spans = permute(cols.spans, order)
	if cols.keys != nil {
		cols.keys = permute(cols.keys, order)
	}
	if cols.scopes != nil {
		cols.scopes = permute(cols.scopes, order)
	}
	if len(cols.index) > 0 {
		posOf := make([]int32, n) // file index -> position
		for to, from := range order {
			posOf[from] = int32(to)
		}
		for _, m := range cols.index {
			for _, l := range m {
				for x, i := range l {
					l[x] = posOf[i]
				}
			}
		}
		sortLists(cols.index)
	}
	return nil
}

func permute[T any](xs []T, order []int32) []T {
	out := make([]T, len(xs))
	for to, from := range order {
		out[to] = xs[from]
	}
	return out
}

// buildChecked builds record i of set and validates it; an error is a
// *RecordError.
func (c *Collection) buildChecked(set *fixtureSet, i int, sc *scratch, extra []string, seq int64, now time.Time) (built, error) {
	b, err := c.buildFields(sc, extra, seq, fromFixture, Write{Now: now}, nil)
	if err != nil {
		return built{}, set.refuse(i, "", err)
	}
	if err := c.validate(b.raw, b.view, nil); err != nil {
		return built{}, set.refuse(i, b.key, err)
	}
	return b, nil
}
