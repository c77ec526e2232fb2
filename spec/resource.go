package spec

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// OpKind is what an operation does to the resource it belongs to.
type OpKind string

// The kinds of operation petctl infers.
const (
	KindList        OpKind = "list"        // GET /X: the items, a page at a time
	KindCreate      OpKind = "create"      // POST /X: a new item
	KindBatchCreate OpKind = "batchCreate" // POST /X/createWithList: new items from an array
	KindRead        OpKind = "read"        // GET /X/{id}
	KindReplace     OpKind = "replace"     // PUT /X/{id}: a whole new version (creates it where the client chooses ids)
	KindPatch       OpKind = "patch"       // PATCH /X/{id}: JSON Merge Patch or JSON Patch
	KindDelete      OpKind = "delete"      // DELETE /X/{id}
	KindSearch      OpKind = "search"      // GET /X/findByStatus: a view of the items elsewhere
	KindReadOne     OpKind = "readOne"     // GET /X answering one item, which /X/{id} also addresses (a settings record)
	KindAction      OpKind = "action"      // anything else: answered with a body valid against the document
)

// Shape is how an operation's request or response body carries an item.
type Shape struct {
	// Kind is "item" (the item itself, or a part of it), "wrapped" (an
	// object whose Field holds the item: {"customer": {...}}), "list",
	// "none" (no body) or "other" (a body unrelated to the item, made
	// from its schema).
	Kind   string
	Field  string
	Schema *Schema
	Status int // for a response: the 2xx status
	// MediaType of a request body ("application/merge-patch+json", ...).
	MediaType string
}

// ResourceOp is one operation of a resource.
type ResourceOp struct {
	Op       *Operation
	Kind     OpKind
	Request  Shape
	Response Shape
	// Answers are the shapes of every 2xx response by status (Response is
	// the first's): a replace may answer 201 when it creates, 204 else.
	Answers map[int]Shape
	// CreatesOnPut marks a replace that creates the item when it is absent
	// (the document declares 201 for it).
	CreatesOnPut bool
	// List is how a list or search answer pages and wraps the items.
	List *ListShape
	// IfMatch is set when the operation takes an If-Match header, ETag
	// when one of its 2xx answers declares an ETag header.
	IfMatch, ETag bool
	// Forced is set when configuration gave the kind or the resource.
	Forced bool
	// SavesOver marks a POST that saves a singleton (see
	// savesWhatItReads): it merges what it sends over what is held as the
	// applications that save this way do, a null stored, not a removal
	// as in a JSON Merge Patch.
	SavesOver bool
}

// IDSpec is the type of a resource's ids.
type IDSpec struct {
	Type    string // "integer", "number" (whole), "string"
	Format  string // "uuid", "int64", ... as declared
	Pattern string
	Schema  *Schema
}

// Resource is a thing the paths describe: a collection of items (/X and
// /X/{id}), possibly nested under an item of another resource
// (/owners/{ownerId}/pets), or a singleton (/settings, /X/{id}/settings).
type Resource struct {
	// Name is the last literal segment of its path ("pets").
	Name string
	// Key names the resource uniquely among the document's: its Name, or,
	// where two resources share one, the literal segments of its path
	// joined by dots ("emails.attachments"). Fixture files, the store and
	// configuration name resources by it.
	Key string
	// Path is the collection's path ("/owners/{ownerId}/pets"), or the
	// singleton's; ItemPath the item's ("/owners/{ownerId}/pets/{petId}"),
	// "" for a singleton or a collection without item operations.
	Path, ItemPath string
	IDParam        string // the item path's last parameter ("petId")
	IDField        string // the item property that holds the id ("id")
	ID             IDSpec
	// ClientIDs is set when the client chooses the ids: the create body
	// carries the id field, or a replace creates items at a path it names.
	ClientIDs bool
	Singleton bool
	// HiddenID is set when the item has no field for its id: the id is in
	// the path only (/besluiten/{uuid}), assigned by the store.
	HiddenID bool
	// SelfField is the item's link to itself (a server-assigned url, self
	// or href of format uri), filled with the item's URL.
	SelfField string

	// Parent is the resource whose item path Path extends, nil at the top
	// or when the parent item path declares no read; ParentParams are the
	// path parameters of Path, outermost first: the store keeps items per
	// their values. ParentField is the item property that holds the
	// nearest parent's id, when the item has one.
	Parent       *Resource
	ParentParams []string
	ParentField  string

	// Item is what the resource stores and answers; New what a create takes.
	Item *Schema
	New  *Schema
	// Assigned are the item's fields the server fills: readOnly ones
	// (but those the create's body declares writable), and those the
	// item requires but a create does not carry.
	Assigned []string

	Ops []*ResourceOp
	// List is the list operation's shape (nil without one).
	List *ListShape
	// ETags is set when an operation of the resource declares ETag or
	// If-Match: its items then carry an entity tag, and writes honour
	// If-Match (412 when it is stale).
	ETags bool

	// Notes say what could not be inferred, and why an operation is not
	// served statefully; `petctl inspect` prints them.
	Notes []string
}

// OneItem reports whether the resource's path reads its one item
// (KindReadOne): a collection of settings, made on first read.
func (r *Resource) OneItem() bool { return r.Op(KindReadOne) != nil }

// Op returns the resource's first operation of kind k, or nil.
func (r *Resource) Op(k OpKind) *ResourceOp {
	for _, o := range r.Ops {
		if o.Kind == k {
			return o
		}
	}
	return nil
}

// ListShape is how a list operation pages and wraps its items.
type ListShape struct {
	// Items is the path of the items array in the response: nil for a bare
	// array, ["data"] for {"data": [...]}.
	Items []string
	// Envelope fields, each a path, nil when absent.
	Total, Next, Prev, HasMore, Page, PageSize, Offset, TotalPages []string
	// Paging is "none", "limit" (a page size only), "offset", "page" or
	// "cursor"; the parameters are the query parameters that carry them.
	Paging                                     string
	LimitParam, OffsetParam, PageParam, Cursor string
	// Limit is the page-size parameter's bounds and default.
	Limit   *Limit
	Filters []*Filter
	// SortParam has an enum of sort keys; OrderParam asc/desc.
	SortParam, OrderParam string
}

