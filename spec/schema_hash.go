package spec

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/pb33f/libopenapi/index"
	"go.yaml.in/yaml/v4"
)

// contentHash is the hash of what schema says, keyword by keyword: its
// YAML written out with every key, each $ref replaced by what it names
// (a second visit to a node, as in a cycle, written as a back-reference;
// a mapping of a $ref alone written as its target).
// libopenapi's own hash, Schema.Hash, writes keywords' values without
// their names, so that {minimum: 5} and {maximum: 5} hash alike, as do
// {items: X} and {contains: X}; two schemas with the same contentHash are
// written alike, refs followed, and so accept the same documents.
func contentHash(schema *base.Schema) (uint64, bool) {
	low := schema.GoLow()
	if low == nil || low.GetRootNode() == nil {
		return 0, false
	}
	w := hashWalk{h: fnv.New64a(), seen: map[*yaml.Node]int{}}
	w.node(low.GetRootNode(), low.GetIndex())
	return w.h.Sum64(), true
}

type hashWalk struct {
	h    hash.Hash64
	seen map[*yaml.Node]int // the order of each node's first visit
}

func (w *hashWalk) write(kind byte, s string) {
	var n [9]byte
	n[0] = kind
	binary.LittleEndian.PutUint64(n[1:], uint64(len(s)))
	w.h.Write(n[:])
	w.h.Write([]byte(s))
}

func (w *hashWalk) node(n *yaml.Node, idx *index.SpecIndex) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		w.write('0', "")
		return
	}
	if at, ok := w.seen[n]; ok {
		w.write('@', string(binary.LittleEndian.AppendUint64(nil, uint64(at))))
		return
	}
	w.seen[n] = len(w.seen)
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		w.write('[', "")
		for _, c := range n.Content {
			w.node(c, idx)
		}
		w.write(']', "")
	case yaml.MappingNode:
		if ref, ok := schemaRef(n); ok && idx != nil {
			if target, in, found := resolveRef(idx, ref); found {
				if len(n.Content) == 2 { // {$ref: X} is X
					w.node(target, in)
					return
				}
				w.write('r', "") // the target, then the siblings
				w.node(target, in)
			} else {
				w.write('u', ref) // unresolved here: its text
			}
		}
		w.write('{', "")
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.write('k', n.Content[i].Value)
			if n.Content[i].Value == "$ref" && idx != nil {
				continue // followed above
			}
			w.node(n.Content[i+1], idx)
		}
		w.write('}', "")
	default:
		w.write('s', scalarTag(n)+"\x00"+n.Value)
	}
}

// scalarTag is the tag of a scalar as the document was read: yaml's tag
// where it has one, else the one the library's renders removed. Those
// write the document's enum and examples items (yaml's Desolve, in
// Node.Encode) and remove a tag the value resolves to without it, or
// quote a string's that would resolve otherwise: so 5 and '5' hash apart,
// and alike before and after a render.
func scalarTag(n *yaml.Node) string {
	if n.Tag != "" && n.Tag != "!" {
		return n.Tag
	}
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return "!!str"
	}
	if n.Value == "<<" {
		return "!!merge" // as yaml reads it, where Decode gives nil
	}
	var v any
	if n.Decode(&v) != nil {
		return ""
	}
	switch v.(type) {
	case nil:
		return "!!null"
	case bool:
		return "!!bool"
	case int, int64, uint64:
		return "!!int"
	case float64:
		return "!!float"
	case string:
		return "!!str"
	case time.Time:
		return "!!timestamp"
	}
	return ""
}
