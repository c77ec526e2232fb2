package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// handle runs the pipeline: header bound, route, CORS preflight, method,
// removal, auth, body, validation, then the operation's handler.
func (s *Server) handle(r *http.Request) *response {
	if n := headerBytes(r); n > s.maxHeader {
		return errorResponse(Errorf(CodeHeadersTooLarge, "the request's header fields take %d bytes; the limit is %d", n, s.maxHeader))
	}
	rt, params, ok := s.router.match(r.URL.EscapedPath())
	if !ok {
		if r.Method == http.MethodOptions && s.cors.isPreflight(r) {
			return s.cors.preflight(r, nil)
		}
		return errorResponse(Errorf(CodeRouteNotFound, "no operation is declared at %s; the paths are %s", truncate(r.URL.EscapedPath(), 200), s.pathList()))
	}
	if r.Method == http.MethodOptions {
		if s.cors.isPreflight(r) {
			return s.cors.preflight(r, rt.methods)
		}
		res := &response{status: http.StatusNoContent}
		res.set("Allow", rt.allow)
		return res
	}
	op, ok := rt.ops[r.Method]
	if !ok {
		res := errorResponse(Errorf(CodeMethodNotAllowed, "%s is not declared for %s%s; allowed: %s", r.Method, s.spec.BasePath, rt.template, rt.allow))
		res.set("Allow", rt.allow)
		return res
	}
	o := s.ops[op]
	res := s.serveOperation(r, o, params)
	res.op = op
	for _, h := range o.headers {
		res.set(h[0], h[1])
	}
	return res
}

func (s *Server) serveOperation(r *http.Request, o *operation, params map[string]string) *response {
	if sunset := o.op.Sunset; !sunset.IsZero() && !s.now().Before(sunset) {
		return errorResponse(Errorf(CodeGone, "%s was removed on %s%s", o.op, sunset.UTC().Format("2 January 2006"), s.replacementHint(o.op)))
	}
	// The query is parsed once, here, for every step that reads it. A pair
	// Go cannot decode (a bad %-escape, a ';' separator) would otherwise be
	// dropped without a word, and the request answered as if it were absent.
	// It comes before the key is looked for: a key the scheme takes in the
	// query may sit in the pair Go could not read ('?limit=1;appid=KEY'),
	// and a 401 would send the client looking in the wrong place.
	var values url.Values
	if r.URL.RawQuery != "" || o.kind == kindList {
		var err error
		if values, err = url.ParseQuery(r.URL.RawQuery); err != nil {
			return errorResponse(Errorf(CodeValidation, "the query string cannot be decoded: %s", truncate(err.Error(), 200)))
		}
	}
	if res := s.auth.check(r, o.op); res != nil {
		return res
	}
	for _, name := range o.scalarQuery {
		if vs := values[name]; len(vs) > 1 {
			return errorResponse(Errorf(CodeValidation, "query parameter '%s': given %d times; it takes one value", name, len(vs)))
		}
	}
	var note string
	if o.kind == kindList && s.lists.ClampLimit && o.coll.def.Limit != nil {
		r, note = clampLimit(r, values, o.coll.def.Limit)
	}
	res := s.serveValid(r, o, params, values)
	if note != "" {
		res.notes = append(res.notes, note)
	}
	return res
}

// serveValid validates the request, then lets the operation answer.
func (s *Server) serveValid(r *http.Request, o *operation, params map[string]string, values url.Values) *response {
	var doc any
	if o.op.Body != nil {
		var e *Error
		var cut bool
		if doc, cut, e = s.readBody(r, o.op); e != nil {
			res := errorResponse(e)
			res.bodyCut = cut
			return res
		}
	}
	var ps spec.Problems
	if doc != nil {
		ps = s.val.RequestDecoded(r, o.op, doc)
	} else {
		ps = s.val.Request(r, o.op)
	}
	if len(ps) > 0 {
		return errorResponse(Errorf(CodeValidation, "%s", s.scrub(r, describeProblems(ps))))
	}
	if res := s.injectFault(o); res != nil {
		res.notes = append(res.notes, "fault injected")
		return res
	}
	if o.stub != nil {
		return o.serveStub()
	}
	switch o.kind {
	case kindList:
		return s.list(r, o, values)
	case kindCreate:
		obj, _ := doc.(map[string]any)
		return s.create(o, obj)
	case kindRead:
		return s.read(o, params[o.coll.def.IDParam])
	case kindUnpublished:
		return errorResponse(Errorf(CodeNotPublished, "%s %s%s exists, but its interface is not published: its parameters and payload are not shown in the API description, so petctl has no answer to give", o.op.Method, s.spec.BasePath, o.op.Path))
	}
	return errorResponse(Errorf(CodeNotImplemented, "petctl cannot infer what %s does from the document (it serves create, list and read of collections)", o.op))
}

