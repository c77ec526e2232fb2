package store

import (
	"bytes"
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

// buildFixtures builds and validates a collection's records, and refuses
// them (a *FullError) when they would pass the store's limits: the count
// before anything is built, the bytes once the records are.
//
// The files' records with an id are built first, by one worker per CPU
// over ranges of the files; those without one wait for the largest id and
// are built next with the ids after it, the generated ones last, by the
// same workers while one goroutine makes the generated values in order.
func (c *Collection) buildFixtures(set *fixtureSet, now time.Time) (*columns, error) {
	n, nfile := set.len(), len(set.refs)
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
	group := newArenaGroup(set)
	// Every worker checks all of its records, so that a file with many bad
	// records is reported at once; each keeps the first of its bad records
	// and counts the rest.
	fws := make([]*fixtureWorker, workers)
	// waiting[w] are the file indexes of worker w's records without an
	// id, ascending.
	waiting := make([][]int32, workers)
	var wg sync.WaitGroup
	chunk := (nfile + workers - 1) / workers
	for w := range workers {
		lo, hi := min(w*chunk, nfile), min((w+1)*chunk, nfile)
		fw := c.newFixtureWorker(cols, set, group)
		fws[w] = fw
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fw.out.flush()
			for i := lo; i < hi; i++ {
				wait, err := fw.build(i, now)
				switch {
				case err != nil:
					fw.bad.add(i, err)
				case wait && fw.bad.n == 0:
					waiting[w] = append(waiting[w], int32(i))
				}
			}
		}()
	}
	wg.Wait()
	if err := mergeBad(fws).err(set.coll()); err != nil {
		return nil, err
	}
	more, err := c.buildWaiting(set, cols, group, slices.Concat(waiting...), workers, now)
	if err != nil {
		return nil, err
	}
	group.release(cols)
	cols.data = group.a
	cols.index = mergeIndexes(len(c.table.fields), append(fws, more...))
	if err := c.orderColumns(set, cols); err != nil {
		return nil, err
	}
	if err := c.table.limits.check(n, cols.bytes()); err != nil {
		return nil, err
	}
	return cols, nil
}

