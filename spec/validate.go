package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"
)

// Problem is one way a request, a response or a record departs from the document.
type Problem struct {
	// Where names the part: "query parameter 'limit'", "body field 'categoryId'", "status".
	Where  string
	Reason string
}

func (p Problem) String() string {
	if p.Where == "" {
		return p.Reason
	}
	return p.Where + ": " + p.Reason
}

// Problems is a list of problems; its Error joins them.
type Problems []Problem

func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Validator checks requests, responses and records against a Spec with
// libopenapi-validator, adding the checks it leaves out: an empty or null
// body where the document declares one, the int64 and int32 ranges, and the
// default response without content that leaves a payload open.
type Validator struct {
	spec    *Spec
	v       validator.Validator
	schemas schema_validation.SchemaValidator
	opts    *config.ValidationOptions
	version float32
	memo    *requestMemo // nil: every request is validated in full
	// renders is shared by a validator and its Plain copy: they share
	// the library's model and schema cache.
	renders *firstUses
	// inline renders schemas for compileAlone; shared with the Plain copy.
	inline *inliner
	// errorSchema is the document's most common error schema, nil for none.
	errorSchema *base.Schema
	// bodies holds, per response and media type (responseUse), the body
	// schema compiled as the response validator compiles it, for
	// quickResponse; nil in a Plain validator.
	bodies *sync.Map
	// answered are the small bodies quickResponse accepted (see
	// responseKey); nil in a Plain validator.
	answered *acceptances[responseKey]
	// compiled holds the schemas compileSchema compiled (compiledKey): a
	// document's error schema, declared by every operation's error
	// responses, is compiled once. Shared with the validator's Plain copy.
	compiled *sync.Map
}

// firstUses serializes the calls into libopenapi-validator that may render
// a schema. libopenapi v0.40.1 renders a schema for validation by setting
// fields on the shared model (DynamicValue.MarshalYAMLInlineWithContext), so
// two renders at once race, even of different operations that share a
// component. A schema is rendered on its first use only (lazySchemaCache);
// after the first call for a key has finished, the validator's schema cache
// answers and later calls run concurrently.
type firstUses struct {
	mu   sync.Mutex
	done sync.Map // keys whose first call has finished
	// pinned are the keys that always run alone, each with the uses of
	// the library's schema cache it puts its own schema under first
	// (cacheClashes); set before the validator's first use, read-only
	// from then on.
	pinned map[any][]cacheUse
	// placed are the compiled schemas place puts there, once per schema
	// and use; nil where one does not compile (the library then compiles
	// it itself, and says why). Read and written alone only.
	placed map[clashEntry]*cache.SchemaCacheEntry
	// unwarmable are the keys of parameter schemas that compile neither
	// as the library nor as the document reads them (warmParameters).
	// Read and written alone only.
	unwarmable map[uint64]bool
}

