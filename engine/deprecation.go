package engine

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/petctl/petctl/spec"
)

// deprecationHeaders are RFC 9745 Deprecation, RFC 8594 Sunset and a Link to
// the replacement, all taken from the document.
func (s *Server) deprecationHeaders(op *spec.Operation) [][2]string {
	if !op.Deprecated {
		return nil
	}
	at := op.DeprecatedAt
	if at.IsZero() {
		// The document does not say since when; the operation is deprecated
		// now at the latest.
		at = s.now().UTC().Truncate(24 * time.Hour)
		s.log.Warn("deprecated operation without x-deprecated-at", "operation", op.String(), "deprecation", at.Format(time.DateOnly))
	}
	h := [][2]string{{"Deprecation", "@" + strconv.FormatInt(at.Unix(), 10)}}
	if !op.Sunset.IsZero() {
		h = append(h, [2]string{"Sunset", op.Sunset.UTC().Format(http.TimeFormat)})
	}
	if r := op.Replacement; r != nil {
		if rep := s.spec.Operation(r.OperationID); rep != nil {
			link := fmt.Sprintf("<%s%s>; rel=\"successor-version\"", s.spec.BasePath, rep.Path)
			if r.Description != "" {
				link += fmt.Sprintf("; title=%q", r.Description)
			}
			h = append(h, [2]string{"Link", link})
		}
	}
	return h
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

// removal answers 410 for an operation past its removal date (x-sunset).
func (s *Server) removal(c *call) *response {
	if sunset := c.o.op.Sunset; !sunset.IsZero() && !s.now().Before(sunset) {
		return errorResponse(Errorf(CodeGone, "%s was removed on %s%s", c.o.op, sunset.UTC().Format("2 January 2006"), s.replacementHint(c.o.op)))
	}
	return nil
}