// Page-size, offset, page and cursor parameter names petctl recognises,
// compared without case, '_' or '-'.
var (
	limitParams  = []string{"limit", "pagesize", "perpage", "size", "take", "count", "top", "first", "maxresults", "hitsperpage", "pagelimit", "maxitems"}
	offsetParams = []string{"offset", "skip", "start", "from", "startindex"}
	pageParams   = []string{"page", "pagenumber", "pagenum", "p", "pageindex"}
	cursorParams = []string{"cursor", "after", "before", "pagetoken", "startingafter", "endingbefore", "continuation", "continuationtoken", "marker", "next", "nexttoken", "starttoken"}
	sortParams   = []string{"sort", "sortby", "orderby", "ordering", "sortkey", "sortfield", "order"}
	orderParams  = []string{"sortdirection", "sortorder", "direction", "order", "sortdir"}
	// backwardCursors are the cursor parameters that page back, toward
	// the first page: a next page's cursor given to them goes nowhere new.
	backwardCursors = []string{"before", "endingbefore", "prev", "previous"}
	// idCursors take the id of an item, as Stripe's starting_after does:
	// the page continues after (or before) it.
	idCursors = []string{"after", "startingafter", "before", "endingbefore"}
)

// BackwardCursor reports whether a cursor parameter pages back (before,
// ending_before): the cursor of the next page is not for it.
func BackwardCursor(name string) bool { return isOneOf(name, backwardCursors) }

// CursorTakesID reports whether a cursor parameter takes the id of an
// item (after, starting_after), so that the last item of a page names the
// next page where the answer gives no cursor.
func CursorTakesID(name string) bool { return isOneOf(name, idCursors) }

// separators are what norm drops. Built once: a Replacer builds its
// tables on first use, and norm runs for every property of every schema
// inference looks at (a third of what loading the largest corpus
// documents allocated, when it was built per call).
var separators = strings.NewReplacer("_", "", "-", "", ".", "")

// norm compares names without case and separators: page_size ~ pageSize.
func norm(s string) string {
	return strings.ToLower(separators.Replace(s))
}

func isOneOf(name string, names []string) bool { return slices.Contains(names, norm(name)) }

// shape is a path template with its parameters unnamed: /a/{x}/b and
// /a/{y}/b name the same place.
func shape(p string) string {
	segs := segments(p)
	for i, sg := range segs {
		if _, ok := paramName(sg); ok {
			segs[i] = "{}"
		}
	}
	return "/" + strings.Join(segs, "/")
}

