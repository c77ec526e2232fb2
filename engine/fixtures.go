package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v4"
)

// FixtureFile is seed data for the store. Its content is either a JSON array
// of records for the collection its base name names ("pets.json"), or a JSON
// object mapping collection names to arrays of records. A name ending in
// .yaml or .yml holds the same in YAML.
type FixtureFile struct {
	Name string // for messages, and the collection of a top-level array
	Data []byte
}

// fixtureSet is the records of one collection, split out of the files
// without decoding them, so a file of a million records never exists as a
// million maps at once, nor as a million of anything larger than a ref.
type fixtureSet struct {
	segs []fixtureSegment
	refs []fixtureRef
}

// fixtureSegment is one array of records in one file.
type fixtureSegment struct {
	file, coll string
	data       []byte // the whole file
}

// fixtureRef locates one record: its segment, its index in that array, and
// its bytes in the file.
type fixtureRef struct {
	seg        int32
	index      int32
	start, end uint32
}

// maxFixtureBytes bounds a fixtures file so a ref's offsets fit in 32 bits.
const maxFixtureBytes = 1<<32 - 1

func (fs *fixtureSet) raw(r *fixtureRef) []byte {
	return fs.segs[r.seg].data[r.start:r.end]
}

func (fs *fixtureSet) where(r *fixtureRef) string {
	sg := &fs.segs[r.seg]
	return fmt.Sprintf("fixtures %s: %s[%d]", sg.file, sg.coll, r.index)
}

// parseFixtures splits the files into records grouped by collection name;
// a file that is an array of records fills the collection its base name
// names.
func parseFixtures(files []FixtureFile, known map[string]*collection) (map[string]*fixtureSet, error) {
	return parseFixturesAs(files, collectionOfFile, known)
}

// collectionOfFile is the collection an array of records in a file named
// name fills: its base name without the extension (pets.json: pets).
func collectionOfFile(name string) (string, error) {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	return strings.TrimSuffix(base, path.Ext(base)), nil
}

// parseFixturesAs is parseFixtures where arrayOf names the collection a
// file that is an array of records fills.
func parseFixturesAs(files []FixtureFile, arrayOf func(file string) (string, error), known map[string]*collection) (map[string]*fixtureSet, error) {
	out := map[string]*fixtureSet{}
	for _, f := range files {
		if isYAMLName(f.Name) {
			data, err := yamlToJSON(f.Data)
			if err != nil {
				return nil, fmt.Errorf("fixtures %s: %v", f.Name, err)
			}
			f.Data = data
		}
		if len(f.Data) > maxFixtureBytes {
			return nil, fmt.Errorf("fixtures %s: larger than 4 GiB; split it into several files", f.Name)
		}
		p := parser{data: f.Data}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, fmt.Errorf("fixtures %s: the file is empty", f.Name)
		}
		switch p.data[p.pos] {
		case '[':
			name, err := arrayOf(f.Name)
			if err != nil {
				return nil, fmt.Errorf("fixtures %s: %v", f.Name, err)
			}
			if err := p.splitRecords(f.Name, name, known, out); err != nil {
				return nil, err
			}
		case '{':
			p.pos++
			seen := map[string]bool{}
			for {
				p.skipSpace()
				if p.pos < len(p.data) && p.data[p.pos] == '}' && len(seen) == 0 {
					p.pos++
					break
				}
				if p.pos >= len(p.data) || p.data[p.pos] != '"' {
					return nil, fmt.Errorf("fixtures %s: %v", f.Name, p.fail("a collection name (a string) expected"))
				}
				name, err := p.string()
				if err != nil {
					return nil, fmt.Errorf("fixtures %s: %v", f.Name, err)
				}
				if seen[name] {
					return nil, fmt.Errorf("fixtures %s: collection %q appears twice", f.Name, name)
				}
				seen[name] = true
				p.skipSpace()
				if p.pos >= len(p.data) || p.data[p.pos] != ':' {
					return nil, fmt.Errorf("fixtures %s: %v", f.Name, p.fail("':' expected"))
				}
				p.pos++
				p.skipSpace()
				if p.pos >= len(p.data) || p.data[p.pos] != '[' {
					return nil, fmt.Errorf("fixtures %s: %s: want an array of records", f.Name, name)
				}
				if err := p.splitRecords(f.Name, name, known, out); err != nil {
					return nil, err
				}
				p.skipSpace()
				if p.pos < len(p.data) && p.data[p.pos] == ',' {
					p.pos++
					continue
				}
				if p.pos < len(p.data) && p.data[p.pos] == '}' {
					p.pos++
					break
				}
				return nil, fmt.Errorf("fixtures %s: %v", f.Name, p.fail("',' or '}' expected"))
			}
		default:
			return nil, fmt.Errorf("fixtures %s: want an array of records, or an object that maps collection names to arrays", f.Name)
		}
		p.skipSpace()
		if p.pos != len(p.data) {
			return nil, fmt.Errorf("fixtures %s: unexpected data after the JSON value at byte %d", f.Name, p.pos)
		}
	}
	return out, nil
}

