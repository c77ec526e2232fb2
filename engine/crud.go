package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// scopeOf is the ids of the item's parents the request's path names,
// outermost first; nil at the top.
func scopeOf(c *call, def *spec.Resource) []string {
	if len(def.ParentParams) == 0 {
		return nil
	}
	out := make([]string, len(def.ParentParams))
	for i, p := range def.ParentParams {
		out[i] = c.params[p]
	}
	return out
}

// parentMissing answers 404 when an item the path names above coll's is
// absent: the parent must exist (and its parent, up the chain), so that
// the items under a deleted one are unreachable.
func (s *Server) parentMissing(coll *collection, scope []string) *response {
	for p := coll.parent; p != nil && len(scope) > 0; p = p.parent {
		up, id := scope[:len(scope)-1], scope[len(scope)-1]
		if _, ok := p.data.Get(up, id); !ok {
			return errorResponse(Errorf(CodeNotFound, "%s: no item has %s %s", p.def.Name, p.def.IDParam, truncate(id, 100)))
		}
		scope = up
	}
	return nil
}

// alive reports whether every item above a record of coll (its scope, as
// the store joins it) exists: a view over every parent's items shows
// none under a deleted one. It remembers its answers for one request.
func (s *Server) alive(coll *collection) func(scope string) bool {
	if coll.parent == nil {
		return nil
	}
	seen := map[string]bool{}
	return func(scope string) bool {
		ok, known := seen[scope]
		if !known {
			ok = s.parentMissing(coll, store.SplitScope(scope)) == nil
			seen[scope] = ok
		}
		return ok
	}
}

// itemPath is the path of the item with id under scope, base path included.
func (s *Server) itemPath(def *spec.Resource, scope []string, id string) string {
	p := def.ItemPath
	if def.Singleton {
		p = def.Path
	}
	for i, name := range def.ParentParams {
		if i < len(scope) {
			p = strings.Replace(p, "{"+name+"}", url.PathEscape(scope[i]), 1)
		}
	}
	if def.IDParam != "" {
		p = strings.Replace(p, "{"+def.IDParam+"}", url.PathEscape(id), 1)
	}
	return s.spec.BasePath + p
}

// selfLink makes an item's absolute URL, for a self-link field; nil when
// the item has none.
func (s *Server) selfLink(c *call, def *spec.Resource, scope []string) func(id string) string {
	if def.SelfField == "" {
		return nil
	}
	return func(id string) string { return origin(c.r) + s.itemPath(def, scope, id) }
}

// requestItem is the item a write's body carries: the body, or its field
// when the item is wrapped ({"plan": {...}}); an empty object for a write
// without a JSON body.
func requestItem(c *call, o *operation) any {
	doc := c.doc
	if m, ok := doc.(map[string]any); ok && o.rop.Request.Kind == "wrapped" {
		if inner, ok := m[o.rop.Request.Field]; ok {
			doc = inner
		}
	}
	if doc == nil && !o.coll.def.Singleton {
		return map[string]any{}
	}
	return doc
}

// writeError answers a store error of a write.
func (s *Server) writeError(coll *collection, err error, what string) *response {
	var (
		invalid  *store.InvalidRecordError
		full     *store.FullError
		conflict *store.ConflictError
		batch    *store.BatchError
		journal  *store.JournalError
		e        *Error
	)
	prefix := ""
	if errors.As(err, &batch) {
		prefix = fmt.Sprintf("item %d of the batch: ", batch.Index)
		err = batch.Err
	}
	switch {
	case errors.As(err, &e):
		return errorResponse(e)
	case errors.As(err, &journal):
		return errorResponse(Errorf(CodeStoreUnavailable, "%sthe %s could not be stored: %v", prefix, what, journal))
	case errors.As(err, &invalid) && what == "create":
		// The request passed the create schema but the record fails the item
		// schema: the document's two schemas disagree. Nothing was stored.
		return errorResponse(Errorf(CodeResponseInvalid, "%sthe created record does not match the item schema (%v); nothing was stored", prefix, invalid.Err))
	case errors.As(err, &invalid):
		return errorResponse(Errorf(CodeValidation, "the %s would leave the item invalid (%v); nothing was changed", what, invalid.Err))
	case errors.As(err, &full):
		return errorResponse(Errorf(CodeStoreFull, "%s%v; nothing was stored: raise %s, or reset the store (POST %sreset)", prefix, full, full.Setting(), AdminPrefix))
	case errors.As(err, &conflict):
		return errorResponse(Errorf(CodeConflict, "%s%s: an item with %s %s exists already; nothing was stored", prefix, coll.def.Name, idName(coll.def), truncate(conflict.ID, 100)))
	case errors.Is(err, store.ErrNoFreeID):
		return errorResponse(Errorf(CodeIDsExhausted, "%s: every id the id's schema lets petctl make is taken; nothing was stored", coll.def.Name))
	case errors.Is(err, store.ErrIDsExhausted):
		return errorResponse(Errorf(CodeIDsExhausted, "%s: the largest id, %d, is taken, so a new item has no id; nothing was stored", coll.def.Name, int64(math.MaxInt64)))
	}
	return errorResponse(Errorf(CodeValidation, "%s%v", prefix, err))
}

