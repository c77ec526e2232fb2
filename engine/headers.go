package engine

// Configured headers: what a deployment sends on every answer (rate-limit
// headers, a request id) that the document does not declare, so that a
// mock recorded from it (petctl conform --profile-out) sends them too.

import (
	"maps"
	"net/http"
	"slices"

	"golang.org/x/net/http/httpguts"
)

// checkHeaders proves the configured headers can be sent, and gives each
// operation the headers it adds: its own entry, then the "*" entry. Each
// problem is an *OptionError at headers.<operationId>.<name>.
func (s *Server) checkHeaders(headers map[string]map[string]string) []error {
	var errs []error
	valid := map[string][][2]string{}
	for _, id := range slices.Sorted(maps.Keys(headers)) {
		key := "headers." + id
		if id != AllOperations && s.spec.Operation(id) == nil {
			errs = append(errs, sectionError(key, "no operation %q; the operations are %s", id, s.operationIDs()))
			continue
		}
		seen := map[string]string{}
		for _, name := range slices.Sorted(maps.Keys(headers[id])) {
			v, canon := headers[id][name], http.CanonicalHeaderKey(name)
			why := ""
			switch {
			case !httpguts.ValidHeaderFieldName(name):
				why = "not a header name (RFC 9110 §5.1: letters, digits and !#$%&'*+-.^_`|~)"
			case !httpguts.ValidHeaderFieldValue(v):
				why = "the value holds a control character (a line break, NUL); HTTP cannot carry it"
			case seen[canon] != "":
				why = "given twice (" + seen[canon] + ", " + name + "): header names are case-insensitive"
			case canon == "Content-Type":
				why = "the body decides its Content-Type; a configured one would mislabel it"
			default:
				why = refusedHeader(canon)
			}
			if why != "" {
				errs = append(errs, keyError(key+"."+name, "%s", why))
				continue
			}
			seen[canon] = name
			valid[id] = append(valid[id], [2]string{name, v})
		}
	}
	for op, o := range s.ops {
		o.extraHeaders = append(valid[op.ID], valid[AllOperations]...)
	}
	s.extraHeaders = valid[AllOperations]
	return errs
}

// addHeaders gives an answer the configured headers it does not carry
// already: the answer's own headers (Deprecation, WWW-Authenticate, a
// configured response's) are the document's and come first. An answer
// outside every operation (an unknown path) gets the "*" headers.
func (s *Server) addHeaders(c *call, res *response) {
	extra := s.extraHeaders
	if c.o != nil {
		extra = c.o.extraHeaders
	}
	for _, h := range extra {
		if res.header.Get(h[0]) == "" {
			res.set(h[0], h[1])
		}
	}
}
