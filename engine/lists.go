package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// defaultPageSize is the page size of a list that pages (by offset, page or
// cursor) without a page-size parameter, or with one the client leaves out
// and that has neither a default nor a maximum.
const defaultPageSize = 20

// pageState is where a list answer stands among the pages: what the
// envelope's metadata and the links show.
type pageState struct {
	size, offset, page, pageBase int
	total                        int
	more, hasPrev                bool
	next, prev                   string // cursor tokens, for cursor paging
}

// pages is how many pages the list holds.
func (st pageState) pages() int {
	switch {
	case st.size > 0:
		return (st.total + st.size - 1) / st.size
	case st.total > 0:
		return 1 // a list the document does not page is one page holding all
	}
	return 0 // as a paged list counts no items: no pages
}

// list answers a list or a search: a page of the collection's items, in a
// bare array or the document's envelope, filtered, sorted and paged as the
// operation's parameters say.
func (s *Server) list(c *call, o *operation) *response {
	coll, def, l := o.coll, o.coll.def, o.list
	values := c.query
	q := store.Query{Desc: s.lists.NewestFirst}
	if o.kind == kindList && len(def.ParentParams) > 0 {
		scope := scopeOf(c, def)
		if res := s.parentMissing(coll, scope); res != nil {
			return res
		}
		sc := store.JoinScope(scope)
		q.Scope = &sc
	} else if o.kind == kindSearch {
		q.Alive = s.alive(coll)
	}
	st := pageState{}
	if lim := l.Limit; lim != nil {
		var res *response
		if st.size, res = intParam(values, lim.Param, int(lim.Default)); res != nil {
			return res
		}
	}
	switch {
	case l.Paging == "none":
		st.size = 0 // every item: the list does not page
	case st.size <= 0 && l.Paging != "limit":
		st.size = defaultPageSize
	}
	q.Limit = st.size
	for _, f := range l.Filters {
		if v, ok := values[f.Param]; ok && len(v) > 0 {
			if q.Filters == nil {
				q.Filters = map[string][]string{}
			}
			q.Filters[f.Field] = filterValues(o.op, f.Param, v)
		}
	}
	if res := sortQuery(&q, def, l, values); res != nil {
		return res
	}
	switch l.Paging {
	case "offset":
		n, res := intParam(values, l.OffsetParam, 0)
		if res != nil {
			return res
		}
		st.offset = max(n, 0)
	case "page":
		st.pageBase = pageBase(o.op, l.PageParam)
		n, res := intParam(values, l.PageParam, st.pageBase)
		if res != nil {
			return res
		}
		st.page = max(n, st.pageBase)
		st.offset = (st.page - st.pageBase) * st.size
	}
	q.Offset = st.offset
	cursor, backward := o.cursor, o.backward
	if cursor != "" {
		if v := values[cursor]; len(v) > 0 {
			if len(v) > 1 {
				return errorResponse(Errorf(CodeValidation, "query parameter '%s': given %d times; it takes one value", cursor, len(v)))
			}
			after, ok := s.decodeListCursor(coll, q.Scope, v[0])
			if !ok {
				return errorResponse(Errorf(CodeValidation, "query parameter '%s': %q is not a cursor this server gave out, nor the id of an item of the list; follow the next link of the previous page", cursor, truncate(v[0], 100)))
			}
			q.After, q.HasAfter = after, true
			st.hasPrev = true
			if backward {
				q.Desc = !q.Desc
			}
		}
	}
	q.Count = l.Total != nil || l.TotalPages != nil || q.Alive != nil || o.countHeaders != nil || o.pageHeaders != nil
	p := coll.data.Page(q)
	if backward && q.HasAfter {
		reverse(p.Items)
	}
	st.total, st.more = p.Total, p.More
	st.hasPrev = st.hasPrev || st.offset > 0
	if cursor != "" && p.More && len(p.Items) > 0 {
		st.next = cursorToken(o.takesID, p)
	}
	respSchema := o.rop.Response.Schema
	var res *response
	if len(l.Items) == 0 && s.directItems(coll, respSchema) {
		// The page stays the store's own bytes: a proven answer is written
		// as it is composed, so a page of large records is never copied
		// whole (checkResponse joins any other to validate it).
		res = &response{status: o.rop.Response.Status, items: p.Items, proven: o.proven}
	} else {
		meta := &listMeta{c: c, l: l, st: st, cursor: cursor}
		res = &response{status: o.rop.Response.Status}
		ok := false
		if o.itemsProven {
			// As for a bare array, the page stays the store's own bytes,
			// and only the envelope is validated (see proveEnvelopeItems).
			res.before, res.after, ok = s.envelopeAround(respSchema, l.Items, meta)
		}
		if ok {
			res.items, res.itemsProven = p.Items, true
		} else {
			res.body = s.listBody(coll, respSchema, l.Items, p.Items, meta)
		}
		res.set("Content-Type", answerMediaType(o.op, res.status))
	}
	if res.status == 0 {
		res.status = http.StatusOK
	}
	for _, name := range o.countHeaders {
		res.set(name, strconv.Itoa(st.total))
	}
	for _, name := range o.pageHeaders {
		res.set(name, strconv.Itoa(st.pages()))
	}
	if st.next != "" || p.More && l.Paging != "none" && l.Paging != "limit" && l.Paging != "cursor" {
		res.set("Link", nextLink(c.r, values, nextParam(l, cursor), nextValue(l, st)))
	}
	return res
}

