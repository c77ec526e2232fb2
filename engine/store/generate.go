package store

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/petctl/petctl/spec"
)

// Generate adds n synthetic records to every collection of fx, made from
// the item schemas with spec.Values when Load builds them: valid (Load
// validates them like any fixture), and the same for the same seed. They
// are records without an id, in a file of their own after the others, so
// that their ids follow the fixtures' ids. Nested collections are left out
// (the parents' ids are not known), and so are those whose items are not
// objects.
//
// The records never exist as JSON text: each is made into the values the
// fixtures' decoder would read from the JSON encoding/json writes of it,
// and built from those (TestGeneratedAsText holds the two ways together),
// so a million of them cost no file of a million records.
func (s *Store) Generate(fx *Fixtures, n int, seed int64) {
	if n <= 0 {
		return
	}
	name := fmt.Sprintf("generated (%d per collection, seed %d)", n, seed)
	fx.files = append(fx.files, name)
	for ci, cname := range s.names {
		c := s.colls[cname]
		// A collection of one item (spec.KindReadOne: settings) makes its
		// own on first use; many would read as one all the same.
		if c.raw || c.table.scoped || c.def.Singleton || c.def.OneItem() {
			continue
		}
		set := fx.sets[cname]
		if set == nil {
			set = &fixtureSet{}
			fx.sets[cname] = set
		}
		set.name = cname
		set.gen = &generated{file: name, n: n, seed: seed, stream: uint64(ci) + 1}
	}
}

// generated are the synthetic records of one collection, made one after
// the other from one seeded source as the load needs them.
type generated struct {
	file string // names them in messages, as a file's name would
	n    int
	seed int64
	// stream picks the collection's own source: its place among the
	// store's collections, plus one.
	stream uint64
}

// synthEpoch is where generated dates start, so they do not depend on the clock.
var synthEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// generator makes the values of a collection's generated records, in order.
type generator struct {
	c   *Collection
	rng *rand.Rand
	g   *spec.Values
	// next is the index of the record the next call makes.
	next int
	// whole is set where the item is a choice of kinds (a cat or a dog):
	// its fields are those of one kind, so the record is made whole and
	// then taken apart.
	whole bool
}

func (c *Collection) newGenerator(gen *generated) *generator {
	rng := rand.New(rand.NewPCG(uint64(gen.seed), gen.stream))
	return &generator{c: c, rng: rng, g: &spec.Values{Rand: rng, Now: synthEpoch, Optional: 0.7, Direction: spec.InRecord}, whole: c.def.Item.HasKinds()}
}

// make sets in to the values of the next record, as decodeFields would
// read them from its JSON. An error is a *GenerateError (a value JSON
// cannot hold: the generation fails) or, rarely, why the record's JSON
// would not decode (the record is refused).
func (gr *generator) make(in *fieldValues) error {
	c := gr.c
	in.reset()
	gr.g.Seq = int64(gr.next + 1)
	gr.next++
	if gr.whole {
		return gr.makeWhole(in)
	}
	for j := range c.fields {
		f := &c.fields[j]
		// The draw for an optional field comes first, and only for those.
		if j == c.idPos || j == c.selfPos || (!f.required && gr.rng.IntN(10) >= 8) {
			continue
		}
		if err := gr.set(in, j, gr.g.Value(f.schema, f.name)); err != nil {
			return err
		}
	}
	return nil
}

// makeWhole sets in to the fields of one value of the item schema.
func (gr *generator) makeWhole(in *fieldValues) error {
	c := gr.c
	whole, _ := gr.g.Value(c.def.Item, "").(map[string]any)
	for j := range c.fields {
		v, ok := whole[c.fields[j].name]
		if !ok || j == c.idPos || j == c.selfPos {
			continue
		}
		if err := gr.set(in, j, v); err != nil {
			return err
		}
	}
	return nil
}

// set makes v the value of field j.
func (gr *generator) set(in *fieldValues, j int, v any) error {
	v, err := decodedForm(v)
	if err != nil {
		if je, ok := err.(*jsonEncodeError); ok {
			return &GenerateError{Collection: gr.c.def.Key, Err: je.err}
		}
		return err
	}
	in.vals[j], in.has[j] = v, true
	return nil
}

// decodedForm is v as the fixtures' decoder reads the JSON encoding/json
// writes of it: scalars that encode as themselves are taken as they are,
// anything else is encoded and decoded. The error is a *jsonEncodeError
// when v cannot be JSON (a number that is not one).
func decodedForm(v any) (any, error) {
	switch t := v.(type) {
	case string:
		if utf8.ValidString(t) { // invalid UTF-8 is written as U+FFFD
			return v, nil
		}
	case json.Number:
		if isJSONNumber(string(t)) { // encoding/json writes "" as 0
			return v, nil
		}
	case bool, nil:
		return v, nil
	}
	raw, err := appendEncoded(nil, v)
	if err != nil {
		return nil, &jsonEncodeError{err}
	}
	// Depth 1: in the record's JSON the value is a field's.
	p := parser{data: raw}
	return p.value(1)
}

// jsonEncodeError is why a generated value cannot be JSON.
type jsonEncodeError struct{ err error }

func (e *jsonEncodeError) Error() string { return e.err.Error() }

// isJSONNumber reports whether s is a JSON number, all of it.
func isJSONNumber(s string) bool {
	end, want := scanNumber(s, 0)
	return want == "" && end == len(s)
}
