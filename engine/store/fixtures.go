package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
	"go.yaml.in/yaml/v4"
)

// FixtureFile is seed data for a store. Its content is either a JSON array
// of records for the collection its base name names ("pets.json"), or a JSON
// object mapping collection names to arrays of records. A name ending in
// .yaml or .yml holds the same in YAML.
//
// Load and Import keep a record that is already in its canonical form in
// Data where it is, rather than copy it: Data's bytes must not change once
// given.
type FixtureFile struct {
	Name string // for messages, and the collection of a top-level array
	Data []byte
}

// Fixtures are the records of fixture files, split by collection and not
// yet decoded: what Parse makes and Load and Import take.
type Fixtures struct {
	files []string // the files' names, for messages
	sets  map[string]*fixtureSet
}

// name names the files, for messages.
func (fx *Fixtures) name() string { return strings.Join(fx.files, ", ") }

// fixtureSet is the records of one collection, split out of the files
// without decoding them, so a file of a million records never exists as a
// million maps at once, nor as a million of anything larger than a ref.
type fixtureSet struct {
	name string // the collection
	segs []fixtureSegment
	refs []fixtureRef
	// gen, when set, are generated records that follow the files' (see
	// Store.Generate): record i of the set is generated record
	// i-len(refs).
	gen *generated
}

// len is the number of records, the generated ones included.
func (fs *fixtureSet) len() int {
	if fs.gen != nil {
		return len(fs.refs) + fs.gen.n
	}
	return len(fs.refs)
}

// fixtureSegment is one array of records in one file.
type fixtureSegment struct {
	file  string
	data  []byte // the whole file
	state bool   // the records are a journal's, which file names
	first int    // the set's index of its first record
}

// fixtureRef locates one record's bytes in its segment's file; the
// segments' records follow one another in the set's refs.
type fixtureRef struct {
	start, end uint32
}

// sizeSample is how many records splitRecords reads before it sizes the
// refs for the rest of the array.
const sizeSample = 1024

// maxFixtureBytes bounds a fixtures file so a ref's offsets fit in 32 bits.
const maxFixtureBytes = 1<<32 - 1

// errFixtureTooLarge refuses a file past maxFixtureBytes.
var errFixtureTooLarge = errors.New("larger than 4 GiB; split it into several files")

// seg is the segment of file record i.
func (fs *fixtureSet) seg(i int) int {
	if len(fs.segs) == 1 {
		return 0
	}
	return sort.Search(len(fs.segs), func(s int) bool { return fs.segs[s].first > i }) - 1
}

// raw is the JSON of file record i.
func (fs *fixtureSet) raw(i int) []byte {
	r := fs.refs[i]
	return fs.segs[fs.seg(i)].data[r.start:r.end]
}

// index is file record i's index in its segment's array.
func (fs *fixtureSet) index(i int) int { return i - fs.segs[fs.seg(i)].first }

// place locates record i.
func (fs *fixtureSet) place(i int) Place {
	if i >= len(fs.refs) {
		return Place{File: fs.gen.file, Collection: fs.name, Index: i - len(fs.refs)}
	}
	sg := &fs.segs[fs.seg(i)]
	return Place{File: sg.file, Collection: fs.name, Index: i - sg.first, Stored: sg.state}
}

// refuse says why record i was refused; id is its id once it is built.
func (fs *fixtureSet) refuse(i int, id string, why error) *RecordError {
	return &RecordError{Place: fs.place(i), ID: id, Err: why}
}

// coll is the collection the records are of.
func (fs *fixtureSet) coll() string { return fs.name }

// collectionOfFile is the collection an array of records in a file named
// name fills: its base name without the extension (pets.json: pets).
func collectionOfFile(name string) (string, error) {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	return strings.TrimSuffix(base, path.Ext(base)), nil
}

