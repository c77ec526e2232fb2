package spec

import (
	"math"

	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"go.yaml.in/yaml/v4"
)

// libopenapi-validator keeps one compiled schema per key of its schema
// cache, and the key is made from libopenapi's Schema.Hash. That hash
// writes keyword values without their names ({minimum: 5} and
// {maximum: 5} hash alike) and leaves out a $ref's siblings: lago's create
// body, {tax: {$ref: TaxBaseInput, required: [name, code, rate]}}, and its
// update body, {tax: {$ref: TaxBaseInput}}, share a key. Whichever of two
// such schemas the library met first was then held against requests (or
// responses) to both: after a create, a partial update was refused; after
// an update, a create without its required fields was accepted.
//
// The validator finds those keys when it is built (cacheClashes). Each
// use of a schema under one (an operation's requests, a response's body,
// the document's error body) is pinned: it always runs alone among first
// uses (firstUses), and first puts its own compiled schema under the key
// (placeClashing), so the library finds the right one. No other use reads
// or writes such a key. Uses of keys that do not clash, nearly all, keep
// the library's cache as it is.

// cacheUse is a schema as libopenapi-validator's schema cache holds it for
// one use: the key the library files it under, and the purpose and
// OpenAPI version it compiles it for.
type cacheUse struct {
	key     uint64
	schema  *base.Schema
	purpose schema_validation.SchemaValidationPurpose
	version float32
}

// bodyUse is schema as a request or response body: the key the library's
// body validators look it up by.
func (v *Validator) bodyUse(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) cacheUse {
	return cacheUse{schema_validation.SchemaCacheKey(schema.GoLow().Hash(), v.version, purpose), schema, purpose, v.version}
}

// parameterUse is schema as a parameter's: the library compiles every
// parameter schema as parameterSchemaVersion reads it.
func parameterUse(schema *base.Schema) cacheUse {
	purpose := schema_validation.SchemaValidationPurposeGeneric
	return cacheUse{schema_validation.SchemaCacheKey(schema.GoLow().Hash(), parameterSchemaVersion, purpose), schema, purpose, parameterSchemaVersion}
}

// documentUse is schema as Schema validates a document against it: the
// key the library's schema validator makes (validateSchemaWithVersion),
// not SchemaCacheKey.
func (v *Validator) documentUse(schema *base.Schema) cacheUse {
	return cacheUse{schema.GoLow().Hash() ^ uint64(math.Float32bits(v.version)), schema, schema_validation.SchemaValidationPurposeGeneric, v.version}
}

// requestUses are the cache uses of a request to op with a body of
// contentType: its parameters' schemas and that body's (none for "").
func (v *Validator) requestUses(op *Operation, contentType string) []cacheUse {
	var uses []cacheUse
	for _, p := range op.Params {
		if usable(p.Schema) {
			uses = append(uses, parameterUse(p.Schema))
		}
	}
	if body := requestSchema(op, contentType); usable(body) {
		uses = append(uses, v.bodyUse(body, schema_validation.SchemaValidationPurposeRequestBody))
	}
	return uses
}

// responseUses is the cache use of a response body (none without a schema).
func (v *Validator) responseUses(op *Operation, use responseUse) []cacheUse {
	if schema := mediaSchema(op, use.resp, use.mediaType); usable(schema) {
		return []cacheUse{v.bodyUse(schema, schema_validation.SchemaValidationPurposeResponseBody)}
	}
	return nil
}

// usable says whether schema is one the library files in its cache: one
// read from the document.
func usable(schema *base.Schema) bool {
	return schema != nil && schema.GoLow() != nil && schema.GoLow().GetRootNode() != nil
}

// clashes are the schema cache keys under which the library would file
// two different schemas of the document, and the compiled schemas
// placeClashing puts there.
type clashes struct {
	keys map[uint64]bool
	// entries are compiled once per schema, purpose and version; nil
	// where the schema does not compile (the library then compiles it
	// itself, and reports why). Read and written alone only (firstUses).
	entries map[clashEntry]*cache.SchemaCacheEntry
}

