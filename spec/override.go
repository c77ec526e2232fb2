package spec

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Override replaces what petctl infers about one operation: configuration's
// crud.operations.<operationId>. An empty field keeps the inference.
type Override struct {
	// Kind is what the operation does to its resource; KindAction answers
	// it from the document alone, without state.
	Kind OpKind
	// Resource is the path of the collection (or singleton) it serves:
	// "/owners/{ownerId}/pets".
	Resource string
	// IDField is the item property that holds the id; ParentField the one
	// that holds the parent's id.
	IDField, ParentField string
	// IDs is "client" when the client chooses ids (and a duplicate is a
	// conflict), "server" when the server assigns them.
	IDs string
	// Patch is "merge" (RFC 7396 JSON Merge Patch) or "json-patch" (RFC
	// 6902 JSON Patch).
	Patch string
	// Items is where a list answer holds the items: a dotted path ("data",
	// "meta.items"), or "." for an answer that is the array itself.
	Items string
	// Paging is none, limit, offset, page or cursor; the parameters carry it.
	Paging                                                     string
	LimitParam, OffsetParam, PageParam, CursorParam, SortParam string
}

// The values Override's enumerated fields take, as configuration lists them.
var (
	OverrideKinds  = []OpKind{KindList, KindCreate, KindBatchCreate, KindRead, KindReplace, KindPatch, KindDelete, KindSearch, KindReadOne, KindAction}
	OverrideIDs    = []string{"client", "server"}
	OverridePatch  = []string{"merge", "json-patch"}
	OverridePaging = []string{"none", "limit", "offset", "page", "cursor"}
)

// OverrideError says why an override cannot be applied: Field is its key
// under crud.operations.<Operation> ("kind", "idField", ...), "" for the
// entry as a whole.
type OverrideError struct {
	Operation, Field string
	Err              error
}

func (e *OverrideError) Error() string {
	if e.Field == "" {
		return e.Operation + ": " + e.Err.Error()
	}
	return e.Operation + "." + e.Field + ": " + e.Err.Error()
}

// Unwrap returns why.
func (e *OverrideError) Unwrap() error { return e.Err }

// forcedOps are the operations whose kind or resource configuration
// gives, with their override, the kind filled in when only the resource
// was given.
func (s *Spec) forcedOps(ov map[string]Override) (map[*Operation]*Override, []error) {
	out := map[*Operation]*Override{}
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(ov)) {
		o := ov[id]
		op := s.Operation(id)
		if op == nil {
			errs = append(errs, &OverrideError{Operation: id, Err: fmt.Errorf("no such operation in the document")})
			continue
		}
		if o.Kind != "" && !slices.Contains(OverrideKinds, o.Kind) {
			errs = append(errs, &OverrideError{Operation: id, Field: "kind", Err: fmt.Errorf("%q: want one of %s", o.Kind, joinKinds(OverrideKinds))})
			continue
		}
		if o.Kind == "" && o.Resource == "" {
			continue
		}
		if o.Resource != "" && !strings.HasPrefix(o.Resource, "/") {
			errs = append(errs, &OverrideError{Operation: id, Field: "resource", Err: fmt.Errorf("%q: want the collection's path as the document writes it, /pets", o.Resource)})
			continue
		}
		if o.Kind == "" {
			o.Kind = defaultKind(op, o.Resource)
		}
		if o.Resource != "" && (o.Kind == KindList || o.Kind == KindCreate || o.Kind == KindReadOne) && o.Resource != op.Path {
			hint := "; use search or batchCreate for " + o.Resource
			if o.Kind == KindReadOne {
				hint = ""
			}
			errs = append(errs, &OverrideError{Operation: id, Field: "resource", Err: fmt.Errorf("a %s serves the collection at its own path, %s%s", o.Kind, op.Path, hint)})
			continue
		}
		out[op] = &o
	}
	return out, errs
}

// defaultKind is the kind an operation placed in resource has by its
// method and where its path is.
func defaultKind(op *Operation, resource string) OpKind {
	switch {
	case op.Path == resource && op.Method == http.MethodGet:
		return KindList
	case op.Path == resource && op.Method == http.MethodPost:
		return KindCreate
	case strings.HasPrefix(op.Path, resource+"/") && strings.Count(op.Path[len(resource):], "/") == 1 && itemKinds[op.Method] != "":
		return itemKinds[op.Method]
	case op.Method == http.MethodGet:
		return KindSearch
	case op.Method == http.MethodPost:
		return KindBatchCreate
	}
	return KindAction
}