// directItems reports whether a list answer's items are the records as
// stored: an array of the item schema, which has nothing writeOnly.
func (s *Server) directItems(coll *collection, respSchema *spec.Schema) bool {
	return respSchema != nil && respSchema.Type() == "array" && respSchema.Items == coll.def.Item && !coll.writeOnly
}

// listMeta is what an envelope's metadata is made of.
type listMeta struct {
	c      *call
	l      *spec.ListShape
	st     pageState
	cursor string
}

// listBody is a list answer: the items, projected onto the answer's item
// schema where they differ, in a bare array or in an envelope made from
// the answer's schema and filled with the page's metadata (meta nil for
// none: a list created in one request).
func (s *Server) listBody(coll *collection, schema *spec.Schema, at []string, items [][]byte, meta *listMeta) []byte {
	var itemSchema *spec.Schema
	if arr := schemaAt(schema, at); arr != nil {
		itemSchema = arr.Items
	}
	shown := items
	if itemSchema != coll.def.Item || coll.writeOnly {
		shown = make([][]byte, len(items))
		for i, it := range items {
			shown[i] = s.project(coll, it, itemSchema)
		}
	}
	array := joinArray(shown)
	if len(at) == 0 {
		return array
	}
	return encodeJSON(s.envelope(schema, at, array, meta))
}

// envelope is a list answer's envelope made from the answer's schema, with
// array at `at` and the page's metadata filled in (meta nil for none).
func (s *Server) envelope(schema *spec.Schema, at []string, array json.RawMessage, meta *listMeta) map[string]any {
	env, _ := s.made(schema).(map[string]any)
	if env == nil {
		env = map[string]any{}
	}
	setAt(env, at, array)
	if meta != nil {
		s.fillMeta(env, schema, meta)
	}
	return env
}

// envelopeAround is the JSON of a list answer's envelope before and after
// its array of items, so that the items are written from where they lie
// rather than copied into the envelope and compacted again by the encoder.
// ok is false when the mark that stands for the array while the envelope
// is encoded is not found exactly once (never, short of a value that holds
// the server's random mark); the caller then builds the answer whole.
func (s *Server) envelopeAround(schema *spec.Schema, at []string, meta *listMeta) (before, after []byte, ok bool) {
	b := encodeJSON(s.envelope(schema, at, s.itemsMark, meta))
	i := bytes.Index(b, s.itemsMark)
	if i < 0 || bytes.Contains(b[i+len(s.itemsMark):], s.itemsMark) {
		return nil, nil, false
	}
	return b[:i], b[i+len(s.itemsMark):], true
}