// segments of a path template.
func segments(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

func paramName(seg string) (string, bool) {
	if isTemplate(seg) {
		return strings.Trim(seg, "{}"), true
	}
	return "", false
}

// InferResources reads the resources the paths describe, with the
// configuration's overrides by operationId applied (nil for none). Spec.Resources
// is its answer without overrides. Each override that cannot be applied is
// an *OverrideError; the resources are returned with the others applied.
func (s *Spec) InferResources(ov map[string]Override) ([]*Resource, error) {
	forced, errs := s.forcedOps(ov)
	byPath := map[string]*Resource{}
	var order []string
	get := func(path string) *Resource {
		if r, ok := byPath[path]; ok {
			return r
		}
		segs := segments(path)
		r := &Resource{Name: segs[len(segs)-1], Path: path}
		for _, sg := range segs {
			if p, ok := paramName(sg); ok {
				r.ParentParams = append(r.ParentParams, p)
			}
		}
		byPath[path] = r
		order = append(order, path)
		return r
	}
	inferred := func(op *Operation) bool { return !op.Unpublished && forced[op] == nil }
	// Pass 1: item paths (/X/{id}) make resources at /X.
	for _, op := range s.Operations {
		if !inferred(op) {
			continue
		}
		segs := segments(op.Path)
		if p, ok := paramName(segs[len(segs)-1]); ok && len(segs) > 1 {
			if _, parentIsParam := paramName(segs[len(segs)-2]); parentIsParam {
				continue // /a/{x}/{y}: no literal names the collection
			}
			r := get(op.Path[:strings.LastIndex(op.Path, "/")])
			if r.ItemPath == "" {
				r.ItemPath, r.IDParam = op.Path, p
			}
		}
	}
	// Pass 2: operations on collection paths and item paths.
	for _, op := range s.Operations {
		if !inferred(op) {
			continue
		}
		if r := byPath[op.Path]; r != nil {
			switch op.Method {
			case http.MethodGet:
				r.Ops = append(r.Ops, &ResourceOp{Op: op, Kind: KindList})
			case http.MethodPost:
				r.Ops = append(r.Ops, &ResourceOp{Op: op, Kind: KindCreate})
			}
			continue
		}
		if i := strings.LastIndex(op.Path, "/"); i > 0 {
			if r := byPath[op.Path[:i]]; r != nil && r.ItemPath == op.Path {
				if kind := itemKinds[op.Method]; kind != "" {
					r.Ops = append(r.Ops, &ResourceOp{Op: op, Kind: kind})
				}
			}
		}
	}
	// Pass 3: singletons: a literal path with GET and PUT or PATCH, or a
	// POST that saves what the GET reads (see savesWhatItReads), and no
	// item path below it.
	for _, op := range s.Operations {
		if !inferred(op) || byPath[op.Path] != nil || op.Method != http.MethodGet {
			continue
		}
		if _, last := paramName(segments(op.Path)[len(segments(op.Path))-1]); last {
			continue
		}
		put, patch := s.Find(http.MethodPut, op.Path), s.Find(http.MethodPatch, op.Path)
		if put != nil && !inferred(put) {
			put = nil
		}
		if patch != nil && !inferred(patch) {
			patch = nil
		}
		// A POST saves the settings where no PATCH does: as a merge, the
		// way the applications that write them this way apply it.
		var post *Operation
		if p := s.Find(http.MethodPost, op.Path); p != nil && patch == nil && inferred(p) && savesWhatItReads(s, op, p) {
			post = p
		}
		if put == nil && patch == nil && post == nil {
			continue
		}
		r := get(op.Path)
		r.Singleton = true
		r.Ops = append(r.Ops, &ResourceOp{Op: op, Kind: KindRead})
		if put != nil {
			r.Ops = append(r.Ops, &ResourceOp{Op: put, Kind: KindReplace})
		}
		if patch != nil {
			r.Ops = append(r.Ops, &ResourceOp{Op: patch, Kind: KindPatch})
		}
		if post != nil {
			r.Ops = append(r.Ops, &ResourceOp{Op: post, Kind: KindPatch, SavesOver: true})
		}
		if del := s.Find(http.MethodDelete, op.Path); del != nil && inferred(del) {
			r.Ops = append(r.Ops, &ResourceOp{Op: del, Kind: KindDelete})
		}
	}
	// Operations configuration places: in the resource it names, or the
	// one their path makes.
	for _, op := range s.Operations {
		o := forced[op]
		if o == nil || o.Kind == KindAction {
			continue
		}
		path := o.Resource
		if path == "" {
			path = op.Path
			if itemLevel(o.Kind) {
				path = op.Path[:max(strings.LastIndex(op.Path, "/"), 0)]
			}
		}
		r := get(path)
		if itemLevel(o.Kind) && r.ItemPath == "" && !r.Singleton {
			if p, ok := paramName(segments(op.Path)[len(segments(op.Path))-1]); ok && op.Path != path {
				r.ItemPath, r.IDParam = op.Path, p
			} else {
				r.Singleton = true
			}
		}
		r.Ops = append(r.Ops, &ResourceOp{Op: op, Kind: o.Kind, Forced: true})
	}
	var out []*Resource
	for _, p := range order {
		r := byPath[p]
		s.inferItem(r)
		if r.Item == nil {
			for _, o := range r.Ops {
				if o.Forced {
					errs = append(errs, &OverrideError{Operation: o.Op.ID, Field: "resource", Err: fmt.Errorf("%s: petctl finds no item schema for it (an object answered by its read, replace, create or list)", r.Path)})
				}
			}
			continue
		}
		out = append(out, r)
	}
	s.inferViews(out, forced)
	out = append(out, s.inferListsOnly(out, forced)...)
	// Parents: the resource whose item path the collection path extends.
	for _, r := range out {
		i := strings.LastIndex(r.Path, "/")
		for _, p := range out {
			if p != r && p.ItemPath != "" && shape(p.ItemPath) == shape(r.Path[:max(i, 0)]) && p.Op(KindRead) != nil {
				r.Parent = p
			}
		}
		if r.Parent != nil && len(r.ParentParams) > 0 {
			r.ParentField = fieldFor(r.Item, r.ParentParams[len(r.ParentParams)-1], r.Parent.Name, r.IDField)
		}
	}
	for _, r := range out {
		for _, o := range r.Ops {
			o.IfMatch = o.Op.Param("header", "If-Match") != nil
			for _, resp := range o.Op.Responses {
				if resp.Status >= 200 && resp.Status < 300 && resp.Header("ETag") != nil {
					o.ETag = true
				}
			}
			r.ETags = r.ETags || o.IfMatch || o.ETag
		}
	}
	errs = append(errs, applyOverrides(s, out, ov)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	nameKeys(out)
	return out, errors.Join(errs...)
}

// inferListsOnly makes resources of the lists no item path comes with: a
// GET at a literal path answering a list of objects that no resource
// owns, with the POST at the same path as its create. Their items can be
// listed and created, and seeded by fixtures.
func (s *Spec) inferListsOnly(rs []*Resource, forced map[*Operation]*Override) []*Resource {
	owned := map[*Operation]bool{}
	for _, r := range rs {
		for _, o := range r.Ops {
			owned[o.Op] = true
		}
	}
	taken := map[string]bool{}
	for _, r := range rs {
		taken[r.Path] = true
	}
	var out []*Resource
	for _, op := range s.Operations {
		if owned[op] || forced[op] != nil || op.Unpublished || op.Method != http.MethodGet || taken[op.Path] {
			continue
		}
		segs := segments(op.Path)
		if _, ok := paramName(segs[len(segs)-1]); ok {
			continue
		}
		// The items at the top, or in a field of an envelope: deeper, an
		// array is more likely a part of one object than a list.
		if items, at := listItems(successSchema(s, op)); items == nil || len(propNames(items)) == 0 || len(at) > 1 {
			continue
		}
		taken[op.Path] = true
		r := &Resource{Name: segs[len(segs)-1], Path: op.Path, Ops: []*ResourceOp{{Op: op, Kind: KindList}}}
		for _, sg := range segs {
			if p, ok := paramName(sg); ok {
				r.ParentParams = append(r.ParentParams, p)
			}
		}
		if post := s.Find(http.MethodPost, op.Path); post != nil && !owned[post] && forced[post] == nil && !post.Unpublished {
			r.Ops = append(r.Ops, &ResourceOp{Op: post, Kind: KindCreate})
		}
		s.inferItem(r)
		if r.Item == nil || r.Op(KindList) == nil {
			continue
		}
		out = append(out, r)
	}
	return out
}

// itemKinds are the kinds of the methods on an item path.
var itemKinds = map[string]OpKind{http.MethodGet: KindRead, http.MethodPut: KindReplace, http.MethodPatch: KindPatch, http.MethodDelete: KindDelete}

// itemLevel reports whether operations of kind k address one item.
func itemLevel(k OpKind) bool {
	return k == KindRead || k == KindReplace || k == KindPatch || k == KindDelete
}

// nameKeys gives each resource its Key: its name, unless another resource
// has the same, then its path's literal segments joined by dots.
func nameKeys(rs []*Resource) {
	count := map[string]int{}
	for _, r := range rs {
		count[r.Name]++
	}
	for _, r := range rs {
		r.Key = r.Name
		if count[r.Name] > 1 {
			var lits []string
			for _, sg := range segments(r.Path) {
				if _, ok := paramName(sg); !ok {
					lits = append(lits, sg)
				}
			}
			r.Key = strings.Join(lits, ".")
		}
	}
}

// inferItem decides what the resource stores, how each operation carries
// it, its id and its list shape; a resource without an object item
// schema is dropped (its operations become actions).
func (s *Spec) inferItem(r *Resource) {
	// The item: the read's answer, else the replace's body, else the
	// create's answer, else the list's items.
	var candidates []*Schema
	for _, k := range []OpKind{KindRead, KindReplace, KindCreate, KindList} {
		o := r.Op(k)
		if o == nil {
			continue
		}
		switch k {
		case KindReplace:
			if o.Op.Body != nil {
				candidates = append(candidates, unwrapItem(s.schema(o.Op.Body.Schema)))
			}
			fallthrough
		case KindRead, KindCreate:
			if resp := successSchema(s, o.Op); resp != nil {
				candidates = append(candidates, unwrapItem(resp))
			}
		case KindList:
			if resp := successSchema(s, o.Op); resp != nil {
				if items, _ := listItems(resp); items != nil {
					candidates = append(candidates, items)
				}
			}
		}
	}
	if r.Op(KindRead) == nil && r.Op(KindReplace) == nil && r.Op(KindCreate) != nil && len(candidates) == 2 && listShowsMore(candidates[1], candidates[0]) {
		// Nothing reads an item back, and the create answers less than the
		// list shows (an API key's id and its one-time token, where the
		// list shows its id, name and date): the item is what the list
		// shows, and the create's answer is made from it.
		candidates[0], candidates[1] = candidates[1], candidates[0]
	}
	for _, c := range candidates {
		if c != nil && c.Type() == "object" && len(propNames(c)) > 0 {
			r.Item = c
			break
		}
	}
	if read := r.Op(KindRead); r.Singleton && read != nil {
		// A singleton holds whatever its read answers: an object, a list
		// of names, a number.
		if resp := successSchema(s, read.Op); resp != nil {
			r.Item = resp
		}
	}
	if r.Item == nil {
		return
	}
	if c := r.Op(KindCreate); c != nil && c.Op.Body != nil {
		r.New = unwrapAgainst(s.schema(c.Op.Body.Schema), r.Item)
	}
	r.inferID(s)
	for _, o := range r.Ops {
		s.inferShapes(r, o)
	}
	// A GET of the collection's path that answers the item itself, where
	// the items have an id field the server assigns, no create adds to
	// them and the item path writes them, reads the collection's one
	// item: a settings record that its item path also addresses (sonarr's
	// GET /config/host beside GET and PUT /config/host/{id}). Without a
	// write it is more likely a view of one item among many (GitHub's GET
	// /user, the caller, beside GET /user/{account_id}).
	for _, o := range r.Ops {
		if o.Kind == KindList && !o.Forced && o.Response.Kind == "item" && o.Response.Schema == r.Item &&
			r.ItemPath != "" && r.IDField != "" && !r.ClientIDs && r.Op(KindCreate) == nil &&
			(r.Op(KindReplace) != nil || r.Op(KindPatch) != nil) {
			o.Kind = KindReadOne
		}
	}
	// Operations whose answers do not carry the items are not list or read
	// operations of this resource after all.
	r.Ops = slices.DeleteFunc(r.Ops, func(o *ResourceOp) bool {
		if o.Forced {
			return false
		}
		if (o.Kind == KindList && o.Response.Kind != "list") || (o.Kind == KindRead && o.Response.Kind != "item" && o.Response.Kind != "wrapped") {
			r.Notes = append(r.Notes, fmt.Sprintf("%s answers no %s of %s; it is answered from its schema", o.Op, map[OpKind]string{KindList: "list", KindRead: "item"}[o.Kind], r.Name))
			return true
		}
		return false
	})
	if lo := r.Op(KindList); lo != nil {
		r.List = s.inferList(r, lo)
		lo.List = r.List
	}
	if r.IDField == "" && !r.HiddenID && !r.Singleton && r.ItemPath != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: no id could be inferred (a property named like the path parameter %q, an 'id', or the one field the server assigns); its item operations answer from their schemas", r.Path, r.IDParam))
	}
}

// listShowsMore reports whether a list's items show more of an item than
// a create answers: objects that both have an "id" property (the item's
// id field is inferred only once the item is chosen), the items with
// more properties than the answer.
func listShowsMore(items, created *Schema) bool {
	if items == nil || created == nil || items.Type() != "object" || created.Type() != "object" {
		return false
	}
	in, cn := propNames(items), propNames(created)
	return len(in) > len(cn) && slices.Contains(in, "id") && slices.Contains(cn, "id")
}

// savesWhatItReads reports whether post takes the object get answers, and
// answers it or nothing: a POST that saves settings (Overseerr's GET and
// POST /settings/main, both MainSettings). A POST that takes anything
// else is an action on the path (POST /settings/plex/sync {start: true}).
func savesWhatItReads(s *Spec, get, post *Operation) bool {
	read := successSchema(s, get)
	if read == nil || read.Type() != "object" || post.Body == nil {
		return false
	}
	if !sameObject(read, s.schema(post.Body.Schema)) {
		return false
	}
	answer := successSchema(s, post)
	return answer == nil || sameObject(read, answer)
}

// sameObject reports whether two object schemas describe one thing: the
// same schema or component, or inline objects with the same properties.
func sameObject(a, b *Schema) bool {
	switch {
	case a == nil || b == nil:
		return false
	case sameComponent(a, b):
		return true
	}
	an, bn := propNames(a), propNames(b)
	slices.Sort(an)
	slices.Sort(bn)
	return a.Type() == "object" && b.Type() == "object" && len(an) > 0 && slices.Equal(an, bn)
}

// successSchema is the schema of op's first 2xx response with a body.
func successSchema(s *Spec, op *Operation) *Schema {
	for _, resp := range op.Responses {
		if resp.Status >= 200 && resp.Status < 300 && resp.Schema != nil {
			return s.schema(resp.Schema)
		}
	}
	return nil
}

func successStatus(op *Operation) (int, bool) {
	for _, resp := range op.Responses {
		if resp.Status >= 200 && resp.Status < 300 {
			return resp.Status, resp.Schema != nil || len(resp.MediaTypes) > 0
		}
	}
	return 0, false
}

func propNames(s *Schema) []string {
	props, _ := s.Props()
	out := make([]string, len(props))
	for i, p := range props {
		out[i] = p.Name
	}
	return out
}

// unwrapItem returns the item inside a single-property wrapper
// ({"customer": {...}}), or s.
func unwrapItem(s *Schema) *Schema {
	if s == nil || s.Type() != "object" {
		return s
	}
	props, _ := s.Props()
	if len(props) == 1 && props[0].Schema != nil && props[0].Schema.Type() == "object" && len(propNames(props[0].Schema)) > 1 {
		return props[0].Schema
	}
	return s
}

// unwrapAgainst unwraps s when its one property holds something like item.
func unwrapAgainst(s, item *Schema) *Schema {
	if u := unwrapItem(s); u != s && overlap(u, item) > 0 {
		return u
	}
	return s
}

// overlap is the share of a's properties that b has too.
func overlap(a, b *Schema) float64 {
	if a == nil || b == nil {
		return 0
	}
	if a == b {
		return 1
	}
	an, bn := propNames(a), propNames(b)
	if len(an) == 0 {
		return 0
	}
	n := 0
	for _, x := range an {
		if slices.Contains(bn, x) {
			n++
		}
	}
	return float64(n) / float64(len(an))
}

// listItems finds the items array of a list answer: the answer itself, or
// the one array property of objects in an envelope (one level down too:
// {"data": {"items": [...]}}).
func listItems(s *Schema) (*Schema, []string) {
	if s == nil {
		return nil, nil
	}
	if s.Type() == "array" {
		if s.Items != nil && s.Items.Type() == "object" {
			return s.Items, nil
		}
		return nil, nil
	}
	if s.Type() != "object" {
		return nil, nil
	}
	props, required := s.Props()
	if required["id"] {
		return nil, nil // a record that holds an array (a flow and its steps), not a page of records
	}
	var found *Schema
	var at []string
	for _, p := range props {
		if p.Schema == nil {
			continue
		}
		if p.Schema.Type() == "array" && p.Schema.Items != nil && p.Schema.Items.Type() == "object" {
			if found != nil {
				return nil, nil // two arrays: no single list
			}
			found, at = p.Schema.Items, []string{p.Name}
		}
	}
	if found != nil {
		for _, p := range props {
			if required[p.Name] && p.Schema != nil && p.Schema.Type() == "object" && p.Schema.Requires("id") {
				return nil, nil // a result that carries a record (a login's session) and a list beside it
			}
		}
	}
	if found == nil {
		for _, p := range props {
			if p.Schema != nil && p.Schema.Type() == "object" {
				if items, sub := listItems(p.Schema); items != nil && sub != nil {
					return items, append([]string{p.Name}, sub...)
				}
			}
		}
	}
	return found, at
}

// inferID picks the id field: a property named like the path parameter
// (petId, or id under pets/{petId}, uid under indexes/{indexUid}), else
// 'id', else the one field the server assigns.
func (r *Resource) inferID(s *Spec) {
	props, required := r.Item.Props()
	names := propNames(r.Item)
	var newNames []string
	if r.New != nil {
		newNames = propNames(r.New)
	}
	for _, p := range props {
		if p.Schema == nil {
			continue
		}
		sent := slices.Contains(newNames, p.Name)
		// readOnly in the item, yet declared by the create's own body
		// (overseerr's email): the client gives it when creating, and no
		// later write changes it.
		created := sent && !r.New.Prop(p.Name).ReadOnly
		if p.Schema.ReadOnly && !created || (required[p.Name] && r.New != nil && !sent) {
			r.Assigned = append(r.Assigned, p.Name)
		}
	}
	for _, p := range props {
		if p.Schema != nil && p.Schema.Type() == "string" && (p.Schema.Format == "uri" || p.Schema.Format == "url") && slices.Contains([]string{"url", "self", "href", "link"}, norm(p.Name)) && slices.Contains(r.Assigned, p.Name) {
			r.SelfField = p.Name
		}
	}
	if r.Singleton {
		return
	}
	r.IDField = idFieldFor(names, r.Assigned, r.IDParam, r.Name)
	f := r.Item.Prop(r.IDField)
	// The path parameter's schema where it says more (a uuid format the
	// field leaves out): ids must pass as path parameters.
	if ps := r.idParamSchema(s); f == nil || f.Type() == "" || ps != nil && ps.Type() == f.Type() && f.Format == "" && f.Pattern == "" && len(f.Enum) == 0 && (ps.Format != "" || ps.Pattern != "") {
		f = ps
	}
	if r.IDField == "" {
		// The id lives in the path only (open-zaak's {uuid}, a link in
		// 'url'), or nowhere (a list without item paths): the store keys
		// items by it without a field to hold it.
		r.HiddenID = r.IDParam != "" || r.ItemPath == ""
		r.ID = IDSpec{Type: "string"}
		if f != nil && f.Type() != "" {
			r.ID = IDSpec{Type: f.Type(), Format: f.Format, Pattern: f.Pattern, Schema: f}
		}
		return
	}
	if f != nil {
		r.ID = IDSpec{Type: f.Type(), Format: f.Format, Pattern: f.Pattern, Schema: f}
	}
	if r.ID.Type != "integer" && r.ID.Type != "string" && r.ID.Type != "number" {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: the id field %s has type %q; petctl keeps integer, whole number and string ids", r.Path, r.IDField, r.ID.Type))
		r.IDField = ""
		return
	}
	if r.New != nil && slices.Contains(newNames, r.IDField) && !r.New.Prop(r.IDField).ReadOnly {
		r.ClientIDs = true
		r.Assigned = slices.DeleteFunc(r.Assigned, func(n string) bool { return n == r.IDField })
	}
	if o := r.Op(KindReplace); o != nil && slices.ContainsFunc(o.Op.Responses, func(resp *Response) bool { return resp.Status == http.StatusCreated }) {
		r.ClientIDs, o.CreatesOnPut = true, true
	}
}

// idParamSchema is the schema of the path parameter that carries an item's
// id: the one the resource's own operations declare, unless it leaves the
// format and pattern out and a path under the item's (a child collection's)
// declares them for the same parameter (resend's {email_id}: a free string
// on /emails/{email_id}, a uuid on /emails/{email_id}/attachments). Every
// path that names the item must take its id.
func (r *Resource) idParamSchema(s *Spec) *Schema {
	var own *Schema
	for _, o := range r.Ops {
		if p := o.Op.Param("path", r.IDParam); p != nil && p.Schema != nil {
			own = s.schema(p.Schema)
			break
		}
	}
	if r.ItemPath == "" || own != nil && (own.Format != "" || own.Pattern != "") {
		return own
	}
	for _, op := range s.Operations {
		if !strings.HasPrefix(op.Path, r.ItemPath+"/") {
			continue
		}
		if p := op.Param("path", r.IDParam); p != nil && p.Schema != nil {
			if under := s.schema(p.Schema); under != nil && (under.Format != "" || under.Pattern != "") && (own == nil || under.Type() == own.Type()) {
				return under
			}
		}
	}
	return own
}

// words splits a name into lower-case words at '_', '-' and case changes:
// "external_customer_id" and "externalCustomerId" both give external,
// customer, id.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
			prevLower = false
			continue
		case r >= 'A' && r <= 'Z' && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
	}
	flush()
	return out
}

