package engine

import (
	"mime"
	"slices"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// successMediaTypes are the media types op's successes are sent as
// (sentMediaType of each 2xx response that declares content), for content
// negotiation; none where no success has a body to negotiate.
func successMediaTypes(op *spec.Operation) []string {
	var out []string
	for _, r := range op.Responses {
		if strings.HasPrefix(r.Code, "2") && len(r.MediaTypes) > 0 {
			if mt := sentMediaType(r); !slices.Contains(out, mt) {
				out = append(out, mt)
			}
		}
	}
	return out
}

// negotiate refuses a request whose Accept header rules out every media
// type the operation's successes are sent as (RFC 9110 §12.5.1: 406). It
// comes before the body is read: the answer depends on the header alone.
// An absent Accept takes anything, and so does one petctl cannot read a
// single media range of: a client that sends nonsense did not ask for
// nothing. The refusal itself is an error, sent in the document's error
// format whatever Accept says, as RFC 9110 allows.
func (s *Server) negotiate(c *call) *response {
	sent := c.o.accepted
	accept := c.r.Header.Values("Accept")
	if len(sent) == 0 || len(accept) == 0 {
		return nil
	}
	// What most clients send (curl's */*, a client's own media type) takes
	// a type without parsing: one range, weight 1.
	if len(accept) == 1 && (accept[0] == "*/*" || slices.Contains(sent, accept[0])) {
		return nil
	}
	ranges := parseAccept(accept)
	if len(ranges) == 0 || slices.ContainsFunc(sent, func(mt string) bool { return acceptQuality(ranges, mt) > 0 }) {
		return nil
	}
	return errorResponse(Errorf(CodeNotAcceptable, "Accept %q takes none of the media types %s answers with; send Accept: %s",
		truncate(strings.Join(accept, ", "), 200), c.o.op.ID, strings.Join(sent, ", ")))
}

// mediaRange is one member of an Accept header: type/subtype (either "*")
// and its weight.
type mediaRange struct {
	typ, sub string
	q        float64
}

// parseAccept reads the media ranges of Accept header values, leaving out
// each it cannot read (no type/subtype, a bad parameter, a weight outside
// 0 to 1).
func parseAccept(values []string) []mediaRange {
	var out []mediaRange
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			mt, params, err := mime.ParseMediaType(part)
			if err != nil {
				continue
			}
			typ, sub, ok := strings.Cut(mt, "/")
			if !ok || typ == "" || sub == "" || typ == "*" && sub != "*" {
				continue
			}
			q := 1.0
			if w, ok := params["q"]; ok {
				if q, err = strconv.ParseFloat(w, 64); err != nil || q < 0 || q > 1 {
					continue
				}
			}
			out = append(out, mediaRange{typ, sub, q})
		}
	}
	return out
}

// acceptQuality is the weight ranges give the media type mt: that of the
// most specific range it falls in (type/subtype before type/* before
// */*, RFC 9110 §12.5.1), -1 where it falls in none.
func acceptQuality(ranges []mediaRange, mt string) float64 {
	bare, _, _ := strings.Cut(mt, ";")
	typ, sub, _ := strings.Cut(strings.ToLower(strings.TrimSpace(bare)), "/")
	q, specific := -1.0, -1
	for _, r := range ranges {
		var level int
		switch {
		case r.typ == typ && r.sub == sub:
			level = 2
		case r.typ == typ && r.sub == "*":
			level = 1
		case r.typ == "*":
			level = 0
		default:
			continue
		}
		if level > specific || level == specific && r.q > q {
			q, specific = r.q, level
		}
	}
	return q
}
