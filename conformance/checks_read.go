package conformance

// The read checks: an item from the list reads back the same, and an
// unknown id is not found. The run's first full page of a resource
// (listing) is shared by the checks that need items; a nested resource is
// checked under a parent item the run made for it (parents), or one its
// parent lists.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

func (s *suite) readChecks(r *spec.Resource, add func(*check)) {
	read := r.Op(spec.KindRead)
	if read == nil || r.Singleton || r.IDParam == "" {
		return
	}
	op := read.Op
	gone := ""
	if s.removed(op) {
		gone = fmt.Sprintf("%s was removed on %s (the date judged by is %s); the deprecation check expects it gone", op.ID, op.Sunset.Format(dateText), s.now.Format(dateText))
	}
	if r.Op(spec.KindList) != nil && (r.IDField != "" || r.SelfField != "") {
		add(&check{group: groupRead, op: op, skip: gone, text: "an item from the list reads back the same", fn: func(t *T) {
			l := t.listing(r)
			if l.err != "" {
				t.skipf("no listed item to read: %s", l.err)
			}
			if len(l.items) == 0 {
				t.skipf("no listed item to read: the list is empty")
			}
			id := idOfItem(r, l.items[0])
			if id == "" {
				t.skipf("the first listed item has no id (the response checks report it)")
			}
			t.readBack(r, l.parents, id, l.items[0], nil)
		}})
	}
	notFound := notFoundStatuses(op)
	text := "an unknown id gives " + statusList(notFound)
	var labels []string
	if notFound == nil {
		text, labels = "the answer to an unknown id is observed (the document declares no 404 or 410 for it)", []string{labelObserve}
	}
	add(&check{group: groupRead, op: op, skip: gone, labels: labels, text: text, fn: func(t *T) {
		req := s.validRequest(op, authKey)
		if why := t.parents(r, req); why != "" {
			t.skipf("%s", why)
		}
		req.path[r.IDParam] = s.unknownIDFor(op, r.IDParam)
		t.needValidPath(req)
		ex := t.send(req)
		if notFound == nil {
			t.observe(fmt.Sprintf("answer of %s to an unknown id", op.ID), s.answer(ex))
			return
		}
		t.expectStatus(ex, notFound, statusList(notFound)+": no item has this id")
	}})
	if one := r.Op(spec.KindReadOne); one != nil && r.IDField != "" && !s.removed(one.Op) {
		// Read only: the item is the deployment's own (its settings), not
		// one the run made, so the run never writes to it.
		add(&check{group: groupRead, op: one.Op, skip: gone, text: "the item the collection's path answers reads back the same by its id", fn: func(t *T) {
			req := s.validRequest(one.Op, authKey)
			if why := t.parents(r, req); why != "" {
				t.skipf("%s", why)
			}
			ex := t.send(req)
			t.expectStatus(ex, successStatuses(one.Op), "200 with the item")
			item := itemOf(one, ex.Body)
			id := idOfItem(r, item)
			switch {
			case id == "" && r.Item.Requires(r.IDField):
				t.failf(ex, "the item with its %s, which its schema requires", r.IDField)
			case id == "":
				// The schema lets the item go without it; the answer's
				// validity is the response checks' to judge.
				t.skipf("the item holds no %s to read it back by", r.IDField)
			}
			parents := map[string]string{}
			for _, p := range r.ParentParams {
				parents[p] = req.path[p]
			}
			t.readBack(r, parents, id, item, nil)
		}})
	}
}

// readBack reads the item with id and compares it with what the run knows
// of it: the fields sent (when it wrote them) must read back as sent, and
// every field both answers hold must be equal.
func (t *T) readBack(r *spec.Resource, parents map[string]string, id string, known, sent map[string]any) {
	read := r.Op(spec.KindRead)
	ex, got := t.read(r, read, parents, id)
	t.expectStatus(ex, successStatuses(read.Op), "200 with the item")
	if got == nil {
		t.failf(ex, "%s with the item as a JSON object", statusList(successStatuses(read.Op)))
	}
	var diffs []string
	// An item whose id is in its path only holds nothing to compare.
	if v := idOfItem(r, got); carriesID(r) && v != id {
		diffs = append(diffs, fmt.Sprintf("the id is %q, want %q", v, id))
	}
	diffs = append(diffs, t.differences(answerSchema(read), got, sent, r)...)
	props, _ := r.Item.Props()
	for _, p := range props {
		if _, wasSent := sent[p.Name]; wasSent || p.Name == r.IDField || p.Schema == nil {
			continue
		}
		a, inKnown := known[p.Name]
		b, inGot := got[p.Name]
		if inKnown && inGot && !sameValue(p.Schema, b, a) {
			diffs = append(diffs, fmt.Sprintf("%s is %s, was %s", p.Name, jsonText(b, t.s.client.redact), jsonText(a, t.s.client.redact)))
		}
	}
	if len(diffs) > 0 {
		t.failf(ex, "the item as the run knows it; %s", strings.Join(diffs, "; "))
	}
}