// readBody reads, bounds, decodes (Content-Encoding) and parses the
// request body, and puts the bytes back for the validator once it has read
// them whole. cut is set when it began to read and stopped before the end:
// the rest of the body may still be on its way.
func (s *Server) readBody(r *http.Request, op *spec.Operation) (doc any, cut bool, e *Error) {
	if r.ContentLength > s.maxBody {
		return nil, false, Errorf(CodePayloadTooLarge, "the request body has %d bytes; the limit is %d", r.ContentLength, s.maxBody)
	}
	var coding *contentCoding
	if r.ContentLength != 0 {
		if coding, e = requestCoding(r.Header); e != nil {
			return nil, false, e
		}
	}
	// The limit holds for the body as sent and, when it is encoded, once
	// decoded.
	src := http.MaxBytesReader(nil, r.Body, s.maxBody)
	var body []byte
	if coding != nil {
		if body, e = coding.decode(src, s.maxBody); e != nil {
			return nil, true, e
		}
	} else {
		var err error
		if body, err = io.ReadAll(src); err != nil {
			return nil, true, readError(err, s.maxBody)
		}
	}
	r.Body = wholeBody{bytes.NewReader(body)}
	if len(bytes.TrimSpace(body)) == 0 {
		if op.Body.Required {
			return nil, false, Errorf(CodeBodyRequired, "%s needs a request body (%s)", op.ID, strings.Join(op.Body.MediaTypes, ", "))
		}
		return nil, false, nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil, false, Errorf(CodeUnsupportedMediaType, "the request has a body but no Content-Type; send Content-Type: %s", strings.Join(op.Body.MediaTypes, ", "))
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !declaredMediaType(op.Body.MediaTypes, mt) {
		return nil, false, Errorf(CodeUnsupportedMediaType, "Content-Type %q is not accepted by %s; send %s", truncate(ct, 100), op.ID, strings.Join(op.Body.MediaTypes, ", "))
	}
	if !isJSONMediaType(mt) {
		return nil, false, nil
	}
	doc, err = store.DecodeStrict(body)
	if err != nil {
		return nil, false, Errorf(CodeMalformedJSON, "request body: %v", err)
	}
	return doc, false, nil
}

// wholeBody is a request body readBody has read to its end, put back for
// the validator. Its type says so to ServeHTTP, which must not wait for
// more of the body.
type wholeBody struct{ *bytes.Reader }

// Close does nothing: the bytes are in memory.
func (wholeBody) Close() error { return nil }

func declaredMediaType(declared []string, mt string) bool {
	for _, d := range declared {
		if strings.EqualFold(d, mt) {
			return true
		}
	}
	return false
}

func isJSONMediaType(mt string) bool {
	mt = strings.ToLower(mt)
	return mt == spec.JSON || strings.HasSuffix(mt, "+json")
}

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

// joinArray writes a JSON array of already-encoded items.
func joinArray(items [][]byte) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '[')
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, it...)
	}
	return append(buf, ']')
}

// arrayLen is the length of the JSON array of items.
func arrayLen(items [][]byte) int {
	n := 2 + max(len(items)-1, 0)
	for _, it := range items {
		n += len(it)
	}
	return n
}

// arrayChunk is how many bytes of an array writeArray gathers before it
// writes: small records go out in a few writes, and a request holds at most
// this much beside the store's own bytes.
const arrayChunk = 32 << 10

var arrayBufs = sync.Pool{New: func() any { b := make([]byte, 0, arrayChunk); return &b }}

// writeArray writes the JSON array of already-encoded items, as joinArray
// would build it, without building it: records of up to arrayChunk bytes
// are gathered into a pooled buffer, larger ones are written from where
// they lie.
func writeArray(w io.Writer, items [][]byte) error {
	bp := arrayBufs.Get().(*[]byte)
	defer arrayBufs.Put(bp)
	buf := append((*bp)[:0], '[')
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		if len(buf)+len(it) < arrayChunk { // room left for the ',' or ']' that follows
			buf = append(buf, it...)
			continue
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if len(it) > arrayChunk/2 {
			if _, err := w.Write(it); err != nil {
				return err
			}
			continue
		}
		buf = append(buf, it...)
	}
	buf = append(buf, ']')
	_, err := w.Write(buf)
	*bp = buf[:0]
	return err
}

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
	switch {
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

func (s *Server) replacementHint(op *spec.Operation) string {
	r := op.Replacement
	if r == nil {
		return ""
	}
	hint := "; the replacement is " + r.OperationID
	if rep := s.spec.Operation(r.OperationID); rep != nil {
		hint += fmt.Sprintf(" (%s %s%s)", rep.Method, s.spec.BasePath, rep.Path)
	}
	if r.Description != "" {
		hint += ": " + r.Description
	}
	return hint
}

func (s *Server) pathList() string {
	var out []string
	for _, r := range s.router.routes {
		out = append(out, s.spec.BasePath+r.template)
	}
	return strings.Join(out, ", ")
}

// headerBytes counts the request's header fields as they arrived.
func headerBytes(r *http.Request) int {
	n := len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// describeProblems joins problems for a one-line message, trimmed to a readable length.
func describeProblems(ps spec.Problems) string {
	return truncate(strings.TrimSpace(ps.Error()), 600)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
