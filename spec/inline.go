package spec

import (
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"
)

// inliner renders a schema with every $ref replaced by what it names, for
// a purpose, as libopenapi-validator's RenderSchemaForValidation does, for
// compileAlone (TestCorpusInlineAgrees holds the two to the same JSON on
// up to 60 body schemas of each corpus document, TestInlineAgreesOnEdges
// on every keyword the inliner treats apart). The library renders through
// its high-level model, by reflection, and again for every schema that
// reaches a component: a third of a conformance run's CPU on lago, which
// renders 282 body schemas 377 times (for their purposes) into 2.7 MB.
// The inliner copies the document's own nodes, reading them as the
// library's model does, and renders each schema once per purpose (memo).
//
// It renders only what it is sure of and otherwise says so (ok false), for
// the library to render: a cycle, a $ref it cannot resolve (a chain of
// them), a YAML merge key, an alias in a required list, a boolean where
// a schema stands in a list or under a name (the library writes false
// there as {}, which allows anything). No $ref with siblings reaches it (compile checks
// refSiblingsReachable first).
type inliner struct {
	mu sync.Mutex
	// memo holds each schema node rendered for a purpose. Entries are
	// shared between renders and never changed: pruning a required list
	// copies the node it changes.
	memo map[inlineKey]*yaml.Node
}

type inlineKey struct {
	node    *yaml.Node
	purpose schema_validation.SchemaValidationPurpose
}

// inlineKeywords are the schema keywords the library's high-level model
// keeps (base.Schema's fields), whose values are no schemas: copied as
// written. Any other keyword, x- extensions aside, the library drops.
var inlineKeywords = map[string]bool{
	"$schema": true, "exclusiveMaximum": true, "exclusiveMinimum": true, "type": true,
	"discriminator": true, "examples": true, "minContains": true, "maxContains": true,
	"dependentRequired": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
	"$dynamicRef": true, "$comment": true, "$vocabulary": true, "title": true,
	"multipleOf": true, "maximum": true, "minimum": true, "maxLength": true,
	"minLength": true, "pattern": true, "format": true, "maxItems": true, "minItems": true,
	"uniqueItems": true, "maxProperties": true, "minProperties": true, "required": true,
	"enum": true, "description": true, "contentEncoding": true, "contentMediaType": true,
	"default": true, "const": true, "nullable": true, "readOnly": true, "writeOnly": true,
	"xml": true, "externalDocs": true, "example": true, "deprecated": true,
}

// render renders schema for purpose; ok is false where it leaves the
// rendering to the library, and cyclic is true where that is because the
// schema reaches itself: the library's rendering then keeps a $ref, which
// no compile of it alone resolves (see compileAlone).
func (in *inliner) render(schema *base.Schema, purpose schema_validation.SchemaValidationPurpose) (node *yaml.Node, ok, cyclic bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.memo == nil {
		in.memo = map[inlineKey]*yaml.Node{}
	}
	w := inlineWalk{in: in, onPath: map[*yaml.Node]bool{}}
	node, ok = w.schema(schema, purpose)
	return node, ok, w.cyclic
}

// inlineWalk is one render: onPath holds the schemas being rendered, so
// that a cycle is found (cyclic) rather than followed.
type inlineWalk struct {
	in     *inliner
	onPath map[*yaml.Node]bool
	cyclic bool
}

func (w *inlineWalk) proxy(p *base.SchemaProxy, purpose schema_validation.SchemaValidationPurpose) (*yaml.Node, bool) {
	if p == nil {
		return nil, false
	}
	return w.schema(p.Schema(), purpose)
}

