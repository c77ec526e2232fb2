package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// fieldValues are a record's values by position in fields, as
// DecodeStrict gives them (numbers as json.Number); has marks the present ones.
type fieldValues struct {
	vals []any
	has  []bool
}

func (c *Collection) newFieldValues() fieldValues {
	return fieldValues{vals: make([]any, len(c.fields)), has: make([]bool, len(c.fields))}
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
	for i, f := range c.fields {
		if fv.has[i] {
			m[f.name] = jsonView(fv.vals[i])
		}
	}
	return m
}

// validate checks a built record against the item schema: the plan when it
// is sure, else the compiled schema on the record as encoding/json decodes
// it, which is what the response validator checks; the error says why, in
// Check.Describe's words. raw is the record's JSON, for the message; value
// is the whole record of a collection of values that are not objects.
func (c *Collection) validate(raw []byte, view fieldValues, value any) error {
	if c.raw {
		if c.schema == nil {
			return c.describe(raw, nil)
		}
		if err := c.schema.Validate(jsonView(value)); err != nil {
			return c.describe(raw, err)
		}
		return nil
	}
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
	fromClient  buildMode = iota // a create: the server assigns fields, unknown ones are dropped
	fromWrite                    // a replace or patch: as a create, and the fields the server keeps stay
	fromFixture                  // seed data: every field is given, unknown ones are an error
)

// built is a record ready to be checked and stored.
type built struct {
	entry
	// view holds the record's values as stored, for validate; value is
	// the record of a collection of values that are not objects.
	view  fieldValues
	value any
	// chosen is set when the client chose the id: a taken one is a
	// conflict, not a reason to try the next.
	chosen bool
}

// scratch is space build reuses from one record to the next.
type scratch struct {
	buf  []byte
	in   fieldValues
	view fieldValues
	vals []string
}

// build turns a decoded value into a record: fields in the item schema's
// order, integers exact, assigned fields filled; prev holds the stored
// record's values for a write (fromWrite). The entry's raw aliases
// scratch space. The caller validates the result before it is stored.
func (c *Collection) build(v any, seq int64, mode buildMode, w Write, prev *fieldValues) (built, error) {
	if c.raw {
		return c.buildValue(v, seq)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return built{}, errors.New("want a JSON object")
	}
	sc := &scratch{in: c.newFieldValues(), view: c.newFieldValues()}
	extra := c.fromObject(obj, &sc.in)
	return c.buildFields(sc, extra, seq, mode, w, prev)
}

// buildValue builds the record of a collection whose items are not
// objects: the value itself.
func (c *Collection) buildValue(v any, seq int64) (built, error) {
	raw, err := AppendJSON(nil, v)
	if err != nil {
		return built{}, err
	}
	return built{entry: entry{seq: seq, raw: raw}, value: v}, nil
}

