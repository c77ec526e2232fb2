package engine

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/petctl/petctl/spec"
)

// Plan is what the engine makes of a document: its resources, and for
// every operation what answers it and, when the store does not, why. The
// server follows it, `petctl inspect` prints it.
type Plan struct {
	Resources  []*spec.Resource
	Operations []*PlannedOperation
}

// PlannedOperation is what answers one operation.
type PlannedOperation struct {
	Op *spec.Operation
	// Kind is the resource operation's kind, or "action" (an answer made
	// from the document), "unpublished" or "none" (no 2xx answer declared).
	Kind spec.OpKind
	// Resource and Role are the resource it belongs to and its part in it;
	// nil for an action.
	Resource *spec.Resource
	Role     *spec.ResourceOp
	// AsGet is set for a HEAD answered as its path's GET (headsAsGets).
	AsGet bool
	// Stateful is set when the store answers it; Why says why not, for an
	// operation that looks like a CRUD operation or belongs to a resource.
	Stateful bool
	Why      string
	// CRUD is set when its method and path are those of a CRUD operation:
	// GET or POST on a collection path (one with an item path below it),
	// GET, PUT, PATCH or DELETE on an item path (one ending in a parameter).
	CRUD bool
	// Unservable names the security schemes petctl cannot check when every
	// alternative of the operation needs one: it then answers 501 before
	// its kind matters.
	Unservable string
}

// The kinds of a planned operation that no resource has.
const (
	KindUnpublished spec.OpKind = "unpublished"
	KindNone        spec.OpKind = "none"
)

// NewPlan plans the document with the configuration's overrides by
// operationId, and configured, the operations another setting names
// (Options.ConfiguredOperations). A problem with an override is an
// *OptionError at its key (crud.operations.<operationId>.<field>); the
// plan is made with the others.
func NewPlan(s *spec.Spec, overrides map[string]spec.Override, configured map[string]bool) (*Plan, error) {
	resources, err := s.InferResources(overrides)
	var errs []error
	for _, e := range joinedErrors(err) {
		var oe *spec.OverrideError
		if errors.As(e, &oe) {
			key := "crud.operations." + oe.Operation
			if oe.Field != "" {
				key += "." + oe.Field
			}
			errs = append(errs, keyError(key, "%v", oe.Err))
		} else {
			errs = append(errs, wholeError("crud.operations", e))
		}
	}
	p := &Plan{Resources: resources}
	roles := map[*spec.Operation]*spec.ResourceOp{}
	owner := map[*spec.Operation]*spec.Resource{}
	for _, r := range resources {
		for _, o := range r.Ops {
			roles[o.Op], owner[o.Op] = o, r
		}
	}
	paths := map[string]bool{}
	for _, op := range s.Operations {
		paths[op.Path] = true
	}
	for _, op := range s.Operations {
		po := &PlannedOperation{Op: op, CRUD: crudShaped(op, paths)}
		_, po.Unservable = checkable(op)
		r, role := owner[op], roles[op]
		switch {
		case op.Unpublished:
			po.Kind, po.Why = KindUnpublished, "its interface is not published (x-interface-published: false): no payload is shown to answer with"
		case role != nil:
			po.Kind, po.Resource, po.Role = role.Kind, r, role
			if ok, why := servable(r); !ok {
				po.Why = fmt.Sprintf("%s: %s; answered from the document", r.Path, why)
			} else {
				po.Stateful = true
			}
		case !declaresSuccess(op):
			po.Kind, po.Why = KindNone, "it declares no 2xx answer: there is nothing to answer with"
		case overrides[op.ID].Kind == spec.KindAction:
			po.Kind, po.Why = spec.KindAction, "configured as an action (crud.operations): answered from the document"
		default:
			po.Kind, po.Why = spec.KindAction, actionReason(s, op, resources)
		}
		p.Operations = append(p.Operations, po)
	}
	headsAsGets(p, overrides, configured)
	return p, errors.Join(errs...)
}

