package conformance

// The stateful checks follow a record through its life, for every resource
// the document describes (spec.Resources, the inference petctl serve uses):
// create (twice: the ids must differ) → read back equal → the list
// contains it → replace and patch → read shows each change → delete →
// read gives 404 → the list lacks it, as far as the document declares the
// operations. A deployment that answers 201 and stores nothing fails the
// read or the list. Each step is a check of its own; one that cannot run
// because an earlier step did not happen is skipped, saying which.

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// maxListPages bounds how many pages of a list the run reads to find a record.
const maxListPages = 10

// lifecycle is what the run did to its record of a resource so far.
type lifecycle struct {
	// why says why there is no record; "" once it is created.
	why     string
	id      string
	parents map[string]string
	// known is the record as the run last wrote it: the fields sent.
	known map[string]any
	// item is the record as the create answered it.
	item map[string]any
	// changes are the updates answered with a 2xx, by kind, each with the
	// fields it sent; notDone says why an update or the delete did not
	// happen.
	changes map[spec.OpKind]map[string]any
	notDone map[spec.OpKind]string
	deleted bool
}

// creator is the operation that makes r's items: its create, else a
// replace that creates them where the client chooses ids.
func creator(r *spec.Resource) *spec.ResourceOp {
	if ro := r.Op(spec.KindCreate); ro != nil && ro.Op.Body != nil {
		return ro
	}
	if ro := r.Op(spec.KindReplace); ro != nil && ro.CreatesOnPut {
		return ro
	}
	return nil
}

