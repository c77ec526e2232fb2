package engine

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// call is one request on its way through the pipeline: what each step has
// learnt of it, so that no step parses the route, the query or the body
// again.
type call struct {
	// r is the request as the steps see it: a HEAD answered as its GET, a
	// page size clamped; arrived is the request as it came, for the answer
	// and the log.
	r, arrived *http.Request
	start      time.Time
	// body is the request body as it arrived: what is left of it may need
	// reading after the answer (see linger.go).
	body   io.ReadCloser
	route  *route
	params map[string]string
	o      *operation
	// query is r's query string, parsed once (nil until the query step).
	query url.Values
	// doc is the decoded JSON body (numbers as json.Number), nil without one.
	doc any
	// notes say what configuration changed (a clamped limit).
	notes []string
}

// ServeHTTP answers one request: the steps of docs/errors.md's "Order of
// checks", in order, then the operation; then the answer is validated
// against the document, written and logged.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.auth.serves(r.URL.Path) { // the token endpoint, JWKS and discovery
		s.serveOAuth(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, AdminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	c := &call{r: r, arrived: r, start: time.Now(), body: r.Body}
	s.finish(w, c, s.answer(c))
}

// step is one check of the pipeline: it answers the request (a refusal,
// usually), or returns nil to let the next step see it.
type step func(s *Server, c *call) *response

// steps are the pipeline, in the order docs/errors.md gives; the first
// answer wins.
var steps = []step{
	(*Server).boundHeaders,  // 1. 431
	(*Server).route,         // 2. 404, 405, OPTIONS and CORS preflights
	(*Server).removal,       // 3. 410 past the removal date
	(*Server).decodeQuery,   // 4. 400 for a query Go cannot decode
	(*Server).authenticate,  // 5. 401
	(*Server).singleValues,  // 6. 400 for repeated scalar query parameters
	(*Server).clampPageSize, //    lists.outOfRangeLimit: clamp
	(*Server).negotiate,     // 7. 406 for an Accept no answer is sent as
	(*Server).readBody,      // 8. 413, 415, 400
	(*Server).validate,      // 9. 400 against the document
	(*Server).injectFault,   //    faults: configured failures
	(*Server).operate,       // 10. the operation: its answer, 404, 501
}

// answer runs the steps. A panic is answered 500 and logged, never a
// dropped connection.
func (s *Server) answer(c *call) (res *response) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic", "method", c.r.Method, "path", c.r.URL.Path, "panic", fmt.Sprint(v))
			res = errorResponse(Errorf(CodeInternal, "petctl failed while answering this request; the server log has the details"))
		}
	}()
	for _, st := range steps {
		if res = st(s, c); res != nil {
			break
		}
	}
	if c.o != nil {
		res.op = c.o.op
		for _, h := range c.o.headers {
			res.set(h[0], h[1])
		}
	}
	s.renameCode(res)
	s.addHeaders(c, res)
	s.fillRequiredHeaders(c, res)
	if len(c.notes) > 0 {
		res.notes = append(c.notes, res.notes...)
	}
	return res
}

// boundHeaders refuses header fields past the limit.
func (s *Server) boundHeaders(c *call) *response {
	if n := headerBytes(c.r); n > s.maxHeader {
		return errorResponse(Errorf(CodeHeadersTooLarge, "the request's header fields take %d bytes; the limit is %d", n, s.maxHeader))
	}
	return nil
}

// route finds the operation, answering OPTIONS and CORS preflights itself.
// RFC 9110 §9.3.2: HEAD is GET without the content; where the document
// declares GET and no HEAD, the GET answers, validated as the GET, and the
// content is left out when the answer is written.
func (s *Server) route(c *call) *response {
	rt, params, ok := s.router.match(c.r.URL.EscapedPath())
	if !ok {
		if c.r.Method == http.MethodOptions && s.cors.isPreflight(c.r) {
			return s.cors.preflight(c.r, nil)
		}
		return errorResponse(Errorf(CodeRouteNotFound, "no operation is declared at %s; the paths are %s", truncate(c.r.URL.EscapedPath(), 200), s.pathList()))
	}
	c.route, c.params = rt, params
	if c.r.Method == http.MethodHead && (rt.headAsGet() || s.headAsStoredGet(rt)) {
		c.r = c.r.WithContext(c.r.Context())
		c.r.Method = http.MethodGet
	}
	if c.r.Method == http.MethodOptions {
		if s.cors.isPreflight(c.r) {
			return s.cors.preflight(c.r, rt.methods)
		}
		res := &response{status: http.StatusNoContent}
		res.set("Allow", rt.allow)
		return res
	}
	op, ok := rt.ops[c.r.Method]
	if !ok {
		res := errorResponse(Errorf(CodeMethodNotAllowed, "%s is not declared for %s%s; allowed: %s", c.r.Method, s.spec.BasePath, rt.template, rt.allow))
		res.set("Allow", rt.allow)
		return res
	}
	c.o = s.ops[op]
	return nil
}