func (w *inlineWalk) schema(s *base.Schema, purpose schema_validation.SchemaValidationPurpose) (*yaml.Node, bool) {
	if s == nil || s.GoLow() == nil {
		return nil, false
	}
	src := s.GoLow().GetRootNode()
	if src == nil {
		return nil, false
	}
	if ref, ok := schemaRef(src); ok && len(src.Content) == 2 {
		// A file that is only a $ref to another (lago's
		// CreditNoteMetadataObject.yaml): the model read the schema from
		// the other; so is it rendered.
		target, _, found := resolveRef(s.GoLow().GetIndex(), ref)
		if !found {
			return nil, false
		}
		src = target
	}
	if w.onPath[src] {
		w.cyclic = true
		return nil, false
	}
	if src = unalias(src); src.Kind != yaml.MappingNode {
		return nil, false
	}
	key := inlineKey{src, purpose}
	if n, ok := w.in.memo[key]; ok {
		return n, true
	}
	w.onPath[src] = true
	defer delete(w.onPath, src)

	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: src.Line, Column: src.Column}
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], unalias(src.Content[i+1])
		var rendered *yaml.Node
		ok := true
		switch name := k.Value; {
		case k.Kind != yaml.ScalarNode || name == "<<" || name == "$ref":
			return nil, false
		case name == "properties":
			rendered, ok = w.schemas(v, s.Properties, purpose)
		case name == "patternProperties":
			rendered, ok = w.schemas(v, s.PatternProperties, purpose)
		case name == "dependentSchemas":
			rendered, ok = w.schemas(v, s.DependentSchemas, purpose)
		case name == "$defs":
			rendered, ok = w.schemas(v, s.Defs, purpose)
		case name == "allOf":
			rendered, ok = w.list(v, s.AllOf, purpose)
		case name == "anyOf":
			rendered, ok = w.list(v, s.AnyOf, purpose)
		case name == "oneOf":
			rendered, ok = w.list(v, s.OneOf, purpose)
		case name == "prefixItems":
			rendered, ok = w.list(v, s.PrefixItems, purpose)
		case name == "items":
			rendered, ok = w.either(v, s.Items, purpose)
		case name == "additionalProperties":
			rendered, ok = w.either(v, s.AdditionalProperties, purpose)
		case name == "unevaluatedProperties":
			rendered, ok = w.either(v, s.UnevaluatedProperties, purpose)
		case name == "not":
			rendered, ok = w.proxy(s.Not, purpose)
		case name == "contains":
			rendered, ok = w.proxy(s.Contains, purpose)
		case name == "if":
			rendered, ok = w.proxy(s.If, purpose)
		case name == "then":
			rendered, ok = w.proxy(s.Then, purpose)
		case name == "else":
			rendered, ok = w.proxy(s.Else, purpose)
		case name == "propertyNames":
			rendered, ok = w.proxy(s.PropertyNames, purpose)
		// The library prunes required lists along the keywords above
		// only; below these two, as written.
		case name == "unevaluatedItems":
			rendered, ok = w.proxy(s.UnevaluatedItems, schema_validation.SchemaValidationPurposeGeneric)
		case name == "contentSchema":
			rendered, ok = w.proxy(s.ContentSchema, schema_validation.SchemaValidationPurposeGeneric)
		case name == "type":
			rendered = typeNode(v)
		case name == "required" && hasAlias(v):
			// libopenapi reads an alias in the list as its anchor's
			// name (required: [*idName] requires "idName"); not
			// the inliner's to mend where the library's compile
			// would not.
			return nil, false
		case inlineKeywords[name] || len(name) > 2 && name[:2] == "x-":
			rendered = v
		default:
			continue // a keyword the library's model does not keep
		}
		if !ok {
			return nil, false
		}
		if omitted(k.Value, rendered) {
			continue
		}
		out.Content = append(out.Content, k, rendered)
	}
	pruneRequired(out, purpose)
	w.in.memo[key] = out
	return out, true
}

// typeNode is type as the library writes it: a list of one type as that
// type.
func typeNode(v *yaml.Node) *yaml.Node {
	if v.Kind == yaml.SequenceNode && len(v.Content) == 1 && v.Content[0].Kind == yaml.ScalarNode {
		return v.Content[0]
	}
	return v
}

// omitted reports whether the library leaves keyword out, its value
// being v: its model's lists are omitempty, and so are its numbers and
// booleans that are not renderZero, where zero or false (its strings and
// nodes, as description and default, are kept as they are).
func omitted(keyword string, v *yaml.Node) bool {
	switch {
	case v.Kind == yaml.SequenceNode:
		return len(v.Content) == 0 && listKeywords[keyword]
	case v.Kind != yaml.ScalarNode:
		return false
	case v.Tag == "!!bool":
		return zeroOmitted[keyword] && !yamlTrue(v)
	case v.Tag == "!!int" || v.Tag == "!!float":
		f, err := strconv.ParseFloat(v.Value, 64)
		return err == nil && f == 0 && zeroOmitted[keyword]
	}
	return false
}

// listKeywords are the keywords the library's model holds as a list, and
// zeroOmitted those it holds as a number or a boolean it leaves out when
// zero or false.
var (
	listKeywords = map[string]bool{
		"type": true, "allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true,
		"examples": true, "enum": true,
	}
	zeroOmitted = map[string]bool{"multipleOf": true, "uniqueItems": true, "nullable": true, "deprecated": true}
)