func (s *suite) statefulChecks(r *spec.Resource, add func(*check)) {
	cr := creator(r)
	if cr == nil || r.Singleton || r.IDParam == "" {
		return
	}
	read, list := r.Op(spec.KindRead), r.Op(spec.KindList)
	step := func(op *spec.Operation, text string, fn func(t *T, lc *lifecycle)) {
		skip := ""
		if s.removed(op) {
			skip = fmt.Sprintf("%s was removed on %s (the date judged by is %s)", op.ID, op.Sunset.Format(dateText), s.now.Format(dateText))
		}
		add(&check{group: groupStateful, op: op, writes: true, skip: skip, labels: []string{groupStateful}, text: text, fn: func(t *T) {
			fn(t, t.lifecycle(r, cr))
		}})
	}
	ok := successStatuses(cr.Op)
	step(cr.Op, fmt.Sprintf("two creates give %s and two distinct ids", statusList(ok)), func(t *T, lc *lifecycle) {
		first := t.lifecycleCreation(r, cr)
		if lc.why != "" && first.ex != nil {
			t.notImplemented(first.ex)
			t.refused(first.ex, cr)
			t.expectStatus(first.ex, ok, statusList(ok)+" with the created item")
		}
		if lc.why != "" {
			t.skipf("%s", lc.why)
		}
		second := t.createOne(r, cr, lc.parents)
		if second.ex == nil {
			t.skipf("%s", second.err)
		}
		t.expectStatus(second.ex, ok, statusList(ok)+" with the created item")
		if second.id == "" {
			t.failf(second.ex, "the id of the created item (%s)", second.err)
		}
		if second.id == lc.id {
			t.failf(second.ex, "two creates give two items; both got the id %s", lc.id)
		}
		// The second record is not followed: removed where the document
		// says how, so a run leaves no more than it must.
		if del := r.Op(spec.KindDelete); del != nil {
			req := s.validRequest(del.Op, authKey)
			for k, v := range lc.parents {
				req.path[k] = v
			}
			req.path[r.IDParam] = second.id
			if s.pathProblem(req) == "" {
				_, _ = t.try(req)
			}
		}
	})
	if read != nil {
		step(read.Op, "the created item reads back equal", func(t *T, lc *lifecycle) {
			t.needRecord(lc)
			t.readBack(r, lc.parents, lc.id, lc.item, lc.known)
		})
	}
	if list != nil {
		step(list.Op, "the list contains the created item", func(t *T, lc *lifecycle) {
			t.needRecord(lc)
			found, ex, why := t.find(r, lc)
			switch {
			case why != "":
				t.skipf("%s", why)
			case !found && !carriesID(r):
				t.failf(ex, "the created item (id %s, which its items do not hold: told by the fields the run wrote) among the items listed; it is not", lc.id)
			case !found:
				t.failf(ex, "the created item (id %s) among the items listed; it is not", lc.id)
			}
		})
	}
	for _, kind := range []spec.OpKind{spec.KindReplace, spec.KindPatch} {
		ro := r.Op(kind)
		if ro == nil || ro.Op.Body == nil {
			continue
		}
		upd := successStatuses(ro.Op)
		step(ro.Op, fmt.Sprintf("%s of the created item gives %s", verb(kind), statusList(upd)), func(t *T, lc *lifecycle) {
			t.needRecord(lc)
			lc.notDone[kind] = fmt.Sprintf("%s did not answer a 2xx", ro.Op.ID)
			req, sent, why := t.updateRequest(r, ro, lc)
			if why == "" {
				why = t.s.pathProblem(req)
			}
			if why != "" {
				lc.notDone[kind] = why
				t.skipf("%s", why)
			}
			ex := t.send(req)
			t.refused(ex, ro)
			t.expectStatus(ex, upd, fmt.Sprintf("%s: the %s is valid", statusList(upd), verb(kind)))
			lc.changes[kind], lc.notDone[kind] = sent, ""
			for k, v := range sent {
				lc.known[k] = v
			}
		})
		if read != nil {
			step(read.Op, fmt.Sprintf("the %s item reads back with the change", pastVerb(kind)), func(t *T, lc *lifecycle) {
				t.needRecord(lc)
				sent := lc.changes[kind]
				if sent == nil {
					t.skipf("no %s to read back: %s", verb(kind), lc.notDone[kind])
				}
				t.readBack(r, lc.parents, lc.id, nil, sent)
			})
		}
	}
	del := r.Op(spec.KindDelete)
	if del == nil {
		return
	}
	gone := successStatuses(del.Op)
	step(del.Op, "delete of the created item gives "+statusList(gone), func(t *T, lc *lifecycle) {
		t.needRecord(lc)
		lc.notDone[spec.KindDelete] = fmt.Sprintf("%s did not answer a 2xx", del.Op.ID)
		req := s.validRequest(del.Op, authKey)
		for k, v := range lc.parents {
			req.path[k] = v
		}
		req.path[r.IDParam] = lc.id
		t.needValidPath(req)
		ex := t.send(req)
		t.expectStatus(ex, gone, statusList(gone)+": the item exists")
		lc.deleted, lc.notDone[spec.KindDelete] = true, ""
	})
	if read != nil {
		notFound := goneStatuses(read.Op)
		step(read.Op, "the deleted item reads back "+statusList(notFound), func(t *T, lc *lifecycle) {
			t.needDeleted(lc)
			req := s.validRequest(read.Op, authKey)
			for k, v := range lc.parents {
				req.path[k] = v
			}
			req.path[r.IDParam] = lc.id
			t.needValidPath(req)
			ex := t.send(req)
			t.expectStatus(ex, notFound, statusList(notFound)+": the item was deleted")
		})
	}
	if list != nil {
		step(list.Op, "the list lacks the deleted item", func(t *T, lc *lifecycle) {
			t.needDeleted(lc)
			found, ex, why := t.find(r, lc)
			switch {
			case found:
				t.failf(ex, "the deleted item (id %s) no longer listed; it is", lc.id)
			case why != "":
				t.skipf("%s", why)
			}
		})
	}
}

func verb(k spec.OpKind) string {
	if k == spec.KindReplace {
		return "replace"
	}
	return "patch"
}

func pastVerb(k spec.OpKind) string {
	if k == spec.KindReplace {
		return "replaced"
	}
	return "patched"
}

// needRecord skips the check when the lifecycle has no record.
func (t *T) needRecord(lc *lifecycle) {
	if lc.why != "" {
		t.skipf("no record to follow: %s", lc.why)
	}
}