// splitRecords reads an array at p.pos and appends its elements' JSON. The
// elements are only delimited here; decodeStrict checks each one in full.
func (p *parser) splitRecords(file, name string, known map[string]*collection, out map[string]*fixtureSet) error {
	if _, ok := known[name]; !ok {
		return fmt.Errorf("fixtures %s: %q is not a collection of the spec (it has %s)", file, name, knownNames(known))
	}
	set := out[name]
	if set == nil {
		set = &fixtureSet{}
		out[name] = set
	}
	seg := int32(len(set.segs))
	set.segs = append(set.segs, fixtureSegment{file: file, coll: name, data: p.data})
	p.pos++ // '['
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		start := p.pos
		if err := p.skipValue(); err != nil {
			return fmt.Errorf("fixtures %s: %s[%d]: %v", file, name, i, err)
		}
		set.refs = append(set.refs, fixtureRef{seg: seg, index: int32(i), start: uint32(start), end: uint32(p.pos)})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return fmt.Errorf("fixtures %s: %s: %v", file, name, p.fail(""))
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return fmt.Errorf("fixtures %s: %s[%d]: %v", file, name, i, p.fail("',' or ']' expected after a record"))
		}
	}
}

// skipValue moves past one JSON value, tracking only strings and nesting;
// mismatched brackets are left for decodeStrict to report.
func (p *parser) skipValue() error {
	if p.pos >= len(p.data) {
		return p.fail("")
	}
	switch p.data[p.pos] {
	case '{', '[':
		depth := 0
		for p.pos < len(p.data) {
			switch p.data[p.pos] {
			case '"':
				if !p.skipString() {
					return p.fail("")
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.pos++
					return nil
				}
			}
			p.pos++
		}
		return p.fail("")
	case '"':
		if !p.skipString() {
			return p.fail("")
		}
		return nil
	}
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil
		}
		p.pos++
	}
	return nil
}

// skipString moves past a string at p.pos; false when it does not end.
func (p *parser) skipString() bool {
	p.pos++
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			return true
		}
		p.pos++
	}
	return false
}

