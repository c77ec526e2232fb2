package engine

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/petctl/petctl/spec"
)

// response is what a request gets, built before anything is written so it
// can be validated first.
type response struct {
	status int
	header http.Header
	body   []byte
	op     *spec.Operation
	// items, when not nil, is the body instead: a JSON array of these
	// encoded records (a list answer), written as it is composed (see
	// writeArray). checkResponse joins them into body when the answer must
	// be validated, so only a proven answer leaves as items.
	items [][]byte
	// before and after, with items, are the JSON of the envelope around
	// the array (nil for a bare array).
	before, after []byte
	// itemsProven marks items that are stored records under an operation
	// whose envelope start-up proved cannot see them (proveEnvelopeItems):
	// checkResponse validates the envelope with an empty array instead.
	itemsProven bool
	// proven marks a body built from stored records under an operation
	// whose composition start-up proved valid.
	proven bool
	// err is the error an error answer was built from, nil for others.
	err *Error
	// for the log
	problem string
	auth    authFailure
	// notes say what configuration changed (clamped limit, injected fault).
	notes []string
	// check is what response validation concluded, for the request log;
	// badResponse is set when it found a violation.
	check       string
	badResponse bool
	// bodyCut is set when the request body was read in part: the client
	// was sending it, and the rest may be on its way.
	bodyCut bool
	// unchecked marks an error whose schema no body can pass: a oneOf of
	// alternatives alike (see proveErrorBodies), said at start-up.
	unchecked bool
	// format is the document's format err was written in (see
	// renderError); nil until then, and for other answers.
	format *spec.ErrorFormat
}

// errorResponse answers with e: petctl's own body until finish writes it
// in the document's format for the operation and status (renderError).
func errorResponse(e *Error) *response {
	res := &response{status: e.Status(), body: e.Body(), problem: e.Message, err: e}
	if e.Code == CodeUnsupportedContentEncoding {
		res.set("Accept-Encoding", acceptEncoding)
	}
	return res
}

func jsonResponse(status int, body []byte) *response {
	return &response{status: status, body: body}
}

// hasBody reports whether the response has content.
func (res *response) hasBody() bool { return res.body != nil || res.items != nil }

// size is the length of the content in bytes.
func (res *response) size() int {
	if res.items != nil {
		return len(res.before) + arrayLen(res.items) + len(res.after)
	}
	return len(res.body)
}

// writeBody writes the content.
func (res *response) writeBody(w io.Writer) {
	if res.items != nil {
		_ = writeArray(w, res.before, res.items, res.after)
		return
	}
	if res.body != nil {
		_, _ = w.Write(res.body)
	}
}

func (res *response) set(k, v string) {
	if res.header == nil {
		res.header = http.Header{}
	}
	res.header.Set(k, v)
}

// checkResponse validates res against the document before it leaves. A
// response that fails is petctl's bug: the client gets a 500 that says so
// and the log names the violation.
func (s *Server) checkResponse(r *http.Request, res *response) {
	var ps spec.Problems
	if res.proven {
		res.check = "valid by construction"
		return
	}
	if res.unchecked {
		res.check = "not checked: the document's schema for it has alternatives alike, which no body can tell apart"
		return
	}
	envelopeOnly := res.items != nil && res.itemsProven && res.op != nil && res.op.Declares(res.status)
	if res.items != nil && !envelopeOnly {
		// Only what start-up proved may leave as it is composed; anything
		// else is built whole and validated like every other answer.
		res.body, res.items = joinEnvelope(res.before, res.items, res.after), nil
		res.before, res.after = nil, nil
	}
	switch {
	case envelopeOnly:
		// The items are valid by construction; the envelope is held to the
		// document with an empty array in their place, which by
		// proveEnvelopeItems gets the whole answer's verdict.
		ps = s.val.Response(r, res.op, res.status, res.header, joinEnvelope(res.before, nil, res.after))
		if len(ps) == 0 {
			res.check = "valid (envelope checked, items by construction)"
			return
		}
	case res.op != nil && res.op.Declares(res.status):
		ps = s.val.Response(r, res.op, res.status, res.header, res.body)
	case res.format != nil:
		// An error outside the operation's contract (no route, a 405, a
		// status it does not declare) is held to the format it was written in.
		ps = s.val.ErrorBody(res.format, res.body)
	case res.status >= 400:
		// A configured answer the operation does not declare is the Error body.
		ps = s.val.DocumentError(res.body)
	case res.status == http.StatusNoContent && res.body == nil:
		// OPTIONS and CORS preflight answers have no body to validate.
	default:
		ps = spec.Problems{{Where: "status", Reason: fmt.Sprintf("%d is not declared", res.status)}}
	}
	if len(ps) == 0 {
		res.check = "valid"
		return
	}
	violation := describeProblems(ps)
	s.log.Error("response failed validation", "method", r.Method, "path", r.URL.Path, "status", res.status, "violation", violation)
	keep, op := res.header, res.op
	*res = *errorResponse(Errorf(CodeResponseInvalid, "petctl produced a %d response that does not match the document (%s); this is a petctl bug", res.status, violation))
	for _, k := range []string{"Deprecation", "Sunset", "Link"} {
		if v := keep.Get(k); v != "" {
			res.set(k, v)
		}
	}
	s.renderError(r, op, res) // start-up proved the 500 fits (proveErrorBodies)
	res.check = violation
	res.badResponse = true
}

