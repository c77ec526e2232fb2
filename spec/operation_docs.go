package spec

import (
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// What a reference page shows of the document besides its operations: the
// words (descriptions, tags) and the schemas of an operation's parts as
// Schemas, so that the page reads no libopenapi type.

// Description returns the document's own description (info.description).
func (s *Spec) Description() string {
	if s.Model.Info == nil {
		return ""
	}
	return s.Model.Info.Description
}

// Tag is one of the document's declared tags.
type Tag struct {
	Name        string
	Description string
}

// Tags returns the tags the document declares, in its order. Operations
// may use others; those have no description.
func (s *Spec) Tags() []Tag {
	var out []Tag
	for _, t := range s.Model.Tags {
		if t != nil {
			out = append(out, Tag{Name: t.Name, Description: t.Description})
		}
	}
	return out
}

// ServerDescription returns the description of Servers[i], "" when it has none.
func (s *Spec) ServerDescription(i int) string {
	if i < 0 || i >= len(s.Model.Servers) || s.Model.Servers[i] == nil {
		return ""
	}
	return s.Model.Servers[i].Description
}

// SchemeDescription returns the description of the named security scheme.
func (s *Spec) SchemeDescription(name string) string {
	if sc := s.SecuritySchemes[name]; sc != nil {
		return sc.Description
	}
	return ""
}

// Tags returns the operation's tags, in the document's order.
func (o *Operation) Tags() []string { return o.Op.Tags }

// Description returns the operation's description.
func (o *Operation) Description() string { return o.Op.Description }

// ParamDescription returns the description of p, one of o.Params.
func (o *Operation) ParamDescription(p *Param) string {
	if lib := o.libParam(p); lib != nil {
		return lib.Description
	}
	return ""
}

// BodyDescription returns the description of o's request body.
func (o *Operation) BodyDescription() string {
	if o.Op.RequestBody == nil {
		return ""
	}
	return o.Op.RequestBody.Description
}

// ResponseDescription returns the description of r, one of o.Responses or o.Default.
func (o *Operation) ResponseDescription(r *Response) string {
	if o.Op.Responses == nil || r == nil {
		return ""
	}
	if r == o.Default && o.Op.Responses.Default != nil {
		return o.Op.Responses.Default.Description
	}
	if o.Op.Responses.Codes != nil {
		if lib, ok := o.Op.Responses.Codes.Get(r.Code); ok && lib != nil {
			return lib.Description
		}
	}
	return ""
}

// ParamSchema returns the schema of p, one of o.Params, as a Schema; nil
// when it declares none.
func (s *Spec) ParamSchema(o *Operation, p *Param) *Schema {
	if lib := o.libParam(p); lib != nil && lib.Schema != nil {
		return s.schemas.getProxy(lib.Schema)
	}
	return nil
}

// BodySchema returns the schema of o's JSON request body, the one Body.Schema
// is, as a Schema; nil when there is none.
func (s *Spec) BodySchema(o *Operation) *Schema {
	if o.Op.RequestBody == nil {
		return nil
	}
	_, _, proxy := mediaTypes(o.Op.RequestBody.Content)
	return s.schemas.getProxy(proxy)
}

// ResponseSchema returns the schema of r's JSON content as a Schema; nil
// when it declares none.
func (s *Spec) ResponseSchema(r *Response) *Schema {
	if r == nil {
		return nil
	}
	return s.schemas.getProxy(r.SchemaProxy)
}

// libParam finds the declaration p was read from: the operation's own
// parameters override the path item's, as mergeParams has it.
func (o *Operation) libParam(p *Param) *v3.Parameter {
	for _, list := range [][]*v3.Parameter{o.Op.Parameters, o.PathItem.Parameters} {
		for _, lib := range list {
			if lib != nil && lib.Name == p.Name && lib.In == p.In {
				return lib
			}
		}
	}
	return nil
}

// getProxy is read for concurrent callers: the name of a $ref'd schema is kept.
func (r *schemaReader) getProxy(proxy *base.SchemaProxy) *Schema {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read(proxy)
}
