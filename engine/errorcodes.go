package engine

// Configured error codes: the description does not show its values of
// code, so a deployment may use its own ("invalid_request" where petctl
// says "validation_failed"); errorCodes makes the mock answer with them.

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

// maxCodeLength bounds a configured code: it is a machine-readable token.
const maxCodeLength = 100

// checkErrorCodes proves each renaming names a code petctl answers with
// and gives a code the document's error schema accepts. Each problem is an
// *OptionError at errorCodes.<code>.
func (s *Server) checkErrorCodes(codes map[string]string) []error {
	var errs []error
	known := Codes()
	s.codes = map[Code]Code{}
	for _, from := range slices.Sorted(maps.Keys(codes)) {
		to, key := codes[from], "errorCodes."+from
		status, ok := known[Code(from)]
		switch {
		case !ok:
			errs = append(errs, sectionError(key, "petctl has no error code %q; its codes are listed in docs/errors.md", from))
			continue
		case to == "" || len(to) > maxCodeLength || strings.ContainsFunc(to, func(r rune) bool { return r < 0x21 || r == 0x7f }):
			errs = append(errs, keyError(key, "%q: want a code of 1 to %d characters without spaces or control characters", to, maxCodeLength))
			continue
		}
		// Written as an answer outside every operation is (renderError);
		// the start-up proof writes it under every operation too.
		f := s.spec.ErrorFormat(nil, status)
		if ps := s.val.ErrorBody(f, f.Body(spec.ErrorFields{Status: status, Code: to, Message: "sample"})); len(ps) > 0 {
			errs = append(errs, keyError(key, "%q is not a code the document's error schema accepts: %s", to, describeProblems(ps)))
			continue
		}
		s.codes[Code(from)] = Code(to)
	}
	return errs
}

// renameCode rewrites an error answer's body with the configured code in
// place of petctl's: every top-level field whose value is petctl's code
// gets the configured one, so the body keeps whatever form it was built
// in; its status, message and headers stay.
func (s *Server) renameCode(res *response) {
	if res.err == nil || len(s.codes) == 0 {
		return
	}
	to, ok := s.codes[res.err.Code]
	if !ok {
		return
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(res.body, &fields) != nil {
		return
	}
	from, _ := json.Marshal(string(res.err.Code))
	renamed, _ := json.Marshal(string(to))
	for k, v := range fields {
		if bytes.Equal(v, from) {
			fields[k] = renamed
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as Error.Body writes it: "<API_KEY>" stays readable
	if enc.Encode(fields) != nil {
		return
	}
	res.body = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	res.err = &Error{Code: to, Message: res.err.Message, status: res.err.status, renamed: res.err.Code}
}