func knownNames(known map[string]*collection) string {
	var names []string
	for n := range known {
		names = append(names, strconv.Quote(n))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// loadFixtures builds, validates and stores the records of one collection.
// Records without an id get the next ids after the largest given one. A bad
// record stops the load and the store is left as it was; the error lists
// the first maxFixtureProblems bad records in file order, one per line,
// and how many more there are.
func (c *collection) loadFixtures(set *fixtureSet, now time.Time) error {
	cols, err := c.buildFixtures(set, now)
	if err != nil {
		return err
	}
	c.store.loadColumns(cols)
	return nil
}

// columns are built records in seq order, and their filter indexes: what
// the store adopts without copying.
type columns struct {
	seqs  []int64
	spans []span
	keys  []string // string ids only
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

// parallelFixtures is the size above which records are built by one worker per CPU.
const parallelFixtures = 4096

// pendingRecord is a record without an id, waiting for the largest id.
type pendingRecord struct {
	in    fieldValues
	extra []string
}

// buildFixtures builds and validates a collection's records, and refuses
// them (a *fullError) when they would pass the store's limits: the count
// before anything is built, the bytes once the records are.
func (c *collection) buildFixtures(set *fixtureSet, now time.Time) (*columns, error) {
	n := len(set.refs)
	if err := c.store.limits.check(n, 0); err != nil {
		return nil, err
	}
	cols := &columns{seqs: make([]int64, n), spans: make([]span, n)}
	if c.def.IDType != "integer" {
		cols.keys = make([]string, n)
	}
	workers := runtime.GOMAXPROCS(0)
	if n < parallelFixtures || workers < 2 {
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
					bads[w].add(set, i, err)
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
	if err := bad.err(set); err != nil {
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
	cols.index = make([]map[string][]int32, len(c.filterFields))
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
	if err := c.store.limits.check(n, cols.bytes()); err != nil {
		return nil, err
	}
	return cols, nil
}

// maxFixtureProblems is how many bad records one load reports.
const maxFixtureProblems = 20

// badRecords keeps the first maxFixtureProblems bad records of a load, in
// the order they are added, and counts them all.
type badRecords struct {
	first []error
	n     int
}

// add records that the record at index i of set is bad; why's text follows
// the record's place (": reason").
func (b *badRecords) add(set *fixtureSet, i int, why error) {
	if b.n++; len(b.first) < maxFixtureProblems {
		b.first = append(b.first, fmt.Errorf("%s%v", set.where(&set.refs[i]), why))
	}
}

// err joins the first bad records, one per line, and says how many more
// there are; nil when there are none.
func (b *badRecords) err(set *fixtureSet) error {
	if b.n == 0 {
		return nil
	}
	errs := slices.Clip(b.first[:min(len(b.first), maxFixtureProblems)])
	if more := b.n - len(errs); more > 0 {
		errs = append(errs, fmt.Errorf("fixtures: %s: %d more bad records after these %d", set.segs[0].coll, more, len(errs)))
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
	c     *collection
	cols  *columns
	a     *arena
	sc    scratch
	extra []string
	// index[j] maps a value of filter field j to the file indexes of the
	// records that hold it, in the order they were stored.
	index []map[string][]int32
}

func (c *collection) newFixtureWorker(cols *columns, a *arena) *fixtureWorker {
	fw := &fixtureWorker{c: c, cols: cols, a: a, sc: scratch{in: c.newFieldValues(), view: c.newFieldValues()}}
	fw.index = make([]map[string][]int32, len(c.filterFields))
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
		// Not the common case: decodeStrict decides, and says why.
		doc, err := decodeStrict(raw)
		if err != nil {
			return nil, fmt.Errorf(": %v", err)
		}
		obj, isObj := doc.(map[string]any)
		if !isObj {
			return nil, fmt.Errorf(": want a JSON object")
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
	if c.def.IDType == "integer" {
		n, ok := fw.sc.in.vals[c.idPos].(json.Number)
		if !ok {
			return nil, fmt.Errorf(": the id field '%s' must be an integer", c.def.IDField)
		}
		var err error
		if seq, err = exactInt(n); err != nil {
			return nil, fmt.Errorf(": the id field '%s': %v", c.def.IDField, err)
		}
	} else {
		seq = int64(set.refs[i].index + 1)
	}
	b, err := c.buildChecked(&fw.sc, extra, seq, now)
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
	for j, m := range fw.index {
		if b.has&(1<<j) != 0 {
			// The map keeps one copy of each value, so a million records
			// with three statuses hold three strings.
			m[b.vals[j]] = append(m[b.vals[j]], int32(i))
		}
	}
}

// buildPending gives the records without an id the ids after the largest
// one, in file order, and builds them; the worker it returns holds their
// index entries (nil when there were none).
func (c *collection) buildPending(set *fixtureSet, cols *columns, pending []map[int]*pendingRecord, now time.Time) (*fixtureWorker, error) {
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
	if c.def.IDType == "integer" {
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
		if c.def.IDType != "integer" {
			seq = int64(set.refs[i].index + 1)
		} else if int64(k) >= left {
			bad.add(set, i, fmt.Errorf(": no id left: the record has no %s, and the largest id, %d, is taken; give it an id", c.def.IDField, int64(math.MaxInt64)))
			continue
		}
		if c.idPos < 0 {
			return nil, fmt.Errorf("%s: the id field '%s' is missing", set.where(&set.refs[i]), c.def.IDField)
		}
		p.in.vals[c.idPos], p.in.has[c.idPos] = c.newID(seq), true
		fw.sc.in = p.in
		b, err := c.buildChecked(&fw.sc, p.extra, seq, now)
		if err != nil {
			bad.add(set, i, err)
			continue
		}
		if bad.n == 0 {
			fw.store(i, b)
		}
	}
	if err := bad.err(set); err != nil {
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
func (c *collection) orderColumns(set *fixtureSet, cols *columns) error {
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
	if c.def.IDType == "integer" {
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
			if j, dup := seen[cols.keys[i]]; dup {
				dups = append(dups, [2]int{i, j})
				continue
			}
			seen[cols.keys[i]] = i
		}
	}
	if len(dups) > 0 {
		slices.SortFunc(dups, func(a, b [2]int) int { return a[0] - b[0] })
		var bad badRecords
		for _, d := range dups[:min(len(dups), maxFixtureProblems)] {
			i, j := d[0], d[1]
			key := strconv.FormatInt(cols.seqs[i], 10)
			if cols.keys != nil {
				key = cols.keys[i]
			}
			bad.add(set, i, fmt.Errorf(": id %s is already used by %s", key, set.where(&set.refs[j])))
		}
		bad.n = len(dups) // the rest are counted, not described
		return bad.err(set)
	}
	if order == nil {
		return nil
	}
	cols.seqs = permute(cols.seqs, order)
	cols.spans = permute(cols.spans, order)
	if cols.keys != nil {
		cols.keys = permute(cols.keys, order)
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

// buildChecked builds a fixture record and validates it; errors start with
// ": " or " (id X): " to follow the record's location.
func (c *collection) buildChecked(sc *scratch, extra []string, seq int64, now time.Time) (built, error) {
	b, err := c.buildFields(sc, extra, seq, fromFixture, now)
	if err != nil {
		return built{}, fmt.Errorf(": %v", err)
	}
	if ps := c.validate(b.raw, b.view); len(ps) > 0 {
		return built{}, fmt.Errorf(" (id %s): %s", b.key, describeProblems(ps))
	}
	return b, nil
}

func isYAMLName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// yamlToJSON turns a YAML fixture file into the JSON the loader reads.
// Duplicate keys and non-string keys are errors, as in JSON fixtures.
func yamlToJSON(data []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("the file is empty")
	}
	v, err := jsonCompatible(v, "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func jsonCompatible(v any, where string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			var err error
			if t[k], err = jsonCompatible(e, where+"."+k); err != nil {
				return nil, err
			}
		}
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s: key %v is not a string", strings.TrimPrefix(where, "."), k)
			}
			var err error
			if out[ks], err = jsonCompatible(e, where+"."+ks); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		for i, e := range t {
			var err error
			if t[i], err = jsonCompatible(e, fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return nil, err
			}
		}
	case time.Time:
		return t.Format(time.RFC3339Nano), nil
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return nil, fmt.Errorf("%s: %v is not a JSON number", strings.TrimPrefix(where, "."), t)
		}
	}
	return v, nil
}