// singularWords are a resource name's words, the last made singular.
func singularWords(resource string) []string {
	ws := words(resource)
	if n := len(ws); n > 0 {
		last := ws[n-1]
		switch {
		case strings.HasSuffix(last, "ies"):
			last = strings.TrimSuffix(last, "ies") + "y"
		case strings.HasSuffix(last, "ses"), strings.HasSuffix(last, "xes"):
			last = strings.TrimSuffix(last, "es")
		case strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss"):
			last = strings.TrimSuffix(last, "s")
		}
		ws[n-1] = last
	}
	return ws
}

// withoutWords is name without the words of drop, joined: the id a path
// parameter names once its resource's name is taken out ("petId" under pets
// is "id", "external_customer_id" under customers "externalid").
func withoutWords(name string, drop []string) string {
	var kept []string
	for _, w := range words(name) {
		if !slices.Contains(drop, w) {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, "")
}

// idFieldFor names the id property among names.
func idFieldFor(names, assigned []string, param, resource string) string {
	var candidates []string
	if param != "" {
		candidates = append(candidates, norm(param))
		if rest := withoutWords(param, singularWords(resource)); rest != "" {
			candidates = append(candidates, rest)
		}
		if rest := withoutWords(param, words(resource)); rest != "" {
			candidates = append(candidates, rest)
		}
	}
	candidates = append(candidates, "id")
	for _, c := range candidates {
		for _, n := range names {
			if norm(n) == c {
				return n
			}
		}
	}
	if len(assigned) == 1 && norm(assigned[0]) != "url" && norm(assigned[0]) != "self" && norm(assigned[0]) != "href" {
		return assigned[0]
	}
	return ""
}

// fieldFor names the item property that holds a parent's id: ownerId for
// /owners/{ownerId}/pets, plan_code for /plans/{code}/charges; never the
// item's own id field.
func fieldFor(item *Schema, param, parent, own string) string {
	singular := strings.Join(singularWords(parent), "")
	want := []string{singular + norm(param)}
	if len(words(param)) > 1 { // ownerId, wallet_code: not a bare 'code' or 'id'
		want = append(want, norm(param))
	}
	want = append(want, singular+"id")
	if withoutWords(param, singularWords(parent)) == norm(param) {
		want = append(want, singular+withoutWords(param, nil))
	}
	names := propNames(item)
	for _, w := range want {
		for _, n := range names {
			if norm(n) == w && n != own {
				return n
			}
		}
	}
	return ""
}

// inferShapes says how o's request and answers carry r's item.
func (s *Spec) inferShapes(r *Resource, o *ResourceOp) {
	o.Answers = map[int]Shape{}
	first := true
	for _, resp := range o.Op.Responses {
		if resp.Status < 200 || resp.Status > 299 {
			continue
		}
		sh := Shape{Kind: "none", Status: resp.Status}
		if resp.Schema != nil {
			sh = responseShape(s.schema(resp.Schema), r.Item)
			sh.Status = resp.Status
		} else if len(resp.MediaTypes) > 0 {
			sh.Kind = "other"
		}
		o.Answers[resp.Status] = sh
		// The first answer with a body, else the first.
		if first || o.Response.Kind == "none" && sh.Kind != "none" {
			o.Response, first = sh, false
		}
	}
	if first {
		o.Response = Shape{Kind: "none"}
	}
	if b := o.Op.Body; b != nil {
		body := s.schema(b.Schema)
		o.Request = Shape{Kind: "other", Schema: body, MediaType: requestMediaType(b.MediaTypes, o.Kind)}
		switch {
		case o.Kind == KindPatch && (strings.Contains(o.Request.MediaType, "json-patch") || isJSONPatch(body)):
			o.Request.Kind = "patch"
		case body == r.Item || r.Singleton && body != nil && body.Type() == r.Item.Type():
			o.Request.Kind = "item"
		case body != nil && body.Type() == "object":
			if u := unwrapAgainst(body, r.Item); u != body {
				o.Request = Shape{Kind: "wrapped", Field: propNames(body)[0], Schema: u, MediaType: o.Request.MediaType}
			} else {
				o.Request.Kind = "item"
			}
		}
	}
}

// viewOf reports whether a GET answering a list of items shows r's items:
// the same schema or component, or items like r's at a path named like r
// (/accountHolders/{id}/balanceAccounts shows balanceAccounts). Two
// collections may have items of the same shape and different meaning, so
// a shape alone makes no view.
func viewOf(op *Operation, items *Schema, r *Resource) bool {
	if sameComponent(items, r.Item) {
		return true
	}
	segs := segments(op.Path)
	return segs[len(segs)-1] == r.Name && sameItem(items, r.Item)
}

// likeness ranks the resources a list's items may belong to: their own
// schema, then their component, then by shared properties.
func likeness(items, item *Schema) float64 {
	switch {
	case items == item:
		return 4
	case items.Name != "" && items.Name == item.Name:
		return 3
	}
	return overlap(items, item) + overlap(item, items)
}

// isJSONPatch reports whether a body schema is an RFC 6902 document: an
// array of operations with op and path, as documents declare it under
// application/json too.
func isJSONPatch(body *Schema) bool {
	if body == nil || body.Type() != "array" || body.Items == nil {
		return false
	}
	return body.Items.Prop("op") != nil && body.Items.Prop("path") != nil
}

// responseShape compares an answer's schema with the item's: the item
// (or most of it), the item in a one-property wrapper, or a list of items.
func responseShape(resp, item *Schema) Shape {
	if resp == item {
		return Shape{Kind: "item", Schema: resp}
	}
	// A list envelope shares fields with items ("object", "id") more often
	// than an item holds a list of its own kind: the list is looked for first.
	if items, _ := listItems(resp); items != nil && sameItem(items, item) {
		return Shape{Kind: "list", Schema: resp}
	}
	switch {
	case overlap(resp, item) >= 0.5 && resp.Type() == "object":
		return Shape{Kind: "item", Schema: resp}
	case resp.Type() == "object" && unwrapItem(resp) != resp && overlap(unwrapItem(resp), item) >= 0.5:
		return Shape{Kind: "wrapped", Field: propNames(resp)[0], Schema: resp}
	}
	return Shape{Kind: "other", Schema: resp}
}

// sameComponent reports whether two schemas are one: the same schema, or
// the same named component.
func sameComponent(a, b *Schema) bool { return a == b || a.Name != "" && a.Name == b.Name }

// sameItem reports whether a list's items are the resource's items: the
// same schema, the same component, nearly the same properties, or a
// summary of the item (some of its properties and none of its own, as
// lists often show: {id, name, created_at} of a fuller item).
func sameItem(items, item *Schema) bool {
	if sameComponent(items, item) {
		return true
	}
	in, back := overlap(items, item), overlap(item, items)
	return in >= 0.8 && back >= 0.8 || in == 1 && len(propNames(items)) >= 2 && back >= 0.5
}

// requestMediaType picks the media type a body is read as: for a patch,
// JSON Patch or JSON Merge Patch where declared.
func requestMediaType(declared []string, kind OpKind) string {
	for _, want := range []string{"application/merge-patch+json", "application/json-patch+json", JSON} {
		if kind != KindPatch && want != JSON {
			continue
		}
		for _, d := range declared {
			if strings.EqualFold(d, want) {
				return d
			}
		}
	}
	for _, d := range declared {
		if isJSON(d) {
			return d
		}
	}
	if len(declared) > 0 {
		return declared[0]
	}
	return ""
}

// inferList reads a list operation's envelope, paging, filters and sort.
func (s *Spec) inferList(r *Resource, lo *ResourceOp) *ListShape {
	l := &ListShape{Paging: "none"}
	if resp := lo.Response.Schema; resp != nil {
		_, l.Items = listItems(resp)
		if resp.Type() == "object" {
			l.findEnvelope(resp, nil, 0)
		}
	}
	// A parameter the document deprecates is read after the others: where
	// ory-kratos deprecates per_page and page for page_size and page_token,
	// the page size is page_size, whatever the order they are declared in.
	params := slices.SortedStableFunc(slices.Values(lo.Op.Params), func(a, b *Param) int {
		switch {
		case a.Deprecated == b.Deprecated:
			return 0
		case b.Deprecated:
			return -1
		}
		return 1
	})
	for _, p := range params {
		if p.In != "query" {
			continue
		}
		ps := s.schema(p.Schema)
		t := ps.Type()
		switch {
		case l.LimitParam == "" && (t == "integer" || t == "number") && isOneOf(p.Name, limitParams):
			l.LimitParam, l.Limit = p.Name, limitOf(p.Name, ps)
		case l.OffsetParam == "" && (t == "integer" || t == "number") && isOneOf(p.Name, offsetParams):
			l.OffsetParam = p.Name
		case l.PageParam == "" && (t == "integer" || t == "number") && isOneOf(p.Name, pageParams):
			l.PageParam = p.Name
		case l.Cursor == "" && t == "string" && isOneOf(p.Name, cursorParams):
			l.Cursor = p.Name
		case l.SortParam == "" && isOneOf(p.Name, sortParams) && (len(ps.Enum) > 0 || t == "string"):
			l.SortParam = p.Name
		case l.OrderParam == "" && isOneOf(p.Name, orderParams) && len(ps.Enum) > 0:
			l.OrderParam = p.Name
		default:
			if f := filterFor(p.Name, ps, r.Item); f != nil {
				l.Filters = append(l.Filters, f)
			}
		}
	}
	switch {
	case l.Cursor != "":
		l.Paging = "cursor"
	case l.PageParam != "":
		l.Paging = "page"
	case l.OffsetParam != "":
		l.Paging = "offset"
	case l.LimitParam != "":
		l.Paging = "limit"
	}
	return l
}

func limitOf(name string, ps *Schema) *Limit {
	l := &Limit{Param: name, Min: 1}
	if ps.Minimum != nil {
		l.Min = int64(*ps.Minimum)
	}
	if ps.Maximum != nil {
		l.Max = int64(*ps.Maximum)
	}
	l.Default = l.Max
	if d, ok := ps.Default.(int64); ps.HasDef && ok {
		l.Default = d
	}
	return l
}

// filterFor is the filter a query parameter makes when it names a
// property of the item (without regard to case and separators).
func filterFor(param string, ps, item *Schema) *Filter {
	for _, p := range propNames(item) {
		if norm(p) != norm(param) {
			continue
		}
		f := &Filter{Param: param, Field: p}
		for _, e := range ps.Enum {
			f.Enum = append(f.Enum, fmt.Sprint(e))
		}
		if ps.Type() == "array" && ps.Items != nil {
			for _, e := range ps.Items.Enum {
				f.Enum = append(f.Enum, fmt.Sprint(e))
			}
		}
		return f
	}
	return nil
}

// Envelope field names petctl recognises, compared with norm.
var (
	totalFields      = []string{"total", "count", "totalcount", "totalrecords", "totalresults", "totalitems", "itemcount", "totalhits", "estimatedtotalhits", "totalelements"}
	nextFields       = []string{"next", "nexturl", "nextcursor", "nextpagetoken", "nextpage", "cursor", "nextlink", "after", "endcursor"}
	prevFields       = []string{"previous", "prev", "previousurl", "prevcursor", "previouspage", "prevpage", "previouscursor", "before", "startcursor"}
	hasMoreFields    = []string{"hasmore", "hasnext", "hasnextpage", "more"}
	pageFields       = []string{"page", "currentpage", "pagenumber"}
	pageSizeFields   = []string{"pagesize", "perpage", "limit", "size", "hitsperpage"}
	offsetFields     = []string{"offset", "from", "skip", "start"}
	totalPagesFields = []string{"totalpages", "pagecount", "pages", "lastpage"}
)

// findEnvelope records the envelope's metadata fields, one level of
// nesting deep ({"meta": {"total_count": ...}}).
func (l *ListShape) findEnvelope(s *Schema, at []string, depth int) {
	props, _ := s.Props()
	for _, p := range props {
		if p.Schema == nil {
			continue
		}
		path := append(slices.Clone(at), p.Name)
		t := p.Schema.Type()
		numeric := t == "integer" || t == "number"
		set := func(dst *[]string) {
			if *dst == nil {
				*dst = path
			}
		}
		switch {
		case numeric && isOneOf(p.Name, totalFields):
			set(&l.Total)
		case numeric && isOneOf(p.Name, totalPagesFields):
			set(&l.TotalPages)
		case numeric && isOneOf(p.Name, pageFields):
			set(&l.Page)
		case numeric && isOneOf(p.Name, pageSizeFields):
			set(&l.PageSize)
		case numeric && isOneOf(p.Name, offsetFields):
			set(&l.Offset)
		case (t == "string" || numeric) && isOneOf(p.Name, nextFields):
			set(&l.Next)
		case (t == "string" || numeric) && isOneOf(p.Name, prevFields):
			set(&l.Prev)
		case t == "boolean" && isOneOf(p.Name, hasMoreFields):
			set(&l.HasMore)
		case t == "object" && depth == 0:
			l.findEnvelope(p.Schema, path, depth+1)
		}
	}
}

// inferViews finds the operations that show a resource's items elsewhere
// (searches) or create several at once, and makes every other operation
// an action.
func (s *Spec) inferViews(rs []*Resource, forced map[*Operation]*Override) {
	owned := map[*Operation]bool{}
	for _, r := range rs {
		for _, o := range r.Ops {
			owned[o.Op] = true
		}
	}
	for op := range forced {
		owned[op] = true
	}
	for _, op := range s.Operations {
		if owned[op] || op.Unpublished {
			continue
		}
		resp := successSchema(s, op)
		switch {
		case op.Method == http.MethodGet && resp != nil:
			items, _ := listItems(resp)
			if items == nil {
				continue
			}
			// The resource whose items these are: the same schema first,
			// else the one they resemble most.
			var best *Resource
			for _, r := range rs {
				if r.Singleton || !viewOf(op, items, r) {
					continue
				}
				if best == nil || likeness(items, r.Item) > likeness(items, best.Item) {
					best = r
				}
			}
			if best != nil {
				o := &ResourceOp{Op: op, Kind: KindSearch, Response: Shape{Kind: "list", Schema: resp}}
				o.Response.Status, _ = successStatus(op)
				o.List = s.inferList(best, o)
				best.Ops = append(best.Ops, o)
				owned[op] = true
			}
		case op.Method == http.MethodPost && op.Body != nil:
			body := s.schema(op.Body.Schema)
			if body == nil || body.Type() != "array" || body.Items == nil {
				continue
			}
			// The most specific collection whose path the operation's
			// extends, and whose items (or new items) the array holds.
			var best *Resource
			for _, r := range rs {
				fits := body.Items == r.New || body.Items == r.Item || (r.New != nil && sameItem(body.Items, r.New)) || sameItem(body.Items, r.Item)
				if !r.Singleton && fits && strings.HasPrefix(op.Path, r.Path+"/") && (best == nil || len(r.Path) > len(best.Path)) {
					best = r
				}
			}
			if best != nil {
				o := &ResourceOp{Op: op, Kind: KindBatchCreate}
				s.inferShapes(best, o)
				o.Request = Shape{Kind: "list", Schema: body, MediaType: JSON}
				best.Ops = append(best.Ops, o)
				owned[op] = true
			}
		}
	}
}