// joinArray writes a JSON array of already-encoded items.
func joinArray(items [][]byte) []byte { return joinEnvelope(nil, items, nil) }

// joinEnvelope writes the JSON array of already-encoded items between the
// envelope's before and after.
func joinEnvelope(before []byte, items [][]byte, after []byte) []byte {
	n := 2 + len(before) + len(after)
	for _, it := range items {
		n += len(it) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, before...)
	buf = append(buf, '[')
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, it...)
	}
	buf = append(buf, ']')
	return append(buf, after...)
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

// writeArray writes before, the JSON array of already-encoded items (as
// joinArray would build it) and after, without building them: records of
// up to arrayChunk bytes are gathered into a pooled buffer with the
// envelope's parts around them, larger ones are written from where they
// lie. A page of up to arrayChunk bytes, its envelope too, is one write,
// which the connection sends as one (coalescingConn).
func writeArray(w io.Writer, before []byte, items [][]byte, after []byte) error {
	bp := arrayBufs.Get().(*[]byte)
	defer arrayBufs.Put(bp)
	g := gather{w: w, buf: (*bp)[:0]}
	g.add(before)
	g.punct('[')
	for i, it := range items {
		if i > 0 {
			g.punct(',')
		}
		g.add(it)
	}
	g.punct(']')
	g.add(after)
	g.writeHeld()
	*bp = g.buf
	return g.err
}

// gather is writeArray's buffer: it writes what it holds when the next
// part would take it past arrayChunk, and a part of more than half of
// that from where it lies. After an error it writes nothing more.
type gather struct {
	w   io.Writer
	buf []byte
	err error
}

func (g *gather) punct(b byte) {
	if len(g.buf) == arrayChunk {
		g.writeHeld()
	}
	g.buf = append(g.buf, b)
}

func (g *gather) add(p []byte) {
	if len(g.buf)+len(p) <= arrayChunk {
		g.buf = append(g.buf, p...)
		return
	}
	g.writeHeld()
	if len(p) <= arrayChunk/2 {
		g.buf = append(g.buf, p...)
	} else if g.err == nil {
		_, g.err = g.w.Write(p)
	}
}

// writeHeld writes the buffer and empties it.
func (g *gather) writeHeld() {
	if g.err == nil && len(g.buf) > 0 {
		_, g.err = g.w.Write(g.buf)
	}
	g.buf = g.buf[:0]
}

// finish completes an answer and writes it: an error in the document's
// format, a Content-Type, the check against the document, CORS headers,
// the configured latency; then the log line, and the rest of a request
// body the answer did not read.
func (s *Server) finish(w http.ResponseWriter, c *call, res *response) {
	s.renderError(c.r, res.op, res)
	if res.hasBody() && res.header.Get("Content-Type") == "" {
		res.set("Content-Type", spec.JSON)
	}
	s.checkResponse(c.r, res)
	s.cors.decorate(c.r, res)
	if res.op != nil {
		if d, waited := s.wait(c.r.Context(), s.ops[res.op]); waited == d && d > 0 {
			res.notes = append(res.notes, "latency "+d.Round(time.Millisecond).String()+" injected")
		} else if d > 0 {
			res.notes = append(res.notes, "latency "+d.Round(time.Millisecond).String()+" injected, cut short after "+waited.Round(time.Millisecond).String())
		}
	}
	h := w.Header()
	for k, v := range res.header {
		h[k] = v
	}
	if res.hasBody() {
		h.Set("Content-Length", strconv.Itoa(res.size()))
	}
	_, whole := c.r.Body.(wholeBody)
	left := unreadBody(c.arrived, whole, res.bodyCut)
	var rc *http.ResponseController
	if left != leftNothing {
		h.Set("Connection", "close")
		rc = http.NewResponseController(w)
		if left == leftLinger {
			_ = rc.EnableFullDuplex() // the body is read after the answer
		}
	}
	w.WriteHeader(res.status)
	if c.arrived.Method != http.MethodHead {
		res.writeBody(w)
	}
	s.logRequest(c.arrived, res, time.Since(c.start))
	switch left {
	case leftWaiting:
		closeNow(rc)
	case leftLinger:
		s.linger(c.arrived.Context(), rc, c.body)
	}
}
