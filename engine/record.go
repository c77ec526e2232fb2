package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// collection is the runtime of one spec.Collection: its store and how its
// records are built and checked.
type collection struct {
	def      *spec.Collection
	store    *collectionStore
	validate func(raw []byte) spec.Problems
	// filterFields are the item fields some list filter names.
	filterFields []string
	uuidIDs      bool
}

func newCollection(def *spec.Collection, validate func([]byte) spec.Problems) *collection {
	c := &collection{def: def, validate: validate}
	seen := map[string]bool{}
	for _, f := range def.Filters {
		if !seen[f.Field] {
			seen[f.Field] = true
			c.filterFields = append(c.filterFields, f.Field)
		}
	}
	if f := def.Field(def.IDField); f != nil && f.Schema != nil && f.Schema.Format == "uuid" {
		c.uuidIDs = true
	}
	c.store = newCollectionStore(def.IDType == "integer", c.filterFields)
	return c
}

// buildMode says where a record comes from.
type buildMode int

const (
	fromClient  buildMode = iota // a create request: the server assigns fields, unknown ones are dropped
	fromFixture                  // seed data: every field is given, unknown ones are an error
)

// build turns a decoded object into a stored entry: fields in the item
// schema's order, integers exact, assigned fields filled. The caller
// validates the result before it is stored.
func (c *collection) build(obj map[string]any, seq int64, mode buildMode, now time.Time) (entry, error) {
	var buf bytes.Buffer
	values := map[string]string{}
	key := ""
	buf.WriteByte('{')
	first := true
	for _, f := range c.def.Fields {
		var val any
		present := false
		switch {
		case f.Name == c.def.IDField && mode == fromClient:
			val, present = c.newID(seq), true
		case mode == fromClient && contains(c.def.Assigned, f.Name):
			val, present = exampleValue(f.Schema, seq, now), true
		default:
			val, present = obj[f.Name]
		}
		if !present {
			continue
		}
		norm, err := normalize(f, val)
		if err != nil {
			return entry{}, err
		}
		if f.Name == c.def.IDField {
			key = scalarKey(norm)
		}
		if contains(c.filterFields, f.Name) {
			if k := scalarKey(norm); k != "" {
				values[f.Name] = k
			}
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		if err := writeJSON(&buf, f.Name); err != nil {
			return entry{}, err
		}
		buf.WriteByte(':')
		if err := writeJSON(&buf, norm); err != nil {
			return entry{}, fmt.Errorf("field '%s': %v", f.Name, err)
		}
	}
	buf.WriteByte('}')
	if mode == fromFixture {
		for k := range obj {
			if c.def.Field(k) == nil {
				return entry{}, fmt.Errorf("field '%s' is not a property of the item schema", k)
			}
		}
	}
	if key == "" {
		return entry{}, fmt.Errorf("the id field '%s' is missing", c.def.IDField)
	}
	return entry{rec: record{seq: seq, key: key, raw: buf.Bytes()}, values: values}, nil
}

func (c *collection) newID(seq int64) any {
	switch {
	case c.def.IDType == "integer":
		return json.Number(strconv.FormatInt(seq, 10))
	case c.uuidIDs:
		return seqUUID(seq)
	}
	return strconv.FormatInt(seq, 10)
}

// seqUUID is a version-4-shaped UUID that encodes seq, so string ids sort
// and stay unique without a random source.
func seqUUID(seq int64) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", seq)
}

// normalize checks a value against its field's type and returns it in the
// form petctl stores: integers as exact int64, numbers as given.
func normalize(f *spec.Field, val any) (any, error) {
	n, isNumber := val.(json.Number)
	if !isNumber || spec.SchemaType(f.Schema) != "integer" {
		return val, nil
	}
	i, err := exactInt(n)
	if err != nil {
		return nil, fmt.Errorf("field '%s': %v", f.Name, err)
	}
	if f.Schema.Format == "int32" && (i < math.MinInt32 || i > math.MaxInt32) {
		return nil, fmt.Errorf("field '%s': %d is outside the int32 range", f.Name, i)
	}
	return json.Number(strconv.FormatInt(i, 10)), nil
}

// exactInt reads a JSON number that must be an integer within int64; 1.0
// and 1e2 are integers in JSON Schema, 1.5 and 1e30 are not int64s.
func exactInt(n json.Number) (int64, error) {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	if err != nil {
		return 0, fmt.Errorf("%s is not a number", n)
	}
	if !f.IsInt() {
		return 0, fmt.Errorf("%s is not an integer", n)
	}
	i, acc := f.Int64()
	if acc != big.Exact {
		return 0, fmt.Errorf("%s is outside the int64 range", n)
	}
	return i, nil
}

// scalarKey is the canonical text of a scalar, used by indexes and path keys.
func scalarKey(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case bool:
		return strconv.FormatBool(t)
	}
	return ""
}

// queryKey turns a query value into the canonical text of a field's value.
func queryKey(f *spec.Field, raw string) string {
	switch spec.SchemaType(f.Schema) {
	case "integer":
		if i, err := exactInt(json.Number(raw)); err == nil {
			return strconv.FormatInt(i, 10)
		}
	case "boolean":
		if b, err := strconv.ParseBool(raw); err == nil {
			return strconv.FormatBool(b)
		}
	}
	return raw
}

// writeJSON appends v without HTML escaping: the bodies are JSON, not HTML.
func writeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode ends with a newline
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// describeProblems joins problems for a one-line message, trimmed to a readable length.
func describeProblems(ps spec.Problems) string {
	return truncate(strings.TrimSpace(ps.Error()), 600)
}