// read sends r's read of id and decodes the item it answers.
func (t *T) read(r *spec.Resource, read *spec.ResourceOp, parents map[string]string, id string) (*Exchange, map[string]any) {
	req := t.s.validRequest(read.Op, authKey)
	for k, v := range parents {
		req.path[k] = v
	}
	req.path[r.IDParam] = id
	t.needValidPath(req)
	ex := t.send(req)
	return ex, itemOf(read, ex.Body)
}

// needValidPath skips the check when the ids the deployment gave make a
// path its document refuses (an id "1" where the path wants a uuid): the
// run sends no request the document does not describe.
func (t *T) needValidPath(req *request) {
	if p := t.s.pathProblem(req); p != "" {
		t.observe(fmt.Sprintf("ids of %s the paths refuse", req.op.ID), p)
		t.skipf("the ids the deployment gave make a path %s's document refuses: %s", req.op.ID, p)
	}
}

// notFoundStatuses are the statuses op declares for an item that is not
// there: 404, 410, or both; nil when it declares neither, and what an
// unknown id gets is open.
func notFoundStatuses(op *spec.Operation) []int {
	var out []int
	for _, st := range []int{http.StatusNotFound, http.StatusGone} {
		if slices.ContainsFunc(op.Responses, func(r *spec.Response) bool { return r.Status == st }) {
			out = append(out, st)
		}
	}
	return out
}

// goneStatuses are the statuses a deleted item may get: those op declares
// for an item not there, else any 4xx but a refusal of credentials or a
// rate limit (the document leaves which open, not that it is gone).
func goneStatuses(op *spec.Operation) []int {
	if nf := notFoundStatuses(op); nf != nil {
		return nf
	}
	var out []int
	for st := 400; st < 500; st++ {
		if st != http.StatusUnauthorized && st != http.StatusForbidden && st != http.StatusTooManyRequests && http.StatusText(st) != "" {
			out = append(out, st)
		}
	}
	return out
}

// listing is the run's first full page of a resource, shared by the checks
// that need items: the read-back, the pagination population, the order
// and pagination observations. parents are the path parameters it was
// listed under.
type listing struct {
	ex      *Exchange
	items   []map[string]any
	parents map[string]string
	err     string
}

func (t *T) listing(r *spec.Resource) *listing {
	s := t.s
	s.mu.Lock()
	l := s.listings[r]
	s.mu.Unlock()
	if l != nil {
		return l
	}
	l = t.list(r)
	s.mu.Lock()
	s.listings[r] = l
	s.mu.Unlock()
	return l
}

// list sends r's list, with the largest page the document allows.
func (t *T) list(r *spec.Resource) *listing {
	s := t.s
	lo := r.Op(spec.KindList)
	if lo == nil {
		return &listing{err: "the document declares no list of " + r.Name}
	}
	req := s.validRequest(lo.Op, authKey)
	l := &listing{parents: map[string]string{}}
	if why := t.parents(r, req); why != "" {
		l.err = why
		return l
	}
	for _, p := range r.ParentParams {
		l.parents[p] = req.path[p]
	}
	s.firstPage(r, lo, req)
	if lim := r.List.Limit; lim != nil && lim.Max > 0 {
		req.query.Set(lim.Param, strconv.FormatInt(lim.Max, 10))
	}
	ex, err := t.try(req)
	l.ex = ex
	switch {
	case err != nil:
		l.err = fmt.Sprintf("%s %s failed: %v", ex.Method, ex.URL, err)
	case ex.Status < 200 || ex.Status > 299:
		l.err = fmt.Sprintf("%s %s answered %d", ex.Method, ex.URL, ex.Status)
	default:
		var ok bool
		if l.items, ok = listItems(r, ex); !ok {
			l.err = fmt.Sprintf("%s %s did not answer %s", ex.Method, ex.URL, itemsPath(r))
		}
	}
	return l
}