func (t *T) needDeleted(lc *lifecycle) {
	t.needRecord(lc)
	if !lc.deleted {
		t.skipf("the record was not deleted: %s", lc.notDone[spec.KindDelete])
	}
}

// lifecycle is r's lifecycle, begun by its first step.
func (t *T) lifecycle(r *spec.Resource, cr *spec.ResourceOp) *lifecycle {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	lc := s.lifecycles[r]
	if lc == nil {
		lc = &lifecycle{why: fmt.Sprintf("the step that creates it (%s) did not run", cr.Op.ID), changes: map[spec.OpKind]map[string]any{}, notDone: map[spec.OpKind]string{}}
		for _, k := range []spec.OpKind{spec.KindReplace, spec.KindPatch, spec.KindDelete} {
			lc.notDone[k] = "its step did not run"
		}
		s.lifecycles[r] = lc
	}
	return lc
}

// lifecycleCreation makes the lifecycle's record: the run's one valid
// create of r when a create makes it, so the create checks and the
// lifecycle share it.
func (t *T) lifecycleCreation(r *spec.Resource, cr *spec.ResourceOp) *creation {
	lc := t.lifecycle(r, cr)
	var c *creation
	if cr.Kind == spec.KindCreate {
		c = t.creation(r, cr)
	} else {
		c = t.createOne(r, cr, nil)
	}
	lc.parents = map[string]string{}
	if c.req != nil {
		for _, p := range r.ParentParams {
			lc.parents[p] = c.req.path[p]
		}
	}
	lc.why, lc.id, lc.item, lc.known = c.err, c.id, withoutPinned(c.item, answerSchema(cr)), map[string]any{}
	for k, v := range c.sent {
		lc.known[k] = v
	}
	return c
}

// withoutPinned is item without the fields the create's answer schema
// pins to one value, null or a const, that a later read need not show:
// lago's created event has lago_customer_id null ("processing is done
// asynchronously"), its read the customer's id.
func withoutPinned(item map[string]any, schema *spec.Schema) map[string]any {
	if item == nil || schema == nil {
		return item
	}
	var out map[string]any
	for k := range item {
		ps := schema.Prop(k)
		onlyNull := ps != nil && ps.Nullable && len(ps.Types) == 0 && len(ps.Enum) == 0 && ps.Format == "" &&
			len(ps.Properties) == 0 && ps.Items == nil && ps.AdditionalProperties == nil && len(ps.AllOf)+len(ps.OneOf)+len(ps.AnyOf) == 0
		if ps == nil || !(ps.HasConst || onlyNull) {
			continue
		}
		if out == nil {
			out = maps.Clone(item)
		}
		delete(out, k)
	}
	if out == nil {
		return item
	}
	return out
}

// createOne makes one more record of r, under parents when given.
func (t *T) createOne(r *spec.Resource, cr *spec.ResourceOp, parents map[string]string) *creation {
	if cr.Kind == spec.KindCreate && parents == nil {
		return t.create(r, cr)
	}
	s := t.s
	req := s.validRequest(cr.Op, authKey)
	if parents == nil {
		if why := t.parents(r, req); why != "" {
			return &creation{err: why}
		}
	}
	for k, v := range parents {
		req.path[k] = v
	}
	id := ""
	if cr.Kind == spec.KindReplace {
		// The client chooses the id: one of the run's, named like its records.
		seq := s.nextSeq()
		id = s.newID(r, seq)
		req.path[r.IDParam] = id
		setID(req, r, cr, id)
	}
	return t.sendCreate(r, cr, req, id)
}

// newID is an id the run chooses for a record of r (where the client
// chooses ids): from the id's schema, in letters where it leaves them open.
func (s *suite) newID(r *spec.Resource, seq int64) string {
	v := s.values(seq, 0, "id "+r.Path)
	v.Text = func(string, int64) string { return strings.ReplaceAll(s.recordText(seq), " ", "") }
	if r.ID.Schema == nil {
		return strings.ReplaceAll(s.recordText(seq), " ", "")
	}
	return scalarString(v.Value(r.ID.Schema, r.IDField))
}

