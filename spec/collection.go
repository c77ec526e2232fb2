package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// Collection is a resource the paths describe: POST /X creates, GET /X lists
// and GET /X/{id} reads. Each operation is optional.
type Collection struct {
	Name     string // the last segment of Path ("pets")
	Path     string // "/pets"
	ItemPath string // "/pets/{petId}", empty without a read operation
	IDParam  string // the item path's parameter ("petId")
	IDField  string // the item property that holds the id ("id")
	IDType   string // "integer" or "string"

	List, Create, Read *Operation
	// CreateStatus is the 2xx status the create operation declares (201 for the Petstore).
	CreateStatus int

	// ItemSchema is what the collection stores and answers with; NewSchema is
	// what create accepts; ListItems is the item schema of the list response.
	ItemSchema *base.Schema
	NewSchema  *base.Schema
	ListItems  *base.Schema
	// Fields are the item schema's properties in document order.
	Fields []*Field
	// Assigned are the fields the server assigns: required in the item
	// schema, absent from the create schema. IDField is one of them.
	Assigned []string

	Limit   *Limit
	Filters []*Filter
	// Notes explain what could not be inferred.
	Notes []string
}

// Field is one property of a collection's item schema.
type Field struct {
	Name     string
	Required bool
	Schema   *base.Schema
}

// Limit is the list operation's page-size parameter.
type Limit struct {
	Param   string
	Min     int64 // 1 when the schema gives no minimum
	Max     int64 // 0 when the schema gives no maximum
	Default int64 // Max when the schema gives no default; 0 means all
}

// Filter is a list query parameter that names an item property.
type Filter struct {
	Param  string
	Field  string
	Enum   []string // the allowed values, when the parameter's schema enumerates them
	Schema *base.Schema
}

// Field returns the named field, or nil.
func (c *Collection) Field(name string) *Field {
	for _, f := range c.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Filter returns the filter for query parameter name, or nil.
func (c *Collection) Filter(param string) *Filter {
	for _, f := range c.Filters {
		if f.Param == param {
			return f
		}
	}
	return nil
}

// Collection returns the collection that serves op, or nil.
func (s *Spec) Collection(op *Operation) *Collection {
	for _, c := range s.Collections {
		if c.List == op || c.Create == op || c.Read == op {
			return c
		}
	}
	return nil
}

// limitNames are the page-size parameter names petctl recognises.
var limitNames = []string{"limit", "pagesize", "page_size", "perpage", "per_page", "size", "maxresults", "max_results", "top", "first", "count"}

func inferCollections(ops []*Operation) []*Collection {
	var out []*Collection
	byPath := map[string]*Collection{}
	get := func(path string) *Collection {
		if c, ok := byPath[path]; ok {
			return c
		}
		segs := strings.Split(strings.Trim(path, "/"), "/")
		c := &Collection{Name: segs[len(segs)-1], Path: path}
		byPath[path] = c
		out = append(out, c)
		return c
	}
	for _, op := range ops {
		if op.Unpublished || isTemplate(lastSegment(op.Path)) && op.Method != "GET" {
			continue
		}
		switch {
		case op.Method == "GET" && isTemplate(lastSegment(op.Path)):
			parent := op.Path[:strings.LastIndex(op.Path, "/")]
			if parent == "" || isTemplate(lastSegment(parent)) {
				continue
			}
			c := get(parent)
			c.Read, c.ItemPath = op, op.Path
			c.IDParam = strings.Trim(lastSegment(op.Path), "{}")
		case op.Method == "GET" && jsonArrayResponse(op) != nil:
			get(op.Path).List = op
		case op.Method == "POST" && op.Body != nil && op.Body.Schema != nil:
			get(op.Path).Create = op
		}
	}
	var kept []*Collection
	for _, c := range out {
		c.infer()
		if c.ItemSchema != nil {
			kept = append(kept, c)
		}
	}
	return kept
}

func (c *Collection) infer() {
	if c.Read != nil {
		if r := successResponse(c.Read, 200); r != nil {
			c.ItemSchema = r.Schema
		}
	}
	if c.Create != nil {
		c.NewSchema = c.Create.Body.Schema
		for _, r := range c.Create.Responses {
			if r.Status >= 200 && r.Status < 300 && r.Schema != nil {
				c.CreateStatus = r.Status
				if c.ItemSchema == nil {
					c.ItemSchema = r.Schema
				}
				break
			}
		}
		if c.CreateStatus == 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s declares no 2xx response with a JSON body; it is not served", c.Create))
			c.Create = nil
		}
	}
	if c.List != nil {
		c.ListItems = jsonArrayResponse(c.List)
		if c.ItemSchema == nil {
			c.ItemSchema = c.ListItems
		}
	}
	if c.ItemSchema == nil {
		return
	}
	names, props, required := objectProperties(c.ItemSchema)
	for _, n := range names {
		c.Fields = append(c.Fields, &Field{Name: n, Required: required[n], Schema: props[n]})
	}
	if c.NewSchema != nil {
		_, newProps, _ := objectProperties(c.NewSchema)
		for _, n := range names {
			if _, sent := newProps[n]; required[n] && !sent {
				c.Assigned = append(c.Assigned, n)
			}
		}
	}
	c.IDField = c.pickIDField()
	if f := c.Field(c.IDField); f != nil {
		c.IDType = schemaType(f.Schema)
	}
	if c.IDField == "" || (c.IDType != "integer" && c.IDType != "string") {
		c.Notes = append(c.Notes, fmt.Sprintf("collection %s: no integer or string id field could be inferred (the item schema's required fields missing from the create schema, or the read path's parameter); it is not served", c.Path))
		c.ItemSchema = nil
		return
	}
	if c.List != nil {
		c.inferQuery()
	}
}

