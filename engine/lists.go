package engine

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// list answers a list operation; values is r's query, parsed once.
func (s *Server) list(r *http.Request, o *operation, values url.Values) *response {
	def := o.coll.def
	q := store.Query{}
	if l := def.Limit; l != nil {
		q.Limit = int(l.Default)
		if v := values.Get(l.Param); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return errorResponse(Errorf(CodeValidation, "query parameter '%s': %q is not an integer", l.Param, v))
			}
			q.Limit = int(n)
		}
	}
	for _, f := range def.Filters {
		if v, ok := values[f.Param]; ok && len(v) > 0 {
			if q.Filters == nil {
				q.Filters = map[string]string{}
			}
			q.Filters[f.Field] = v[0]
		}
	}
	q.Desc = s.lists.NewestFirst
	cursor := s.lists.CursorParam
	if cursor != "" {
		if v := values[cursor]; len(v) > 0 {
			if len(v) > 1 {
				return errorResponse(Errorf(CodeValidation, "query parameter '%s': given %d times; it takes one value", cursor, len(v)))
			}
			after, ok := decodeCursor(v[0])
			if !ok {
				return errorResponse(Errorf(CodeValidation, "query parameter '%s': %q is not a cursor this server gave out; follow the Link rel=\"next\" of the previous page", cursor, truncate(v[0], 100)))
			}
			q.After, q.HasAfter = after, true
		}
	}
	items, last, more := o.coll.data.Page(q)
	// The page stays the store's own bytes: a proven answer is written as
	// it is composed, so a page of large records is never copied whole
	// (checkResponse joins any other to validate it).
	res := &response{status: http.StatusOK, items: items, proven: o.proven}
	if cursor != "" && more && len(items) > 0 {
		res.set("Link", nextLink(r, values, cursor, last))
	}
	return res
}

// clampLimit returns r with an out-of-range page size replaced by the
// nearest bound, and a note for the log; a value that is not an integer is
// left for validation to refuse. An integer beyond int64 is out of range
// too, and clamped like any other. values is r's parsed query; it is
// updated to match the returned request.
func clampLimit(r *http.Request, values url.Values, l *spec.Limit) (*http.Request, string) {
	raw := values.Get(l.Param)
	if raw == "" {
		return r, ""
	}
	// On ErrRange, ParseInt gives the int64 bound on the value's side.
	n, err := strconv.ParseInt(raw, 10, 64)
	beyond := errors.Is(err, strconv.ErrRange)
	if err != nil && !beyond {
		return r, ""
	}
	clamped := n
	if n < l.Min {
		clamped = l.Min
	}
	if l.Max > 0 && n > l.Max {
		clamped = l.Max
	}
	if clamped == n && !beyond {
		return r, ""
	}
	values.Set(l.Param, strconv.FormatInt(clamped, 10))
	u := *r.URL
	u.RawQuery = values.Encode()
	r2 := *r
	r2.URL = &u
	return &r2, fmt.Sprintf("%s=%s clamped to %d", l.Param, truncate(raw, 40), clamped)
}

// Cursors are opaque to clients: "c1." and the seq of the last item of the
// page, base64url. New items never move a cursor: ids only grow, and a
// cursor names a position by id, not by offset.
const cursorPrefix = "c1."

func encodeCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

func decodeCursor(c string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !bytes.HasPrefix(b, []byte(cursorPrefix)) {
		return 0, false
	}
	// Ids may be negative (fixtures can hold any int64), so may a cursor.
	n, err := strconv.ParseInt(string(b[len(cursorPrefix):]), 10, 64)
	return n, err == nil
}

// nextLink is the RFC 8288 link to the page after last; values is the
// request's query, which it leaves as it is.
func nextLink(r *http.Request, values url.Values, param string, last int64) string {
	values = maps.Clone(values)
	values.Set(param, encodeCursor(last))
	u := url.URL{Path: r.URL.Path, RawQuery: values.Encode()}
	return "<" + u.String() + `>; rel="next"`
}