// setID writes id into a body whose schema lets a client send the id
// field (not readOnly): a body that carries the id must carry the one of
// the path.
func setID(req *request, r *spec.Resource, ro *spec.ResourceOp, id string) {
	if r.IDField == "" || req.body == nil || ro.Request.Schema == nil {
		return
	}
	ps := ro.Request.Schema.Prop(r.IDField)
	if ps == nil || ps.ReadOnly {
		return
	}
	v := decodeJSON(req.body)
	obj, _ := v.(map[string]any)
	if ro.Request.Kind == "wrapped" {
		obj, _ = obj[ro.Request.Field].(map[string]any)
	}
	if obj == nil {
		return
	}
	obj[r.IDField] = id
	if t := ps.Type(); t == "integer" || t == "number" {
		if n := decodeJSON([]byte(id)); n != nil {
			obj[r.IDField] = n
		}
	}
	req.body = marshal(v)
}

// sendCreate sends a create and reads what it answered; id is the id the
// run chose, "" where the deployment assigns it.
func (t *T) sendCreate(r *spec.Resource, ro *spec.ResourceOp, req *request, id string) *creation {
	if req.unmade != "" {
		return &creation{err: fmt.Sprintf("%s: %s", ro.Op.ID, req.unmade), req: req}
	}
	sent, _ := decodeJSON(req.body).(map[string]any)
	if ro.Request.Kind == "wrapped" {
		sent, _ = sent[ro.Request.Field].(map[string]any)
	}
	ex, err := t.try(req)
	c := &creation{ex: ex, sent: sent, req: req}
	var refused string
	if err == nil {
		refused = t.s.refusal(ex)
	}
	switch {
	case err != nil:
		c.err = fmt.Sprintf("the request failed: %v", err)
	case refused != "":
		c.err = fmt.Sprintf("%s refused a body its document accepts (%s)", ro.Op.ID, refused)
	case !slices.Contains(successStatuses(ro.Op), ex.Status):
		c.err = fmt.Sprintf("%s answered %d", ro.Op.ID, ex.Status)
	default:
		c.item = itemOf(ro, ex.Body)
		if c.id = idOfAnswer(r, ro, ex); c.id == "" {
			c.id = id
		}
		if c.id == "" {
			c.err = fmt.Sprintf("%s answered %d without the id of the created item", ro.Op.ID, ex.Status)
		}
	}
	return c
}

// updateRequest is a replace or a patch of the lifecycle's record that
// changes it, and the fields it sends.
func (t *T) updateRequest(r *spec.Resource, ro *spec.ResourceOp, lc *lifecycle) (*request, map[string]any, string) {
	s := t.s
	req := s.validRequest(ro.Op, authKey)
	for k, v := range lc.parents {
		req.path[k] = v
	}
	req.path[r.IDParam] = lc.id
	if ro.Request.Kind == "patch" {
		// JSON Patch: one free-text field replaced.
		field := freeText(r)
		if field == "" {
			return nil, nil, fmt.Sprintf("%s takes a JSON Patch, and %s has no free-text field to change", ro.Op.ID, r.Name)
		}
		v := s.recordText(s.nextSeq())
		req.body = marshal([]any{map[string]any{"op": "replace", "path": "/" + field, "value": v}})
		return req, map[string]any{field: v}, ""
	}
	if req.unmade != "" {
		return nil, nil, fmt.Sprintf("%s: %s", ro.Op.ID, req.unmade)
	}
	setID(req, r, ro, lc.id)
	sent, _ := decodeJSON(req.body).(map[string]any)
	if ro.Request.Kind == "wrapped" {
		sent, _ = sent[ro.Request.Field].(map[string]any)
	}
	if r.IDField != "" {
		delete(sent, r.IDField)
	}
	return req, sent, ""
}

