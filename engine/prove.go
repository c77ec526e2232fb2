package engine

import (
	"net/http"
	"slices"

	"github.com/petctl/petctl/spec"
)

// proveComposition decides, once at start-up, whether the success responses
// an operation builds from stored records are valid by construction, so
// that validating them again per request would only repeat work.
//
// Every stored record was checked, before it was stored, against the item
// schema compiled exactly as libopenapi-validator compiles a response body
// schema (spec.CompileResponseSchema), on the same decoded value the
// validator would decode from the record's JSON. A response is then valid
// when:
//
//   - read and create: the body is one record, and the response schema has
//     the same content hash as the item schema;
//   - list: the body is a JSON array of records, and the response schema is
//     {type: array, items: S} with no other constraint and S with the item
//     schema's hash; by JSON Schema's definition of items an array is valid
//     against it exactly when each element is valid against S;
//
// and, for all of them, the response is declared for that exact status
// with application/json (what the engine sends) and declares no headers
// (the validator would check those). The item schema must not use
// writeOnly, the one annotation that makes a response schema's meaning
// depend on where it appears. When any condition fails the operation's
// responses are validated in full on every request, as all error responses
// are. TestProvenResponsesAgreeWithValidator checks the equivalence against
// libopenapi-validator on valid and invalid records.
func proveComposition(o *operation) bool {
	c := o.coll
	if c == nil || c.schema == nil || c.writeOnly || o.rop == nil {
		return false
	}
	var status int
	switch o.kind {
	case kindRead, kindList:
		status = http.StatusOK
	case kindCreate:
		status = o.rop.Response.Status
	default:
		return false
	}
	var resp *spec.Response
	for _, r := range o.op.Responses {
		if r.Status == status {
			resp = r
		}
	}
	if resp == nil || resp.Schema == nil || len(resp.Headers) > 0 || !slices.Contains(resp.MediaTypes, spec.JSON) {
		return false
	}
	hash, ok := spec.SchemaHash(resp.Schema)
	if o.kind == kindList {
		hash, ok = spec.PlainArrayItemsHash(resp.Schema)
	}
	return ok && hash == c.schema.Hash
}