// hasAlias reports whether a list has an alias (*name) among its items.
func hasAlias(list *yaml.Node) bool {
	for _, item := range list.Content {
		if item.Kind == yaml.AliasNode {
			return true
		}
	}
	return false
}

// unalias is the node an alias (*name) stands for, any other node itself.
func unalias(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// yamlTrue reports whether a scalar is YAML's true, in any of its spellings
// (true, True, TRUE), as the library's model reads a boolean.
func yamlTrue(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && strings.EqualFold(n.Value, "true")
}

// schemas renders a mapping of names to schemas (properties, ...): each
// name's schema comes from the model, which has resolved its $ref.
func (w *inlineWalk) schemas(src *yaml.Node, model *orderedmap.Map[string, *base.SchemaProxy], purpose schema_validation.SchemaValidationPurpose) (*yaml.Node, bool) {
	if src.Kind != yaml.MappingNode || model == nil {
		return nil, false
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: src.Line, Column: src.Column}
	for i := 0; i+1 < len(src.Content); i += 2 {
		p, ok := model.Get(src.Content[i].Value)
		if !ok {
			return nil, false
		}
		n, ok := w.proxy(p, purpose)
		if !ok {
			return nil, false
		}
		out.Content = append(out.Content, src.Content[i], n)
	}
	return out, true
}

// list renders a list of schemas (allOf, ...).
func (w *inlineWalk) list(src *yaml.Node, model []*base.SchemaProxy, purpose schema_validation.SchemaValidationPurpose) (*yaml.Node, bool) {
	if src.Kind != yaml.SequenceNode || len(model) != len(src.Content) {
		return nil, false
	}
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: src.Line, Column: src.Column}
	for _, p := range model {
		n, ok := w.proxy(p, purpose)
		if !ok {
			return nil, false
		}
		out.Content = append(out.Content, n)
	}
	return out, true
}

// either renders a keyword whose value is a schema or a boolean (items,
// additionalProperties): a boolean as written.
func (w *inlineWalk) either(src *yaml.Node, model *base.DynamicValue[*base.SchemaProxy, bool], purpose schema_validation.SchemaValidationPurpose) (*yaml.Node, bool) {
	if model == nil {
		return nil, false
	}
	if !model.IsA() {
		if src.Kind != yaml.ScalarNode {
			return nil, false
		}
		return src, true
	}
	return w.proxy(model.A, purpose)
}

// pruneRequired leaves out of n's required list, for a request body, the
// properties that are readOnly and, for a response, those writeOnly, as
// OpenAPI says and the library's rendering for validation does; the list
// goes where none is left. n is the walk's own new node; the list is
// replaced, never changed, being the document's.
func pruneRequired(n *yaml.Node, purpose schema_validation.SchemaValidationPurpose) {
	var flag string
	switch purpose {
	case schema_validation.SchemaValidationPurposeRequestBody:
		flag = "readOnly"
	case schema_validation.SchemaValidationPurposeResponseBody:
		flag = "writeOnly"
	default:
		return
	}
	at, required := mappingPair(n, "required")
	props := mappingValue(n, "properties")
	if required == nil || required.Kind != yaml.SequenceNode || props == nil || props.Kind != yaml.MappingNode {
		return
	}
	var kept []*yaml.Node
	for _, name := range required.Content {
		if name.Kind != yaml.ScalarNode || !flagged(mappingValue(props, name.Value), flag) {
			kept = append(kept, name)
		}
	}
	switch {
	case len(kept) == 0: // an empty list too
		n.Content = append(n.Content[:at:at], n.Content[at+2:]...)
	case len(kept) == len(required.Content):
	default:
		list := *required
		list.Content = kept
		n.Content[at+1] = &list
	}
}

// flagged reports whether a property's schema says flag: true, itself or
// in one of the schemas its allOf, anyOf or oneOf combine.
func flagged(n *yaml.Node, flag string) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	if v := mappingValue(n, flag); v != nil && yamlTrue(unalias(v)) {
		return true
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list := mappingValue(n, k); list != nil && list.Kind == yaml.SequenceNode {
			for _, c := range list.Content {
				if flagged(c, flag) {
					return true
				}
			}
		}
	}
	return false
}

// mappingPair is the index of key's key node in mapping n and its value.
func mappingPair(n *yaml.Node, key string) (int, *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i, n.Content[i+1]
		}
	}
	return -1, nil
}

func mappingValue(n *yaml.Node, key string) *yaml.Node {
	_, v := mappingPair(n, key)
	return v
}
