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
	return w.siblings(low.GetRootNode(), "", low.GetIndex())
}

type refWalk struct{ seen map[*yaml.Node]bool }

func (w *refWalk) siblings(n *yaml.Node, parentKey string, idx *index.SpecIndex) bool {
	if n == nil || w.seen[n] {
		return false
	}
	w.seen[n] = true
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if w.siblings(c, parentKey, idx) {
				return true
			}
		}
	case yaml.MappingNode:
		if ref, ok := schemaRef(n, parentKey); ok {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i].Value; k != "$ref" && !annotationKeyword(k) {
					return true
				}
			}
			if idx == nil {
				return false
			}
			found, in := idx.SearchIndexForReference(ref)
			if found == nil {
				return false // unresolved: neither compile gets further
			}
			if in == nil {
				in = found.Index
			}
			return w.siblings(found.Node, "", in)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if w.siblings(n.Content[i+1], n.Content[i].Value, idx) {
				return true
			}
		}
	}
	return false
}

// schemaRef is the $ref of a schema mapping; a property or definition
// named "$ref" is none.
func schemaRef(n *yaml.Node, parentKey string) (string, bool) {
	switch parentKey {
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
		return "", false
	}
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
