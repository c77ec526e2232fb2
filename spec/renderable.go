package spec

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// keepRenderable rewrites, in the document's YAML tree, what the YAML
// encoder cannot write back so that it reads the same: libopenapi-validator
// compiles a schema with $refs by encoding the whole document and reading
// it again. A literal or folded block whose first line starts with a space
// needs an indentation indicator, and go.yaml.in/yaml/v4 writes one that
// does not fit its own indentation inside a sequence (ory-kratos's
// `x-go-enum-desc: |2-`): every schema of such a document then fails to
// compile, and every response to be validated. Written double-quoted, the
// same text encodes and reads back unchanged.
func keepRenderable(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode && (n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle) &&
		strings.HasPrefix(n.Value, " ") {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		keepRenderable(c)
	}
}