// buildWaiting builds the records that wait for an id, the files' (file
// indexes waiting, ascending) and then the generated ones: record k of
// them takes the k-th id after the largest one the others have, and is
// built by one of the workers (as many as given), which take batches of
// them in order. A generated record's values are made in order by one
// goroutine, the generator, ahead of the workers. It returns the workers.
func (c *Collection) buildWaiting(set *fixtureSet, cols *columns, group *arenaGroup, waiting []int32, workers int, now time.Time) ([]*fixtureWorker, error) {
	nfile, ngen := len(set.refs), 0
	if set.gen != nil {
		ngen = set.gen.n
	}
	m := len(waiting) + ngen
	if m == 0 {
		return nil, nil
	}
	// posOf is the position (the index in the set) of waiting record k.
	posOf := func(k int) int {
		if k < len(waiting) {
			return int(waiting[k])
		}
		return nfile + k - len(waiting)
	}
	if c.idPos < 0 && !c.def.HiddenID && !c.def.Singleton {
		return nil, set.refuse(posOf(0), "", fmt.Errorf("the id field '%s' is missing", c.def.IDField))
	}
	var maxSeq int64
	if c.table.integer {
		for _, seq := range cols.seqs[:nfile] { // 0 where a record waits
			maxSeq = max(maxSeq, seq)
		}
	}
	// maxSeq is at least 0, so this cannot overflow; past the largest int64
	// there is no id to give (as for a create: ids_exhausted), and a record
	// that would need one is refused rather than wrapped to a negative id.
	left := math.MaxInt64 - maxSeq
	if m < ParallelFixtures {
		workers = 1
	}
	jobs, free := make(chan *waitJob, 2*workers), make(chan *waitJob, 2*workers+2)
	for range cap(free) {
		j := &waitJob{in: make([]fieldValues, waitBatch), bad: make([]error, waitBatch)}
		for x := range j.in {
			j.in[x] = c.newFieldValues()
		}
		free <- j
	}
	// The generator: batches in order, the generated ones with their
	// values made.
	var genErr error
	var gr *generator
	if ngen > 0 {
		gr = c.newGenerator(set.gen)
	}
	go func() {
		defer close(jobs)
		for k0 := 0; k0 < m; k0 += waitBatch {
			j := <-free
			j.k0, j.k1 = k0, min(k0+waitBatch, m)
			for k := max(j.k0, len(waiting)); k < j.k1; k++ {
				x := k - j.k0
				j.bad[x] = gr.make(&j.in[x])
				if ge, ok := j.bad[x].(*GenerateError); ok {
					genErr = ge
					return
				}
			}
			jobs <- j
		}
	}()
	fws := make([]*fixtureWorker, workers)
	var wg sync.WaitGroup
	for w := range workers {
		fw := c.newFixtureWorker(cols, set, group)
		fws[w] = fw
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fw.out.flush()
			own := fw.sc.in
			for j := range jobs {
				for k := j.k0; k < j.k1; k++ {
					i := posOf(k)
					var seq int64
					switch {
					case !c.table.integer && i < nfile:
						seq = int64(set.index(i) + 1)
					case !c.table.integer:
						seq = int64(i - nfile + 1)
					case int64(k) >= left:
						fw.bad.add(i, set.refuse(i, "", fmt.Errorf("no id left: the record has no %s, and the largest id, %d, is taken; give it an id", c.def.IDField, int64(math.MaxInt64))))
						continue
					default:
						seq = maxSeq + 1 + int64(k)
					}
					var extra []string
					if i < nfile {
						fw.sc.in = own
						extra, _ = fw.decode(i) // it decoded in the first pass
					} else {
						if err := j.bad[k-j.k0]; err != nil {
							fw.bad.add(i, set.refuse(i, "", err))
							continue
						}
						fw.sc.in = j.in[k-j.k0]
					}
					if c.idPos >= 0 {
						fw.sc.in.vals[c.idPos], fw.sc.in.has[c.idPos] = c.newID(seq), true
					}
					b, err := c.buildChecked(set, i, &fw.sc, extra, seq, now)
					if err != nil {
						fw.bad.add(i, err)
						continue
					}
					if fw.bad.n == 0 {
						fw.store(i, b)
					}
				}
				free <- j
			}
			fw.sc.in = own
		}()
	}
	wg.Wait()
	if genErr != nil {
		return nil, genErr
	}
	if err := mergeBad(fws).err(set.coll()); err != nil {
		return nil, err
	}
	return fws, nil
}

// waitBatch is how many waiting records a worker takes at a time.
const waitBatch = 256

// waitJob is a batch of waiting records, k0 to k1 (exclusive): for the
// generated ones, their values (in, by k-k0) or why they could not be
// made (bad).
type waitJob struct {
	k0, k1 int
	in     []fieldValues
	bad    []error
}

// MaxFixtureProblems is how many bad records one load or import reports;
// the others are counted.
const MaxFixtureProblems = 20

// badRecords keeps the first MaxFixtureProblems bad records of a load, in
// the order they are added, and counts them all.
type badRecords struct {
	first []error
	at    []int // the records' positions, by first
	n     int
}

// add records that the record at position i is bad: a *RecordError or a
// *DuplicateError.
func (b *badRecords) add(i int, err error) {
	if b.n++; len(b.first) < MaxFixtureProblems {
		b.first, b.at = append(b.first, err), append(b.at, i)
	}
}