// headAsStoredGet reports whether the route's HEAD is answered as its GET
// (PlannedOperation.AsGet).
func (s *Server) headAsStoredGet(rt *route) bool {
	head := s.ops[rt.ops[http.MethodHead]]
	return head != nil && head.asGet
}

// decodeQuery parses the query once, for every step that reads it. A pair
// Go cannot decode (a bad %-escape, a ';' separator) would otherwise be
// dropped without a word, and the request answered as if it were absent.
// It comes before the key is looked for: a key the scheme takes in the
// query may sit in the pair Go could not read ('?limit=1;appid=KEY'), and
// a 401 would send the client looking in the wrong place.
func (s *Server) decodeQuery(c *call) *response {
	if c.r.URL.RawQuery == "" && c.o.kind != kindList && c.o.kind != kindSearch {
		return nil
	}
	var err error
	if c.query, err = url.ParseQuery(c.r.URL.RawQuery); err != nil {
		return errorResponse(Errorf(CodeValidation, "the query string cannot be decoded: %s", truncate(err.Error(), 200)))
	}
	return nil
}

// authenticate checks the operation's security requirements; a key the
// scheme takes in the query is read from the query decodeQuery parsed.
func (s *Server) authenticate(c *call) *response {
	return s.auth.check(c.r, c.query, c.o.op)
}

// singleValues refuses a scalar query parameter given more than once: the
// validator reads only the first.
func (s *Server) singleValues(c *call) *response {
	for _, name := range c.o.scalarQuery {
		if vs := c.query[name]; len(vs) > 1 {
			return errorResponse(Errorf(CodeValidation, "query parameter '%s': given %d times; it takes one value", name, len(vs)))
		}
	}
	return nil
}

// clampPageSize answers a page size out of bounds with the nearest bound,
// where lists.outOfRangeLimit says clamp.
func (s *Server) clampPageSize(c *call) *response {
	if c.o.list == nil || c.o.coll == nil || !s.lists.ClampLimit || c.o.list.Limit == nil {
		return nil
	}
	var note string
	if c.r, note = clampLimit(c.r, c.query, c.o.list.Limit); note != "" {
		c.notes = append(c.notes, note)
	}
	return nil
}

// validate holds the parameters and the body to the document.
func (s *Server) validate(c *call) *response {
	var ps spec.Problems
	if c.doc != nil {
		ps = s.val.RequestDecoded(c.r, c.o.op, c.doc)
	} else {
		ps = s.val.Request(c.r, c.o.op)
	}
	if len(ps) > 0 {
		return errorResponse(Errorf(CodeValidation, "%s", s.scrub(c.r, describeProblems(ps))))
	}
	return nil
}

// operate lets the operation answer: a configured answer, the store, the
// document, or the reason it cannot.
func (s *Server) operate(c *call) *response {
	o := c.o
	if o.stub != nil {
		return o.serveStub()
	}
	switch o.kind {
	case kindList, kindSearch:
		return s.list(c, o)
	case kindCreate:
		return s.create(c, o)
	case kindBatchCreate:
		return s.batchCreate(c, o)
	case kindRead:
		return s.read(c, o)
	case kindReadOne:
		return s.readOne(c, o)
	case kindReplace:
		return s.replace(c, o)
	case kindPatch:
		return s.patch(c, o)
	case kindDelete:
		return s.remove(c, o)
	case kindAction:
		return s.action(c, o)
	case kindUnpublished:
		return errorResponse(Errorf(CodeNotPublished, "%s %s%s exists, but its interface is not published: its parameters and payload are not shown in the API description, so petctl has no answer to give", o.op.Method, s.spec.BasePath, o.op.Path))
	}
	return errorResponse(Errorf(CodeNotImplemented, "%s declares no 2xx answer, so petctl has none to give", o.op))
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
