package engine

import (
	"net/http"
	"strings"
	"sync"

	"github.com/petctl/petctl/spec"
)

// madeAnswer is the answer of an operation no resource serves (an
// action): made from the document once, on first use, since making it
// means compiling the response schema to check the example.
type madeAnswer struct {
	once        sync.Once
	status      int
	contentType string
	body        []byte
}

// action answers an operation from the document: its first 2xx response,
// with the response's example when the document gives a valid one, else
// the schema's example, else the minimal value the schema accepts.
func (s *Server) action(c *call, o *operation) *response {
	o.made.once.Do(func() { s.makeAnswer(c.r, o) })
	res := &response{status: o.made.status, body: o.made.body}
	if o.made.body != nil {
		res.set("Content-Type", o.made.contentType)
	}
	return res
}

func (s *Server) makeAnswer(r *http.Request, o *operation) {
	m := o.made
	var resp *spec.Response
	for _, x := range o.op.Responses {
		if x.Status >= 200 && x.Status < 300 {
			resp = x
			break
		}
	}
	if resp == nil {
		return
	}
	m.status = resp.Status
	if len(resp.MediaTypes) == 0 || resp.Status == http.StatusNoContent {
		return
	}
	m.contentType = answerMediaType(o.op, resp.Status)
	if !isJSONMediaType(m.contentType) {
		// Text, a file: the example when it is text, else nothing the
		// document describes.
		if str, ok := resp.Example.(string); ok {
			m.body = []byte(str)
		} else {
			m.body = []byte{}
		}
		return
	}
	hdr := http.Header{"Content-Type": {m.contentType}}
	if resp.HasExample {
		if body := encodeJSON(resp.Example); len(s.val.Response(r, o.op, resp.Status, hdr, body)) == 0 {
			m.body = body
			return
		}
	}
	if resp.Schema == nil {
		m.body = []byte("{}")
		return
	}
	m.body = encodeJSON(s.made(s.spec.SchemaView(resp.Schema)))
	if ps := s.val.Response(r, o.op, resp.Status, hdr, m.body); len(ps) > 0 {
		s.log.Warn("the answer made from the document's schema does not match it", "operation", o.op.String(), "violation", strings.TrimSpace(describeProblems(ps)))
	}
}