type clashEntry struct {
	node    *yaml.Node
	purpose schema_validation.SchemaValidationPurpose
	version float32
}

// cacheClashes finds the clashing keys among every schema use the
// document declares, and returns them with the uses (firstUses keys: an
// operation, a responseUse, the error schema) that meet one. A key is
// shared by different schemas only where their content hashes differ:
// the same component reached by two $refs, or written twice alike, is
// one schema. It costs a few milliseconds for the largest corpus
// documents, once.
func (v *Validator) cacheClashes() (*clashes, map[any]bool) {
	type owned struct {
		use   cacheUse
		owner any
	}
	var all []owned
	for _, op := range v.spec.Operations {
		for _, u := range v.requestUses(op, "") { // its parameters
			all = append(all, owned{u, op})
		}
		if op.Op != nil && op.Op.RequestBody != nil && op.Op.RequestBody.Content != nil {
			for _, m := range op.Op.RequestBody.Content.FromOldest() {
				if m != nil && m.Schema != nil && usable(m.Schema.Schema()) {
					all = append(all, owned{v.bodyUse(m.Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody), op})
				}
			}
		}
		responses := op.Responses
		if op.Default != nil {
			responses = append(responses[:len(responses):len(responses)], op.Default)
		}
		for _, resp := range responses {
			for _, mt := range resp.MediaTypes {
				use := responseUse{resp, mt}
				for _, u := range v.responseUses(op, use) {
					all = append(all, owned{u, use})
				}
			}
		}
	}
	if usable(v.errorSchema) {
		all = append(all, owned{v.documentUse(v.errorSchema), v.errorSchema})
	}

	nodes := map[uint64]map[*yaml.Node]*base.Schema{}
	for _, o := range all {
		if nodes[o.use.key] == nil {
			nodes[o.use.key] = map[*yaml.Node]*base.Schema{}
		}
		nodes[o.use.key][o.use.schema.GoLow().GetRootNode()] = o.use.schema
	}
	c := &clashes{keys: map[uint64]bool{}, entries: map[clashEntry]*cache.SchemaCacheEntry{}}
	for key, schemas := range nodes {
		if len(schemas) < 2 {
			continue
		}
		contents := map[uint64]bool{}
		for _, s := range schemas {
			h, _ := contentHash(s)
			contents[h] = true
		}
		if len(contents) > 1 {
			c.keys[key] = true
		}
	}
	pinned := map[any]bool{}
	for _, o := range all {
		if c.keys[o.use.key] {
			pinned[o.owner] = true
		}
	}
	return c, pinned
}

// placeClashing puts, under each of uses' keys that clashes, the schema
// that use compiles, so that the library's next lookup of the key finds
// it. Only a pinned use calls it, alone (firstUses).
func (v *Validator) placeClashing(uses []cacheUse) {
	for _, u := range uses {
		if !v.clashes.keys[u.key] {
			continue
		}
		at := clashEntry{u.schema.GoLow().GetRootNode(), u.purpose, u.version}
		entry, ok := v.clashes.entries[at]
		if !ok {
			entry = v.compileUse(u)
			v.clashes.entries[at] = entry
		}
		v.opts.SchemaCache.Store(u.key, entry)
	}
}

// compileUse compiles u's schema as the validator would on a miss of the
// library's cache: a body as compile compiles it; a parameter (and, in a
// 3.1 document, a document) as the library does and, where that fails, as
// the document's version reads it (compileParameter); nil where it does
// not compile.
func (v *Validator) compileUse(u cacheUse) *cache.SchemaCacheEntry {
	var c *schema_validation.CompiledValidationSchema
	var err error
	switch {
	case u.purpose != schema_validation.SchemaValidationPurposeGeneric:
		c, err = v.compile(u.schema, u.purpose)
	default:
		c, err = schema_validation.CompileSchemaForValidation(u.schema, u.purpose, v.opts, u.version)
		if err != nil && u.version == parameterSchemaVersion {
			c, err = v.compileParameter(u.schema, err.Error())
		}
	}
	if err != nil || c == nil || c.CompiledSchema == nil {
		return nil
	}
	return c.ToCacheEntry(u.schema)
}