// buildFields is build for values already by position (sc.in) and the
// names of the keys that matched no field. The result aliases sc.
func (c *Collection) buildFields(sc *scratch, extra []string, seq int64, mode buildMode, w Write, prev *fieldValues) (built, error) {
	if len(sc.view.vals) != len(c.fields) {
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
	// The id first: a self link is made of it.
	var id any
	switch {
	case c.def.Singleton:
		b.key = ""
	case mode == fromWrite:
		if c.idPos >= 0 {
			id = prev.vals[c.idPos]
		}
	case mode == fromFixture:
		if c.idPos >= 0 {
			id = sc.in.vals[c.idPos]
		}
	case w.ID != "":
		id, b.chosen = c.typed(c.idSchema, w.ID), true
	case c.def.ClientIDs && c.idPos >= 0 && sc.in.has[c.idPos] && !unsetID(c.def.ID, sc.in.vals[c.idPos]):
		id, b.chosen = sc.in.vals[c.idPos], true
	default:
		id = c.newID(seq)
	}
	if id != nil {
		var err error
		if c.idPos >= 0 {
			if id, err = normalize(&c.fields[c.idPos], id); err != nil {
				return built{}, err
			}
		}
		b.key = scalarKey(id)
	}
	buf := append(sc.buf[:0], '{')
	first := true
	for i := range c.fields {
		f := &c.fields[i]
		var val any
		present := false
		switch {
		case i == c.idPos && mode != fromFixture:
			val, present = id, id != nil
		case mode == fromFixture:
			val, present = sc.in.vals[i], sc.in.has[i]
		case i == c.parentPos && len(w.Scope) > 0:
			val, present = c.typed(f.schema, w.Scope[len(w.Scope)-1]), true
		case mode == fromWrite && f.readOnly:
			val, present = prev.vals[i], prev.has[i]
		case mode == fromWrite && f.keep && !sc.in.has[i]:
			// Assigned at the create, and not sent now: kept.
			val, present = prev.vals[i], prev.has[i]
		case mode == fromWrite && f.keep:
			// Assigned at the create; an update may set it.
			val, present = sc.in.vals[i], true
		case i == c.selfPos && w.Self != nil:
			val, present = w.Self(b.key), true
		case f.assign:
			val, present = c.assigned(f, seq, w.Now), true
		case f.keep && !f.atCreate:
			// readOnly or assigned: a create does not take it from the client
		default:
			val, present = sc.in.vals[i], sc.in.has[i]
		}
		switch {
		case present || !f.required || mode == fromFixture:
		case mode == fromWrite && w.KeepUnsent && prev.has[i]:
			// A replace whose body is narrower than the item.
			val, present = prev.vals[i], true
		case mode == fromClient:
			// Required by the item, and not what the client sends (the
			// request was valid): the server's to give.
			val, present = c.assigned(f, seq, w.Now), true
		}
		if !present {
			continue
		}
		norm, err := val, error(nil)
		switch {
		case i == c.idPos && id != nil:
			norm = id // normalized above
		case i != c.idPos || mode == fromFixture:
			if norm, err = normalize(f, val); err != nil {
				return built{}, err
			}
		}
		if i == c.idPos && mode == fromFixture {
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
		buf = append(buf, f.key...)
		if buf, err = AppendJSON(buf, norm); err != nil {
			return built{}, fmt.Errorf("field '%s': %v", f.name, err)
		}
		b.view.vals[i], b.view.has[i] = norm, true
	}
	buf = append(buf, '}')
	sc.buf = buf
	if mode == fromFixture && len(extra) > 0 {
		return built{}, fmt.Errorf("field '%s' is not a property of the item schema", extra[0])
	}
	if mode == fromFixture && c.table.scoped {
		if c.parentPos < 0 || len(c.def.ParentParams) != 1 || !b.view.has[c.parentPos] {
			return built{}, fmt.Errorf("a record of %s needs its parent's id, and %s", c.def.Key, parentFieldAdvice(c.def))
		}
		b.scope = scalarKey(b.view.vals[c.parentPos])
	}
	if b.key == "" && !c.def.Singleton && mode != fromWrite { // a write keeps the key it replaces
		if c.def.HiddenID && mode == fromFixture {
			b.key = scalarKey(c.newID(seq))
		} else {
			return built{}, fmt.Errorf("the id field '%s' is missing", c.def.IDField)
		}
	}
	b.raw = buf
	return b, nil
}

// parentFieldAdvice says why fixtures of a nested resource cannot say
// which parent a record is under.
func parentFieldAdvice(def *spec.Resource) string {
	switch {
	case len(def.ParentParams) > 1:
		return fmt.Sprintf("its path has %d parents (%s), which fixtures cannot name; create its records over HTTP", len(def.ParentParams), strings.Join(def.ParentParams, ", "))
	case def.ParentField == "":
		return "the item has no field for it; create its records over HTTP"
	}
	return fmt.Sprintf("the record has no %s", def.ParentField)
}

// assigned is the value the server gives field f of a new record: the
// clock for a timestamp, an id-like value made of seq, the minimal valid
// value otherwise (an empty array, an object with its required fields).
func (c *Collection) assigned(f *field, seq int64, now time.Time) any {
	g := spec.Values{Seq: seq, Now: now}
	return g.Value(f.schema, f.name)
}

// decodeStored reads a stored record's JSON back into values by position.
func (c *Collection) decodeStored(raw []byte) (fieldValues, error) {
	fv := c.newFieldValues()
	if c.raw {
		return fv, nil
	}
	if _, ok := decodeFields(raw, c.fieldPos, &fv, nil); ok {
		return fv, nil
	}
	doc, err := DecodeStrict(raw)
	if err != nil {
		return fv, err // cannot happen: the store wrote it
	}
	obj, _ := doc.(map[string]any)
	c.fromObject(obj, &fv)
	return fv, nil
}

// entryOf is the entry a stored record's values make: its filter values
// and scope, what the indexes hold of it.
func (c *Collection) entryOf(fv *fieldValues, scope string) entry {
	e := entry{scope: scope}
	if len(c.filterFields) > 0 {
		e.vals = make([]string, len(c.filterFields))
	}
	for j, p := range c.filterPos {
		if p >= 0 && fv.has[p] {
			if k, ok := scalarValue(fv.vals[p]); ok {
				e.vals[j], e.has = k, e.has|1<<j
			}
		}
	}
	return e
}

// typed is a value from a path (an id, a parent's id) as its schema
// types it: an integer or number as a JSON number, else the text.
func (c *Collection) typed(s *spec.Schema, raw string) any {
	switch s.Type() {
	case "integer":
		if i, err := exactInt(json.Number(raw)); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
	case "number":
		// Not strconv.ParseFloat, which takes "NaN", "+1" and "0x1p3": a
		// json.Number in a record must be one JSON can hold.
		if isJSONNumber(raw) {
			return json.Number(raw)
		}
	}
	return raw
}

// unsetID reports whether an integer id a create carries is 0 (written 0,
// -0 or 0.0): what a generated client sends for an id it leaves to the
// server (sonarr's C# and Java clients send "id": 0 on every create). The
// server assigns one, as for a create without an id; taken as chosen, the
// second such create was 409.
func unsetID(id spec.IDSpec, v any) bool {
	n, ok := v.(json.Number)
	if !ok || id.Type != "integer" {
		return false
	}
	i, err := exactInt(n)
	return err == nil && i == 0
}

// newID is the id the server gives the record at seq: the seq itself for
// numbers, else a string the id's schema accepts (a UUID, a pattern's
// match) that carries seq, so that ids stay unique.
func (c *Collection) newID(seq int64) any {
	s := c.idSchema
	switch {
	case s.Type() == "integer" || s.Type() == "number":
		return json.Number(strconv.FormatInt(seq, 10))
	case s == nil || s.Format == "" && s.Pattern == "" && len(s.Enum) == 0:
		return strconv.FormatInt(seq, 10)
	case s.Format == "uuid":
		return seqUUID(seq)
	}
	g := spec.Values{Seq: seq}
	if v, ok := g.Value(s, c.def.IDField).(string); ok && v != "" {
		return v
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
func normalize(f *field, val any) (any, error) {
	n, isNumber := val.(json.Number)
	if !isNumber || f.typ != "integer" {
		return val, nil
	}
	i, err := exactInt(n)
	if err != nil {
		return nil, fmt.Errorf("field '%s': %v", f.name, err)
	}
	if f.schema.Format == "int32" && (i < math.MinInt32 || i > math.MaxInt32) {
		return nil, fmt.Errorf("field '%s': %d is outside the int32 range", f.name, i)
	}
	if canonicalInt(string(n)) {
		return val, nil // already as strconv.FormatInt writes it (and boxed: no allocation)
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

// queryKey turns a query or path value into the canonical text of the
// value of a field with schema s.
func queryKey(s *spec.Schema, raw string) string {
	switch s.Type() {
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
