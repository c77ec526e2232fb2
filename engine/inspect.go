package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/petctl/petctl/spec"
)

// WriteReport writes the plan for a person to read (`petctl inspect`):
// each resource with its id, parent, assigned fields, operations, list
// envelope, paging and filters; then each operation not served from the
// store, with why, so that a user can fix it in configuration
// (crud.operations) instead of reading code.
func (p *Plan) WriteReport(w io.Writer, s *spec.Spec) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s %s (%s)\n", s.Title, s.Version, s.Source)
	for _, r := range p.Resources {
		writeResource(b, p, r)
	}
	crud, stateful := 0, 0
	// CRUD operations the store does not serve come first: they are what
	// a user most likely wants to fix in configuration.
	var unservedCRUD, others, refused []*PlannedOperation
	for _, po := range p.Operations {
		switch {
		case po.Unservable != "":
			// A 501 whatever its kind: served by neither store nor document.
			if po.CRUD {
				crud++
			}
			refused = append(refused, po)
		case po.CRUD && po.Stateful:
			crud++
			stateful++
		case po.CRUD:
			crud++
			unservedCRUD = append(unservedCRUD, po)
		case !po.Stateful:
			others = append(others, po)
		}
	}
	for _, part := range []struct {
		title string
		ops   []*PlannedOperation
	}{{"CRUD operations not served from the store", unservedCRUD}, {"other operations not served from the store", others}} {
		if len(part.ops) == 0 {
			continue
		}
		b.WriteString("\n" + part.title + "\n")
		for _, po := range part.ops {
			fmt.Fprintf(b, "  %-7s %s%s  %s: %s\n", po.Op.Method, po.Op.Path, namedID(po.Op), po.Kind, po.Why)
		}
	}
	if len(refused) > 0 {
		b.WriteString("\noperations answered 501: every security alternative needs a scheme petctl cannot check\n")
		for _, po := range refused {
			fmt.Fprintf(b, "  %-7s %s%s  needs %s\n", po.Op.Method, po.Op.Path, namedID(po.Op), po.Unservable)
		}
	}
	fmt.Fprintf(b, "\nresources: %d; %d of %d CRUD operations served from the store\n", len(p.Resources), stateful, crud)
	_, err := io.WriteString(w, b.String())
	return err
}

// namedID is "  ID" for an operation the document names, else "": one
// named by its method and path is not named twice.
func namedID(op *spec.Operation) string {
	if op.Named {
		return "  " + op.ID
	}
	return ""
}

func writeResource(b *strings.Builder, p *Plan, r *spec.Resource) {
	fmt.Fprintf(b, "\n%s", r.Path)
	if r.Key != r.Name {
		fmt.Fprintf(b, "  (named %s in fixtures and configuration)", r.Key)
	}
	b.WriteString("\n")
	line := func(label, format string, args ...any) {
		fmt.Fprintf(b, "  %-9s %s\n", label, fmt.Sprintf(format, args...))
	}
	ok, why := servable(r)
	switch {
	case r.Singleton:
		line("singleton", "one item%s, made from its schema when first read", perParent(r))
	case r.HiddenID:
		line("id", "in the path only (%s), %s, assigned by the server", r.IDParam, idType(r.ID))
	case r.IDField != "":
		by := "assigned by the server"
		if r.ClientIDs {
			by = "chosen by the client (a taken one is 409)"
		}
		line("id", "%s: %s, %s", r.IDField, idType(r.ID), by)
	}
	if r.OneItem() {
		line("one item", "%s reads it%s, made on that first read from its example, else its schema; %s addresses it too", r.Path, perParent(r), r.ItemPath)
	}
	if !ok {
		line("served", "from the document, not the store: %s", why)
	}
	if len(r.ParentParams) > 0 {
		parent := "none declared: the ids are not checked"
		if r.Parent != nil {
			parent = r.Parent.Path + " (must exist)"
		}
		field := "no field holds its id"
		if r.ParentField != "" {
			field = "its id in " + r.ParentField
		}
		line("parent", "%s, by %s; %s", parent, strings.Join(r.ParentParams, ", "), field)
	}
	if len(r.Assigned) > 0 {
		line("assigned", "%s", strings.Join(r.Assigned, ", "))
	}
	if r.SelfField != "" {
		line("self", "%s holds the item's URL", r.SelfField)
	}
	if r.ETags {
		line("etags", "answers carry ETag; a write with a stale If-Match gets 412")
	}
	for _, o := range r.Ops {
		desc := describeOp(o)
		if po := p.Operation(o.Op); po != nil && po.Unservable != "" {
			desc = "answers 501: needs " + po.Unservable
		}
		fmt.Fprintf(b, "  %-9s %s %s  %s  %s\n", o.Kind, o.Op.Method, o.Op.Path, o.Op.ID, desc)
		if o.List != nil {
			fmt.Fprintf(b, "  %-9s %s\n", "", describeList(o.List))
		}
	}
	for _, n := range r.Notes {
		line("note", "%s", n)
	}
}