// freeText is a string field of r's items a client may write and whose
// value the document leaves open.
func freeText(r *spec.Resource) string {
	props, _ := r.Item.Props()
	for _, p := range props {
		ps := p.Schema
		if ps != nil && p.Name != r.IDField && !ps.ReadOnly && ps.Type() == "string" && len(ps.Enum) == 0 && ps.Format == "" && ps.Pattern == "" {
			return p.Name
		}
	}
	return ""
}

// find looks for the lifecycle's record in r's list: narrowed by the enum
// filters the record's values name, from the first page, a page as large
// as the document allows, paged on as the list pages (offset, page,
// cursor) up to maxListPages. The record is told by its id, or, where
// r's items do not hold it, by the fields the run wrote (see
// recordFields). why says why the run cannot tell (the list pages further
// than it can follow, nothing tells the record); ex is the last page read.
func (t *T) find(r *spec.Resource, lc *lifecycle) (bool, *Exchange, string) {
	s := t.s
	lo := r.Op(spec.KindList)
	is := func(it map[string]any) bool { return idOfItem(r, it) == lc.id }
	if !carriesID(r) {
		fields, own, why := s.recordFields(r, lc)
		if why != "" {
			return false, nil, why
		}
		// A list may show a summary of each item: a field it leaves out
		// tells nothing, one it shows must hold what the run wrote, and
		// the run's own text must be among them.
		is = func(it map[string]any) bool {
			mine := false
			for k, v := range fields {
				got, ok := it[k]
				switch {
				case !ok:
				case !sameValue(r.Item.Prop(k), got, v):
					return false
				case own[k]:
					mine = true
				}
			}
			return mine
		}
	}
	req := s.validRequest(lo.Op, authKey)
	for k, v := range lc.parents {
		req.path[k] = v
	}
	s.firstPage(r, lo, req)
	for _, f := range r.List.Filters {
		v := scalarString(lc.known[f.Field])
		if v == "" {
			v = scalarString(lc.item[f.Field])
		}
		// An enumerated filter, and one the list requires (the request
		// holds a made value for it: lago's wallets by
		// external_customer_id), take the record's own value, which the
		// record surely matches; another filter's meaning is the
		// deployment's.
		if v != "" && (slices.Contains(f.Enum, v) || req.query.Has(f.Param)) {
			req.query.Set(f.Param, v)
		}
	}
	size := int64(0)
	if lim := r.List.Limit; lim != nil && lim.Max > 0 {
		size = lim.Max
		req.query.Set(lim.Param, strconv.FormatInt(size, 10))
	} else if lim != nil && req.query.Has(lim.Param) {
		size, _ = strconv.ParseInt(req.query.Get(lim.Param), 10, 64)
	}
	start := s.paramStart(lo, r.List.PageParam, 1)
	offset := s.paramStart(lo, r.List.OffsetParam, 0)
	var ex *Exchange
	guessed := false // the cursor sent is an item's id (cursorAfter)
	for page := 0; page < maxListPages; page++ {
		ex = t.send(req)
		if guessed && ex.Status >= 400 && ex.Status < 500 {
			return false, ex, fmt.Sprintf("the item is not on the first page, and %s refused the last item's id as a cursor (%d): the answer gives no cursor petctl can read", r.List.Cursor, ex.Status)
		}
		t.expectStatus(ex, successStatuses(lo.Op), "a 2xx with the items")
		items, ok := listItems(r, ex)
		if !ok {
			t.failf(ex, "%s", itemsPath(r))
		}
		for _, it := range items {
			if is(it) {
				return true, ex, ""
			}
		}
		more := s.morePages(r, ex, len(items), size)
		if !more {
			return false, ex, ""
		}
		switch r.List.Paging {
		case "offset":
			req.query.Set(r.List.OffsetParam, strconv.FormatInt(offset+int64(page+1)*int64(len(items)), 10))
		case "page":
			req.query.Set(r.List.PageParam, strconv.FormatInt(start+int64(page)+1, 10))
		case "cursor":
			var next string
			next, guessed = cursorAfter(r, ex, items)
			if next == "" {
				return false, ex, fmt.Sprintf("the item is not on the first page of %d items, and the answer gives no cursor to the next", len(items))
			}
			req.query.Set(r.List.Cursor, next)
		default:
			return false, ex, fmt.Sprintf("the item is not on the first page of %d items, and the document declares no way to the next page", len(items))
		}
	}
	return false, ex, fmt.Sprintf("the item is not on the first %d pages", maxListPages)
}

