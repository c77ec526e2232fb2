package store

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// fieldValues are a record's values by position in def.Fields, as
// DecodeStrict gives them (numbers as json.Number); has marks the present ones.
type fieldValues struct {
	vals []any
	has  []bool
}

func (c *Collection) newFieldValues() fieldValues {
	return fieldValues{vals: make([]any, len(c.def.Fields)), has: make([]bool, len(c.def.Fields))}
}

func (fv *fieldValues) reset() {
	clear(fv.vals)
	clear(fv.has)
}

// fromObject sets fv from a decoded object and returns the keys that name
// no field, sorted.
func (c *Collection) fromObject(obj map[string]any, fv *fieldValues) []string {
	fv.reset()
	var extra []string
	for k, v := range obj {
		if i, ok := c.fieldPos[k]; ok {
			fv.vals[i], fv.has[i] = v, true
		} else {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return extra
}

// json is the record as encoding/json decodes its JSON (numbers as
// float64): what the response validator checks.
func (c *Collection) json(fv fieldValues) map[string]any {
	m := make(map[string]any, len(fv.vals))
	for i, f := range c.def.Fields {
		if fv.has[i] {
			m[f.Name] = jsonView(fv.vals[i])
		}
	}
	return m
}

// validate checks a built record against the item schema: the plan when it
// is sure, else the compiled schema on the record as encoding/json decodes
// it, which is what the response validator checks; the error says why, in
// Check.Describe's words. raw is the record's JSON, for the message.
func (c *Collection) validate(raw []byte, view fieldValues) error {
	if c.plan.Accepts(view.vals, view.has) {
		return nil
	}
	if c.schema == nil {
		return c.describe(raw, nil)
	}
	if err := c.schema.Validate(c.json(view)); err != nil {
		return c.describe(raw, err)
	}
	return nil
}

// buildMode says where a record comes from.
type buildMode int

const (
	fromClient  buildMode = iota // a create request: the server assigns fields, unknown ones are dropped
	fromFixture                  // seed data: every field is given, unknown ones are an error
)

// built is a record ready to be checked and stored.
type built struct {
	entry
	// view holds the record's values as stored, for validate.
	view fieldValues
}

// scratch is space build reuses from one record to the next.
type scratch struct {
	buf  []byte
	in   fieldValues
	view fieldValues
	vals []string
}

// build turns a decoded object into a record: fields in the item schema's
// order, integers exact, assigned fields filled. buf is reused scratch
// space; the entry's raw aliases it. The caller validates the result
// before it is stored.
func (c *Collection) build(obj map[string]any, seq int64, mode buildMode, now time.Time, buf []byte) (built, error) {
	sc := &scratch{buf: buf, in: c.newFieldValues(), view: c.newFieldValues()}
	extra := c.fromObject(obj, &sc.in)
	return c.buildFields(sc, extra, seq, mode, now)
}

// buildFields is build for values already by position (sc.in) and the
// names of the keys that matched no field. The result aliases sc.
func (c *Collection) buildFields(sc *scratch, extra []string, seq int64, mode buildMode, now time.Time) (built, error) {
	if len(sc.view.vals) != len(c.def.Fields) {
		sc.view = c.newFieldValues()
	}
	sc.view.reset()
	b := built{entry: entry{seq: seq}, view: sc.view}
	if len(c.filterFields) > 0 {
		if len(sc.vals) != len(c.filterFields) {
			sc.vals = make([]string, len(c.filterFields))
		}
		clear(sc.vals)
		b.vals = sc.vals
	}
	buf := append(sc.buf[:0], '{')
	first := true
	for i, f := range c.def.Fields {
		var val any
		present := false
		switch {
		case i == c.idPos && mode == fromClient:
			val, present = c.newID(seq), true
		case mode == fromClient && slices.Contains(c.def.Assigned, f.Name):
			val, present = exampleValue(f.Schema, seq, now), true
		default:
			val, present = sc.in.vals[i], sc.in.has[i]
		}
		if !present {
			continue
		}
		norm, err := normalize(f, val)
		if err != nil {
			return built{}, err
		}
		if i == c.idPos {
			b.key = scalarKey(norm)
		}
		for j, p := range c.filterPos {
			if p == i {
				if k, ok := scalarValue(norm); ok {
					b.vals[j], b.has = k, b.has|1<<j
				}
			}
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = appendJSONString(buf, f.Name)
		buf = append(buf, ':')
		if buf, err = appendJSON(buf, norm); err != nil {
			return built{}, fmt.Errorf("field '%s': %v", f.Name, err)
		}
		b.view.vals[i], b.view.has[i] = norm, true
	}
	buf = append(buf, '}')
	sc.buf = buf
	if mode == fromFixture && len(extra) > 0 {
		return built{}, fmt.Errorf("field '%s' is not a property of the item schema", extra[0])
	}
	if b.key == "" {
		return built{}, fmt.Errorf("the id field '%s' is missing", c.def.IDField)
	}
	b.raw = buf
	return b, nil
}

func (c *Collection) newID(seq int64) any {
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
	if canonicalInt(string(n)) {
		return n, nil // already as strconv.FormatInt writes it
	}
	return json.Number(strconv.FormatInt(i, 10)), nil
}

// canonicalInt reports whether s is an integer as strconv.FormatInt writes
// it: an optional minus, then 0 alone or digits without a leading zero, and
// no "-0".
func canonicalInt(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || (digits[0] == '0' && (len(digits) > 1 || len(s) > 1)) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
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
	k, _ := scalarValue(v)
	return k
}

func scalarValue(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return string(t), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
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

// jsonView converts a value as DecodeStrict returns it into what
// encoding/json's Unmarshal into any returns: numbers become float64 by the
// same strconv.ParseFloat. TestRecordViewMatchesUnmarshal holds it to that.
func jsonView(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(t), 64)
		return f
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = jsonView(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = jsonView(x)
		}
		return out
	}
	return v
}