// do runs fn, alone among first uses unless key has been used before; fn
// is told whether it runs alone, and repairs a schema that did not compile
// (rendering it again) only then. A use whose schema did not compile (fn
// returns false) leaves the key unused: the library caches no failure, so
// every later call renders the schema again and must be alone too. A key
// is per operation, so a later request may meet a schema its first did
// not (a parameter it left out): that use runs again, alone.
//
// A pinned key (cacheClashes) runs alone every time: its schemas share a
// key of the library's cache with others, and fn puts its own there first.
func (f *firstUses) do(key any, fn func(alone bool) (compiled bool)) {
	_, pinned := f.pinned[key]
	if _, ok := f.done.Load(key); ok && !pinned {
		if fn(false) {
			return
		}
		f.done.Delete(key)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if fn(true) && !pinned {
		f.done.Store(key, struct{}{})
	}
}

// alone runs fn alone among first uses: a compile always renders.
func (f *firstUses) alone(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// NewValidator builds the validator once; it is safe for concurrent use.
// Schemas are compiled on first use, not here (see lazySchemaCache).
func (s *Spec) NewValidator() (*Validator, error) {
	schemas := &lazySchemaCache{SchemaCache: cache.NewDefaultCache()}
	schemas.warming.Store(true)
	opts := []config.Option{
		// The engine authenticates itself (constant-time, several keys);
		// the conformance suite sends wrong keys on purpose.
		config.WithoutSecurityValidation(),
		config.WithFormatAssertions(),
		config.WithRegexEngine(compilePattern),
		config.WithSchemaCache(schemas),
		config.WithCustomFormat("int64", intFormat("int64")),
		config.WithCustomFormat("int32", intFormat("int32")),
	}
	// The validator strips a request's base path by the servers it reads;
	// it reads this one, petctl's, whatever the document's servers say
	// (variables, a third party's mock URL, a configured base path).
	model := *s.Model
	model.Servers = nil
	if s.BasePath != "" {
		model.Servers = []*v3.Server{{URL: s.BasePath}}
	}
	v := validator.NewValidatorFromV3Model(&model, opts...)
	schemas.warming.Store(false)
	val := &Validator{
		spec:        s,
		v:           v,
		schemas:     schema_validation.NewSchemaValidator(opts...),
		opts:        config.NewValidationOptions(opts...),
		version:     helpers.VersionToFloat(s.Model.Version),
		renders:     &firstUses{},
		inline:      &inliner{},
		errorSchema: s.ErrorSchema(),
	}
	val.memo = newRequestMemo(val, s.Operations)
	val.bodies = &sync.Map{}
	val.answered = newAcceptances[responseKey]()
	val.compiled = &sync.Map{}
	val.renders.pinned, val.renders.placed, val.renders.unwarmable = val.cacheClashes(), map[clashEntry]*cache.SchemaCacheEntry{}, map[uint64]bool{}
	return val, nil
}

// Plain returns a validator that validates every request in full, without
// the memo of accepted requests or body plans (see Options.Plain in engine).
func (v *Validator) Plain() *Validator {
	p := *v
	p.memo, p.bodies, p.answered = nil, nil, nil
	return &p
}

// lazySchemaCache is libopenapi-validator's schema cache, except that it
// claims to hold every schema while NewValidator warms it. The library
// compiles every request and response schema of the document before it
// returns, seconds for a document of a few hundred kilobytes, most of them
// for operations a mock session never calls. With the warm-up skipped, each
// schema is compiled on its first use and cached from then on: every reader
// of the cache treats a nil entry as a miss.
//
// It also keeps a body's or a document's schema without its YAML text
// (Store).
type lazySchemaCache struct {
	warming atomic.Bool
	cache.SchemaCache
}

func (c *lazySchemaCache) Load(key uint64) (*cache.SchemaCacheEntry, bool) {
	if c.warming.Load() {
		return nil, true
	}
	return c.SchemaCache.Load(key)
}

// Store keeps entry without its YAML text (RenderedInline, and the same
// as a string, ReferenceSchema) unless key is a parameter's (the schema's
// own hash, which a body's and a document's keys mix with the version and
// the purpose). libopenapi-validator v0.14.0 parses that text again on
// every body or document its schema refuses
// (schema_validation.DiagnosticLocationNodes), only to give the lines of
// the failure within it, and quotes it in each failure; petctl reads
// neither. Parsing it was 145 µs of a refused create's 260 on adyen
// (BenchmarkCorpusInvalidCreate); without it the library locates the
// failure in the rendered node it already holds. A parameter's text is
// kept: the library's parameter errors quote it, and render the schema
// again where it is missing.
func (c *lazySchemaCache) Store(key uint64, entry *cache.SchemaCacheEntry) {
	if entry != nil && (len(entry.RenderedInline) > 0 || entry.ReferenceSchema != "") && entry.Schema != nil && entry.Schema.GoLow() != nil && key != entry.Schema.GoLow().Hash() {
		lean := *entry
		lean.RenderedInline, lean.ReferenceSchema = nil, ""
		entry = &lean
	}
	c.SchemaCache.Store(key, entry)
}

// intFormat bounds integers to the range of the format name (int32,
// int64); the validator decodes JSON numbers to float64, so values near
// the int64 bounds are only approximately checked here and exactly where
// petctl stores them.
func intFormat(name string) func(any) error {
	r, _ := intFormatRange(name)
	return func(val any) error {
		f, ok := val.(float64)
		if !ok || r.holds(f) {
			return nil
		}
		return fmt.Errorf("%v is outside the %s range", val, name)
	}
}

// intRange is the range of an integer format, as float64s.
type intRange struct{ lo, hi float64 }

func (r intRange) holds(f float64) bool { return f >= r.lo && f <= r.hi }

// intFormatRange is the range of the integer format petctl registers under
// name: what the validator's format function checks, and a plan.
func intFormatRange(name string) (intRange, bool) {
	switch name {
	case "int64":
		return intRange{math.MinInt64, math.MaxInt64}, true
	case "int32":
		return intRange{math.MinInt32, math.MaxInt32}, true
	}
	return intRange{}, false
}

// Request validates r's parameters and body against op. The body is read and
// restored, so the caller can read it again. A request identical (in all
// the validator reads) to one it accepted before is accepted again without
// repeating the work; see requestMemo.
func (v *Validator) Request(r *http.Request, op *Operation) Problems {
	key, kind := v.memo.key(r, op)
	switch {
	case kind == memoLine && v.memo.accepted(key):
		return nil
	case kind == memoBody && v.memo.accepted(key) && v.memo.quickBody(r, op):
		return nil
	}
	return v.request(r, op, key, kind)
}

// RequestDecoded is Request for a caller that has already read r's body,
// put it back, and decoded it to doc: the value encoding/json decodes from
// it, with numbers as json.Number or float64. The quick path then uses doc
// instead of decoding the body a second time.
func (v *Validator) RequestDecoded(r *http.Request, op *Operation, doc any) Problems {
	// Only an operation that declares a form body reads the Content-Type
	// again: parsing it costs every request.
	if form, ok := doc.(map[string]any); ok && op.Body != nil && op.Body.Form != nil && IsForm(r.Header.Get("Content-Type")) {
		// libopenapi-validator leaves form bodies alone (its own reading
		// is off: see DecodeForm); the rest of the request is its.
		return append(v.FormBody(op, form), v.Request(r, op)...)
	}
	key, kind := v.memo.key(r, op)
	switch {
	case kind == memoLine && v.memo.accepted(key):
		return nil
	case kind == memoBody && v.memo.accepted(key) && v.memo.quickDoc(r, op, doc):
		return nil
	}
	return v.request(r, op, key, kind)
}

func (v *Validator) request(r *http.Request, op *Operation, key requestKey, kind memoKind) Problems {
	var ok bool
	var errs []*verrors.ValidationError
	v.renders.do(op, func(alone bool) bool {
		warm := true
		if alone {
			v.placeClashing(op, bodyMediaType(op, r.Header.Get("Content-Type")))
			v.compileRequestBody(requestSchema(op, r.Header.Get("Content-Type")))
			warm = v.warmParameters(op, func() []cacheUse { return v.requestUses(op) })
		}
		ok, errs = v.v.ValidateHttpRequestSyncWithPathItem(r, op.PathItem, op.Path)
		if !ok && alone && notCompiled(errs) && v.cacheCompiled(requestSchema(op, r.Header.Get("Content-Type")), schema_validation.SchemaValidationPurposeRequestBody) {
			ok, errs = v.v.ValidateHttpRequestSyncWithPathItem(r, op.PathItem, op.Path)
		}
		if !ok && alone && v.cacheParametersCompiled(errs) {
			ok, errs = v.v.ValidateHttpRequestSyncWithPathItem(r, op.PathItem, op.Path)
		}
		return (ok || !compileFailed(errs)) && warm
	})
	if ok {
		if kind != memoNone {
			v.memo.accept(key)
		}
		return nil
	}
	return toProblems(errs)
}

// Response validates a response to op: the status must be declared, the
// content type must be one the response declares, and the body must match
// its schema. A declared body must be present: libopenapi-validator accepts
// an empty body and a JSON null, petctl does not.
func (v *Validator) Response(r *http.Request, op *Operation, status int, header http.Header, body []byte) Problems {
	resp := op.Response(status)
	if resp == nil {
		resp = op.Default
	}
	if resp == nil {
		return Problems{{Where: "status", Reason: fmt.Sprintf("%d is not a response %s declares", status, op.ID)}}
	}
	if len(resp.MediaTypes) == 0 {
		// No content declared (a default the description leaves open, or a
		// 204): the document says nothing about the body.
		return nil
	}
	ct := header.Get("Content-Type")
	head := r != nil && r.Method == http.MethodHead
	if head && ct == "" {
		// An answer to HEAD may leave out what only its content would
		// determine (RFC 9110, section 9.3.2); one it gives is judged.
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	declared := ""
	if err == nil {
		declared = declaredFor(resp.MediaTypes, mt)
	}
	if declared == "" {
		return Problems{{Where: "Content-Type", Reason: fmt.Sprintf("%q is not declared for %d (want %s)", ct, status, strings.Join(resp.MediaTypes, ", "))}}
	}
	ranged := !strings.EqualFold(declared, mt) // */* declared, application/json sent
	if ranged && !IsJSON(mt) {
		// The range's schema describes the JSON it stands for; another
		// type in it (a page of HTML) is only what the range allows.
		return nil
	}
	if resp.Schema == nil || head {
		// An answer to HEAD carries no body (RFC 9110, section 9.3.2): its
		// status and headers are what it says. (libopenapi-validator
		// refuses any body given for one, and a server validates the
		// representation it leaves out.)
		return nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return Problems{{Where: "body", Reason: fmt.Sprintf("empty, but %d declares a %s body", status, mt)}}
	}
	if bytes.Equal(trimmed, []byte("null")) && !allowsNull(resp.Schema) {
		return Problems{{Where: "body", Reason: "null, but the schema does not allow null"}}
	}
	if v.quickResponse(op, resp, status, mt, declared, body) {
		return nil
	}
	res := &http.Response{
		StatusCode: status,
		Header:     header,
		Body:       io.NopCloser(bytes.NewReader(body)),
		Request:    r,
	}
	var ok bool
	var errs []*verrors.ValidationError
	validate := func() {
		res.Body = io.NopCloser(bytes.NewReader(body))
		if ranged {
			ok, errs = v.rangeResponse(r, res, op, resp, declared)
			return
		}
		ok, errs = v.v.GetResponseBodyValidator().ValidateResponseBodyWithPathItem(r, res, op.PathItem, op.Path)
	}
	use := responseUse{resp, declared}
	v.renders.do(use, func(alone bool) bool {
		warm := true
		if alone {
			v.placeClashing(use, "")
			warm = v.warmParameters(use, func() []cacheUse { return v.responseUses(op, use) })
		}
		validate()
		if !ok && alone && notCompiled(errs) && v.cacheCompiled(mediaSchema(op, resp, declared), schema_validation.SchemaValidationPurposeResponseBody) {
			validate()
		}
		return (ok || !compileFailed(errs)) && warm
	})
	if ok {
		return nil
	}
	return toProblems(errs)
}

// quickResponse reports whether body is valid for resp's media type mt,
// deciding it without libopenapi-validator's per-call work: it hashes the
// schema to find it in its cache and goes through its decoder registry on
// every call, most of the cost of validating a small body (a list's
// envelope whose items start-up proved). The body is decoded and held to
// the schema the library compiles for it, as the library does; false means
// "not shown valid here", and the library then gives the verdict and its
// wording. Only where the library would do nothing more: the response is
// declared for this exact status and declares no headers (the library
// validates them too), and mt is a JSON type, which it decodes with
// encoding/json.
func (v *Validator) quickResponse(op *Operation, resp *Response, status int, mt, declared string, body []byte) bool {
	if v.bodies == nil || len(resp.Headers) > 0 || resp.Code != strconv.Itoa(status) || !strings.Contains(strings.ToLower(mt), "json") {
		return false
	}
	use := responseUse{resp, declared}
	cached, ok := v.bodies.Load(use)
	if !ok {
		var rs *ResponseSchema
		if schema := mediaSchema(op, resp, declared); schema != nil {
			rs, _ = v.LazyResponseSchema(schema, nil)
		}
		cached, _ = v.bodies.LoadOrStore(use, rs)
	}
	rs := cached.(*ResponseSchema)
	if rs == nil {
		return false
	}
	var key responseKey
	small := len(body) <= memoKeyBytes // a larger body is neither looked up nor copied into a key
	if small {
		key = responseKey{use, string(body)}
		if v.answered.accepted(key) {
			return true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var doc any
	if dec.Decode(&doc) != nil || doc == nil {
		return false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return false
	}
	if rs.Validate(doc) != nil {
		return false
	}
	if small {
		v.answered.accept(key)
	}
	return true
}

// rangeResponse validates res, sent as JSON for a response that declares
// a range it falls in (*/*), against the range's schema and the response's
// headers, as the response validator checks a declared type: the validator
// looks the sent type up exactly and would find none.
func (v *Validator) rangeResponse(r *http.Request, res *http.Response, op *Operation, resp *Response, declared string) (bool, []*verrors.ValidationError) {
	var errs []*verrors.ValidationError
	if schema := mediaSchema(op, resp, declared); schema != nil {
		_, bodyErrs := responses.ValidateResponseSchema(&responses.ValidateResponseSchemaInput{
			Request: r, Response: res, Schema: schema, Version: v.version,
			Options: []config.Option{config.WithExistingOpts(v.opts)},
		})
		errs = append(errs, bodyErrs...)
	}
	if lib := libResponse(op, resp); lib != nil && lib.Headers != nil {
		_, headerErrs := responses.ValidateResponseHeaders(r, res, lib.Headers, op.Path, resp.Code, config.WithExistingOpts(v.opts))
		errs = append(errs, headerErrs...)
	}
	return len(errs) == 0, errs
}

// DocumentError validates an error body against the document's most
// common error schema (Spec.ErrorSchema): what a configured error answer
// the operation does not declare is held to. Nil where the document
// declares none.
func (v *Validator) DocumentError(doc []byte) Problems {
	return v.Schema(v.errorSchema, doc)
}

// Schema validates a JSON document against schema (a record, an error body).
func (v *Validator) Schema(schema *base.Schema, doc []byte) Problems {
	if schema == nil {
		return nil
	}
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) == 0 {
		return Problems{{Where: "body", Reason: "empty"}}
	}
	// A valid document, nearly every one, is shown so by the schema
	// compiled per node (compileSchema), without the library's schema
	// validator: that keys its cache by libopenapi's hash, which schemas
	// that differ can share (see cacheClashes), and the schemas given here
	// (records, forms, error bodies) are not known beforehand.
	var decoded any
	if json.Unmarshal(trimmed, &decoded) == nil && decoded != nil {
		if rs, err := v.compileSchema(schema, schema_validation.SchemaValidationPurposeGeneric); err == nil && rs.Validate(decoded) == nil {
			return nil
		}
	}
	// The library words the verdict, alone, with this schema's own
	// compile put under its key first.
	var ok bool
	var errs []*verrors.ValidationError
	v.renders.alone(func() {
		v.place(v.documentUse(schema))
		ok, errs = v.schemas.ValidateSchemaBytesWithVersion(schema, doc, v.version)
	})
	if ok {
		return nil
	}
	ps := toProblems(errs)
	for i := range ps { // a document on its own has fields, not a body
		ps[i].Where = strings.TrimSpace(strings.TrimPrefix(ps[i].Where, "body"))
	}
	return ps
}

// ResponseSchema is a response body schema compiled as compile compiles
// it: the rendering libopenapi-validator makes to validate a response body
// (response direction), its options, formats and OpenAPI version.
type ResponseSchema struct {
	// Hash identifies the schema's content (contentHash): two schemas
	// with the same hash accept the same documents.
	Hash uint64
	// compile, when set, compiles the schema on first use (see
	// LazyResponseSchema); once guards it and err keeps its failure.
	compile func() (*ResponseSchema, error)
	once    sync.Once
	err     error
	// compiled is the schema; plan its quick acceptance test, nil where
	// it has none.
	compiled *jsonschema.Schema
	plan     *valuePlan
}

// SchemaHash is the content hash of a schema of the document
// (contentHash), as ResponseSchema.Hash has it; ok is false for a schema
// without one.
func SchemaHash(s *base.Schema) (hash uint64, ok bool) {
	if s == nil {
		return 0, false
	}
	return contentHash(s)
}

// PlainArrayItemsHash is the hash of S where s is {type: array, items: S}
// and nothing that constrains the array as a whole: by JSON Schema's
// definition of items, an array is then valid against s exactly when each
// element is valid against S. ok is false for any other schema.
func PlainArrayItemsHash(s *base.Schema) (hash uint64, ok bool) {
	if s == nil || len(s.Type) != 1 || s.Type[0] != "array" || s.Items == nil || !s.Items.IsA() || s.Items.A == nil {
		return 0, false
	}
	plain := s.MaxItems == nil && s.MinItems == nil && s.UniqueItems == nil &&
		s.Contains == nil && s.MinContains == nil && s.MaxContains == nil &&
		len(s.PrefixItems) == 0 && s.UnevaluatedItems == nil &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil &&
		s.If == nil && s.Then == nil && s.Else == nil &&
		len(s.Enum) == 0 && s.Const == nil && s.Nullable == nil &&
		s.WriteOnly == nil && s.ReadOnly == nil && s.DynamicRef == "" && s.Id == ""
	if !plain {
		return 0, false
	}
	return SchemaHash(s.Items.A.Schema())
}

// EnvelopeItemsHash is PlainArrayItemsHash of the array at path at (one
// property name per level) inside the object schema s, when nothing else in
// s can see that array's contents. Each object on the way must reach the
// next level through properties alone and have none of the keywords that
// look at a property's value some other way: allOf, anyOf, oneOf, not,
// if/then/else, enum, const, patternProperties, dependentSchemas,
// unevaluatedProperties, a discriminator, $id or $dynamicRef; and no $ref on
// the way may carry sibling keywords (OpenAPI 3.1 applies them). The other
// keywords of those objects (required, additionalProperties,
// propertyNames, min- and maxProperties, dependentRequired) read only which
// properties are present, never their values; properties applies the next
// level's schema to the next level alone. An answer whose array holds only
// elements valid against the items schema is then valid against s exactly
// when the same answer with an empty array in its place is. ok is false for
// any other schema.
func EnvelopeItemsHash(s *base.Schema, at []string) (hash uint64, ok bool) {
	inner, ok := sealedPath(s, at)
	if !ok {
		return 0, false
	}
	return PlainArrayItemsHash(inner)
}

// sealedPath is the schema at path at inside s, when every object on the
// way reaches the next level through properties alone (see
// EnvelopeItemsHash).
func sealedPath(s *base.Schema, at []string) (*base.Schema, bool) {
	if len(at) == 0 {
		return nil, false
	}
	for _, name := range at {
		if s == nil || !sealedObject(s) || s.Properties == nil {
			return nil, false
		}
		proxy, found := s.Properties.Get(name)
		if !found || proxy == nil || refSiblings(proxy) {
			return nil, false
		}
		s = proxy.Schema()
	}
	return s, s != nil
}

// WrappedItemHash is the hash of the schema of property field of s, where
// an answer that is an object of that one property ({"plan": {...}}) is
// valid against s exactly when the property's value is valid against that
// schema. s reaches field through properties alone, as each level of
// EnvelopeItemsHash does, and the keywords that read which properties are
// present must take an object of field alone: a type of object (or none),
// nothing required but field, at least 0 or 1 and at most 1 or more
// properties, no propertyNames and no dependentRequired. ok is false for
// any other schema.
func WrappedItemHash(s *base.Schema, field string) (hash uint64, ok bool) {
	inner, ok := sealedPath(s, []string{field})
	if !ok {
		return 0, false
	}
	if len(s.Type) > 0 && !slices.Contains(s.Type, "object") ||
		s.MinProperties != nil && *s.MinProperties > 1 || s.MaxProperties != nil && *s.MaxProperties < 1 ||
		s.PropertyNames != nil || s.DependentRequired != nil && s.DependentRequired.Len() > 0 {
		return 0, false
	}
	for _, r := range s.Required {
		if r != field {
			return 0, false
		}
	}
	return SchemaHash(inner)
}

// sealedObject reports whether s applies nothing to its properties' values
// beyond properties and additionalProperties (see EnvelopeItemsHash).
func sealedObject(s *base.Schema) bool {
	return len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil &&
		s.If == nil && s.Then == nil && s.Else == nil &&
		len(s.Enum) == 0 && s.Const == nil &&
		(s.PatternProperties == nil || s.PatternProperties.Len() == 0) &&
		(s.DependentSchemas == nil || s.DependentSchemas.Len() == 0) &&
		s.UnevaluatedProperties == nil && s.Discriminator == nil &&
		s.Id == "" && s.DynamicRef == ""
}

// refSiblings reports whether proxy is a $ref written beside other
// keywords, which OpenAPI 3.1 applies too.
func refSiblings(proxy *base.SchemaProxy) bool {
	if !proxy.IsReference() || proxy.GoLow() == nil {
		return false
	}
	n := proxy.GoLow().GetReferenceNode()
	return n != nil && len(n.Content) > 2
}

// ErrNotCompiled marks a Validate that could not run because the schema
// did not compile: the schema has no verdict, and the caller decides the
// slower way (libopenapi-validator on the document).
var ErrNotCompiled = errors.New("the schema did not compile")

// CompileResponseSchema compiles schema as a response body schema.
func (v *Validator) CompileResponseSchema(schema *base.Schema) (*ResponseSchema, error) {
	return v.compileSchema(schema, schema_validation.SchemaValidationPurposeResponseBody)
}

// CompileRecordSchema compiles an item schema as a response body schema
// now: LazyRecordSchema is what the server uses; this is for callers that
// need the compiled schema's plan as it is (tests, benchmarks).
func (v *Validator) CompileRecordSchema(s *Schema) (*ResponseSchema, error) {
	if s == nil {
		return nil, errors.New("no schema")
	}
	return v.CompileResponseSchema(s.lib)
}

// LazyRecordSchema is LazyResponseSchema for an item schema: records are
// held to it as a response body, since every answer that carries one is
// validated as a response.
func (v *Validator) LazyRecordSchema(s *Schema, onError func(error)) (*ResponseSchema, error) {
	if s == nil {
		return nil, errors.New("no schema")
	}
	return v.LazyResponseSchema(s.lib, onError)
}

// Record validates a JSON document (a record, a part of one) against a
// schema of the document.
func (v *Validator) Record(s *Schema, doc []byte) Problems {
	if s == nil {
		return nil
	}
	return v.Schema(s.lib, doc)
}

// LazyResponseSchema is CompileResponseSchema put off until the schema is
// first used (Validate, or a plan's Accepts): its Hash is known at once.
// Compiling every item schema of a document of a few hundred kilobytes
// takes seconds at start-up, most of them for collections a mock session
// never stores into. onError is told, once, when the schema turns out not
// to compile; Validate then returns an error that wraps ErrNotCompiled.
// The error is for a schema that cannot be compiled at all (none given).
func (v *Validator) LazyResponseSchema(schema *base.Schema, onError func(error)) (*ResponseSchema, error) {
	if schema == nil || schema.GoLow() == nil {
		return nil, errors.New("no schema")
	}
	var h uint64
	var ok bool
	// Alone: the library's renders write the nodes it reads (compileSchema).
	v.renders.alone(func() { h, ok = contentHash(schema) })
	if !ok {
		return nil, errors.New("the schema has no node in the document")
	}
	rs := &ResponseSchema{Hash: h}
	rs.compile = func() (*ResponseSchema, error) {
		c, err := v.CompileResponseSchema(schema)
		if err != nil && onError != nil {
			onError(err)
		}
		return c, err
	}
	return rs, nil
}

// ready compiles a lazy schema the first time it is needed; it returns why
// the schema did not compile, or nil.
func (rs *ResponseSchema) ready() error {
	rs.once.Do(func() {
		if rs.compile == nil {
			return
		}
		c, err := rs.compile()
		if err != nil {
			rs.err = err
			return
		}
		rs.compiled, rs.plan = c.compiled, c.plan
	})
	return rs.err
}

// compileSchema compiles schema as the validator does for purpose.
func (v *Validator) compileSchema(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) (*ResponseSchema, error) {
	if schema == nil || schema.GoLow() == nil {
		return nil, errors.New("no schema")
	}
	key := compiledKey{schema.GoLow().GetRootNode(), purpose}
	if key.node == nil {
		return nil, errors.New("the schema has no node in the document")
	}
	if rs, ok := v.compiled.Load(key); ok {
		return rs.(*ResponseSchema), nil
	}
	var c *schema_validation.CompiledValidationSchema
	var err error
	var h uint64
	// The hash reads the document's nodes, which the library's renders
	// write (their tags: yaml's Desolve), so it runs alone too.
	v.renders.alone(func() {
		c, err = v.compile(schema, purpose)
		h, _ = contentHash(schema) // key.node is its root: it has one
	})
	if err != nil {
		return nil, err
	}
	if c == nil || c.CompiledSchema == nil {
		return nil, ErrNotCompiled
	}
	rs, _ := v.compiled.LoadOrStore(key, &ResponseSchema{compiled: c.CompiledSchema, Hash: h, plan: planOf(c.CompiledSchema)})
	return rs.(*ResponseSchema), nil
}

// compiledKey is a schema compiled for a purpose: its node in the
// document, which every $ref to it resolves to. libopenapi's content hash,
// the library's schema cache key, is no such key: it writes keywords'
// values without their names, so that {items: X} and {contains: X} hash
// alike, and so do {minimum: 5} and {maximum: 5}.
type compiledKey struct {
	node    *yaml.Node
	purpose schema_validation.SchemaValidationPurpose
}

// Validate checks a decoded document (as encoding/json decodes into any)
// the way the response validator does, and returns the first violation.
// The schema's plan accepts most valid documents first, without the
// validator's allocations.
func (rs *ResponseSchema) Validate(doc any) error {
	if err := rs.ready(); err != nil {
		return fmt.Errorf("%w: %v", ErrNotCompiled, err)
	}
	if doc == nil {
		return errors.New("null, but the schema does not allow null")
	}
	if rs.plan.accepts(doc) {
		return nil
	}
	return rs.compiled.Validate(doc)
}

// quickly reports whether the schema's plan accepts doc, decoded as
// encoding/json decodes it with UseNumber or without; false is "not sure".
func (rs *ResponseSchema) quickly(doc any) bool {
	return rs.ready() == nil && doc != nil && rs.plan.accepts(doc)
}

func allowsNull(s *base.Schema) bool {
	if s == nil {
		return true
	}
	if len(s.Type) == 0 && s.Nullable == nil {
		return len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 // let the validator decide
	}
	if s.Nullable != nil && *s.Nullable {
		return true
	}
	return slices.Contains(s.Type, "null")
}

func toProblems(errs []*verrors.ValidationError) Problems {
	var out Problems
	for _, e := range errs {
		where := describe(e)
		if len(e.SchemaValidationErrors) == 0 {
			out = append(out, Problem{Where: where, Reason: reason(e)})
			continue
		}
		for _, se := range e.SchemaValidationErrors {
			w := where
			if field := fieldPath(se); field != "" && (where == "" || where == "body") {
				w = strings.TrimSpace(where + " field '" + field + "'")
			}
			out = append(out, Problem{Where: w, Reason: se.Reason})
		}
	}
	return out
}

func describe(e *verrors.ValidationError) string {
	switch e.ValidationType {
	case helpers.ParameterValidation:
		in := e.ValidationSubType // query, path, header or cookie
		if e.ParameterName != "" {
			return fmt.Sprintf("%s parameter '%s'", in, e.ParameterName)
		}
		return in + " parameter"
	case helpers.RequestBodyValidation:
		if e.ValidationSubType == helpers.RequestBodyContentType {
			return "Content-Type"
		}
		return "body"
	case helpers.ResponseBodyValidation:
		switch {
		case strings.Contains(e.Message, "content type"):
			return "Content-Type"
		case strings.Contains(e.Message, "response code"):
			return "status"
		case e.ValidationSubType == helpers.ParameterValidationHeader || strings.Contains(strings.ToLower(e.Message), "header"):
			return "header"
		}
		return "body"
	}
	return ""
}

func reason(e *verrors.ValidationError) string {
	if e.Reason != "" {
		return e.Reason
	}
	return e.Message
}

func fieldPath(se *verrors.SchemaValidationFailure) string {
	p := strings.TrimPrefix(se.FieldPath, "$")
	p = strings.TrimPrefix(p, ".")
	if p == "" && len(se.InstancePath) > 0 {
		p = strings.Join(se.InstancePath, ".")
	}
	return p
}

// responseUse is the key of a response body's first validation: one
// schema per declared response and media type.
type responseUse struct {
	resp      *Response
	mediaType string
}

// compile compiles schema for purpose as one self-contained document (its
// inline rendering, refs resolved) and, where that rendering keeps a $ref
// (a cycle), as libopenapi-validator does. For a schema with $refs the
// library compiles a graph of whole files: each compile renders, converts
// and decodes the entire document again, about 8 ms a schema in a 0.6 MB
// document (adyen's 485 response schemas: 4.0 s that way, 0.25 s alone;
// BenchmarkCompileResponseSchemas). The inline rendering is what the
// library renders first in any case, and it validates the same (the same
// OpenAPI 3.0 reading; TestCorpusCompiledAloneAgrees), except where a $ref
// it reaches has siblings (refSiblingsReachable): those are compiled the
// library's way first, as before. One difference is kept on purpose: a
// required property whose readOnly (writeOnly) is behind a $ref is
// required of responses (requests) only, as OpenAPI says and as it is
// when written inline; the library's compile prunes required before it
// resolves the $ref, and so requires it of both (TestRefReadOnlyRequired).
//
// The inline rendering also compiles where the library's graph misses a
// whole-file $ref made from a file in another folder (eclipse-ditto:
// thing.yml names ../features/features.yml, which names feature.yml, which
// names featureProperties.yml): the library's compiler then reads that
// YAML file from disk as JSON and fails, though the document is sound.
func (v *Validator) compile(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) (*schema_validation.CompiledValidationSchema, error) {
	if !refSiblingsReachable(schema) {
		if alone := v.compileAlone(schema, purpose); alone != nil {
			return alone, nil
		}
		return schema_validation.CompileSchemaForValidation(schema, purpose, v.opts, v.version)
	}
	c, err := schema_validation.CompileSchemaForValidation(schema, purpose, v.opts, v.version)
	if err == nil {
		return c, nil
	}
	if alone := v.compileAlone(schema, purpose); alone != nil {
		return alone, nil
	}
	return nil, err
}

// compileAlone compiles schema's inline rendering for purpose as one
// document, or returns nil where the rendering keeps a $ref (a cycle) or
// does not compile either. The validator's inliner renders it; where it
// is not sure, or its rendering does not compile, the library's. The
// inliner copies values as written, and the library's model reads some
// that no compile takes into ones it does: a bound written as a string,
// OpenAPI 3.0's boolean exclusiveMinimum in a 3.1 document.
func (v *Validator) compileAlone(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) *schema_validation.CompiledValidationSchema {
	name := fmt.Sprintf("%x", schema.GoLow().Hash())
	node, ok, cyclic := v.inline.render(schema, purpose)
	if cyclic {
		return nil // the library's rendering keeps a $ref too
	}
	if ok {
		if c := v.compileRendered(name, node, inlineJSON(node)); c != nil {
			return c
		}
	}
	rendered, err := schema_validation.RenderSchemaForValidation(schema, purpose)
	if err != nil || rendered == nil {
		return nil
	}
	return v.compileRendered(name, rendered.RenderedNode, rendered.RenderedJSON)
}

// compileRendered compiles a schema rendered inline, as node and as JSON,
// under name; nil where it keeps a $ref or does not compile.
func (v *Validator) compileRendered(name string, node *yaml.Node, rendered []byte) *schema_validation.CompiledValidationSchema {
	if rendered == nil || bytes.Contains(rendered, []byte(`"$ref"`)) {
		return nil
	}
	compiled, err := helpers.NewCompiledSchemaWithVersion(name, rendered, v.opts, v.version)
	if err != nil && v.version >= 3.05 && strings.Contains(err.Error(), "nullable") {
		// OpenAPI 3.0's nullable in a 3.1 document, a common generator
		// quirk every other tool accepts: read as 3.0 reads it (null
		// allowed), rather than refusing every request to the operation.
		compiled, err = helpers.NewCompiledSchemaWithVersion(name, rendered, v.opts, 3.0)
	}
	if err != nil {
		return nil
	}
	// No RenderedInline, the YAML text: petctl reads none of what the
	// library makes of it (see lazySchemaCache.Store).
	return &schema_validation.CompiledValidationSchema{
		RenderedJSON:   rendered,
		RenderedNode:   node,
		ResourceNodes:  map[string]*yaml.Node{"": node, name: node},
		CompiledSchema: compiled,
	}
}

// inlineJSON is a rendered schema as JSON, nil where it has no JSON form
// (a mapping key that is not a string).
func inlineJSON(node *yaml.Node) []byte {
	var doc any
	if node.Decode(&doc) != nil {
		return nil
	}
	rendered, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	return rendered
}

// compileRequestBody puts a request body's schema, compiled as compile
// compiles a response's (its inline rendering alone), in the validator's
// schema cache before the library's request validation looks for it
// there: the library's own compile of a schema with $refs decodes the
// whole document again. A schema that reaches a $ref with siblings is left
// to the library's compile, as compile leaves it.
func (v *Validator) compileRequestBody(schema *base.Schema) {
	if schema == nil || schema.GoLow() == nil || v.opts.SchemaCache == nil || refSiblingsReachable(schema) {
		return
	}
	purpose := schema_validation.SchemaValidationPurposeRequestBody
	if c, ok := v.opts.SchemaCache.Load(v.bodyUse(schema, purpose).key); ok && c != nil && c.CompiledSchema != nil {
		return
	}
	v.cacheCompiled(schema, purpose)
}

// cacheCompiled compiles schema alone and puts it in the validator's
// schema cache under the key the library looks it up by, so the library's
// next validation of that body uses it instead of compiling it (where its
// own compile failed, again). It reports whether there is something new to
// retry with.
func (v *Validator) cacheCompiled(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) bool {
	if schema == nil || schema.GoLow() == nil || v.opts.SchemaCache == nil {
		return false
	}
	c := v.compileAlone(schema, purpose)
	if c == nil {
		return false
	}
	v.opts.SchemaCache.Store(v.bodyUse(schema, purpose).key, c.ToCacheEntry(schema))
	return true
}

// parameterSchemaVersion is the OpenAPI version libopenapi-validator
// v0.14.0 compiles every parameter schema as, whatever the document's
// (parameters.parameterSchemaVersion): a 3.0 document's nullable
// parameter then fails to compile, and every request to its operation is
// refused 400 (overseerr's take, nullable: true).
const parameterSchemaVersion = 3.1

// cacheParametersCompiled compiles, as the document's version reads them,
// the parameter schemas errs says did not compile, and puts them in the
// schema cache under the key the library's parameter validation looks
// them up by. It reports whether there is something new to retry with.
func (v *Validator) cacheParametersCompiled(errs []*verrors.ValidationError) bool {
	if v.opts.SchemaCache == nil {
		return false
	}
	cached := false
	for _, e := range errs {
		schema, ok := e.Context.(*base.Schema)
		if !ok || schema == nil || schema.GoLow() == nil || !strings.Contains(e.Message, "failed schema compilation") {
			continue
		}
		c, err := v.compileParameter(schema, e.Reason)
		if err != nil {
			continue
		}
		v.opts.SchemaCache.Store(parameterUse(schema).key, c.ToCacheEntry(schema))
		cached = true
	}
	return cached
}

// warmParameters puts in the library's cache each parameter schema among
// owner's uses (an operation's parameters, a response's headers) that it
// lacks, compiled as the library would (compileUse). The library renders
// and compiles a parameter's schema on the first request (or response)
// that carries the parameter, and a later one may carry one the first did
// not: that render, running beside other uses, would write the document's
// nodes as they are read. Called alone only. It reports whether every one
// compiled: owner's uses run alone while one does not, as the library
// renders it again on each; it is tried once (unwarmable). A pinned owner
// (cacheClashes) always runs alone and places its own: its uses, alone
// on every request, are not even listed.
func (v *Validator) warmParameters(owner any, uses func() []cacheUse) bool {
	if _, pinned := v.renders.pinned[owner]; pinned || v.opts.SchemaCache == nil {
		return true
	}
	all := true
	for _, u := range uses() {
		if u.kind != useParameter {
			continue
		}
		if v.renders.unwarmable[u.key] {
			all = false
			continue
		}
		if e, ok := v.opts.SchemaCache.Load(u.key); ok && e != nil && e.CompiledSchema != nil {
			continue
		}
		e := v.compileUse(u)
		if e == nil {
			v.renders.unwarmable[u.key] = true
			all = false
			continue
		}
		v.opts.SchemaCache.Store(u.key, e)
	}
	return all
}

// compileParameter compiles a parameter schema the library's compile
// refused (why says why) as the document's version reads it.
func (v *Validator) compileParameter(schema *base.Schema, why string) (*schema_validation.CompiledValidationSchema, error) {
	version := v.version
	if strings.Contains(why, "nullable") {
		version = 3.0 // as compileAlone reads a 3.1 document's nullable
	}
	return schema_validation.CompileSchemaForValidation(schema, schema_validation.SchemaValidationPurposeGeneric, v.opts, version)
}

// compileFailed reports whether errs include a schema that did not
// compile, a body's, a parameter's or a document's.
func compileFailed(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if strings.Contains(e.Reason, "failed to compile") || strings.Contains(e.Message, "failed schema compilation") || e.Message == "schema compilation failed" {
			return true
		}
	}
	return false
}

// notCompiled reports whether the library gave up on a body because its
// schema did not compile (rather than finding the body invalid).
func notCompiled(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationSubType == helpers.Schema && strings.Contains(e.Reason, "failed to compile") {
			return true
		}
	}
	return false
}

// requestSchema is the schema op declares for a request body of contentType.
func requestSchema(op *Operation, contentType string) *base.Schema {
	name := bodyMediaType(op, contentType)
	if name == "" {
		return nil
	}
	if m := op.Op.RequestBody.Content.GetOrZero(name); m != nil && m.Schema != nil {
		return m.Schema.Schema()
	}
	return nil
}

// bodyMediaType is the media type of op's request body that a body of
// contentType is validated against, found as libopenapi-validator finds
// it: the type itself, else the first range declared that holds it
// (application/*, */*); "" for none.
func bodyMediaType(op *Operation, contentType string) string {
	// The library keeps the type of a Content-Type whose parameters do
	// not parse (application/json; charset), and so does this.
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) || op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Content == nil {
		return ""
	}
	for name := range op.Op.RequestBody.Content.KeysFromOldest() {
		if strings.EqualFold(name, mt) {
			return name
		}
	}
	major, minor, _ := strings.Cut(mt, "/")
	for name := range op.Op.RequestBody.Content.KeysFromOldest() {
		if m, n, _ := strings.Cut(name, "/"); (m == "*" || m == major) && (n == "*" || n == minor) {
			return name
		}
	}
	return ""
}
