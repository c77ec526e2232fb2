package engine

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/petctl/petctl/engine/store"
)

func (s *Server) create(o *operation, obj map[string]any) *response {
	c := o.coll
	if obj == nil {
		return errorResponse(Errorf(CodeValidation, "body: want a JSON object"))
	}
	for field, raw := range c.defaults {
		if _, sent := obj[field]; !sent {
			obj[field], _ = store.DecodeStrict(raw) // checked at start-up
		}
	}
	rec, err := c.data.Create(obj, s.now())
	// The store returns its errors as they are; a type assertion, unlike
	// errors.As, costs a create no allocation.
	invalid, _ := err.(*store.InvalidRecordError)
	full, _ := err.(*store.FullError)
	unavailable, _ := err.(*store.JournalError)
	switch {
	case unavailable != nil:
		return errorResponse(Errorf(CodeStoreUnavailable, "the record could not be stored: %v", unavailable))
	case invalid != nil:
		// The request passed the create schema but the record fails the item
		// schema: the document's two schemas disagree. Nothing was stored.
		return errorResponse(Errorf(CodeResponseInvalid, "the created record does not match the item schema (%v); nothing was stored", invalid.Err))
	case full != nil:
		return errorResponse(Errorf(CodeStoreFull, "%v; nothing was stored: raise %s, or reset the store (POST %sreset)", full, full.Setting(), AdminPrefix))
	case errors.Is(err, store.ErrIDsExhausted):
		return errorResponse(Errorf(CodeIDsExhausted, "%s: the largest id, %d, is taken, so a new item has no id; nothing was stored", c.def.Name, int64(math.MaxInt64)))
	case err != nil:
		return errorResponse(Errorf(CodeValidation, "%v", err))
	}
	res := jsonResponse(c.def.CreateStatus, rec.JSON)
	res.proven = o.proven
	if c.def.ItemPath != "" {
		res.set("Location", s.spec.BasePath+strings.Replace(c.def.ItemPath, "{"+c.def.IDParam+"}", url.PathEscape(rec.ID), 1))
	}
	return res
}

func (s *Server) read(o *operation, raw string) *response {
	def := o.coll.def
	rec, ok := o.coll.data.Get(raw)
	if !ok {
		return errorResponse(Errorf(CodeNotFound, "%s: no item has %s %s", def.Name, def.IDParam, truncate(raw, 100)))
	}
	res := jsonResponse(http.StatusOK, rec.JSON)
	res.proven = o.proven
	return res
}
