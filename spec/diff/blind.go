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
// as values.
var subschemaKeywords = map[string]bool{
	"properties": true, "items": true, "additionalProperties": true, "not": true,
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
			w.blindSchema(place{where: "schema " + name + dir.note(), dir: dir}, old, newModel.Components.Schemas.GetOrZero(name), map[[2]*yaml.Node]bool{})
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
			if newResp := new.Responses.Codes.GetOrZero(code); oldResp != nil && newResp != nil {
				resp := at.in("response " + code)
				resp.dir = toClient
				w.blindContent(resp, oldResp.Content, newResp.Content)
			}
		}
	}
	if old.Responses.Default != nil && new.Responses.Default != nil {
		resp := at.in("response default")
		resp.dir = toClient
		w.blindContent(resp, old.Responses.Default.Content, new.Responses.Default.Content)
	}
}

func (w *walker) blindParameters(at place, old, new []*v3.Parameter) {
	for _, o := range old {
		for _, n := range new {
			if o != nil && n != nil && o.Name == n.Name && o.In == n.In {
				p := at.in("parameter " + o.Name)
				p.dir = toServer
				w.blindSchema(p, o.Schema, n.Schema, map[[2]*yaml.Node]bool{})
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
			w.blindSchema(at.in(mt), o.Schema, n.Schema, map[[2]*yaml.Node]bool{})
		}
	}
}

// blindSchema judges what differs between old and new, one place, where
// what-changed did not report on that place, then goes on into the
// schemas both hold. A $ref both name in the document's components is
// compared there (as what-changed does), and only the $ref's siblings
// here. seen ends recursive schemas.
func (w *walker) blindSchema(at place, old, new *base.SchemaProxy, seen map[[2]*yaml.Node]bool) {
	if old == nil || new == nil {
		return
	}
	if old.IsReference() && new.IsReference() {
		w.blindKeywords(at, siblings(old), siblings(new))
		if old.GetReference() == new.GetReference() && strings.HasPrefix(old.GetReference(), schemaPrefix) {
			return
		}
	}
	oldSchema, newSchema := old.Schema(), new.Schema()
	if oldSchema == nil || newSchema == nil || oldSchema.GoLow() == nil || newSchema.GoLow() == nil {
		return
	}
	on, nn := oldSchema.GoLow().GetRootNode(), newSchema.GoLow().GetRootNode()
	pair := [2]*yaml.Node{on, nn}
	if on == nil || nn == nil || seen[pair] {
		return
	}
	seen[pair] = true
	oh, okOld := spec.SchemaHash(oldSchema)
	nh, okNew := spec.SchemaHash(newSchema)
	if okOld && okNew && oh == nh {
		return // the same content: nothing to find below either
	}
	if !w.covered[at.key()] {
		w.blindKeywords(at, on, nn)
	}
	if oldSchema.Properties != nil && newSchema.Properties != nil {
		for name, op := range oldSchema.Properties.FromOldest() {
			if np := newSchema.Properties.GetOrZero(name); np != nil {
				w.blindSchema(at.at(name), op, np, seen)
			}
		}
	}
	if oldSchema.Items != nil && newSchema.Items != nil && oldSchema.Items.IsA() && newSchema.Items.IsA() {
		w.blindSchema(at.at("[]"), oldSchema.Items.A, newSchema.Items.A, seen)
	}
	if oldSchema.AdditionalProperties != nil && newSchema.AdditionalProperties != nil && oldSchema.AdditionalProperties.IsA() && newSchema.AdditionalProperties.IsA() {
		w.blindSchema(at.in("additionalProperties"), oldSchema.AdditionalProperties.A, newSchema.AdditionalProperties.A, seen)
	}
	w.blindSchema(at.in("not"), oldSchema.Not, newSchema.Not, seen)
	for _, list := range []struct {
		name     string
		old, new []*base.SchemaProxy
	}{{"allOf", oldSchema.AllOf, newSchema.AllOf}, {"anyOf", oldSchema.AnyOf, newSchema.AnyOf}, {"oneOf", oldSchema.OneOf, newSchema.OneOf}, {"prefixItems", oldSchema.PrefixItems, newSchema.PrefixItems}} {
		for i := range min(len(list.old), len(list.new)) {
			w.blindSchema(at.in(list.name+"["+strconv.Itoa(i)+"]"), list.old[i], list.new[i], seen)
		}
	}
	if oldSchema.PatternProperties != nil && newSchema.PatternProperties != nil {
		for name, op := range oldSchema.PatternProperties.FromOldest() {
			w.blindSchema(at.in("patternProperties "+name), op, newSchema.PatternProperties.GetOrZero(name), seen)
		}
	}
}

// siblings is the mapping a $ref is written in (its siblings beside it),
// nil when there is none.
func siblings(p *base.SchemaProxy) *yaml.Node {
	if p.GoLow() == nil {
		return nil
	}
	return p.GoLow().GetReferenceNode()
}

// blindKeywords judges the keywords that differ between two schema
// mappings, one level: the values of each keyword, the names of the
// properties, each enum value and required name.
func (w *walker) blindKeywords(at place, old, new *yaml.Node) {
	ok, nk := keywords(old), keywords(new)
	names := slices.Sorted(maps.Keys(ok))
	for name := range nk {
		if _, both := ok[name]; !both {
			names = append(names, name)
		}
	}
	for _, name := range names {
		o, n := ok[name], nk[name]
		switch {
		case name == "properties":
			w.blindSet(at, name, keys(o), keys(n))
		case name == "required" || name == "enum":
			w.blindSet(at, name, items(o), items(n))
		case subschemaKeywords[name] && (isMapping(o) || isMapping(n) || name != "additionalProperties" && name != "items"):
			// a schema (or list of them), compared as schemas
		case name == "type":
			if !slices.Equal(typeOf(o), typeOf(n)) {
				w.blindChange(at, model.Modified, name, o, n)
			}
		case o == nil:
			w.blindChange(at, model.PropertyAdded, name, nil, n)
		case n == nil:
			w.blindChange(at, model.PropertyRemoved, name, o, nil)
		case text(o) != text(n):
			w.blindChange(at, model.Modified, name, o, n)
		}
	}
}

// blindSet judges the members of a keyword's set (enum values, required
// names, property names) added and removed, one change each.
func (w *walker) blindSet(at place, name string, old, new map[string]*yaml.Node) {
	for _, v := range slices.Sorted(maps.Keys(old)) {
		if _, kept := new[v]; !kept {
			w.judgeBlind(at, &model.Change{ChangeType: model.PropertyRemoved, Property: name, Original: v, Context: lineOf(old[v], false)})
		}
	}
	for _, v := range slices.Sorted(maps.Keys(new)) {
		if _, had := old[v]; !had {
			w.judgeBlind(at, &model.Change{ChangeType: model.PropertyAdded, Property: name, New: v, Context: lineOf(new[v], true)})
		}
	}
}

func (w *walker) blindChange(at place, kind int, name string, old, new *yaml.Node) {
	c := &model.Change{ChangeType: kind, Property: name}
	if old != nil {
		c.Original = text(old)
		c.Context = lineOf(old, false)
	}
	if new != nil {
		c.New = text(new)
		c.Context = lineOf(new, true)
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

// lineOf is the change context of a value at n: its line in the new
// document, or in the old one.
func lineOf(n *yaml.Node, inNew bool) *model.ChangeContext {
	line := n.Line
	if inNew {
		return &model.ChangeContext{NewLine: &line}
	}
	return &model.ChangeContext{OriginalLine: &line}
}

// keywords are a mapping's keys and values.
func keywords(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	return out
}

// keys are a mapping's keys, each with its key node.
func keys(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = n.Content[i]
		}
	}
	return out
}

// items are a sequence's members, each by its text.
func items(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n != nil && n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			out[text(c)] = c
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
