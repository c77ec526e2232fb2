package spec

import (
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"
)

// refSiblingsReachable reports whether a $ref that schema reaches, through
// its own nodes and those its $refs name, in any of the document's files,
// is written beside a keyword that validates (required, type, ...). The
// inline rendering resolves such a $ref to its target alone, where the
// library's compile of the document's files applies the siblings too:
// lago's `$ref: BillableMetricBaseInput.yaml` beside `required: [name,
// ...]`, xero's `$ref: Amount` beside `type: number`. Such a schema is
// compiled as the library compiles it, so that the verdicts stay the
// library's. Annotations beside a $ref change no verdict.
func refSiblingsReachable(schema *base.Schema) bool {
	low := schema.GoLow()
	if low == nil {
		return false
	}
	w := refWalk{seen: map[*yaml.Node]bool{}}
	return w.siblings(low.GetRootNode(), false, low.GetIndex())
}

type refWalk struct{ seen map[*yaml.Node]bool }

// siblings walks n; names is true where n maps names to schemas (the
// value of properties, $defs, ...), whose keys are no keywords: a
// property named "$ref" is no reference, and one named "properties" is a
// schema.
func (w *refWalk) siblings(n *yaml.Node, names bool, idx *index.SpecIndex) bool {
	if n == nil || w.seen[n] {
		return false
	}
	w.seen[n] = true
	switch n.Kind {
	case yaml.AliasNode: // an anchor's node written again (*name)
		return w.siblings(n.Alias, names, idx)
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if w.siblings(c, false, idx) {
				return true
			}
		}
	case yaml.MappingNode:
		if ref, ok := schemaRef(n); ok && !names {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i].Value; k != "$ref" && !annotationKeyword(k) {
					return true
				}
			}
			target, in, found := resolveRef(idx, ref)
			if !found {
				// Not found from here: the library's compile fails on it,
				// and compile falls back to the inline rendering, which
				// resolves it (eclipse-ditto's refs across folders).
				return false
			}
			return w.siblings(target, false, in)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if w.siblings(n.Content[i+1], !names && namesSchemas(n.Content[i].Value), idx) {
				return true
			}
		}
	}
	return false
}

// resolveRef is the node ref names, as read from a file of idx, and the
// index of the file it is in; found is false where idx cannot find it.
func resolveRef(idx *index.SpecIndex, ref string) (target *yaml.Node, in *index.SpecIndex, found bool) {
	if idx == nil {
		return nil, nil, false
	}
	r, in := idx.SearchIndexForReference(ref)
	if r == nil || r.Node == nil {
		return nil, nil, false
	}
	if in == nil {
		in = r.Index
	}
	return r.Node, in, true
}

// namesSchemas reports whether a schema keyword's value maps names to
// schemas.
func namesSchemas(keyword string) bool {
	switch keyword {
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
		return true
	}
	return false
}

// schemaRef is the $ref of a mapping, if it has one.
func schemaRef(n *yaml.Node) (string, bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$ref" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value, true
		}
	}
	return "", false
}

// annotationKeyword reports whether a schema keyword only annotates.
func annotationKeyword(k string) bool {
	switch k {
	case "description", "summary", "title", "example", "examples", "$comment":
		return true
	}
	return strings.HasPrefix(k, "x-")
}
