package store

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/petctl/petctl/spec"
)

// Generate makes a fixture file of n synthetic records per collection from
// the item schemas, with spec.Values: valid (Load validates them like any
// fixture), and the same for the same seed. Ids are left out, so they
// follow the fixtures' ids when the file is loaded after them. Nested
// collections are left out (the parents' ids are not known), and so are
// those whose items are not objects.
func (s *Store) Generate(n int, seed int64) (FixtureFile, error) {
	buf := []byte{'{'}
	first := true
	for ci, name := range s.names {
		c := s.colls[name]
		if c.raw || c.table.scoped || c.def.Singleton {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = appendJSONString(buf, name)
		buf = append(buf, ':', '[')
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(ci)+1))
		g := &spec.Values{Rand: rng, Now: synthEpoch, Optional: 0.7, Direction: spec.InRecord}
		for i := 0; i < n; i++ {
			g.Seq = int64(i + 1)
			obj := map[string]any{}
			for j, f := range c.fields {
				if j == c.idPos || j == c.selfPos || (!f.required && rng.IntN(10) >= 8) {
					continue
				}
				obj[f.name] = g.Value(f.schema, f.name)
			}
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendJSON(buf, obj); err != nil {
				return FixtureFile{}, fmt.Errorf("generate %s: %v", name, err)
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, '}')
	return FixtureFile{Name: fmt.Sprintf("generated (%d per collection, seed %d)", n, seed), Data: buf}, nil
}

// synthEpoch is where generated dates start, so they do not depend on the clock.
var synthEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