// idName names what identifies a resource's items, for messages.
func idName(def *spec.Resource) string {
	if def.IDField != "" {
		return def.IDField
	}
	return def.IDParam
}

// notFound answers a path that names no item.
func notFound(def *spec.Resource, id string) *response {
	if def.Singleton {
		return errorResponse(Errorf(CodeNotFound, "%s: there is none", def.Name))
	}
	return errorResponse(Errorf(CodeNotFound, "%s: no item has %s %s", def.Name, def.IDParam, truncate(id, 100)))
}

// preconditions holds a write to the If-Match and If-None-Match headers
// (RFC 9110 §13.1), where the resource declares entity tags: a write with
// a stale tag changes nothing and gets 412.
func (s *Server) preconditions(c *call, def *spec.Resource, old *store.Record) error {
	if !def.ETags {
		return nil
	}
	tag := ""
	if old != nil {
		tag = etag(old.JSON)
	}
	h := c.r.Header
	if !ifMatch(h.Values("If-Match"), tag, old != nil) {
		return Errorf(CodePreconditionFailed, "If-Match %q does not match the item's current entity tag; fetch it again and retry", truncate(h.Get("If-Match"), 100))
	}
	if ifNoneMatch(h.Values("If-None-Match"), tag, old != nil) {
		return Errorf(CodePreconditionFailed, "If-None-Match %q: the item exists", truncate(h.Get("If-None-Match"), 100))
	}
	return nil
}

// withETag adds the record's entity tag to an answer, where the resource
// declares entity tags.
func withETag(res *response, def *spec.Resource, rec store.Record) *response {
	if def.ETags && res.status < 300 {
		res.set("ETag", etag(rec.JSON))
	}
	return res
}

func (s *Server) create(c *call, o *operation) *response {
	coll, def := o.coll, o.coll.def
	obj := requestItem(c, o)
	if m, ok := obj.(map[string]any); ok {
		for field, raw := range coll.defaults {
			if _, sent := m[field]; !sent {
				m[field], _ = store.DecodeStrict(raw) // checked at start-up
			}
		}
	} else if !def.Singleton {
		return errorResponse(Errorf(CodeValidation, "body: want a JSON object"))
	}
	obj = s.fitItem(o, obj)
	scope := scopeOf(c, def)
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	w := store.Write{Scope: scope, Now: s.now(), Self: s.selfLink(c, def, scope)}
	rec, err := coll.data.Create(obj, w)
	if err != nil {
		return s.writeError(coll, err, "create")
	}
	res := withETag(s.itemResponse(o, o.rop.Response.Status, rec), def, rec)
	if def.ItemPath != "" {
		res.set("Location", location(c, o, s.itemPath(def, scope, rec.ID)))
	}
	return res
}

