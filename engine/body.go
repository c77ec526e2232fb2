package engine

import (
	"bytes"
	"mime"
	"net/http"
	"strings"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// decodeBody reads, bounds, decodes (Content-Encoding) and parses the
// request body, and puts the bytes back for the validator once it has read
// them whole. cut is set when it began to read and stopped before the end:
// the rest of the body may still be on its way.
func (s *Server) decodeBody(r *http.Request, op *spec.Operation) (doc any, cut bool, e *Error) {
	body, cut, e := readWhole(r, s.maxBody, "the request body")
	if e != nil {
		return nil, cut, e
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
	if op.Body.Form != nil && strings.EqualFold(mt, spec.FormMediaType) {
		form, err := s.spec.DecodeForm(op, body)
		if err != nil {
			return nil, false, Errorf(CodeMalformedForm, "request body: %v", err)
		}
		return form, false, nil
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

// readBody reads the request body of an operation that declares one.
func (s *Server) readBody(c *call) *response {
	if c.o.op.Body == nil {
		return nil
	}
	doc, cut, e := s.decodeBody(c.r, c.o.op)
	if e != nil {
		res := errorResponse(e)
		res.bodyCut = cut
		return res
	}
	c.doc = doc
	return nil
}