func (c *Collection) pickIDField() string {
	has := func(list []string, n string) bool { return slices.Contains(list, n) }
	var fieldNames []string
	for _, f := range c.Fields {
		fieldNames = append(fieldNames, f.Name)
	}
	switch {
	case c.IDParam != "" && has(c.Assigned, c.IDParam):
		return c.IDParam
	case has(c.Assigned, "id"):
		return "id"
	case len(c.Assigned) == 1:
		return c.Assigned[0]
	case c.IDParam != "" && has(fieldNames, c.IDParam):
		return c.IDParam
	case has(fieldNames, "id"):
		return "id"
	}
	return ""
}

func (c *Collection) inferQuery() {
	for _, p := range c.List.Params {
		if p.In != "query" || p.Schema == nil {
			continue
		}
		if c.Limit == nil && schemaType(p.Schema) == "integer" && slices.Contains(limitNames, strings.ToLower(p.Name)) {
			l := &Limit{Param: p.Name, Min: 1}
			if p.Schema.Minimum != nil {
				l.Min = int64(*p.Schema.Minimum)
			}
			if p.Schema.Maximum != nil {
				l.Max = int64(*p.Schema.Maximum)
			}
			l.Default = l.Max
			if p.Schema.Default != nil {
				var d int64
				if p.Schema.Default.Decode(&d) == nil {
					l.Default = d
				}
			}
			c.Limit = l
			continue
		}
		f := c.Field(p.Name)
		if f == nil {
			continue
		}
		if t := schemaType(f.Schema); t != "string" && t != "integer" && t != "boolean" && t != "number" {
			continue
		}
		filter := &Filter{Param: p.Name, Field: f.Name, Schema: p.Schema}
		filter.Enum = enumStrings(p.Schema)
		c.Filters = append(c.Filters, filter)
	}
}

func enumStrings(s *base.Schema) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, n := range s.Enum {
		if n != nil && n.Tag != "!!null" {
			out = append(out, n.Value)
		}
	}
	return out
}

func successResponse(op *Operation, status int) *Response {
	r := op.Response(status)
	if r == nil || r.Schema == nil {
		return nil
	}
	return r
}

// jsonArrayResponse returns the item schema of op's 200 JSON array response, or nil.
func jsonArrayResponse(op *Operation) *base.Schema {
	r := successResponse(op, 200)
	if r == nil || schemaType(r.Schema) != "array" || r.Schema.Items == nil || !r.Schema.Items.IsA() || r.Schema.Items.A == nil {
		return nil
	}
	return r.Schema.Items.A.Schema()
}

// SchemaType returns the schema's single non-null type ("object" when it
// only has properties), or "" when it has none or several.
func SchemaType(s *base.Schema) string { return schemaType(s) }

func schemaType(s *base.Schema) string {
	if s == nil {
		return ""
	}
	var types []string
	for _, t := range s.Type {
		if t != "null" {
			types = append(types, t)
		}
	}
	if len(types) == 1 {
		return types[0]
	}
	if len(types) == 0 {
		if s.Properties != nil {
			return "object"
		}
		for _, sub := range s.AllOf {
			if t := schemaType(sub.Schema()); t != "" {
				return t
			}
		}
	}
	return ""
}

// ObjectProperties returns an object schema's property names in document
// order, their schemas and the required set, allOf members merged in.
func ObjectProperties(s *base.Schema) ([]string, map[string]*base.Schema, map[string]bool) {
	return objectProperties(s)
}

func objectProperties(s *base.Schema) ([]string, map[string]*base.Schema, map[string]bool) {
	var names []string
	props := map[string]*base.Schema{}
	required := map[string]bool{}
	var walk func(*base.Schema)
	walk = func(s *base.Schema) {
		if s == nil {
			return
		}
		for _, sub := range s.AllOf {
			walk(sub.Schema())
		}
		if s.Properties != nil {
			for p := s.Properties.First(); p != nil; p = p.Next() {
				if _, ok := props[p.Key()]; !ok {
					names = append(names, p.Key())
				}
				props[p.Key()] = p.Value().Schema()
			}
		}
		for _, r := range s.Required {
			required[r] = true
		}
	}
	walk(s)
	return names, props, required
}

func lastSegment(p string) string {
	return p[strings.LastIndex(p, "/")+1:]
}

func isTemplate(seg string) bool {
	return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && strings.Count(seg, "{") == 1
}
