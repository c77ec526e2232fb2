package engine

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// This file composes answers from records: a record as it is stored is
// the answer only when the response schema is the item schema and the item
// has nothing writeOnly; otherwise the record is projected onto the
// response schema (its properties only, writeOnly ones never, required
// ones the record lacks made from the schema), wrapped ({"plan": {...}}),
// or shown inside a body made from the document (a task object answering
// a delete carries the item's id).

// itemResponse answers o at status with the record: as o's answer at
// that status is shaped.
func (s *Server) itemResponse(o *operation, status int, rec store.Record) *response {
	sh, ok := o.rop.Answers[status]
	if !ok {
		sh = o.rop.Response
	}
	c := o.coll
	if sh.Kind == "item" && sh.Schema == c.def.Item && !c.writeOnly {
		res := jsonResponse(status, rec.JSON)
		res.proven = o.proven
		return res
	}
	if o.proven && sh.Kind == "wrapped" {
		// The wrapper holds the record alone, as stored: what the render
		// below makes of it (see proveComposition), without projecting a
		// record onto the schema it was built and checked by.
		res := &response{status: status, body: wrapRecord(sh.Field, rec.JSON), proven: true}
		res.set("Content-Type", answerMediaType(o.op, status))
		return res
	}
	body := s.renderRecord(o, sh, rec.JSON)
	res := &response{status: status, body: body}
	if body != nil {
		res.set("Content-Type", answerMediaType(o.op, status))
	}
	return res
}

// recordsResponse answers o at status with several records (a batch
// create), as o's answer at that status is shaped.
func (s *Server) recordsResponse(o *operation, status int, recs []store.Record) *response {
	sh, ok := o.rop.Answers[status]
	if !ok {
		sh = o.rop.Response
	}
	items := make([][]byte, len(recs))
	for i, r := range recs {
		items[i] = r.JSON
	}
	var body []byte
	switch {
	case sh.Kind == "list":
		body = s.listBody(o.coll, sh.Schema, itemsPath(sh.Schema), items, nil)
	case len(recs) > 0:
		body = s.renderRecord(o, sh, recs[0].JSON)
	default:
		body = s.renderRecord(o, sh, nil)
	}
	res := &response{status: status, body: body}
	if body != nil {
		res.set("Content-Type", answerMediaType(o.op, status))
	}
	return res
}

// renderRecord is the body of an answer shaped sh that carries a record
// (raw, nil for none); nil for an answer without a body.
func (s *Server) renderRecord(o *operation, sh spec.Shape, raw []byte) []byte {
	c := o.coll
	switch sh.Kind {
	case "none":
		return nil
	case "item":
		return s.project(c, raw, sh.Schema)
	case "wrapped":
		outer, _ := s.made(sh.Schema).(map[string]any)
		if outer == nil {
			outer = map[string]any{}
		}
		outer[sh.Field] = json.RawMessage(s.project(c, raw, sh.Schema.Prop(sh.Field)))
		return encodeJSON(outer)
	case "list":
		var items [][]byte
		if raw != nil {
			items = [][]byte{raw}
		}
		return s.listBody(c, sh.Schema, itemsPath(sh.Schema), items, nil)
	}
	// "other": a body made from the document, showing what it can of the record.
	v := s.made(sh.Schema)
	if obj, ok := v.(map[string]any); ok && raw != nil {
		overlay(obj, sh.Schema, decodeRecord(raw))
	}
	return encodeJSON(v)
}