// newItemsMark is a server's itemsMark, which stands for a list's items
// while its envelope is encoded (see envelopeAround): a JSON string of 128
// random bits, so that no value of an envelope can be it.
func newItemsMark() json.RawMessage {
	var n [16]byte
	_, _ = rand.Read(n[:]) // crypto/rand.Read does not fail (Go 1.24)
	return json.RawMessage(`"petctl-items-` + hex.EncodeToString(n[:]) + `"`)
}

// fillMeta sets an envelope's metadata: totals, page, size, offset, has
// more, and the next and previous pages as the fields' types take them.
func (s *Server) fillMeta(env map[string]any, schema *spec.Schema, m *listMeta) {
	l, st := m.l, m.st
	set := func(at []string, v any) {
		if at == nil {
			return
		}
		// An optional envelope object the made answer left out (lago's
		// meta) is made from its schema first: its own required fields
		// then hold values, not nothing.
		for i := 1; i < len(at); i++ {
			if _, ok := getAt(env, at[:i]).(map[string]any); !ok {
				made, _ := s.made(schemaAt(schema, at[:i])).(map[string]any)
				if made == nil {
					made = map[string]any{}
				}
				setAt(env, at[:i], made)
			}
		}
		setAt(env, at, v)
	}
	set(l.Total, st.total)
	set(l.TotalPages, st.pages())
	if st.size > 0 {
		set(l.PageSize, st.size)
	}
	switch {
	case l.Paging == "page":
		set(l.Page, st.page)
	case st.size > 0:
		set(l.Page, st.offset/st.size+1)
	default:
		set(l.Page, 1)
	}
	set(l.Offset, st.offset)
	set(l.HasMore, st.more)
	for _, link := range []struct {
		at   []string
		has  bool
		next bool
	}{{l.Next, st.more, true}, {l.Prev, st.hasPrev, false}} {
		if link.at == nil {
			continue
		}
		fs := schemaAt(schema, link.at)
		var v any
		switch {
		case !link.has || !link.next && l.Paging == "cursor":
			v = nil // the previous page of a cursor is the client's to remember
		case fs.Type() == "integer" || fs.Type() == "number":
			v = nextValueInt(l, st, link.next)
		case l.Paging == "cursor" && !urlField(fs, link.at):
			v = st.next
		default:
			v = s.pageURL(m.c, l, st, m.cursor, link.next, fs)
		}
		switch {
		case v != nil:
			setAt(env, link.at, v)
		case fs != nil && fs.Nullable:
			setAt(env, link.at, nil)
		case requiredAt(schema, link.at):
			// No page, and the document neither lets the field be null
			// nor absent: the value its schema makes (0, "") stays.
		default:
			deleteAt(env, link.at)
		}
	}
}

// urlField reports whether a next or previous field holds a URL rather
// than a token: its format says so, or its name does (next, nextUrl).
func urlField(fs *spec.Schema, at []string) bool {
	if fs != nil && (fs.Format == "uri" || fs.Format == "url" || fs.Format == "uri-reference") {
		return true
	}
	name := strings.ToLower(at[len(at)-1])
	return name == "next" || name == "previous" || name == "prev" || strings.HasSuffix(name, "url") || strings.HasSuffix(name, "link")
}

// pageURL is the absolute URL of the next or previous page; nil when
// there is none.
func (s *Server) pageURL(c *call, l *spec.ListShape, st pageState, cursor string, next bool, fs *spec.Schema) any {
	param := nextParam(l, cursor)
	var v string
	if next {
		v = nextValue(l, st)
	} else {
		switch l.Paging {
		case "page":
			v = strconv.Itoa(st.page - 1)
		case "offset":
			v = strconv.Itoa(max(st.offset-st.size, 0))
		default:
			return nil
		}
	}
	if param == "" {
		return nil
	}
	values := maps.Clone(c.query)
	if values == nil {
		values = url.Values{}
	}
	values.Set(param, v)
	scheme := "http"
	if c.r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: c.r.Host, Path: c.r.URL.Path, RawQuery: values.Encode()}
	if fs != nil && fs.Format == "uri-reference" {
		u.Scheme, u.Host = "", ""
	}
	return u.String()
}

