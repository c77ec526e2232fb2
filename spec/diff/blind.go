package diff

// What what-changed cannot see. It skips every schema whose libopenapi
// hash is unchanged, and that hash writes keyword values without their
// names and leaves a $ref's siblings out: {minimum: 5} → {maximum: 5},
// {readOnly: true} → {nullable: true}, {$ref: Tax} → {$ref: Tax,
// required: [name]} all compare as no change, though each can break
// clients. So, after what-changed's tree is judged, the walker compares
// the two documents' schemas itself, at every place what-changed did not
// report on (walker.covered), and judges what differs there by the same
// rules (walker.keyword).

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/pb33f/libopenapi/what-changed/model"
	"github.com/petctl/petctl/spec"
	"go.yaml.in/yaml/v4"
)

// whyUnjudged is the reason for a change of a keyword petctl has no rule
// for, found where what-changed saw none.
const whyUnjudged = "petctl has no rule for this keyword, and what-changed took it for no change (its schema hash leaves keyword names out)"

// key names a place as covered records it.
func (p place) key() string { return p.op + "\x00" + p.where + "\x00" + p.field }

// subschemaKeywords hold schemas, compared one by one (blindSchema), not
// as values. items and additionalProperties hold one only when they are
// not a boolean.
var subschemaKeywords = map[string]bool{
	"properties": true, "not": true,
	"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "patternProperties": true,
	"contains": true, "if": true, "then": true, "else": true, "dependentSchemas": true,
	"propertyNames": true, "unevaluatedItems": true, "unevaluatedProperties": true, "$ref": true,
}

// blindSpots compares every schema the two documents share a place for:
// each operation's parameters, request bodies and responses, and each
// component schema.
func (w *walker) blindSpots(oldModel, newModel *v3.Document) {
	if oldModel.Paths != nil && newModel.Paths != nil && oldModel.Paths.PathItems != nil && newModel.Paths.PathItems != nil {
		for path, oldItem := range oldModel.Paths.PathItems.FromOldest() {
			newItem := newModel.Paths.PathItems.GetOrZero(path)
			if oldItem == nil || newItem == nil {
				continue
			}
			w.blindParameters(place{op: path}, oldItem.Parameters, newItem.Parameters)
			newOps := newItem.GetOperations()
			for method, oldOp := range oldItem.GetOperations().FromOldest() {
				newOp := newOps.GetOrZero(method)
				if oldOp == nil || newOp == nil {
					continue
				}
				w.blindOperation(strings.ToUpper(method), path, oldOp, newOp)
			}
		}
	}
	if oldModel.Components != nil && newModel.Components != nil && oldModel.Components.Schemas != nil && newModel.Components.Schemas != nil {
		for name, old := range oldModel.Components.Schemas.FromOldest() {
			dir := w.usage[name]
			if dir == 0 {
				dir = toServer | toClient // as components judges an unused one
			}
			w.blindSchema(place{where: "schema " + name + dir.note(), dir: dir}, old, newModel.Components.Schemas.GetOrZero(name), false)
		}
	}
}

func (w *walker) blindOperation(method, path string, old, new *v3.Operation) {
	at := place{op: method + " " + path}
	if op := w.new.Find(method, path); op != nil {
		at.op = opName(op)
	}
	w.blindParameters(at, old.Parameters, new.Parameters)
	if old.RequestBody != nil && new.RequestBody != nil {
		body := at.in("request body")
		body.dir = toServer
		w.blindContent(body, old.RequestBody.Content, new.RequestBody.Content)
	}
	if old.Responses == nil || new.Responses == nil {
		return
	}
	if old.Responses.Codes != nil && new.Responses.Codes != nil {
		for code, oldResp := range old.Responses.Codes.FromOldest() {
			w.blindResponse(at.in("response "+code), oldResp, new.Responses.Codes.GetOrZero(code))
		}
	}
	w.blindResponse(at.in("response default"), old.Responses.Default, new.Responses.Default)
}

func (w *walker) blindResponse(at place, old, new *v3.Response) {
	if old == nil || new == nil {
		return
	}
	at.dir = toClient
	w.blindContent(at, old.Content, new.Content)
	if old.Headers != nil && new.Headers != nil {
		for name, o := range old.Headers.FromOldest() {
			if n := new.Headers.GetOrZero(name); o != nil && n != nil {
				w.blindSchema(at.in("header "+name), o.Schema, n.Schema, false)
			}
		}
	}
}

func (w *walker) blindParameters(at place, old, new []*v3.Parameter) {
	for _, o := range old {
		for _, n := range new {
			if o != nil && n != nil && o.Name == n.Name && o.In == n.In {
				p := at.in("parameter " + o.Name)
				p.dir = toServer
				w.blindSchema(p, o.Schema, n.Schema, false)
				w.blindContent(p, o.Content, n.Content)
			}
		}
	}
}