func (s *Server) batchCreate(c *call, o *operation) *response {
	coll, def := o.coll, o.coll.def
	list, ok := c.doc.([]any)
	if !ok {
		return errorResponse(Errorf(CodeValidation, "body: want a JSON array of items"))
	}
	for i, item := range list {
		if m, ok := item.(map[string]any); ok {
			for field, raw := range coll.defaults {
				if _, sent := m[field]; !sent {
					m[field], _ = store.DecodeStrict(raw)
				}
			}
		}
		list[i] = s.fitItem(o, item)
	}
	// The parents' ids, where the batch's path names them (below the
	// collection's path): /owners/{ownerId}/pets/import.
	var scope []string
	if strings.HasPrefix(o.op.Path, def.Path+"/") {
		scope = scopeOf(c, def)
	}
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	recs, err := coll.data.CreateMany(list, store.Write{Scope: scope, Now: s.now(), Self: s.selfLink(c, def, scope)})
	if err != nil {
		return s.writeError(coll, err, "create")
	}
	return s.recordsResponse(o, o.rop.Response.Status, recs)
}

func (s *Server) read(c *call, o *operation) *response {
	coll, def := o.coll, o.coll.def
	scope := scopeOf(c, def)
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	id := c.params[def.IDParam]
	rec, ok := coll.data.Get(scope, id)
	if !ok && def.Singleton {
		rec, ok = s.initialSingleton(c, coll, scope)
	}
	if !ok {
		return notFound(def, id)
	}
	return s.readAnswer(c, o, rec)
}

// readAnswer answers a read with the record: 304 where the client holds
// its current entity tag and the document declares 304, else the item.
func (s *Server) readAnswer(c *call, o *operation, rec store.Record) *response {
	def := o.coll.def
	if def.ETags && ifNoneMatch(c.r.Header.Values("If-None-Match"), etag(rec.JSON), true) && o.op.Response(http.StatusNotModified) != nil {
		res := &response{status: http.StatusNotModified}
		res.set("ETag", etag(rec.JSON))
		return res
	}
	return withETag(s.itemResponse(o, o.rop.Response.Status, rec), def, rec)
}

// readOne answers a GET of a collection's path that reads its one item
// (spec.KindReadOne): its first item, made when there is none.
func (s *Server) readOne(c *call, o *operation) *response {
	coll := o.coll
	scope := scopeOf(c, coll.def)
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	rec, res := s.one(coll, scope)
	if res != nil {
		return res
	}
	return s.readAnswer(c, o, rec)
}

// one is the first item of a collection whose path reads one item, stored
// first when there is none (under scope), so that the item a client
// reads at the collection's path is the one its item path addresses. It
// is made from the item's example, else from its schema with every
// property given a value: a settings record a page shows in full. Only
// that read makes it: a request for an item by id that fails stores
// nothing.
func (s *Server) one(coll *collection, scope []string) (store.Record, *response) {
	rec, _, err := coll.data.First(store.Write{Scope: scope, Now: s.now()}, func() any {
		if s.validExample(coll.def.Item) == nil {
			g := s.values(spec.InResponse)
			g.Rand, g.Optional = rand.New(rand.NewPCG(1, 1)), 1
			if v := g.Value(coll.def.Item, ""); len(s.val.Record(coll.def.Item, encodeJSON(v))) == 0 {
				return v
			}
		}
		return s.made(coll.def.Item)
	})
	if err != nil {
		return rec, s.writeError(coll, err, "create")
	}
	return rec, nil
}

// initialSingleton stores and returns a singleton's first value, made from
// its schema (its example, else the minimal valid value), the first time
// it is read.
func (s *Server) initialSingleton(c *call, coll *collection, scope []string) (store.Record, bool) {
	rec, _, err := coll.data.Put(store.Write{Scope: scope, Now: s.now()}, true, func(old *store.Record) (any, error) {
		return s.made(coll.def.Item), nil
	})
	return rec, err == nil
}