func perParent(r *spec.Resource) string {
	if len(r.ParentParams) > 0 {
		return " per " + strings.Join(r.ParentParams, ", ")
	}
	return ""
}

func idType(id spec.IDSpec) string {
	t := id.Type
	if id.Format != "" {
		t += " (" + id.Format + ")"
	}
	if id.Pattern != "" {
		t += " matching " + id.Pattern
	}
	return t
}

// describeOp says what an operation takes and answers.
func describeOp(o *spec.ResourceOp) string {
	var parts []string
	switch o.Request.Kind {
	case "":
	case "wrapped":
		parts = append(parts, fmt.Sprintf("takes the item in %q (%s)", o.Request.Field, o.Request.MediaType))
	case "patch":
		parts = append(parts, "takes a JSON Patch (RFC 6902, "+o.Request.MediaType+")")
	case "list":
		parts = append(parts, "takes an array of items")
	default:
		if o.Kind == spec.KindPatch {
			parts = append(parts, "takes a JSON Merge Patch (RFC 7396, "+o.Request.MediaType+")")
		} else {
			parts = append(parts, "takes the item ("+o.Request.MediaType+")")
		}
	}
	answer := fmt.Sprintf("answers %d", o.Response.Status)
	switch o.Response.Kind {
	case "none":
		answer += " without a body"
	case "item":
		answer += " with the item"
	case "wrapped":
		answer += fmt.Sprintf(" with the item in %q", o.Response.Field)
	case "list":
		answer += " with the items"
	default:
		answer += " with a body made from its schema, the item's values where they fit"
	}
	parts = append(parts, answer)
	if o.CreatesOnPut {
		parts = append(parts, "creates the item at its path (201)")
	}
	if o.IfMatch {
		parts = append(parts, "honours If-Match")
	}
	if o.Forced {
		parts = append(parts, "as configured")
	}
	return strings.Join(parts, "; ")
}

// describeList says how a list wraps, pages, filters and sorts.
func describeList(l *spec.ListShape) string {
	var parts []string
	if len(l.Items) == 0 {
		parts = append(parts, "a bare array")
	} else {
		env := "items in " + strings.Join(l.Items, ".")
		for _, f := range []struct {
			name string
			at   []string
		}{{"total", l.Total}, {"pages", l.TotalPages}, {"next", l.Next}, {"previous", l.Prev}, {"has more", l.HasMore}, {"page", l.Page}, {"page size", l.PageSize}, {"offset", l.Offset}} {
			if f.at != nil {
				env += ", " + f.name + " in " + strings.Join(f.at, ".")
			}
		}
		parts = append(parts, env)
	}
	paging := "paging " + l.Paging
	var params []string
	for _, p := range []struct{ name, param string }{{"size", l.LimitParam}, {"offset", l.OffsetParam}, {"page", l.PageParam}, {"cursor", l.Cursor}} {
		if p.param != "" {
			params = append(params, p.name+" "+p.param)
		}
	}
	if len(params) > 0 {
		paging += " (" + strings.Join(params, ", ") + ")"
	}
	if lim := l.Limit; lim != nil {
		paging += fmt.Sprintf(", page size %d", lim.Min)
		if lim.Max > 0 {
			paging += fmt.Sprintf("..%d", lim.Max)
		}
		if lim.Default > 0 {
			paging += fmt.Sprintf(", default %d", lim.Default)
		}
	}
	parts = append(parts, paging)
	if len(l.Filters) > 0 {
		var fs []string
		for _, f := range l.Filters {
			fs = append(fs, f.Param)
		}
		parts = append(parts, "filters "+strings.Join(fs, ", "))
	}
	if l.SortParam != "" {
		parts = append(parts, "sort by "+l.SortParam)
	}
	return strings.Join(parts, "; ")
}