// nextParam is the query parameter that moves to the next page.
func nextParam(l *spec.ListShape, cursor string) string {
	switch l.Paging {
	case "page":
		return l.PageParam
	case "offset":
		return l.OffsetParam
	}
	return cursor
}

// nextValue is the next page's value of nextParam.
func nextValue(l *spec.ListShape, st pageState) string {
	switch l.Paging {
	case "page":
		return strconv.Itoa(st.page + 1)
	case "offset":
		return strconv.Itoa(st.offset + st.size)
	}
	return st.next
}

// nextValueInt is the next or previous page as a number: a page number,
// or an offset.
func nextValueInt(l *spec.ListShape, st pageState, next bool) any {
	switch {
	case l.Paging == "page" && next:
		return st.page + 1
	case l.Paging == "page":
		return st.page - 1
	case next:
		return st.offset + st.size
	}
	return max(st.offset-st.size, 0)
}

// pageBase is the first page's number: 0 when the page parameter's
// minimum is 0, else 1.
func pageBase(op *spec.Operation, param string) int {
	if p := op.Param("query", param); p != nil && p.Schema != nil && p.Schema.Minimum != nil && *p.Schema.Minimum == 0 {
		return 0
	}
	return 1
}

// intParam reads an integer query parameter, def when it is absent.
func intParam(values url.Values, name string, def int) (int, *response) {
	v := values.Get(name)
	if v == "" || name == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errorResponse(Errorf(CodeValidation, "query parameter '%s': %q is not an integer", name, truncate(v, 40)))
	}
	return n, nil
}

