package spec

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// requestMemo remembers the request lines the validator accepted, so an
// identical request is not validated twice.
//
// With the options NewValidator sets (security validation off, strict mode
// off, undeclared bodies and request defaults off),
// ValidateHttpRequestSyncWithPathItem reads from a request only its method,
// its path (path parameters), its query (query parameters), the headers and
// cookies the operation declares as parameters, and its body and
// Content-Type when the operation declares a body. For an operation whose
// parameters are all in the path or the query:
//
//   - without a body (memoLine), the verdict is the same for every request
//     with the same method, path and query: the memo keys on exactly
//     those, per operation;
//   - with an application/json body (memoBody), the verdict is the
//     parameters' (a function of that same line) and the body's. A line
//     accepted once has valid parameters; the body is then accepted when
//     quickBody is sure the validator would accept it.
//
// Requests to an item path key on its template where their path
// parameters pass an exact quick check (see pathShape).
//
// Only acceptances are kept; a refused request is validated in full every
// time, for its message. TestRequestMemoAgreesWithValidator and
// TestRequestBodyMemoAgreesWithValidator hold the memo to the validator.
type requestMemo struct {
	*acceptances[requestKey]
	kinds  map[*Operation]memoKind
	bodies map[*Operation]*lazyPlan
	// paths are the shapes of item paths whose requests key on the
	// template (see pathShape); base is the base path requests carry.
	paths map[*Operation]*pathShape
	base  string
	// media is the body media type each memoBody operation's quick path
	// takes (see jsonBodyMedia).
	media map[*Operation]string
}

// lazyPlan compiles an operation's body plan on the first request that
// needs it: a document with hundreds of operations would otherwise pay for
// every plan before it serves anything.
type lazyPlan struct {
	once  sync.Once
	build func() *ResponseSchema
	// whole is the body schema compiled as the request validator compiles
	// it: the library decodes the body with encoding/json and holds the
	// value to that schema, and so does accepts, without the library's
	// per-call work; nil when there is none.
	whole *ResponseSchema
}

func (l *lazyPlan) accepts(obj map[string]any) bool {
	l.once.Do(func() { l.whole = l.build() })
	if l.whole == nil {
		return false
	}
	if l.whole.quickly(obj) {
		return true
	}
	doc, ok := asUnmarshalled(obj)
	return ok && l.whole.Validate(doc) == nil
}

// asUnmarshalled is v as json.Unmarshal into any would have decoded it:
// each json.Number a float64, as numberValue reads it (false where
// it cannot: a number past float64's range, which json.Unmarshal refuses
// too). v is not changed: its objects and arrays are copied.
func asUnmarshalled(v any) (any, bool) {
	switch v := v.(type) {
	case json.Number:
		return numberValue(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			d, ok := asUnmarshalled(e)
			if !ok {
				return nil, false
			}
			out[k] = d
		}
		return out, true
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			d, ok := asUnmarshalled(e)
			if !ok {
				return nil, false
			}
			out[i] = d
		}
		return out, true
	}
	return v, true
}

type requestKey struct {
	op                           *Operation
	method, path, rawPath, query string
	// templated: path is the operation's template, every path parameter
	// having passed its pathShape check.
	templated bool
}

// Bounds: a client that sends endless distinct queries costs at most this
// much memory; the memo then starts afresh.
const (
	memoEntries  = 4096
	memoKeyBytes = 1024
)

// memoKind says what the memo can do for an operation's requests.
type memoKind int

const (
	memoNone memoKind = iota
	// memoLine: the verdict depends on the request line alone.
	memoLine
	// memoBody: the verdict depends on the request line, for the
	// parameters, and on the Content-Type and body; an accepted line says
	// the parameters are valid, and a body the plan accepts is valid.
	memoBody
)

func newRequestMemo(v *Validator, ops []*Operation) *requestMemo {
	m := &requestMemo{acceptances: newAcceptances[requestKey](), kinds: map[*Operation]memoKind{}, bodies: map[*Operation]*lazyPlan{},
		paths: map[*Operation]*pathShape{}, base: v.spec.BasePath, media: map[*Operation]string{}}
	for _, op := range ops {
		switch {
		case memoizable(op):
			m.kinds[op] = memoLine
		case onlyLineParams(op) && hasJSONBody(op):
			// Until its plan is built, and where it cannot be, quickBody
			// is not sure and the validator decides.
			m.kinds[op], m.bodies[op] = memoBody, &lazyPlan{build: func() *ResponseSchema { return v.jsonBodySchema(op) }}
			m.media[op], _ = jsonBodyMedia(op)
		default:
			continue
		}
		if sh := newPathShape(op); sh != nil {
			m.paths[op] = sh
		}
	}
	return m
}

// memoizable reports whether the validator's verdict on a request for op
// depends on the request line alone.
func memoizable(op *Operation) bool {
	if op.Body != nil || (op.Op != nil && op.Op.RequestBody != nil) {
		return false
	}
	return onlyLineParams(op)
}