// mergeBad gathers the workers' bad records in the order of their
// positions: each worker's ascend, so the first of all are among the
// first each kept.
func mergeBad(fws []*fixtureWorker) *badRecords {
	type one struct {
		at  int
		err error
	}
	var all []one
	out := &badRecords{}
	for _, fw := range fws {
		for x, err := range fw.bad.first {
			all = append(all, one{fw.bad.at[x], err})
		}
		out.n += fw.bad.n
	}
	slices.SortStableFunc(all, func(a, b one) int { return a.at - b.at })
	for _, o := range all[:min(len(all), MaxFixtureProblems)] {
		out.first, out.at = append(out.first, o.err), append(out.at, o.at)
	}
	return out
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

// mergeIndexes joins the workers' index lists, each ascending, into one
// ascending list per value: appended where a worker's positions all
// follow the ones before (the files' ranges, in order), merged otherwise.
func mergeIndexes(fields int, fws []*fixtureWorker) []map[string][]int32 {
	index := make([]map[string][]int32, fields)
	for j := range index {
		index[j] = map[string][]int32{}
		for _, fw := range fws {
			for v, l := range fw.index[j] {
				have := index[j][v]
				switch {
				case len(have) == 0:
					index[j][v] = slices.Clip(l)
				case have[len(have)-1] < l[0]:
					index[j][v] = append(have, l...)
				default:
					index[j][v] = mergeSorted(have, l)
				}
			}
		}
	}
	return index
}

// fixtureWorker builds records into the columns and chunks of its own.
type fixtureWorker struct {
	c     *Collection
	cols  *columns
	set   *fixtureSet
	out   arenaWriter
	sc    scratch
	extra []string
	// index[j] maps a value of filter field j to the positions of the
	// records that hold it, in the order they were stored: ascending.
	index []map[string][]int32
	bad   badRecords
	cache *valueCache
}

func (c *Collection) newFixtureWorker(cols *columns, set *fixtureSet, group *arenaGroup) *fixtureWorker {
	fw := &fixtureWorker{c: c, cols: cols, set: set, out: arenaWriter{group: group},
		sc: scratch{in: c.newFieldValues(), view: c.newFieldValues()}, cache: newValueCache(c.fieldNames())}
	fw.index = make([]map[string][]int32, len(c.table.fields))
	for j := range fw.index {
		fw.index[j] = map[string][]int32{}
	}
	return fw
}

// decode reads file record i into fw.sc.in and returns the keys that name
// no field.
func (fw *fixtureWorker) decode(i int) ([]string, error) {
	c, set := fw.c, fw.set
	raw := set.raw(i)
	extra, ok := decodeFieldsCached(raw, c.fieldPos, &fw.sc.in, fw.extra[:0], fw.cache)
	fw.extra = extra
	if ok {
		return extra, nil
	}
	// Not the common case: DecodeStrict decides, and says why.
	doc, err := DecodeStrict(raw)
	if err != nil {
		return nil, set.refuse(i, "", err)
	}
	obj, isObj := doc.(map[string]any)
	if !isObj {
		return nil, set.refuse(i, "", errors.New("want a JSON object"))
	}
	return c.fromObject(obj, &fw.sc.in), nil
}

// build decodes, builds and validates file record i; wait says it has no
// id, and waits for the others (buildWaiting).
func (fw *fixtureWorker) build(i int, now time.Time) (wait bool, err error) {
	c, set := fw.c, fw.set
	extra, err := fw.decode(i)
	if err != nil {
		return false, err
	}
	if c.idPos < 0 || !fw.sc.in.has[c.idPos] {
		return true, nil
	}
	var seq int64
	if c.table.integer {
		n, ok := fw.sc.in.vals[c.idPos].(json.Number)
		if !ok {
			return false, set.refuse(i, "", fmt.Errorf("the id field '%s' must be an integer", c.def.IDField))
		}
		if seq, err = exactInt(n); err != nil {
			return false, set.refuse(i, "", fmt.Errorf("the id field '%s': %v", c.def.IDField, err))
		}
	} else {
		seq = int64(set.index(i) + 1)
	}
	b, err := c.buildChecked(set, i, &fw.sc, extra, seq, now)
	if err != nil {
		return false, err
	}
	fw.store(i, b)
	return false, nil
}

func (fw *fixtureWorker) store(i int, b built) {
	cols := fw.cols
	cols.seqs[i] = b.seq
	cols.spans[i] = fw.out.add(i, b.raw)
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
			bad.add(i, &DuplicateError{Place: set.place(i), ID: key, First: set.place(j)})
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

// arenaGroup is an arena several workers fill at once, each through an
// arenaWriter that writes into chunks of its own, numbered when they are
// taken: the spans need no renumbering afterwards. Its first chunks are
// the bytes of the set's files, one per segment, so that a record already
// in its canonical form there (an export loaded again, a file written by
// a program) is kept where it is rather than copied: a file of a million
// records is then not held twice.
type arenaGroup struct {
	mu  sync.Mutex
	a   arena
	set *fixtureSet
	// kept[s] counts the bytes of the records kept in segment s's file.
	kept []int64
}

func newArenaGroup(set *fixtureSet) *arenaGroup {
	g := &arenaGroup{set: set, kept: make([]int64, len(set.segs))}
	for _, sg := range set.segs {
		// Clipped: a later add starts a chunk of its own.
		g.a.chunks = append(g.a.chunks, slices.Clip(sg.data))
	}
	return g
}

// release copies the records kept in a file out of it when they are less
// than half of what keeping the file holds, so that a few canonical
// records do not keep a large file alive; the arena then holds the file
// no more. Call it once the writers have flushed, before the spans are
// reordered.
func (g *arenaGroup) release(cols *columns) {
	drop := make([]bool, len(g.set.segs))
	some := false
	for s, sg := range g.set.segs {
		drop[s] = g.kept[s]*2 < int64(cap(sg.data))
		some = some || drop[s]
	}
	if !some {
		return
	}
	w := arenaWriter{group: g}
	for i, sp := range cols.spans {
		if int(sp.chunk) < len(drop) && drop[sp.chunk] {
			cols.spans[i] = w.copy(g.a.get(sp))
		}
	}
	w.flush()
	for s := range drop {
		if drop[s] {
			g.a.chunks[s] = nil
		}
	}
}

// arenaWriter adds records to an arenaGroup from one goroutine.
type arenaWriter struct {
	group *arenaGroup
	cur   []byte
	chunk uint32
	kept  []int64 // bytes kept in each segment's file, for the group's count
}

// add stores record i's canonical JSON, raw: where it is in its file when
// it is there as it is, else copied.
func (w *arenaWriter) add(i int, raw []byte) span {
	set := w.group.set
	if i < len(set.refs) {
		if s := set.seg(i); bytes.Equal(set.segs[s].data[set.refs[i].start:set.refs[i].end], raw) {
			if w.kept == nil {
				w.kept = make([]int64, len(set.segs))
			}
			w.kept[s] += int64(len(raw))
			return span{chunk: uint32(s), off: set.refs[i].start, n: uint32(len(raw))}
		}
	}
	return w.copy(raw)
}

// copy stores b in the writer's chunk, taking a new one when it is full.
func (w *arenaWriter) copy(b []byte) span {
	if w.cur == nil || len(w.cur)+len(b) > cap(w.cur) {
		g := w.group
		next := newChunk(len(b))
		g.mu.Lock()
		if w.cur != nil {
			g.a.chunks[w.chunk] = w.cur
		}
		w.chunk, w.cur = uint32(len(g.a.chunks)), next
		g.a.chunks = append(g.a.chunks, next)
		g.mu.Unlock()
	}
	off := len(w.cur)
	w.cur = append(w.cur, b...)
	return span{chunk: w.chunk, off: uint32(off), n: uint32(len(b))}
}

// flush hands the writer's last chunk, as far as it is filled, and its
// counts to the group.
func (w *arenaWriter) flush() {
	g := w.group
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.cur != nil {
		g.a.chunks[w.chunk] = w.cur
	}
	for s, n := range w.kept {
		g.kept[s] += n
	}
	clear(w.kept)
}