func (w *walker) blindContent(at place, old, new *orderedmap.Map[string, *v3.MediaType]) {
	if old == nil || new == nil {
		return
	}
	for mt, o := range old.FromOldest() {
		if n := new.GetOrZero(mt); o != nil && n != nil {
			w.blindSchema(at.in(mt), o.Schema, n.Schema, false)
		}
	}
}

// blindSchema judges what differs between old and new at one place, where
// what-changed did not compare them keyword by keyword, then goes on into
// the schemas both hold. below says what-changed compared nothing here or
// below (a place it skipped, or a member of a list, whose places its
// changes do not name reliably); otherwise covered says.
//
// A $ref both name in the document's components is compared there, as
// what-changed does, and only by its siblings here (which what-changed
// never compares); elsewhere the siblings count as keywords of the schema
// the $ref names. A pair of schemas already compared in the same
// direction (a recursive one, a file many operations reach) is not
// compared again: its changes are given once, at the first place.
func (w *walker) blindSchema(at place, old, new *base.SchemaProxy, below bool) {
	if old == nil || new == nil {
		return
	}
	oldSib, newSib := siblings(old), siblings(new)
	if old.IsReference() && new.IsReference() && old.GetReference() == new.GetReference() && strings.HasPrefix(old.GetReference(), schemaPrefix) {
		w.blindKeywords(at, oldSib, newSib)
		return
	}
	oldSchema, newSchema := old.Schema(), new.Schema()
	if oldSchema == nil || newSchema == nil || oldSchema.GoLow() == nil || newSchema.GoLow() == nil {
		return
	}
	on, nn := oldSchema.GoLow().GetRootNode(), newSchema.GoLow().GetRootNode()
	if on == nil || nn == nil {
		return
	}
	pair, judged := comparison{on, nn, at.dir, below}, comparison{on, nn, at.dir, true}
	if w.compared[pair] || w.compared[judged] {
		return
	}
	w.compared[pair] = true
	if w.alike(old, new) {
		return // nothing to find below either
	}
	switch {
	case below || !w.covered[at.key()]:
		w.blindKeywords(at, withSiblings(keywordsOf(on, specFile(oldSchema.GoLow().GetIndex())), oldSib), withSiblings(keywordsOf(nn, specFile(newSchema.GoLow().GetIndex())), newSib))
		below = true
	default:
		w.blindKeywords(at, oldSib, newSib)
	}
	if oldSchema.Properties != nil && newSchema.Properties != nil {
		for name, op := range oldSchema.Properties.FromOldest() {
			w.blindSchema(at.at(name), op, newSchema.Properties.GetOrZero(name), below)
		}
	}
	if oldSchema.Items != nil && newSchema.Items != nil && oldSchema.Items.IsA() && newSchema.Items.IsA() {
		w.blindSchema(at.at("[]"), oldSchema.Items.A, newSchema.Items.A, below)
	}
	if oldSchema.AdditionalProperties != nil && newSchema.AdditionalProperties != nil && oldSchema.AdditionalProperties.IsA() && newSchema.AdditionalProperties.IsA() {
		w.blindSchema(at.in("additionalProperties"), oldSchema.AdditionalProperties.A, newSchema.AdditionalProperties.A, below)
	}
	w.blindSchema(at.in("not"), oldSchema.Not, newSchema.Not, below)
	if oldSchema.PatternProperties != nil && newSchema.PatternProperties != nil {
		for name, op := range oldSchema.PatternProperties.FromOldest() {
			w.blindSchema(at.in("patternProperties "+name), op, newSchema.PatternProperties.GetOrZero(name), below)
		}
	}
	// The keywords walker.schema does not go into: what-changed's changes
	// there are never judged, so every difference is found here.
	for _, k := range []struct {
		name     string
		old, new *base.SchemaProxy
	}{
		{"contains", oldSchema.Contains, newSchema.Contains}, {"if", oldSchema.If, newSchema.If},
		{"then", oldSchema.Then, newSchema.Then}, {"else", oldSchema.Else, newSchema.Else},
		{"propertyNames", oldSchema.PropertyNames, newSchema.PropertyNames},
		{"unevaluatedItems", oldSchema.UnevaluatedItems, newSchema.UnevaluatedItems},
	} {
		w.blindSchema(at.in(k.name), k.old, k.new, true)
	}
	if u, v := oldSchema.UnevaluatedProperties, newSchema.UnevaluatedProperties; u != nil && v != nil && u.IsA() && v.IsA() {
		w.blindSchema(at.in("unevaluatedProperties"), u.A, v.A, true)
	}
	if oldSchema.DependentSchemas != nil && newSchema.DependentSchemas != nil {
		for name, op := range oldSchema.DependentSchemas.FromOldest() {
			w.blindSchema(at.in("dependentSchemas "+name), op, newSchema.DependentSchemas.GetOrZero(name), true)
		}
	}
	for _, list := range []struct {
		name     string
		old, new []*base.SchemaProxy
	}{{"allOf", oldSchema.AllOf, newSchema.AllOf}, {"anyOf", oldSchema.AnyOf, newSchema.AnyOf}, {"oneOf", oldSchema.OneOf, newSchema.OneOf}, {"prefixItems", oldSchema.PrefixItems, newSchema.PrefixItems}} {
		w.blindMembers(at, list.name, list.old, list.new)
	}
}