// onlyLineParams reports whether op's parameters are all in the path or the query.
func onlyLineParams(op *Operation) bool {
	for _, p := range op.Params {
		if p.In != "path" && p.In != "query" {
			return false
		}
	}
	return true
}

// jsonBodyMedia is the media type of op's request body the quick path
// takes: application/json where declared with a schema, else the first
// declared +json type with one (a merge patch's application/merge-patch+json,
// which the validator decodes with the same JSON decoder); "" for none.
func jsonBodyMedia(op *Operation) (string, *v3.MediaType) {
	if op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Content == nil {
		return "", nil
	}
	if mt, ok := op.Op.RequestBody.Content.Get(JSON); ok && mt != nil && mt.Schema != nil {
		return JSON, mt
	}
	for name, mt := range op.Op.RequestBody.Content.FromOldest() {
		if strings.HasPrefix(name, "application/") && strings.HasSuffix(name, "+json") && mt != nil && mt.Schema != nil {
			return name, mt
		}
	}
	return "", nil
}

func hasJSONBody(op *Operation) bool {
	name, _ := jsonBodyMedia(op)
	return name != ""
}

// jsonBodySchema returns the schema of op's JSON request body (see
// jsonBodyMedia), compiled as the validator compiles a request body
// schema; nil when there is none.
func (v *Validator) jsonBodySchema(op *Operation) *ResponseSchema {
	_, mt := jsonBodyMedia(op)
	if mt == nil {
		return nil
	}
	rs, err := v.compileSchema(mt.Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody)
	if err != nil {
		return nil
	}
	return rs
}

// key returns the memo key for r and what the memo can do for it.
func (m *requestMemo) key(r *http.Request, op *Operation) (requestKey, memoKind) {
	if m == nil || m.kinds[op] == memoNone {
		return requestKey{}, memoNone
	}
	k := requestKey{op: op, method: r.Method, path: r.URL.Path, rawPath: r.URL.RawPath, query: r.URL.RawQuery}
	if sh := m.paths[op]; sh != nil && k.rawPath == "" {
		if rest, ok := strings.CutPrefix(k.path, m.base); ok && sh.template(rest) {
			k.path, k.templated = op.Path, true
		}
	}
	if len(k.method)+len(k.path)+len(k.rawPath)+len(k.query) > memoKeyBytes {
		return requestKey{}, memoNone
	}
	return k, m.kinds[op]
}

// quickBody reports whether r's body is surely valid for op: sent as
// exactly its JSON media type, and decoded as the validator decodes it
// (encoding/json, one value), an object the plan accepts. The body is read
// and put back.
func (m *requestMemo) quickBody(r *http.Request, op *Operation) bool {
	if !exactly(r, m.media[op]) || r.Body == nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxQuickBody+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), r.Body))
	if err != nil || len(data) == 0 || len(data) > maxQuickBody {
		return false
	}
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	obj, ok := doc.(map[string]any)
	return ok && m.bodies[op].accepts(obj)
}

// quickDoc is quickBody for a body the caller decoded to doc already.
func (m *requestMemo) quickDoc(r *http.Request, op *Operation, doc any) bool {
	obj, ok := doc.(map[string]any)
	return ok && exactly(r, m.media[op]) && m.bodies[op].accepts(obj)
}

// exactly reports whether r says its body is of media type mt, once and
// without parameters: what the quick paths know the validator accepts.
func exactly(r *http.Request, mt string) bool {
	ct := r.Header["Content-Type"]
	return mt != "" && len(ct) == 1 && ct[0] == mt
}

// maxQuickBody bounds the bodies quickBody decodes; larger ones go to the validator.
const maxQuickBody = 64 << 10

// responseKey is a body quickResponse accepted, and the response and
// media type (responseUse) it was held to: whether a body is valid against
// a schema depends on the body alone, so an identical one is not decoded
// and validated again. What repeats is small: a list's envelope whose
// items start-up proved (validated with an empty array in their place),
// the same page's on every request; a body past memoKeyBytes is not kept.
// TestResponseMemo holds it to the validator.
type responseKey struct {
	use  responseUse
	body string
}

// acceptances are what a validator accepted, kept so that the same is
// accepted again without the work (requestMemo's request lines,
// responseKey's bodies). Only acceptances are kept: what was refused is
// validated in full every time, for its message. A client that sends
// endless distinct requests costs at most memoEntries of them; the set then
// starts afresh.
type acceptances[K comparable] struct {
	mu  sync.RWMutex
	set map[K]struct{}
}

func newAcceptances[K comparable]() *acceptances[K] {
	return &acceptances[K]{set: map[K]struct{}{}}
}

func (a *acceptances[K]) accepted(k K) bool {
	a.mu.RLock()
	_, ok := a.set[k]
	a.mu.RUnlock()
	return ok
}

func (a *acceptances[K]) accept(k K) {
	a.mu.Lock()
	if len(a.set) >= memoEntries {
		clear(a.set)
	}
	a.set[k] = struct{}{}
	a.mu.Unlock()
}

// size is how many are kept.
func (a *acceptances[K]) size() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.set)
}