// project is a record as a response schema shows it: the schema's
// properties in its order, writeOnly ones left out, required ones the
// record lacks made from the schema, and so are those the item's schema
// does not have: the answer's own, which no record holds (the one-time
// token a create of an API key answers beside its id). A schema without
// properties shows the whole record, writeOnly properties of the item
// left out.
func (s *Server) project(c *collection, raw []byte, schema *spec.Schema) []byte {
	rec := decodeRecord(raw)
	if schema == nil {
		return raw
	}
	obj, isObj := rec.(map[string]any)
	props, required := schema.Props()
	if !isObj || schema.Type() != "object" && len(props) == 0 {
		if !isObj {
			return raw
		}
		props, required = c.def.Item.Props()
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	g := s.values(spec.InResponse)
	for _, p := range props {
		if p.Schema != nil && p.Schema.WriteOnly {
			continue
		}
		v, ok := obj[p.Name]
		own := !ok && answerOnly(c.def.Item, p.Name)
		if !ok && !required[p.Name] && !own {
			continue
		}
		switch {
		case own:
			// Made for this record: two keys' tokens differ.
			own := s.values(spec.InResponse)
			own.Seq = recordSeq(raw)
			v = own.Value(p.Schema, p.Name)
		case !ok || !fitsType(v, p.Schema):
			// Absent, or stored as the item's schema has it and the
			// answer's has it otherwise: the answer's own value.
			v = g.Value(p.Schema, p.Name)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(encodeJSON(p.Name))
		b.WriteByte(':')
		b.Write(encodeJSON(v))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// answerOnly reports whether name is a property of an answer that the
// item's schema (when known) has no place for.
func answerOnly(item *spec.Schema, name string) bool {
	return item != nil && item.Prop(name) == nil
}

// recordSeq is a number of 1 to 10^12 that a record's bytes give, the
// same every time: what values made for one record carry (spec.Values.Seq)
// so that two records' values differ.
func recordSeq(raw []byte) int64 {
	h := fnv.New64a()
	h.Write(raw)
	return int64(h.Sum64()%1_000_000_000_000) + 1
}

// overlay copies into obj, a body made from schema, the record's values of
// the properties both have, where the record's value is of the type the
// schema's property takes: an answer about an item names the item.
func overlay(obj map[string]any, schema *spec.Schema, rec any) {
	r, ok := rec.(map[string]any)
	if !ok {
		return
	}
	props, _ := schema.Props()
	for _, p := range props {
		v, has := r[p.Name]
		if !has || p.Schema == nil || p.Schema.WriteOnly || p.Schema.HasConst || len(p.Schema.Enum) > 0 {
			continue
		}
		if jsonType(v) == p.Schema.Type() || p.Schema.Type() == "number" && jsonType(v) == "integer" {
			obj[p.Name] = v
		}
	}
}

// fitsType reports whether a decoded value has a type schema s allows: a
// quick look, enough to see that a record's value belongs to a different
// schema ({type: 'null'} where the item has a string).
func fitsType(v any, s *spec.Schema) bool {
	switch {
	case s == nil:
		return true
	case v == nil:
		return s.Nullable || len(s.Types) == 0 && !s.HasConst
	case len(s.Types) == 0:
		// Only "null" was written: nothing else fits.
		onlyNull := s.Nullable && len(s.Properties) == 0 && s.Items == nil && len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0
		return !onlyNull
	}
	t := jsonType(v)
	for _, want := range s.Types {
		if want == t || want == "number" && t == "integer" {
			return true
		}
	}
	return false
}

// jsonType is the JSON Schema type of a decoded value.
func jsonType(v any) string {
	switch t := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "null"
}

// made is a value made from a response schema: its example when it has
// one, else the generator's minimal value.
func (s *Server) made(schema *spec.Schema) any {
	if schema == nil {
		return nil
	}
	if v, ok := s.madeValues.Load(schema); ok {
		return copyJSON(v) // a copy each time: callers change it
	}
	raw := s.validExample(schema)
	if raw == nil {
		raw = s.timelessValue(schema)
	}
	if raw != nil {
		v, _ := store.DecodeStrict(raw)
		s.madeValues.Store(schema, v)
		return copyJSON(v)
	}
	g := s.values(spec.InResponse)
	return g.Value(schema, "")
}

// copyJSON is a deep copy of a decoded JSON value: its objects and arrays
// copied, its scalars (immutable) shared. It costs about two thirds of
// decoding the value again (a lago page's profile), and a list's envelope
// is made on every request.
func copyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyJSON(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = copyJSON(e)
		}
		return l
	}
	return v
}

// timelessValue is the value made for schema, as JSON, where it is the same
// whatever the clock says, else nil; worked out once per schema. Making a
// value walks the schema's properties and allOf members, several times the
// cost of decoding its JSON, and a list's envelope is made on every
// request. Everything but instants is a function of the schema alone (the
// made value has no Rand), so a value made at two instants a day and a
// second apart that comes out the same has no instant in it.
func (s *Server) timelessValue(schema *spec.Schema) []byte {
	if raw, ok := s.timeless.Load(schema); ok {
		return raw.([]byte)
	}
	g := s.values(spec.InResponse)
	a := encodeJSON(g.Value(schema, ""))
	g.Now = g.Now.Add(25*time.Hour + time.Second)
	b := encodeJSON(g.Value(schema, ""))
	if !bytes.Equal(a, b) {
		a = nil
	}
	s.timeless.Store(schema, a)
	return a
}

// validExample is schema's example as JSON where it is valid against the
// schema, else nil; judged once per schema.
func (s *Server) validExample(schema *spec.Schema) []byte {
	if !schema.HasExample {
		return nil
	}
	if raw, ok := s.examples.Load(schema); ok {
		return raw.([]byte)
	}
	raw := encodeJSON(schema.Example)
	if len(s.val.Record(schema, raw)) != 0 {
		raw = nil
	}
	s.examples.Store(schema, raw)
	return raw
}

// values is the generator for what the server makes up: minimal values,
// at the server's clock.
func (s *Server) values(dir spec.Direction) *spec.Values {
	return &spec.Values{Seq: 1, Now: s.now(), Direction: dir}
}

// decodeRecord decodes a record's JSON (numbers as json.Number).
func decodeRecord(raw []byte) any {
	if raw == nil {
		return nil
	}
	v, _ := store.DecodeStrict(raw)
	return v
}

// encodeJSON writes v as JSON without HTML escaping (store.AppendJSON);
// null where encoding/json refuses it.
func encodeJSON(v any) []byte {
	b, err := store.AppendJSON(make([]byte, 0, 256), v) // most answers made here fit
	if err != nil {
		return []byte("null")
	}
	return b
}

// answerMediaType is the media type o's answer at status is sent as (see
// sentMediaType).
func answerMediaType(op *spec.Operation, status int) string {
	return sentMediaType(op.Response(status))
}

// sentMediaType is the media type an answer declared as r is sent as: the
// first JSON one it declares, else JSON where it declares a range JSON
// falls in (*/*), else the first it declares; JSON for none.
func sentMediaType(r *spec.Response) string {
	if r != nil {
		for _, mt := range r.MediaTypes {
			if isJSONMediaType(mt) {
				return mt
			}
		}
		if slices.ContainsFunc(r.MediaTypes, spec.IsJSONRange) {
			return spec.JSON
		}
		if len(r.MediaTypes) > 0 {
			return r.MediaTypes[0]
		}
	}
	return spec.JSON
}

// itemsPath is where a list answer holds its items: nil for an array.
func itemsPath(schema *spec.Schema) []string {
	if schema == nil || schema.Type() == "array" {
		return nil
	}
	props, _ := schema.Props()
	for _, p := range props {
		if p.Schema != nil && p.Schema.Type() == "array" {
			return []string{p.Name}
		}
	}
	return nil
}

// etag is a record's entity tag: a strong tag of its stored bytes, so any
// change to the item changes it.
func etag(raw []byte) string {
	h := fnv.New64a()
	h.Write(raw)
	return `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
}

// ifMatch reports whether an If-Match header lets a write to the record
// with tag proceed (RFC 9110 §13.1.1): absent, "*", or a list naming tag.
// exists is false when there is no record: only an absent header lets
// the write proceed then.
func ifMatch(header []string, tag string, exists bool) bool {
	if len(header) == 0 {
		return true
	}
	for _, h := range header {
		for _, t := range splitList(h) {
			if t == "*" && exists || exists && (t == tag || t == "W/"+tag) {
				return true
			}
		}
	}
	return false
}

// ifNoneMatch reports whether an If-None-Match header names the record
// with tag ("*" names any existing record).
func ifNoneMatch(header []string, tag string, exists bool) bool {
	for _, h := range header {
		for _, t := range splitList(h) {
			if exists && (t == "*" || t == tag || t == "W/"+tag) {
				return true
			}
		}
	}
	return false
}

// splitList splits a comma-separated header value, trimming spaces.
func splitList(h string) []string {
	var out []string
	for _, part := range bytes.Split([]byte(h), []byte(",")) {
		if t := string(bytes.TrimSpace(part)); t != "" {
			out = append(out, t)
		}
	}
	return out
}
