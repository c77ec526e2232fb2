package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// fixtureRecord is one record's JSON and where it came from. Records are
// split out of a file without decoding it whole, so a file of a million
// records never exists as a million maps at once.
type fixtureRecord struct {
	raw   []byte
	file  string
	coll  string
	index int // within its array
}

func (r *fixtureRecord) where() string {
	return fmt.Sprintf("fixtures %s: %s[%d]", r.file, r.coll, r.index)
}

// parseFixtures splits the files into records grouped by collection name.
func parseFixtures(files []FixtureFile, known map[string]*collection) (map[string][]fixtureRecord, error) {
	out := map[string][]fixtureRecord{}
	for _, f := range files {
		if isYAMLName(f.Name) {
			data, err := yamlToJSON(f.Data)
			if err != nil {
				return nil, fmt.Errorf("fixtures %s: %v", f.Name, err)
			}
			f.Data = data
		}
		p := parser{data: f.Data}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, fmt.Errorf("fixtures %s: the file is empty", f.Name)
		}
		switch p.data[p.pos] {
		case '[':
			base := path.Base(strings.ReplaceAll(f.Name, "\\", "/"))
			name := strings.TrimSuffix(base, path.Ext(base))
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
func (p *parser) splitRecords(file, name string, known map[string]*collection, out map[string][]fixtureRecord) error {
	if _, ok := known[name]; !ok {
		return fmt.Errorf("fixtures %s: %q is not a collection of the spec (it has %s)", file, name, knownNames(known))
	}
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
		out[name] = append(out[name], fixtureRecord{raw: p.data[start:p.pos], file: file, coll: name, index: i})
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
// Records without an id get the next ids after the largest given one. The
// first bad record (in file order) stops the load and the store is left as
// it was.
func (c *collection) loadFixtures(recs []fixtureRecord, now time.Time) error {
	entries, spans, data, err := c.buildFixtures(recs, now)
	if err != nil {
		return err
	}
	c.store.loadPacked(entries, spans, data)
	return nil
}

// fixtureResult is what a worker makes of one record.
type fixtureResult struct {
	entry
	span    span
	pending map[string]any // decoded, waiting for an id; nil once built
}

// parallelFixtures is the size above which records are built by one worker per CPU.
const parallelFixtures = 4096

func (c *collection) buildFixtures(recs []fixtureRecord, now time.Time) ([]entry, []span, *arena, error) {
	results := make([]fixtureResult, len(recs))
	workers := runtime.GOMAXPROCS(0)
	if len(recs) < parallelFixtures || workers < 2 {
		workers = 1
	}
	arenas := make([]arena, workers)
	// firstBad is the lowest index of a bad record so far; a worker stops
	// once it is past it, so the error reported is always the first in
	// file order, however the work was scheduled.
	var firstBad atomic.Int64
	firstBad.Store(int64(len(recs)))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (len(recs) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(recs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := lo; i < hi && int64(i) < firstBad.Load(); i++ {
				res, scratch, err := c.buildFixture(&recs[i], now, buf, &arenas[w])
				buf = scratch
				if err != nil {
					errs[w] = fmt.Errorf("%s%v", recs[i].where(), err)
					for {
						cur := firstBad.Load()
						if int64(i) >= cur || firstBad.CompareAndSwap(cur, int64(i)) {
							break
						}
					}
					return
				}
				results[i] = res
			}
		}()
	}
	wg.Wait()
	if bad := firstBad.Load(); bad < int64(len(recs)) {
		return nil, nil, nil, errs[int(bad)/chunk]
	}
	// Records without an id come after the largest id, in file order.
	var data arena
	bases := make([]uint32, workers)
	for w := range arenas {
		bases[w] = data.adopt(&arenas[w])
	}
	var maxSeq int64
	for i := range results {
		if results[i].pending == nil && results[i].seq > maxSeq && c.def.IDType == "integer" {
			maxSeq = results[i].seq
		}
	}
	next := maxSeq + 1
	var buf []byte
	for i := range results {
		r := &results[i]
		if r.pending == nil {
			r.span.chunk += bases[i/chunk]
			continue
		}
		seq := next
		if c.def.IDType != "integer" {
			seq = int64(recs[i].index + 1)
		}
		next++
		r.pending[c.def.IDField] = c.newID(seq)
		b, err := c.buildChecked(r.pending, seq, now, buf)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s%v", recs[i].where(), err)
		}
		r.entry, r.span, r.pending = b.entry, data.add(b.raw), nil
		r.raw = nil
	}
	order := make([]int, len(results))
	for i := range order {
		order[i] = i
	}
	if !sort.SliceIsSorted(order, func(a, b int) bool { return results[order[a]].seq < results[order[b]].seq }) {
		sort.SliceStable(order, func(a, b int) bool { return results[order[a]].seq < results[order[b]].seq })
	}
	entries := make([]entry, len(results))
	spans := make([]span, len(results))
	seen := map[string]int{}
	for k, i := range order {
		r := &results[i]
		if k > 0 && c.def.IDType == "integer" && results[order[k-1]].seq == r.seq {
			j := order[k-1]
			if j > i {
				i, j = j, i
			}
			return nil, nil, nil, fmt.Errorf("%s: id %s is already used by %s", recs[i].where(), strconv.FormatInt(r.seq, 10), recs[j].where())
		}
		if c.def.IDType != "integer" {
			if j, dup := seen[r.key]; dup {
				return nil, nil, nil, fmt.Errorf("%s: id %s is already used by %s", recs[i].where(), r.key, recs[j].where())
			}
			seen[r.key] = i
		}
		entries[k], spans[k] = r.entry, r.span
	}
	return entries, spans, &data, nil
}

// buildFixture decodes, builds and validates one record into a worker's arena.
// buf is scratch space, returned for reuse.
func (c *collection) buildFixture(rec *fixtureRecord, now time.Time, buf []byte, a *arena) (fixtureResult, []byte, error) {
	doc, err := decodeStrict(rec.raw)
	if err != nil {
		return fixtureResult{}, buf, fmt.Errorf(": %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return fixtureResult{}, buf, fmt.Errorf(": want a JSON object")
	}
	id, hasID := obj[c.def.IDField]
	if !hasID {
		return fixtureResult{pending: obj}, buf, nil
	}
	var seq int64
	if c.def.IDType == "integer" {
		n, ok := id.(json.Number)
		if !ok {
			return fixtureResult{}, buf, fmt.Errorf(": the id field '%s' must be an integer", c.def.IDField)
		}
		if seq, err = exactInt(n); err != nil {
			return fixtureResult{}, buf, fmt.Errorf(": the id field '%s': %v", c.def.IDField, err)
		}
	} else {
		seq = int64(rec.index + 1)
	}
	b, err := c.buildChecked(obj, seq, now, buf)
	if err != nil {
		return fixtureResult{}, buf, err
	}
	res := fixtureResult{entry: b.entry, span: a.add(b.raw)}
	res.raw = nil
	return res, b.raw[:0], nil
}

// buildChecked builds a fixture record and validates it; errors start with
// ": " or " (id X): " to follow the record's location.
func (c *collection) buildChecked(obj map[string]any, seq int64, now time.Time, buf []byte) (built, error) {
	b, err := c.build(obj, seq, fromFixture, now, buf)
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