// filterValues are the values a filter parameter gives: each value, and
// for an array parameter each comma-separated part (form style,
// explode false).
func filterValues(op *spec.Operation, param string, vs []string) []string {
	p := op.Param("query", param)
	if p == nil || spec.SchemaType(p.Schema) != "array" {
		return vs
	}
	var out []string
	for _, v := range vs {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// sortQuery reads the sort parameter, where the document declares one: a
// property name, "-name" or "name:desc" for descending, with the order
// parameter (asc or desc) where there is one. A key that names no
// property of the item leaves the store's order.
func sortQuery(q *store.Query, def *spec.Resource, l *spec.ListShape, values url.Values) *response {
	if l.SortParam == "" {
		return nil
	}
	v := values.Get(l.SortParam)
	if v == "" {
		return nil
	}
	desc := false
	switch {
	case strings.HasPrefix(v, "-"):
		v, desc = v[1:], true
	case strings.HasPrefix(v, "+"):
		v = v[1:]
	}
	for _, sep := range []string{":", " ", "."} {
		if name, dir, ok := strings.Cut(v, sep); ok && (strings.EqualFold(dir, "desc") || strings.EqualFold(dir, "asc")) {
			v, desc = name, strings.EqualFold(dir, "desc")
		}
	}
	if l.OrderParam != "" {
		if o := values.Get(l.OrderParam); o != "" {
			desc = strings.HasPrefix(strings.ToLower(o), "desc")
		}
	}
	props, _ := def.Item.Props()
	for _, p := range props {
		if strings.EqualFold(p.Name, v) || strings.EqualFold(strings.ReplaceAll(p.Name, "_", ""), strings.ReplaceAll(v, "_", "")) {
			q.SortBy, q.SortDesc = p.Name, desc
			return nil
		}
	}
	return nil
}

// listCursor is the cursor parameter of a list of shape l: the
// document's, else configured (lists.pagination); whether it pages back
// (the document's only), and whether it takes an item's id (the
// document's only: a configured cursor gets petctl's own tokens).
func listCursor(l *spec.ListShape, configured string) (cursor string, backward, takesID bool) {
	if l == nil {
		return "", false, false
	}
	cursor = l.Cursor
	if cursor == "" && l.Paging != "cursor" {
		cursor = configured
	}
	return cursor, l.Paging == "cursor" && spec.BackwardCursor(cursor), cursor == l.Cursor && cursor != "" && spec.CursorTakesID(cursor)
}

// cursorToken is the value of the cursor parameter that continues after
// the page: the last item's id, for a document's parameter that takes one
// (after, starting_after: spec.CursorTakesID), else an opaque cursor.
func cursorToken(takesID bool, p store.Page) string {
	if takesID {
		if p.LastID != "" {
			return p.LastID
		}
		return strconv.FormatInt(p.Last, 10)
	}
	return encodeCursor(p.Last)
}

// decodeListCursor reads a cursor: one this server gave out, or the id of
// an item of the list (after=<id>).
func (s *Server) decodeListCursor(coll *collection, scope *string, v string) (int64, bool) {
	if seq, ok := decodeCursor(v); ok {
		return seq, true
	}
	var sc []string
	if scope != nil {
		sc = store.SplitScope(*scope)
	}
	if rec, ok := coll.data.Get(sc, v); ok {
		return rec.Place(), true
	}
	return 0, false
}

func reverse(items [][]byte) {
	for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
		items[i], items[j] = items[j], items[i]
	}
}

// schemaAt is the schema at a path of properties; schema itself for none.
func schemaAt(schema *spec.Schema, at []string) *spec.Schema {
	for _, p := range at {
		if schema == nil {
			return nil
		}
		schema = schema.Prop(p)
	}
	return schema
}

// requiredAt reports whether the property at a path is required by the
// object that holds it.
func requiredAt(schema *spec.Schema, at []string) bool {
	parent := schemaAt(schema, at[:len(at)-1])
	if parent == nil {
		return false
	}
	_, required := parent.Props()
	return required[at[len(at)-1]]
}

// setAt sets the value at a path of properties, making the objects on the way.
func setAt(m map[string]any, at []string, v any) {
	for _, p := range at[:len(at)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[at[len(at)-1]] = v
}

// getAt is the value at a path of properties, nil where there is none.
func getAt(m map[string]any, at []string) any {
	var v any = m
	for _, p := range at {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[p]
	}
	return v
}

// deleteAt removes the value at a path of properties.
func deleteAt(m map[string]any, at []string) {
	for _, p := range at[:len(at)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, at[len(at)-1])
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
// page, base64url. New items never move a cursor: seqs only grow, and a
// cursor names a position by seq, not by offset.
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

// nextLink is the RFC 8288 link to the page where param is value; values
// is the request's query, which it leaves as it is. The query is written
// as url.Values.Encode would write values with param set to value (names
// sorted, each pair escaped), without copying the map first: a list
// makes its link on every page (TestNextLinkEncodesAsValues).
func nextLink(r *http.Request, values url.Values, param, value string) string {
	var small [8]string
	names := append(small[:0], param)
	for name := range values {
		if name != param {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	path := (&url.URL{Path: r.URL.Path}).EscapedPath()
	b := make([]byte, 0, len(path)+len(`<?>; rel="next"`)+len(r.URL.RawQuery)+len(param)+len(value)+8)
	b = append(append(b, '<'), path...)
	set := [1]string{value} // param's values, in place of the request's
	sep := byte('?')
	for _, name := range names {
		vals := values[name]
		if name == param {
			vals = set[:]
		}
		escaped := url.QueryEscape(name)
		for _, v := range vals {
			b = append(append(append(append(b, sep), escaped...), '='), url.QueryEscape(v)...)
			sep = '&'
		}
	}
	return string(append(b, `>; rel="next"`...))
}
