package engine

// Declared response headers: the headers a document has its answers carry
// (X-Request-Id, X-Total-Count, a Location that is an absolute URI). A
// real server sends them; an answer without a header its response
// declares required fails the response check, a 500 after the write was
// made.

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/petctl/petctl/spec"
)

// fillRequiredHeaders gives res each header its declared response requires
// and nothing has set: the header's example, else its schema's value (its
// example, else the generator's). A header whose value cannot be made or
// written is left out, and the response check names it.
func (s *Server) fillRequiredHeaders(c *call, res *response) {
	if c.o == nil || !c.o.requiresHeaders {
		return
	}
	resp := declaredResponse(c.o.op, res.status)
	if resp == nil {
		return
	}
	for _, h := range resp.Headers {
		if !h.Required || res.header.Get(h.Name) != "" {
			continue
		}
		if v, ok := s.headerValue(h); ok {
			res.set(h.Name, v)
		}
	}
}

// requiresHeaders reports whether a response of op declares a required header.
func requiresHeaders(op *spec.Operation) bool {
	for _, r := range op.DeclaredResponses() {
		if len(r.RequiredHeaders()) > 0 {
			return true
		}
	}
	return false
}

// canFillHeader reports whether fillRequiredHeaders sends h.
func (s *Server) canFillHeader(h *spec.Header) bool {
	_, ok := s.headerValue(h)
	return ok
}

// headerValue is the value made for h, written in the simple style every
// header takes (OpenAPI's style table: an array's items and an object's
// names and values joined by commas). A header that is no document's to
// give, as a configured one is not (refusedHeader: the framing, the
// connection, CORS) or Set-Cookie, is never made up.
func (s *Server) headerValue(h *spec.Header) (string, bool) {
	switch canon := http.CanonicalHeaderKey(h.Name); {
	case refusedHeader(canon) != "", canon == "Content-Type", canon == "Set-Cookie":
		return "", false
	}
	var v any
	switch {
	case h.HasExample:
		v = h.Example
	case h.Schema != nil:
		v = s.made(h.Schema)
	default:
		return "", false
	}
	text, ok := simpleStyle(v)
	if !ok || text == "" || !httpguts.ValidHeaderFieldValue(text) {
		return "", false
	}
	return text, true
}

// simpleStyle writes v as a header's value: false for what the style
// cannot write (a null, nested arrays or objects).
func simpleStyle(v any) (string, bool) {
	switch t := v.(type) {
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			p, ok := scalarText(e)
			if !ok {
				return "", false
			}
			parts[i] = p
		}
		return strings.Join(parts, ","), true
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p, ok := scalarText(t[k])
			if !ok {
				return "", false
			}
			parts = append(parts, k, p)
		}
		return strings.Join(parts, ","), true
	}
	return scalarText(v)
}

func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case json.Number:
		return t.String(), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case uint64:
		return strconv.FormatUint(t, 10), true
	}
	return "", false
}

// location is the Location of the item at path: the path alone (RFC 9110
// §10.2.2 takes a relative reference), or the absolute URI where the
// operation declares the header's format uri (absoluteLocation), which a
// relative reference does not meet.
func location(c *call, o *operation, path string) string {
	if o.absoluteLocation {
		return origin(c.r) + path
	}
	return path
}

// absoluteLocation reports whether a 2xx response of op declares a
// Location of format uri.
func absoluteLocation(op *spec.Operation) bool {
	for _, r := range op.Responses {
		if h := r.Header("Location"); r.Status/100 == 2 && h != nil && h.Schema != nil && (h.Schema.Format == "uri" || h.Schema.Format == "url") {
			return true
		}
	}
	return false
}