// blindMembers pairs the members of a list of schemas (allOf, oneOf) as
// what-changed does, by content rather than by position: members alike on
// both sides, wherever they stand, are unchanged; members libopenapi's
// hash takes for alike are ones what-changed did not compare, and are
// compared here; the rest are what-changed's.
func (w *walker) blindMembers(at place, name string, old, new []*base.SchemaProxy) {
	taken := make([]bool, len(new))
	done := make([]bool, len(old))
	for i, o := range old {
		for j, n := range new {
			if !taken[j] && w.alike(o, n) {
				taken[j], done[i] = true, true
				break
			}
		}
	}
	for i, o := range old {
		for j, n := range new {
			if !done[i] && !taken[j] && o != nil && n != nil && o.GoLow() != nil && n.GoLow() != nil && o.GoLow().Hash() == n.GoLow().Hash() {
				taken[j], done[i] = true, true
				w.blindSchema(at.in(name+"["+strconv.Itoa(j)+"]"), o, n, true)
			}
		}
	}
}

// alike says whether old and new hold the same schema: the same content
// (spec.SchemaHash, $refs followed) and the same siblings beside a $ref.
func (w *walker) alike(old, new *base.SchemaProxy) bool {
	if old == nil || new == nil {
		return old == new
	}
	oldSib, newSib := siblings(old), siblings(new)
	if !maps.EqualFunc(oldSib, newSib, func(a, b keyword) bool { return text(a.node) == text(b.node) }) {
		return false
	}
	oh, okOld := w.hashOf(old.Schema())
	nh, okNew := w.hashOf(new.Schema())
	return okOld && okNew && oh == nh
}

// hashOf is spec.SchemaHash of s, computed once per schema node: the same
// component is reached from many places.
func (w *walker) hashOf(s *base.Schema) (uint64, bool) {
	if s == nil || s.GoLow() == nil || s.GoLow().GetRootNode() == nil {
		return 0, false
	}
	n := s.GoLow().GetRootNode()
	if h, ok := w.hashes[n]; ok {
		return h, true
	}
	h, ok := spec.SchemaHash(s)
	if ok {
		w.hashes[n] = h
	}
	return h, ok
}

// comparison is a pair of schemas compared, the way their data flows
// there (a change is judged by it), and whether their keywords were
// compared (below).
type comparison struct {
	old, new *yaml.Node
	dir      direction
	below    bool
}

// keyword is a keyword's value and the file it is written in.
type keyword struct {
	node *yaml.Node
	file string
}

// siblings are the keywords beside a $ref; none for a schema that is not
// one.
func siblings(p *base.SchemaProxy) map[string]keyword {
	if p == nil || !p.IsReference() || p.GoLow() == nil {
		return map[string]keyword{}
	}
	out := keywordsOf(p.GoLow().GetReferenceNode(), specFile(p.GoLow().GetIndex()))
	delete(out, "$ref")
	return out
}

// specFile is the file an index reads, "" for none.
func specFile(idx *index.SpecIndex) string {
	if idx == nil {
		return ""
	}
	return idx.GetSpecAbsolutePath()
}

// withSiblings is a schema's keywords with the siblings of the $ref that
// named it applied: a sibling's value replaces the schema's, and required
// names add to its own.
func withSiblings(kw, sib map[string]keyword) map[string]keyword {
	for name, k := range sib {
		if own, ok := kw[name]; ok && name == "required" && own.node.Kind == yaml.SequenceNode && k.node.Kind == yaml.SequenceNode {
			k.node = &yaml.Node{Kind: yaml.SequenceNode, Content: append(slices.Clone(own.node.Content), k.node.Content...)}
		}
		kw[name] = k
	}
	return kw
}