// recordFields are the fields that tell the lifecycle's record among r's
// items where they do not hold their id: the values the run wrote (the
// create, then each update) of fields the item declares and answers (not
// writeOnly; a null may remove the field). own are those holding a text
// of the run's own (recordText), which no other record has: one at least,
// else why says there is nothing to tell the record by.
func (s *suite) recordFields(r *spec.Resource, lc *lifecycle) (fields map[string]any, own map[string]bool, why string) {
	fields, own = map[string]any{}, map[string]bool{}
	for k, v := range lc.known {
		ps := r.Item.Prop(k)
		if ps == nil || ps.WriteOnly || v == nil {
			continue
		}
		fields[k] = v
		if text, ok := v.(string); ok && s.isRecordText(text, ps) {
			own[k] = true
		}
	}
	if len(own) == 0 {
		return nil, nil, fmt.Sprintf("the items of %s do not hold their id (it is in their path only), and no field the run wrote holds a text of its own to tell its record by", r.Name)
	}
	return fields, own, ""
}

// morePages reports whether more pages may follow a list answer of n
// items: a full page, or the answer says so (claimsMore). An empty page
// has none to follow.
func (s *suite) morePages(r *spec.Resource, ex *Exchange, n int, size int64) bool {
	switch {
	case n == 0:
		return false
	case size > 0 && int64(n) >= size:
		return true
	}
	return claimsMore(r, ex, n) != ""
}

// nextCursor is the cursor of the page after ex: the envelope's next
// field (a token, or a URL holding it), or a Link rel="next".
func nextCursor(r *spec.Resource, ex *Exchange) string {
	obj, _ := decodeJSON(ex.Body).(map[string]any)
	next := scalarString(at(obj, r.List.Next))
	if next == "" && ex.Header != nil {
		for _, l := range ex.Header.Values("Link") {
			for _, part := range strings.Split(l, ",") {
				if strings.Contains(part, `rel="next"`) {
					if i, j := strings.Index(part, "<"), strings.Index(part, ">"); i >= 0 && j > i {
						next = part[i+1 : j]
					}
				}
			}
		}
	}
	if u, err := url.Parse(next); err == nil && (u.Scheme != "" || strings.Contains(next, "?")) {
		if r.List.Cursor != "" {
			return u.Query().Get(r.List.Cursor)
		}
		return ""
	}
	return next
}

// cursorAfter is the cursor of the page after ex, whose items are items:
// the one the answer gives (nextCursor), else the last item's id, guessed,
// as Stripe's and Resend's lists want it: where the cursor parameter takes
// an item's id going forward (after, starting_after), the list declares
// no next field (so that the answer's cursor is not merely unread), and
// the answer says has_more. Another API's after takes an opaque cursor
// (GitHub's), so a 4xx to a guessed id means no more than that.
func cursorAfter(r *spec.Resource, ex *Exchange, items []map[string]any) (cursor string, guessed bool) {
	if next := nextCursor(r, ex); next != "" {
		return next, false
	}
	l := r.List
	if len(items) == 0 || len(l.Next) > 0 || !spec.CursorTakesID(l.Cursor) || spec.BackwardCursor(l.Cursor) {
		return "", false
	}
	obj, _ := decodeJSON(ex.Body).(map[string]any)
	if more, _ := at(obj, l.HasMore).(bool); !more {
		return "", false
	}
	id := idOfItem(r, items[len(items)-1])
	return id, id != ""
}

// at reads a path of fields in a decoded object; nil when absent.
func at(obj map[string]any, path []string) any {
	if len(path) == 0 {
		return nil
	}
	var v any = obj
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