// applyOverrides sets the fields configuration gives on the resources
// their operations belong to.
func applyOverrides(s *Spec, rs []*Resource, ov map[string]Override) []error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(ov)) {
		o := ov[id]
		op := s.Operation(id)
		if op == nil {
			continue // reported by forcedOps
		}
		bad := func(field, format string, args ...any) {
			errs = append(errs, &OverrideError{Operation: id, Field: field, Err: fmt.Errorf(format, args...)})
		}
		r, ro := findOp(rs, op)
		fields := o
		fields.Kind, fields.Resource = "", ""
		if fields == (Override{}) {
			continue
		}
		if r == nil {
			bad("", "the operation serves no resource, so %s has nothing to apply to; give its kind and resource", strings.Join(setFields(fields), ", "))
			continue
		}
		if o.IDField != "" {
			p := r.Item.Prop(o.IDField)
			if p == nil {
				bad("idField", "%q is not a property of the item of %s; its properties are %s", o.IDField, r.Path, strings.Join(propNames(r.Item), ", "))
			} else {
				r.IDField, r.HiddenID = o.IDField, false
				r.ID = IDSpec{Type: p.Type(), Format: p.Format, Pattern: p.Pattern, Schema: p}
				if !r.ClientIDs && !slices.Contains(r.Assigned, o.IDField) {
					r.Assigned = append(r.Assigned, o.IDField)
				}
			}
		}
		if o.ParentField != "" {
			switch {
			case r.Parent == nil:
				bad("parentField", "%s has no parent resource", r.Path)
			case r.Item.Prop(o.ParentField) == nil:
				bad("parentField", "%q is not a property of the item of %s; its properties are %s", o.ParentField, r.Path, strings.Join(propNames(r.Item), ", "))
			default:
				r.ParentField = o.ParentField
			}
		}
		switch o.IDs {
		case "":
		case "client":
			r.ClientIDs = true
			r.Assigned = slices.DeleteFunc(r.Assigned, func(n string) bool { return n == r.IDField })
		case "server":
			r.ClientIDs = false
			for _, x := range r.Ops {
				x.CreatesOnPut = false
			}
			if r.IDField != "" && !slices.Contains(r.Assigned, r.IDField) {
				r.Assigned = append(r.Assigned, r.IDField)
			}
		default:
			bad("ids", "%q: want client or server", o.IDs)
		}
		switch {
		case o.Patch == "":
		case ro.Kind != KindPatch:
			bad("patch", "%s is a %s, not a patch", op, ro.Kind)
		case o.Patch == "merge":
			ro.Request.Kind = "item"
		case o.Patch == "json-patch":
			ro.Request.Kind = "patch"
		default:
			bad("patch", "%q: want merge or json-patch", o.Patch)
		}
		if o.Items == "" && o.Paging == "" && o.LimitParam == "" && o.OffsetParam == "" && o.PageParam == "" && o.CursorParam == "" && o.SortParam == "" {
			continue
		}
		l := ro.List
		if l == nil {
			bad("", "%s is a %s: only list and search operations page", op, ro.Kind)
			continue
		}
		if o.Items != "" {
			l.Items = nil
			if o.Items != "." {
				l.Items = strings.Split(o.Items, ".")
			}
			if at := schemaAt(ro.Response.Schema, l.Items); at == nil || at.Type() != "array" {
				bad("items", "%q does not name an array in the answer of %s", o.Items, op)
			}
		}
		for _, p := range []struct {
			field, name string
			dst         *string
		}{{"limitParam", o.LimitParam, &l.LimitParam}, {"offsetParam", o.OffsetParam, &l.OffsetParam}, {"pageParam", o.PageParam, &l.PageParam}, {"cursorParam", o.CursorParam, &l.Cursor}, {"sortParam", o.SortParam, &l.SortParam}} {
			if p.name == "" {
				continue
			}
			qp := op.Param("query", p.name)
			if qp == nil {
				bad(p.field, "%s has no query parameter %q", op, p.name)
				continue
			}
			*p.dst = p.name
			if p.field == "limitParam" {
				l.Limit = limitOf(p.name, s.schema(qp.Schema))
			}
			l.Filters = slices.DeleteFunc(l.Filters, func(f *Filter) bool { return f.Param == p.name })
		}
		if o.Paging != "" {
			if !slices.Contains(OverridePaging, o.Paging) {
				bad("paging", "%q: want one of %s", o.Paging, strings.Join(OverridePaging, ", "))
				continue
			}
			need := map[string]string{"limit": l.LimitParam, "offset": l.OffsetParam, "page": l.PageParam, "cursor": l.Cursor}[o.Paging]
			if o.Paging != "none" && need == "" {
				bad("paging", "%s paging needs its query parameter: give %sParam", o.Paging, o.Paging)
				continue
			}
			l.Paging = o.Paging
		}
	}
	return errs
}

// findOp finds the resource and resource operation of op.
func findOp(rs []*Resource, op *Operation) (*Resource, *ResourceOp) {
	for _, r := range rs {
		for _, o := range r.Ops {
			if o.Op == op {
				return r, o
			}
		}
	}
	return nil, nil
}

// schemaAt is the schema at a path of properties; s itself for none.
func schemaAt(s *Schema, path []string) *Schema {
	for _, p := range path {
		if s == nil {
			return nil
		}
		s = s.Prop(p)
	}
	return s
}

// setFields names the fields of o that are set, as configuration writes them.
func setFields(o Override) []string {
	var out []string
	for _, f := range []struct {
		name string
		v    string
	}{{"idField", o.IDField}, {"parentField", o.ParentField}, {"ids", o.IDs}, {"patch", o.Patch}, {"items", o.Items}, {"paging", o.Paging}, {"limitParam", o.LimitParam}, {"offsetParam", o.OffsetParam}, {"pageParam", o.PageParam}, {"cursorParam", o.CursorParam}, {"sortParam", o.SortParam}} {
		if f.v != "" {
			out = append(out, f.name)
		}
	}
	return out
}

func joinKinds(ks []OpKind) string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return strings.Join(out, ", ")
}
