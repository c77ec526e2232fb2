package spec

import (
	"net/http"
	"sync"
)

// requestMemo remembers the requests the validator accepted, for the
// operations whose verdict is a function of the request line alone, so an
// identical request is not validated twice.
//
// With the options NewValidator sets (security validation off, strict mode
// off, undeclared bodies and request defaults off),
// ValidateHttpRequestSyncWithPathItem reads from a request only its method,
// its path (path parameters), its query (query parameters), the headers and
// cookies the operation declares as parameters, and its body and
// Content-Type when the operation declares a body. For an operation that
// declares no header or cookie parameter and no body, the verdict is
// therefore the same for every request with the same method, path and
// query: the memo keys on exactly those, per operation. Only acceptances are
// kept; a refused request is validated in full every time, for its message.
// TestRequestMemoAgreesWithValidator holds the memo to the validator.
type requestMemo struct {
	mu       sync.RWMutex
	ok       map[requestKey]struct{}
	eligible map[*Operation]bool
}

type requestKey struct {
	op                           *Operation
	method, path, rawPath, query string
}

// Bounds: a client that sends endless distinct queries costs at most this
// much memory; the memo then starts afresh.
const (
	memoEntries  = 4096
	memoKeyBytes = 1024
)

func newRequestMemo(ops []*Operation) *requestMemo {
	m := &requestMemo{ok: map[requestKey]struct{}{}, eligible: map[*Operation]bool{}}
	for _, op := range ops {
		m.eligible[op] = memoizable(op)
	}
	return m
}

// memoizable reports whether the validator's verdict on a request for op
// depends on the request line alone.
func memoizable(op *Operation) bool {
	if op.Body != nil || (op.Op != nil && op.Op.RequestBody != nil) {
		return false
	}
	for _, p := range op.Params {
		if p.In != "path" && p.In != "query" {
			return false
		}
	}
	return true
}

// key returns the memo key for r, and false when r is not memoizable.
func (m *requestMemo) key(r *http.Request, op *Operation) (requestKey, bool) {
	if m == nil || !m.eligible[op] {
		return requestKey{}, false
	}
	k := requestKey{op: op, method: r.Method, path: r.URL.Path, rawPath: r.URL.RawPath, query: r.URL.RawQuery}
	if len(k.method)+len(k.path)+len(k.rawPath)+len(k.query) > memoKeyBytes {
		return requestKey{}, false
	}
	return k, true
}

func (m *requestMemo) accepted(k requestKey) bool {
	m.mu.RLock()
	_, ok := m.ok[k]
	m.mu.RUnlock()
	return ok
}

func (m *requestMemo) accept(k requestKey) {
	m.mu.Lock()
	if len(m.ok) >= memoEntries {
		clear(m.ok)
	}
	m.ok[k] = struct{}{}
	m.mu.Unlock()
}