// Parse splits the files into records grouped by collection, checking only
// that each file is an array of records or an object that maps collections
// to arrays of them; the records are decoded and checked by Load or
// Import. arrayOf names the collection a file that is an array of records
// fills; nil means the one its base name names (pets.json: pets).
func (s *Store) Parse(files []FixtureFile, arrayOf func(file string) (string, error)) (*Fixtures, error) {
	if arrayOf == nil {
		arrayOf = collectionOfFile
	}
	fx := &Fixtures{sets: map[string]*fixtureSet{}}
	out := fx.sets
	for _, f := range files {
		fx.files = append(fx.files, f.Name)
		if isYAMLName(f.Name) {
			data, err := yamlToJSON(f.Data)
			if err != nil {
				return nil, &FileError{File: f.Name, Err: err}
			}
			f.Data = data
		}
		if len(f.Data) > maxFixtureBytes {
			return nil, &FileError{File: f.Name, Err: errFixtureTooLarge}
		}
		p := parser{data: f.Data}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, &FileError{File: f.Name, Err: errors.New("the file is empty")}
		}
		switch p.data[p.pos] {
		case '[':
			name, err := arrayOf(f.Name)
			if err != nil {
				return nil, &FileError{File: f.Name, Err: err}
			}
			if err := s.splitRecords(&p, f.Name, name, out); err != nil {
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
					return nil, &FileError{File: f.Name, Err: p.fail("a collection name (a string) expected")}
				}
				name, err := p.string()
				if err != nil {
					return nil, &FileError{File: f.Name, Err: err}
				}
				if seen[name] {
					return nil, &FileError{File: f.Name, Err: fmt.Errorf("collection %q appears twice", name)}
				}
				seen[name] = true
				p.skipSpace()
				if p.pos >= len(p.data) || p.data[p.pos] != ':' {
					return nil, &FileError{File: f.Name, Err: p.fail("':' expected")}
				}
				p.pos++
				p.skipSpace()
				if p.pos >= len(p.data) || p.data[p.pos] != '[' {
					return nil, &FileError{File: f.Name, Err: fmt.Errorf("%s: want an array of records", name)}
				}
				if err := s.splitRecords(&p, f.Name, name, out); err != nil {
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
				return nil, &FileError{File: f.Name, Err: p.fail("',' or '}' expected")}
			}
		default:
			return nil, &FileError{File: f.Name, Err: errors.New("want an array of records, or an object that maps collection names to arrays")}
		}
		p.skipSpace()
		if p.pos != len(p.data) {
			return nil, &FileError{File: f.Name, Err: fmt.Errorf("unexpected data after the JSON value at byte %d", p.pos)}
		}
	}
	return fx, nil
}

// splitRecords reads an array at p.pos and appends its elements' JSON. The
// elements are only delimited here; DecodeStrict checks each one in full.
func (s *Store) splitRecords(p *parser, file, name string, out map[string]*fixtureSet) error {
	if _, ok := s.colls[name]; !ok {
		return &FileError{File: file, Err: fmt.Errorf("%q is not a collection of the spec (it has %s)", name, QuoteNames(s.names))}
	}
	set := out[name]
	if set == nil {
		set = &fixtureSet{name: name}
		out[name] = set
	}
	set.segs = append(set.segs, fixtureSegment{file: file, data: p.data, first: len(set.refs)})
	from := p.pos
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
			return &RecordError{Place: Place{File: file, Collection: name, Index: i}, Err: err}
		}
		if i == sizeSample {
			// Grown once to the size the records so far suggest, not
			// doubled again and again: a million refs are 8 MB.
			est := (len(p.data) - p.pos) / max(1, (p.pos-from)/i)
			set.refs = slices.Grow(set.refs, est+est/16)
		}
		set.refs = append(set.refs, fixtureRef{start: uint32(start), end: uint32(p.pos)})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return &FileError{File: file, Err: fmt.Errorf("%s: %v", name, p.fail(""))}
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return &RecordError{Place: Place{File: file, Collection: name, Index: i}, Err: p.fail("',' or ']' expected after a record")}
		}
	}
}

// QuoteNames lists names for a message: quoted, sorted and joined by
// commas; "none" when there are none.
func QuoteNames(names []string) string {
	quoted := make([]string, 0, len(names))
	for _, n := range names {
		quoted = append(quoted, strconv.Quote(n))
	}
	sort.Strings(quoted)
	if len(quoted) == 0 {
		return "none"
	}
	return strings.Join(quoted, ", ")
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
	v, err := spec.JSONValue(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
