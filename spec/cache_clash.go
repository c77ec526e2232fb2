package spec

import (
	"math"
	"slices"

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
// The validator finds those keys when it is built (cacheClashes), among
// every schema the library's request and response validation looks up.
// Each use of a schema under one (an operation's requests, a response's
// body and headers) is pinned: it always runs alone among first uses (firstUses), and
// first puts its own compiled schema under the key (placeClashing), so the
// library finds the right one. No other use reads or writes such a key.
// Uses of keys that do not clash, nearly all, keep the library's cache as
// it is. Documents (records, forms, error bodies: Validator.Schema) are
// not known beforehand; a valid one is shown so without the library's
// cache, and the library words an invalid one's problems alone, with the
// schema's own compile put under its key first (place).

// useKind is what a cacheUse's schema is to the library, which decides
// how it is compiled.
type useKind int

const (
	useBody      useKind = iota // a request or response body
	useParameter                // a parameter's schema (its content's, a response header's)
	useDocument                 // a document Validator.Schema validates
)

// cacheUse is a schema as libopenapi-validator's schema cache holds it for
// one use: the key the library files it under, and the purpose and
// OpenAPI version it compiles it for. mediaType is the request body's
// media type, "" for any other use.
type cacheUse struct {
	key       uint64
	schema    *base.Schema
	kind      useKind
	purpose   schema_validation.SchemaValidationPurpose
	version   float32
	mediaType string
}

// bodyUse is schema as a request or response body: the key the library's
// body validators look it up by.
func (v *Validator) bodyUse(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) cacheUse {
	return cacheUse{key: schema_validation.SchemaCacheKey(schema.GoLow().Hash(), v.version, purpose), schema: schema, kind: useBody, purpose: purpose, version: v.version}
}

// parameterUse is schema as a parameter's: the library compiles every
// parameter schema as parameterSchemaVersion reads it.
func parameterUse(schema *base.Schema) cacheUse {
	purpose := schema_validation.SchemaValidationPurposeGeneric
	return cacheUse{key: schema_validation.SchemaCacheKey(schema.GoLow().Hash(), parameterSchemaVersion, purpose), schema: schema, kind: useParameter, purpose: purpose, version: parameterSchemaVersion}
}

// documentUse is schema as Schema validates a document against it: the
// key the library's schema validator makes (validateSchemaWithVersion),
// not SchemaCacheKey.
func (v *Validator) documentUse(schema *base.Schema) cacheUse {
	return cacheUse{key: schema.GoLow().Hash() ^ uint64(math.Float32bits(v.version)), schema: schema, kind: useDocument, purpose: schema_validation.SchemaValidationPurposeGeneric, version: v.version}
}

// requestUses are the cache uses of requests to op: its parameters'
// schemas, path item's and operation's both (the library validates
// both), their content's and an array's items (validated alone), and each
// request body media type's.
func (v *Validator) requestUses(op *Operation) []cacheUse {
	var uses []cacheUse
	add := func(schema *base.Schema) {
		if usable(schema) {
			uses = append(uses, parameterUse(schema))
		}
	}
	addWithItems := func(schema *base.Schema) {
		add(schema)
		if schema != nil && schema.Items != nil && schema.Items.IsA() && schema.Items.A != nil {
			add(schema.Items.A.Schema())
		}
	}
	for _, p := range libParams(op) {
		if p == nil {
			continue
		}
		if p.Schema != nil {
			addWithItems(p.Schema.Schema())
		}
		if p.Content != nil {
			for _, m := range p.Content.FromOldest() {
				if m != nil && m.Schema != nil {
					addWithItems(m.Schema.Schema())
				}
			}
		}
	}
	if op.Op != nil && op.Op.RequestBody != nil && op.Op.RequestBody.Content != nil {
		for mt, m := range op.Op.RequestBody.Content.FromOldest() {
			if m != nil && m.Schema != nil && usable(m.Schema.Schema()) {
				u := v.bodyUse(m.Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody)
				u.mediaType = mt
				uses = append(uses, u)
			}
		}
	}
	return uses
}

// responseUses are the cache uses of a response: its body's schema, and
// its headers' (which the library validates as parameters are).
func (v *Validator) responseUses(op *Operation, use responseUse) []cacheUse {
	var uses []cacheUse
	if schema := mediaSchema(op, use.resp, use.mediaType); usable(schema) {
		uses = append(uses, v.bodyUse(schema, schema_validation.SchemaValidationPurposeResponseBody))
	}
	if lib := libResponse(op, use.resp); lib != nil && lib.Headers != nil {
		for _, h := range lib.Headers.FromOldest() {
			if h != nil && h.Schema != nil && usable(h.Schema.Schema()) {
				uses = append(uses, parameterUse(h.Schema.Schema()))
			}
		}
	}
	return uses
}

// usable says whether schema is one the library files in its cache: one
// read from the document.
func usable(schema *base.Schema) bool {
	return schema != nil && schema.GoLow() != nil && schema.GoLow().GetRootNode() != nil
}

// clashEntry is a schema as place compiles it for one kind of use.
type clashEntry struct {
	node    *yaml.Node
	kind    useKind
	purpose schema_validation.SchemaValidationPurpose
}

// cacheClashes finds the keys two different schemas share among every
// schema use of the document's operations, and returns the owners (an
// operation, a responseUse: firstUses keys) that meet one, each with its
// uses under such a key. A key is shared by different schemas only where
// their content hashes differ: the same component reached by two $refs,
// or written twice alike, is one schema. It costs a few milliseconds for
// the largest corpus documents, once.
func (v *Validator) cacheClashes() map[any][]cacheUse {
	owners := map[any][]cacheUse{}
	for _, op := range v.spec.Operations {
		owners[op] = v.requestUses(op)
		responses := op.Responses
		if op.Default != nil {
			responses = append(responses[:len(responses):len(responses)], op.Default)
		}
		for _, resp := range responses {
			for _, mt := range resp.MediaTypes {
				use := responseUse{resp, mt}
				owners[use] = v.responseUses(op, use)
			}
		}
	}

	nodes := map[uint64]map[*yaml.Node]*base.Schema{}
	for _, uses := range owners {
		for _, u := range uses {
			if nodes[u.key] == nil {
				nodes[u.key] = map[*yaml.Node]*base.Schema{}
			}
			nodes[u.key][u.schema.GoLow().GetRootNode()] = u.schema
		}
	}
	shared := map[uint64]bool{}
	for key, schemas := range nodes {
		if len(schemas) < 2 {
			continue
		}
		contents := map[uint64]bool{}
		for _, s := range schemas {
			h, _ := contentHash(s)
			contents[h] = true
		}
		shared[key] = len(contents) > 1
	}
	pinned := map[any][]cacheUse{}
	for owner, uses := range owners {
		for _, u := range uses {
			if shared[u.key] {
				pinned[owner] = append(pinned[owner], u)
			}
		}
	}
	for _, op := range v.spec.Operations {
		if _, ok := pinned[op]; !ok && rendersEveryUse(op) {
			pinned[op] = nil // alone every time, nothing to place
		}
	}
	return pinned
}

// rendersEveryUse reports whether libopenapi-validator renders a schema
// of op's on every request that carries a parameter, past its cache: an
// unexploded header or cookie array whose items are a schema
// (ValidateHeaderArray and ValidateCookieArray render the items with
// RenderInline, which writes the shared model). Such an operation is
// pinned: its uses run alone.
func rendersEveryUse(op *Operation) bool {
	for _, p := range libParams(op) {
		if p == nil || (p.In != "header" && p.In != "cookie") || p.IsExploded() || p.Schema == nil {
			continue
		}
		if schema := p.Schema.Schema(); schema != nil && slices.Contains(schema.Type, "array") && schema.Items != nil && schema.Items.IsA() {
			return true
		}
	}
	return false
}

// placeClashing puts, under each shared key owner's uses meet, the schema
// that use compiles, so that the library's next lookup of the key finds
// it; of a request body's uses, only those of mediaType. It does nothing
// for an owner that is not pinned. Called alone only (firstUses).
func (v *Validator) placeClashing(owner any, mediaType string) {
	for _, u := range v.renders.pinned[owner] {
		if u.mediaType == "" || u.mediaType == mediaType {
			v.place(u)
		}
	}
}

// place puts u's schema, compiled as the library would compile it, under
// u's key. Called alone only.
func (v *Validator) place(u cacheUse) {
	at := clashEntry{u.schema.GoLow().GetRootNode(), u.kind, u.purpose}
	entry, ok := v.renders.placed[at]
	if !ok {
		entry = v.compileUse(u)
		v.renders.placed[at] = entry
	}
	v.opts.SchemaCache.Store(u.key, entry)
}

// compileUse compiles u's schema as the validator would on a miss of the
// library's cache: a body or a document as compile compiles it; a
// parameter as the library does and, where that fails, as the document's
// version reads it (compileParameter); nil where it does not compile.
func (v *Validator) compileUse(u cacheUse) *cache.SchemaCacheEntry {
	var c *schema_validation.CompiledValidationSchema
	var err error
	if u.kind == useParameter {
		c, err = schema_validation.CompileSchemaForValidation(u.schema, u.purpose, v.opts, u.version)
		if err != nil {
			c, err = v.compileParameter(u.schema, err.Error())
		}
	} else {
		c, err = v.compile(u.schema, u.purpose)
	}
	if err != nil || c == nil || c.CompiledSchema == nil {
		return nil
	}
	return c.ToCacheEntry(u.schema)
}