func (s *Server) replace(c *call, o *operation) *response {
	coll, def := o.coll, o.coll.def
	scope := scopeOf(c, def)
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	id := c.params[def.IDParam]
	body := s.fitItem(o, requestItem(c, o))
	w := store.Write{Scope: scope, ID: id, Now: s.now(), Self: s.selfLink(c, def, scope), KeepUnsent: true}
	rec, created, err := coll.data.Put(w, o.rop.CreatesOnPut || def.Singleton, func(old *store.Record) (any, error) {
		if err := s.preconditions(c, def, old); err != nil {
			return nil, err
		}
		return body, nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return notFound(def, id)
	}
	if err != nil {
		return s.writeError(coll, err, "replace")
	}
	res := withETag(s.itemResponse(o, writeStatus(o, created), rec), def, rec)
	if created && !def.Singleton {
		res.set("Location", location(c, o, s.itemPath(def, scope, rec.ID)))
	}
	return res
}

// writeStatus is the status a replace or patch answers with: 201 where
// the document declares it for an item the write created, else the
// operation's other 2xx (200 before 204).
func writeStatus(o *operation, created bool) int {
	if _, ok := o.rop.Answers[http.StatusCreated]; created && ok {
		return http.StatusCreated
	}
	for _, st := range []int{http.StatusOK, http.StatusNoContent, http.StatusAccepted} {
		if _, ok := o.rop.Answers[st]; ok {
			return st
		}
	}
	return o.rop.Response.Status
}

func (s *Server) patch(c *call, o *operation) *response {
	coll, def := o.coll, o.coll.def
	scope := scopeOf(c, def)
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	id := c.params[def.IDParam]
	w := store.Write{Scope: scope, ID: id, Now: s.now(), Self: s.selfLink(c, def, scope)}
	rec, created, err := coll.data.Put(w, def.Singleton, func(old *store.Record) (any, error) {
		if err := s.preconditions(c, def, old); err != nil {
			return nil, err
		}
		var current any
		if old != nil {
			current = decodeRecord(old.JSON)
		} else {
			current = s.made(def.Item)
		}
		switch {
		case o.rop.Request.Kind == "patch":
			return applyJSONPatch(current, c.doc)
		case o.rop.SavesOver:
			return s.fitItem(o, saveOver(current, requestPatch(c, o))), nil
		}
		return s.fitItem(o, mergePatch(current, requestPatch(c, o))), nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return notFound(def, id)
	}
	if err != nil {
		return s.writeError(coll, err, "patch")
	}
	return withETag(s.itemResponse(o, writeStatus(o, created), rec), def, rec)
}

// requestPatch is the merge patch a body carries: the body, or its field
// when it is wrapped.
func requestPatch(c *call, o *operation) any {
	if m, ok := c.doc.(map[string]any); ok && o.rop.Request.Kind == "wrapped" {
		if inner, ok := m[o.rop.Request.Field]; ok {
			return inner
		}
	}
	if c.doc == nil {
		return map[string]any{} // no body: nothing to change
	}
	return c.doc
}

func (s *Server) remove(c *call, o *operation) *response {
	coll, def := o.coll, o.coll.def
	scope := scopeOf(c, def)
	if res := s.parentMissing(coll, scope); res != nil {
		return res
	}
	id := c.params[def.IDParam]
	rec, err := coll.data.Delete(scope, id, func(old store.Record) error {
		return s.preconditions(c, def, &old)
	})
	if errors.Is(err, store.ErrNotFound) {
		return notFound(def, id)
	}
	if err != nil {
		return s.writeError(coll, err, "delete")
	}
	if s.cascade && !def.Singleton {
		// The item is gone whatever happens below: its items stay
		// unreachable (parentMissing) when the journal refuses their
		// delete, so the answer is the delete's, and the log says why.
		if err := s.cascadeDelete(coll, append(scope, rec.ID)); err != nil {
			s.log.Warn("cascade delete incomplete; the items left are unreachable", "collection", def.Key, "error", err.Error())
		}
	}
	return s.itemResponse(o, o.rop.Response.Status, rec)
}

// cascadeDelete removes every item under the item that scope ends with
// (its parents' ids, then its own), in every collection below coll; the
// error is the first the journal met, and the cascade goes on past it.
func (s *Server) cascadeDelete(coll *collection, scope []string) error {
	var first error
	for _, child := range coll.children {
		if _, err := child.data.DeleteUnder(scope); err != nil && first == nil { // its items under the item, and theirs
			first = err
		}
		if err := s.cascadeDelete(child, scope); err != nil && first == nil {
			first = err
		}
	}
	return first
}
