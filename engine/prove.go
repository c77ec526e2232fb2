package engine

import (
	"net/http"
	"slices"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// proveComposition decides, once at start-up, whether the success responses
// an operation builds from stored records are valid by construction, so
// that validating them again per request would only repeat work.
//
// Every stored record was checked, before it was stored, against the item
// schema compiled as the validator compiles a response body schema
// (spec.CompileResponseSchema), on the same decoded value the
// validator would decode from the record's JSON. A response is then valid
// when:
//
//   - read, create, replace, patch and delete: the body is one record,
//     and the response schema has the same content hash as the item
//     schema (for a write, at every status it answers with the item);
//   - the same, with the record wrapped in the one property of an object
//     ({"plan": {...}}): the body is that object holding the record alone,
//     and spec.WrappedItemHash of the response schema is the item schema's
//     (the wrapper can reject an object of that property alone only for
//     its value); the wrapper the document makes holds nothing else
//     (madeHoldsOnly), so the answer is the same whichever way it is built;
//   - list: the body is a JSON array of records, and the response schema is
//     {type: array, items: S} with no other constraint and S with the item
//     schema's hash; by JSON Schema's definition of items an array is valid
//     against it exactly when each element is valid against S;
//
// and, for all of them, the response is declared for that exact status
// with the JSON media type the engine sends, and declares no headers (the
// validator would check those). The item schema must not use writeOnly,
// the one annotation that makes a response schema's meaning depend on
// where it appears. When any condition fails the operation's responses are
// validated in full on every request, as all error responses are.
// TestProvenResponsesAgreeWithValidator and TestWrappedVerdictIsTheItems
// check the equivalence against libopenapi-validator on valid and invalid
// records.
func (s *Server) proveComposition(o *operation) bool {
	c := o.coll
	if c == nil || c.schema == nil || c.writeOnly || o.rop == nil {
		return false
	}
	var statuses []int
	switch o.kind {
	case kindRead, kindReadOne, kindList, kindCreate:
		// The status they answer with (the document's first 2xx with a
		// body), which is the one to prove, not 200 by default.
		statuses = []int{o.rop.Response.Status}
	case kindReplace, kindPatch, kindDelete:
		// Every status the write may answer with the item (a replace
		// that creates answers 201, else 200).
		for st, sh := range o.rop.Answers {
			switch {
			case sh.Kind == "item" && sh.Schema == c.def.Item, wrapsItem(c, sh):
				statuses = append(statuses, st)
			case sh.Kind != "none":
				return false // a made answer: validated in full
			}
		}
	}
	if len(statuses) == 0 {
		return false
	}
	for _, status := range statuses {
		if !s.provenAt(o, status) {
			return false
		}
	}
	return true
}

// wrapsItem reports whether sh is the item in a property of an object, the
// item's own schema there.
func wrapsItem(c *collection, sh spec.Shape) bool {
	return sh.Kind == "wrapped" && sh.Schema != nil && sh.Schema.Prop(sh.Field) == c.def.Item
}

// answerShape is the shape of o's answer at status, as itemResponse reads it.
func answerShape(o *operation, status int) spec.Shape {
	if sh, ok := o.rop.Answers[status]; ok {
		return sh
	}
	return o.rop.Response
}

// provenAt reports whether o's answer at status is the record (the list
// of records, for a list; the record in its wrapper) under a response
// declaration that validating it could not reject.
func (s *Server) provenAt(o *operation, status int) bool {
	var resp *spec.Response
	for _, r := range o.op.Responses {
		if r.Status == status {
			resp = r
		}
	}
	if resp == nil || resp.Schema == nil || len(resp.Headers) > 0 {
		return false
	}
	if sh := answerShape(o, status); o.kind != kindList && sh.Kind == "wrapped" {
		// Sent as the operation's first JSON media type, whose schema
		// resp.Schema is (as for a list's envelope).
		sent := answerMediaType(o.op, status)
		i := slices.IndexFunc(resp.MediaTypes, spec.IsJSON)
		hash, ok := spec.WrappedItemHash(resp.Schema, sh.Field)
		return wrapsItem(o.coll, sh) && i >= 0 && resp.MediaTypes[i] == sent &&
			ok && hash == o.coll.schema.Hash && s.madeHoldsOnly(sh.Schema, sh.Field)
	}
	if !slices.Contains(resp.MediaTypes, spec.JSON) {
		return false
	}
	hash, ok := spec.SchemaHash(resp.Schema)
	if o.kind == kindList {
		hash, ok = spec.PlainArrayItemsHash(resp.Schema)
	}
	return ok && hash == o.coll.schema.Hash
}

// madeHoldsOnly reports whether the object renderRecord makes for a wrapper
// (its example, else its required properties) holds no property but field,
// which the record takes: the answer is then the record in field alone. The
// properties made do not depend on the clock, only their values do.
func (s *Server) madeHoldsOnly(wrapper *spec.Schema, field string) bool {
	m, ok := s.made(wrapper).(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		if k != field {
			return false
		}
	}
	return true
}

// wrapRecord is the answer {field: record}, the record's JSON as stored.
func wrapRecord(field string, raw []byte) []byte {
	b := make([]byte, 0, len(field)+len(raw)+5)
	b = append(store.AppendJSONString(append(b, '{'), field), ':')
	return append(append(b, raw...), '}')
}

// proveEnvelopeItems decides, once at start-up, whether the items of a
// list answer held in an envelope ({data: [...], meta: ...}) are valid by
// construction, as proveComposition decides for a bare array: the items
// are the stored records as they are (the array's item schema is the
// collection's, nothing writeOnly), and the schema the answer is validated
// against holds them in a plain array of a schema with the item schema's
// hash, which nothing else in the envelope can see (spec.EnvelopeItemsHash).
// The envelope itself (metadata, links, what is made from its schema) is
// still validated on every request, with an empty array in the items'
// place: by EnvelopeItemsHash that verdict is the whole answer's.
func proveEnvelopeItems(o *operation) bool {
	c := o.coll
	if o.kind != kindList || c == nil || c.schema == nil || c.writeOnly || o.rop == nil || o.list == nil || len(o.list.Items) == 0 {
		return false
	}
	if arr := schemaAt(o.rop.Response.Schema, o.list.Items); arr == nil || arr.Items != c.def.Item {
		return false // the items are projected onto another schema
	}
	status := o.rop.Response.Status
	if status == 0 {
		status = http.StatusOK
	}
	var resp *spec.Response
	for _, r := range o.op.Responses {
		if r.Status == status {
			resp = r
		}
	}
	if resp == nil || resp.Schema == nil {
		return false
	}
	// The validator holds the answer to the schema of the media type it is
	// sent as; resp.Schema is that of the first JSON one.
	sent := answerMediaType(o.op, status)
	if i := slices.IndexFunc(resp.MediaTypes, spec.IsJSON); i < 0 || resp.MediaTypes[i] != sent {
		return false
	}
	hash, ok := spec.EnvelopeItemsHash(resp.Schema, o.list.Items)
	return ok && hash == c.schema.Hash
}