// firstPage makes req, a request of r's list lo, ask for the first page
// where the document makes the run send the paging parameters: a required
// offset or page gets its first value instead of a drawn one, and a
// required page size its default (a drawn one may be 0, whose meaning is
// open). An optional one is left out, as a client starting at the top
// does.
func (s *suite) firstPage(r *spec.Resource, lo *spec.ResourceOp, req *request) {
	l := r.List
	if l == nil {
		return
	}
	if p := l.OffsetParam; p != "" && req.query.Has(p) {
		req.query.Set(p, strconv.FormatInt(s.paramStart(lo, p, 0), 10))
	}
	if p := l.PageParam; p != "" && req.query.Has(p) {
		req.query.Set(p, strconv.FormatInt(s.paramStart(lo, p, 1), 10))
	}
	if lim := l.Limit; lim != nil && lim.Default > 0 && req.query.Has(lim.Param) {
		req.query.Set(lim.Param, strconv.FormatInt(lim.Default, 10))
	}
}

// paramStart is where a paging parameter of lo starts: its minimum, else
// otherwise (0 for an offset, 1 for a page number).
func (s *suite) paramStart(lo *spec.ResourceOp, name string, otherwise int64) int64 {
	if p := lo.Op.Param("query", name); p != nil {
		if ps := s.spec.ParamSchema(lo.Op, p); ps != nil {
			if least, ok := ps.LeastInteger(); ok {
				return least
			}
		}
	}
	return otherwise
}

// parents fills the path parameters of req that name r's parents; it says
// why it could not. The parent is an item the run creates for the
// purpose where the parent resource has a create (see nest): the parent's
// own stateful checks delete the record they follow, and a child under it
// would be under nothing. Else, or where that create failed, it is the
// first item the parent lists but that record.
func (t *T) parents(r *spec.Resource, req *request) string {
	if len(r.ParentParams) == 0 {
		return ""
	}
	own := r.ParentParams[len(r.ParentParams)-1]
	if r.Parent == nil {
		return fmt.Sprintf("%s is nested under {%s}, and the document declares no read of what it names", r.Path, own)
	}
	id, above, why := t.parentItem(r.Parent)
	if why != "" {
		return fmt.Sprintf("no %s to nest %s under: %s", r.Parent.Name, r.Name, why)
	}
	// The parent's own parents, by position: a path may name them
	// otherwise than the parent's path does.
	for i, p := range r.Parent.ParentParams {
		if i < len(r.ParentParams)-1 {
			req.path[r.ParentParams[i]] = above[p]
		}
	}
	req.path[own] = id
	return ""
}

// parentItem is an item of p for children to nest under, and the path
// parameters it is under: the run's nest, else the first item p lists
// that the run's stateful checks do not delete. why says why there is
// none.
func (t *T) parentItem(p *spec.Resource) (id string, above map[string]string, why string) {
	n := t.nest(p)
	if n != nil && n.err == "" {
		return n.id, n.parents, ""
	}
	failed := ""
	if n != nil {
		failed = "; creating one failed: " + n.err
	}
	l := t.listing(p)
	switch {
	case l.err != "":
		return "", nil, l.err + failed
	case len(l.items) == 0:
		return "", nil, "the list is empty" + failed
	}
	deleted := t.s.followed(p)
	for _, it := range l.items {
		if id := idOfItem(p, it); id != "" && id != deleted {
			return id, l.parents, ""
		}
	}
	return "", nil, "no item listed has an id, other than the record its stateful checks delete" + failed
}

// followed is the id of the record of r the stateful checks follow, and
// delete at their end: the run's one valid create of r, until they begin.
func (s *suite) followed(r *spec.Resource) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lc := s.lifecycles[r]; lc != nil && lc.id != "" {
		return lc.id
	}
	if c := s.creations[r]; c != nil {
		return c.id
	}
	return ""
}

// nest is an item of a resource the run created for the items of the
// resources nested under it, and kept: no check deletes it.
type nest struct {
	id string
	// parents are the path parameters it was created under.
	parents map[string]string
	// err says why there is none: the create failed (the parent's list
	// serves then).
	err string
}

// nest is the run's item of p for children to nest under, made through
// p's own create (its parents first) once, by the first check that may
// write; nil where p has no create, or no nest was made and this check
// may not make one (--read-only, or a check without the write label,
// which must create nothing).
func (t *T) nest(p *spec.Resource) *nest {
	s := t.s
	s.mu.Lock()
	n, made := s.nests[p]
	s.mu.Unlock()
	if made {
		return n
	}
	cr := creator(p)
	if cr == nil || p.Singleton || p.IDParam == "" || s.cfg.ReadOnly || !t.c.mayCreate() {
		return nil
	}
	c := t.createOne(p, cr, nil)
	n = &nest{id: c.id, err: c.err, parents: map[string]string{}}
	if c.req != nil {
		for _, pp := range p.ParentParams {
			n.parents[pp] = c.req.path[pp]
		}
	}
	s.mu.Lock()
	s.nests[p] = n
	s.mu.Unlock()
	return n
}
