package diff

// Which way the data a component schema describes flows: what-changed
// reports a change of a $ref'd schema once, under components, so the
// direction is found here, from every operation that reaches the schema,
// in either document.

import (
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/petctl/petctl/spec"
)

// direction is the way data flows: a client sends it, receives it, or both.
type direction uint8

const (
	toServer direction = 1 << iota // parameters and request bodies
	toClient                       // responses
)

// note names the direction in a change's place.
func (d direction) note() string {
	switch d {
	case toServer:
		return " (in requests)"
	case toClient:
		return " (in responses)"
	case toServer | toClient:
		return " (in requests and responses)"
	}
	return ""
}

// schemaPrefix is how a $ref names a schema of the document's components.
const schemaPrefix = "#/components/schemas/"

// schemaUsage maps each component schema to the directions in which the
// operations of either document use it, through any depth of $refs.
func schemaUsage(docs ...*spec.Spec) map[string]direction {
	u := &usage{dirs: map[string]direction{}}
	for _, d := range docs {
		for _, op := range d.Operations {
			u.operation(op)
		}
	}
	return u.dirs
}

type usage struct {
	dirs map[string]direction
}

func (u *usage) operation(op *spec.Operation) {
	var params []*v3.Parameter
	if op.PathItem != nil {
		params = append(params, op.PathItem.Parameters...)
	}
	o := op.Op
	if o == nil {
		return
	}
	params = append(params, o.Parameters...)
	for _, p := range params {
		if p == nil {
			continue
		}
		u.proxy(p.Schema, toServer)
		u.content(p.Content, toServer)
	}
	if o.RequestBody != nil {
		u.content(o.RequestBody.Content, toServer)
	}
	if o.Responses != nil {
		var rs []*v3.Response
		if o.Responses.Codes != nil {
			for r := range o.Responses.Codes.ValuesFromOldest() {
				rs = append(rs, r)
			}
		}
		if o.Responses.Default != nil {
			rs = append(rs, o.Responses.Default)
		}
		for _, r := range rs {
			if r == nil {
				continue
			}
			u.content(r.Content, toClient)
			if r.Headers != nil {
				for h := range r.Headers.ValuesFromOldest() {
					if h != nil {
						u.proxy(h.Schema, toClient)
					}
				}
			}
		}
	}
}

func (u *usage) content(c *orderedmap.Map[string, *v3.MediaType], dir direction) {
	if c == nil {
		return
	}
	for mt := range c.ValuesFromOldest() {
		if mt != nil {
			u.proxy(mt.Schema, dir)
			u.proxy(mt.ItemSchema, dir)
		}
	}
}

// proxy records the schema a $ref names and walks into every schema it
// holds; a schema already seen in this direction is not walked again, so
// recursive schemas end.
func (u *usage) proxy(sp *base.SchemaProxy, dir direction) {
	if sp == nil {
		return
	}
	if sp.IsReference() {
		ref := sp.GetReference()
		if i := strings.Index(ref, schemaPrefix); i >= 0 {
			name := ref[i+len(schemaPrefix):]
			if u.dirs[name]&dir == dir {
				return
			}
			u.dirs[name] |= dir
		}
	}
	s := sp.Schema()
	if s == nil {
		return
	}
	if s.Properties != nil {
		for p := range s.Properties.ValuesFromOldest() {
			u.proxy(p, dir)
		}
	}
	if s.Items != nil && s.Items.IsA() {
		u.proxy(s.Items.A, dir)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
		u.proxy(s.AdditionalProperties.A, dir)
	}
	for _, list := range [][]*base.SchemaProxy{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		for _, p := range list {
			u.proxy(p, dir)
		}
	}
	u.proxy(s.Not, dir)
}
