package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
)

// shapesDoc has items of every shape generation makes: nested objects,
// arrays, numbers with and without bounds, an enum, a date-time and a
// pattern, under an integer id and a string one.
const shapesDoc = `openapi: 3.1.0
info: {title: Shapes, version: "1"}
paths:
  /things:
    get:
      parameters:
        - {name: kind, in: query, schema: {type: string}}
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Thing'}}}}}
    post:
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
      responses:
        '201': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
  /things/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}
  /tags:
    get:
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Tag'}}}}}
    post:
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Tag'}}}}
      responses:
        '201': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Tag'}}}}
  /tags/{code}:
    get:
      parameters: [{name: code, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Tag'}}}}
components:
  schemas:
    Thing:
      type: object
      required: [id, kind, size]
      properties:
        id: {type: integer, readOnly: true}
        kind: {type: string, enum: [small, large, "quoted \"one\""]}
        size: {type: number, minimum: 0.5, maximum: 9.5}
        count: {type: integer, format: int32}
        ratio: {type: number}
        on: {type: boolean}
        at: {type: string, format: date-time}
        code: {type: string, pattern: '^[A-Z]{2}-[0-9]{3}$'}
        note: {type: string, maxLength: 3}
        dims:
          type: object
          properties:
            w: {type: integer}
            h: {type: number, multipleOf: 0.25}
            label: {type: string}
        parts:
          type: array
          items:
            type: object
            properties:
              n: {type: integer}
              tags: {type: array, items: {type: string}}
    Tag:
      type: object
      required: [code, label]
      properties:
        code: {type: string, format: uuid, readOnly: true}
        label: {type: string}
        weight: {type: integer, minimum: 1, maximum: 5}
`

// generatedAsText writes the records Generate adds as the JSON text of a
// fixture file, the way petctl made generated records before they were
// built from their values: a map of the values, encoded. Loaded, it must
// give the records Generate gives.
func generatedAsText(s *Store, n int, seed int64) FixtureFile {
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
		buf = AppendJSONString(buf, name)
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
			if buf, err = AppendJSON(buf, obj); err != nil {
				panic(err)
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, '}')
	return FixtureFile{Name: fmt.Sprintf("generated (%d per collection, seed %d)", n, seed), Data: buf}
}

// TestGeneratedAsText: the records Generate adds, built from their values,
// are those their JSON text gives as a fixture file, after fixtures or
// alone, with integer ids and string ones, on any shape of item; and the
// same again for the same seed.
func TestGeneratedAsText(t *testing.T) {
	shapes, err := spec.Parse([]byte(shapesDoc), "shapes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	library, err := fs.ReadFile(fixtures.Files, "library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := spec.Parse(library, "library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pets, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	petFixtures, err := fs.ReadFile(fixtures.Files, "petstore/pets.json")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name  string
		doc   *spec.Spec
		files []FixtureFile
		n     int
		seed  int64
	}{
		{"petstore", pets, nil, 5000, 1},
		{"petstore after fixtures", pets, []FixtureFile{{Name: "pets.json", Data: petFixtures}}, 300, 7},
		{"petstore after records without ids", pets, []FixtureFile{{Name: "pets.json", Data: []byte(`[{"id":5,"name":"a","categoryId":1},{"name":"b","categoryId":2},{"id":2,"name":"c","categoryId":3}]`)}}, 50, 2},
		{"library", lib, nil, 700, 3},
		{"shapes", shapes, nil, 2000, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			load := func(generate bool) string {
				t.Helper()
				d := newDoc(t, c.doc)
				files := c.files
				if !generate {
					files = append(files[:len(files):len(files)], generatedAsText(d.store, c.n, c.seed))
				}
				fx, err := d.store.Parse(files, nil)
				if err != nil {
					t.Fatal(err)
				}
				if generate {
					d.store.Generate(fx, c.n, c.seed)
				}
				if errs := d.store.Load(fx, now); len(errs) > 0 {
					t.Fatal(errors.Join(errs...))
				}
				return exportOf(t, d.store)
			}
			got, want := load(true), load(false)
			if got != want {
				t.Errorf("generated records differ from their text:\n%s", firstDifference(got, want))
			}
			if again := load(true); again != got {
				t.Errorf("the same seed made other records:\n%s", firstDifference(again, got))
			}
			if n := bytes.Count([]byte(got), []byte("\n  {")); n < c.n {
				t.Errorf("%d records exported, want at least %d", n, c.n)
			}
		})
	}
}

// firstDifference shows where two exports part.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("got  …%s…\nwant …%s…", got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

// TestGenerateRefusesWhatJSONCannotHold: a number the schema's bounds
// make infinite cannot be JSON; the collection's generation fails with a
// *GenerateError, as encoding/json says why.
func TestGenerateRefusesWhatJSONCannotHold(t *testing.T) {
	doc := `openapi: 3.1.0
info: {title: Huge, version: "1"}
paths:
  /huges:
    get:
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Huge'}}}}}
    post:
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Huge'}}}}
      responses:
        '201': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Huge'}}}}
components:
  schemas:
    Huge:
      type: object
      required: [id, x]
      properties:
        id: {type: integer, readOnly: true}
        x: {type: number, minimum: -1.7e308, maximum: 1.7e308}
`
	s, err := spec.Parse([]byte(doc), "huge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := newDoc(t, s)
	fx, err := d.store.Parse(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.store.Generate(fx, 10, 1)
	errs := d.store.Load(fx, time.Now())
	var ge *GenerateError
	if len(errs) != 1 || !errors.As(errs[0], &ge) {
		t.Fatalf("Load: %v, want one *GenerateError", errs)
	}
	if got, want := errs[0].Error(), `generate huges: json: invalid number literal "+Inf"`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	if n := d.store.colls["huges"].Len(); n != 0 {
		t.Errorf("%d records stored, want none", n)
	}
}