// headsAsGets marks the HEAD operations answered as their path's GET: a
// HEAD the document declares beside a read or a list the store answers,
// petctl inferring no kind for it and no setting naming it (a kind, an
// answer, a latency, a fault, headers: the setting is for the HEAD
// itself). RFC 9110 §9.3.2: HEAD is GET without the content; answered
// from the document, a HEAD of an item never created, or deleted,
// answered 200 (open-zaak's besluit_head, "the headers a GET would get").
func headsAsGets(p *Plan, overrides map[string]spec.Override, configured map[string]bool) {
	gets := map[string]*PlannedOperation{}
	for _, po := range p.Operations {
		if po.Op.Method == http.MethodGet && po.Stateful && (po.Kind == spec.KindRead || po.Kind == spec.KindReadOne || po.Kind == spec.KindList) {
			gets[po.Op.Path] = po
		}
	}
	for _, po := range p.Operations {
		if _, set := overrides[po.Op.ID]; set || configured[po.Op.ID] || po.Op.Method != http.MethodHead || po.Kind != spec.KindAction {
			continue
		}
		if get := gets[po.Op.Path]; get != nil {
			po.AsGet = true
			po.Why = fmt.Sprintf("answered as %s, without its content (RFC 9110 §9.3.2)", get.Op)
		}
	}
}

// Operation returns the plan of op, or nil.
func (p *Plan) Operation(op *spec.Operation) *PlannedOperation {
	for _, po := range p.Operations {
		if po.Op == op {
			return po
		}
	}
	return nil
}

// crudShaped reports whether an operation has the method and path of a
// CRUD operation (see PlannedOperation.CRUD).
func crudShaped(op *spec.Operation, paths map[string]bool) bool {
	segs := strings.Split(strings.Trim(op.Path, "/"), "/")
	last := segs[len(segs)-1]
	isParam := strings.HasPrefix(last, "{") && strings.HasSuffix(last, "}")
	switch op.Method {
	case http.MethodGet:
		return isParam || hasItemPath(op.Path, paths)
	case http.MethodPost:
		return !isParam && hasItemPath(op.Path, paths)
	case http.MethodPut, http.MethodPatch, http.MethodDelete:
		return isParam
	}
	return false
}

// hasItemPath reports whether a path /x/{param} is declared below p.
func hasItemPath(p string, paths map[string]bool) bool {
	for q := range paths {
		if rest, ok := strings.CutPrefix(q, p+"/"); ok && strings.HasPrefix(rest, "{") && strings.HasSuffix(rest, "}") && !strings.Contains(rest, "/") {
			return true
		}
	}
	return false
}

// declaresSuccess reports whether op declares a 2xx answer.
func declaresSuccess(op *spec.Operation) bool {
	for _, r := range op.Responses {
		if r.Status >= 200 && r.Status < 300 {
			return true
		}
	}
	return false
}

// actionReason says why an operation that belongs to no resource is not
// stateful: what about its path or schemas kept it out of one.
func actionReason(s *spec.Spec, op *spec.Operation, resources []*spec.Resource) string {
	segs := strings.Split(strings.Trim(op.Path, "/"), "/")
	last := segs[len(segs)-1]
	isParam := strings.HasPrefix(last, "{") && strings.HasSuffix(last, "}")
	for _, r := range resources {
		if r.Path == op.Path || r.ItemPath == op.Path {
			switch op.Method {
			case http.MethodPost:
				if r.Path != op.Path {
					return fmt.Sprintf("a POST on the item path of %s is no CRUD operation; answered from the document", r.Path)
				}
			case http.MethodGet:
				return fmt.Sprintf("its answer does not carry the items of %s; answered from the document", r.Path)
			}
			return fmt.Sprintf("%s %s is no operation petctl infers for %s; answered from the document (set crud.operations.%s.kind)", op.Method, op.Path, r.Path, op.ID)
		}
	}
	switch {
	case isParam && len(segs) > 1 && strings.HasPrefix(segs[len(segs)-2], "{"):
		return "its path ends in two parameters, so no literal segment names a collection; answered from the document"
	case isParam || crudShapedPath(op, s):
		return "no object item schema could be inferred for its resource (the read, replace, create or list answers); answered from the document"
	}
	return "its path and schemas fit no collection, item, search or batch create; answered from the document (its example, else a value made from its schema)"
}

func crudShapedPath(op *spec.Operation, s *spec.Spec) bool {
	paths := map[string]bool{}
	for _, o := range s.Operations {
		paths[o.Path] = true
	}
	return crudShaped(op, paths)
}

// joinedErrors lists the errors errors.Join put together in err, however deep.
func joinedErrors(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, joinedErrors(e)...)
	}
	return out
}
