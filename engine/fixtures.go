package engine

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FixtureFile is seed data for the store. Its content is either a JSON array
// of records for the collection its base name names ("pets.json"), or a JSON
// object mapping collection names to arrays of records.
type FixtureFile struct {
	Name string // for messages, and the collection of a top-level array
	Data []byte
}

// fixtureRecord is one decoded record and where it came from.
type fixtureRecord struct {
	obj   map[string]any
	where string // "pets.json: pets[12]"
}

// parseFixtures groups the records of files by collection name.
func parseFixtures(files []FixtureFile, known map[string]*collection) (map[string][]fixtureRecord, error) {
	out := map[string][]fixtureRecord{}
	for _, f := range files {
		doc, err := decodeStrict(f.Data)
		if err != nil {
			return nil, fmt.Errorf("fixtures %s: %v", f.Name, err)
		}
		groups := map[string]any{}
		switch t := doc.(type) {
		case []any:
			base := path.Base(strings.ReplaceAll(f.Name, "\\", "/"))
			groups[strings.TrimSuffix(base, path.Ext(base))] = t
		case map[string]any:
			groups = t
		default:
			return nil, fmt.Errorf("fixtures %s: want an array of records, or an object that maps collection names to arrays", f.Name)
		}
		names := make([]string, 0, len(groups))
		for n := range groups {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			if _, ok := known[name]; !ok {
				return nil, fmt.Errorf("fixtures %s: %q is not a collection of the spec (it has %s)", f.Name, name, knownNames(known))
			}
			arr, ok := groups[name].([]any)
			if !ok {
				return nil, fmt.Errorf("fixtures %s: %s: want an array of records", f.Name, name)
			}
			for i, item := range arr {
				where := fmt.Sprintf("fixtures %s: %s[%d]", f.Name, name, i)
				obj, ok := item.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s: want a JSON object", where)
				}
				out[name] = append(out[name], fixtureRecord{obj: obj, where: where})
			}
		}
	}
	return out, nil
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
// first bad record stops the load and the store is left as it was.
func (c *collection) loadFixtures(recs []fixtureRecord, now time.Time) error {
	entries, err := c.buildFixtures(recs, now)
	if err != nil {
		return err
	}
	c.store.load(entries)
	return nil
}

func (c *collection) buildFixtures(recs []fixtureRecord, now time.Time) ([]entry, error) {
	idField := c.def.IDField
	integer := c.def.IDType == "integer"
	var maxID int64
	for _, r := range recs {
		if integer {
			if n, ok := r.obj[idField].(json.Number); ok {
				if id, err := exactInt(n); err == nil && id > maxID {
					maxID = id
				}
			}
		}
	}
	entries := make([]entry, 0, len(recs))
	seen := make(map[string]string, len(recs))
	next := maxID + 1
	for i, r := range recs {
		id, hasID := r.obj[idField]
		var seq int64
		switch {
		case !hasID:
			seq = next
			next++
			r.obj[idField] = c.newID(seq)
			if !integer {
				seq = int64(i + 1)
			}
		case integer:
			n, ok := id.(json.Number)
			if !ok {
				return nil, fmt.Errorf("%s: the id field '%s' must be an integer", r.where, idField)
			}
			v, err := exactInt(n)
			if err != nil {
				return nil, fmt.Errorf("%s: the id field '%s': %v", r.where, idField, err)
			}
			seq = v
		default:
			seq = int64(i + 1)
		}
		e, err := c.build(r.obj, seq, fromFixture, now)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", r.where, err)
		}
		if prev, dup := seen[e.rec.key]; dup {
			return nil, fmt.Errorf("%s: id %s is already used by %s", r.where, e.rec.key, prev)
		}
		seen[e.rec.key] = r.where
		if ps := c.validate(e.rec.raw); len(ps) > 0 {
			return nil, fmt.Errorf("%s (id %s): %s", r.where, e.rec.key, describeProblems(ps))
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].rec.seq < entries[j].rec.seq })
	return entries, nil
}