// blindKeywords judges the keywords that differ between two schemas, one
// level: the values of each keyword, the names of the properties, each
// enum value and required name.
func (w *walker) blindKeywords(at place, old, new map[string]keyword) {
	names := slices.Sorted(maps.Keys(old))
	for _, name := range slices.Sorted(maps.Keys(new)) {
		if _, both := old[name]; !both {
			names = append(names, name)
		}
	}
	for _, name := range names {
		o, inOld := old[name]
		n, inNew := new[name]
		switch {
		case name == "properties":
			w.blindSet(at, name, keys(o), keys(n))
		case name == "required" || name == "enum":
			w.blindSet(at, name, items(o), items(n))
		case subschemaKeywords[name], (name == "items" || name == "additionalProperties") && (isMapping(o.node) || isMapping(n.node)):
			// a schema (or list of them), compared as schemas
		case name == "type":
			if !slices.Equal(typeOf(o.node), typeOf(n.node)) {
				w.blindChange(at, model.Modified, name, o, n)
			}
		case !inOld:
			w.blindChange(at, model.PropertyAdded, name, keyword{}, n)
		case !inNew:
			w.blindChange(at, model.PropertyRemoved, name, o, keyword{})
		case text(o.node) != text(n.node):
			w.blindChange(at, model.Modified, name, o, n)
		}
	}
}

// blindSet judges the members of a keyword's set (enum values, required
// names, property names) added and removed, one change each.
func (w *walker) blindSet(at place, name string, old, new map[string]keyword) {
	for _, v := range slices.Sorted(maps.Keys(old)) {
		if _, kept := new[v]; !kept {
			w.judgeBlind(at, &model.Change{ChangeType: model.PropertyRemoved, Property: name, Original: v, Context: contextOf(old[v], false)})
		}
	}
	for _, v := range slices.Sorted(maps.Keys(new)) {
		if _, had := old[v]; !had {
			w.judgeBlind(at, &model.Change{ChangeType: model.PropertyAdded, Property: name, New: v, Context: contextOf(new[v], true)})
		}
	}
}

func (w *walker) blindChange(at place, kind int, name string, old, new keyword) {
	c := &model.Change{ChangeType: kind, Property: name}
	if old.node != nil {
		c.Original = text(old.node)
		c.Context = contextOf(old, false)
	}
	if new.node != nil {
		c.New = text(new.node)
		c.Context = contextOf(new, true)
	}
	w.judgeBlind(at, c)
}

// judgeBlind judges c by the rules what-changed's changes are judged by;
// a keyword those have no rule for is reported as such, not with
// what-changed's verdict, which it never gave.
func (w *walker) judgeBlind(at place, c *model.Change) {
	switch c.Property {
	case "type", "enum", "required", "properties", "nullable":
		w.keyword(at, c)
	default:
		if keywordKinds[c.Property] != 0 {
			w.keyword(at, c)
			return
		}
		w.add(at, Safe, describe(c), whyUnjudged, c)
	}
}

// contextOf is the change context of a value: its file, and its line in
// the new document, or in the old one.
func contextOf(k keyword, inNew bool) *model.ChangeContext {
	line := k.node.Line
	if inNew {
		return &model.ChangeContext{DocumentLocation: k.file, NewLine: &line}
	}
	return &model.ChangeContext{DocumentLocation: k.file, OriginalLine: &line}
}

// keywordsOf are a mapping's keys and values, written in file.
func keywordsOf(n *yaml.Node, file string) map[string]keyword {
	out := map[string]keyword{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = keyword{n.Content[i+1], file}
	}
	return out
}

// keys are a mapping's keys, each with its key node.
func keys(k keyword) map[string]keyword {
	out := map[string]keyword{}
	if n := k.node; n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = keyword{n.Content[i], k.file}
		}
	}
	return out
}

// items are a sequence's members, each by its text.
func items(k keyword) map[string]keyword {
	out := map[string]keyword{}
	if n := k.node; n != nil && n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			out[text(c)] = keyword{c, k.file}
		}
	}
	return out
}

func isMapping(n *yaml.Node) bool { return n != nil && n.Kind == yaml.MappingNode }

// typeOf is a type keyword's types, sorted: "string", or a list.
func typeOf(n *yaml.Node) []string {
	var out []string
	if n == nil {
		return out
	}
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			out = append(out, c.Value)
		}
	} else {
		out = append(out, n.Value)
	}
	slices.Sort(out)
	return out
}

// text is a value as a change reports it: a scalar's own text; a list or
// mapping in flow style ([integer, null], as typeSet reads it).
func text(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.AliasNode:
		if n.Alias != nil {
			return text(n.Alias)
		}
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			parts[i] = text(c)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, fmt.Sprintf("%s: %s", n.Content[i].Value, text(n.Content[i+1])))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}
