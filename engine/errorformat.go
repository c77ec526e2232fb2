package engine

import (
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/petctl/petctl/spec"
)

// renderError writes res's error in the document's format for op and the
// status (spec.Spec.ErrorFormat): the media type and fields op declares
// for that status, else its default response's, else the document's most
// common error format, else petctl's own {code, message, status}. A
// request that breaks op's contract gets the status op declares for it
// (Error.statusUnder). op is nil for an answer outside every operation (an
// unknown path, a 405). A response that is not an error, or is written
// already, is left as it is.
func (s *Server) renderError(r *http.Request, op *spec.Operation, res *response) {
	e := res.err
	if e == nil || res.format != nil {
		return
	}
	status := e.statusUnder(op)
	f := s.spec.ErrorFormat(op, status)
	if g, ok := s.rewrittenErrors[rewrittenError{f, status, e.Code}]; ok {
		res.unchecked = g == f // see proveErrorBodies
		f = g
	}
	res.status, res.format = status, f
	res.body = f.Body(spec.ErrorFields{Status: status, Code: string(e.Code), Message: e.Message, Instance: r.URL.EscapedPath(), Now: s.now()})
	res.set("Content-Type", f.MediaType)
}

// prepareErrors maps the fields of the document's error schemas as
// configured (errors.fields), then proves the errors can be written
// (proveErrorBodies) and that each mapped field is one of them.
func (s *Server) prepareErrors(fields map[string]string) error {
	var errs []error
	mapped := spec.FieldMap{} // the entries that can be used: the others are reported
	for _, meaning := range slices.Sorted(maps.Keys(fields)) {
		switch {
		case !slices.Contains(spec.ErrorMeanings, meaning):
			errs = append(errs, sectionError("errors.fields."+meaning, "%q is not a meaning petctl fills; the meanings are %s", meaning, strings.Join(spec.ErrorMeanings, ", ")))
		case fields[meaning] == "":
			errs = append(errs, keyError("errors.fields."+meaning, "want the path of a field (error.code)"))
		default:
			mapped[meaning] = fields[meaning]
		}
	}
	s.spec.SetErrorFields(mapped)
	filled, err := s.proveErrorBodies()
	errs = append(errs, err)
	for _, meaning := range slices.Sorted(maps.Keys(mapped)) {
		if !filled[meaning][mapped[meaning]] {
			errs = append(errs, keyError("errors.fields."+meaning, "no error schema petctl writes has a field %s; %s", mapped[meaning], describeSlots(filled[meaning])))
		}
	}
	return errors.Join(errs...)
}

// proveErrorBodies proves that every error petctl may answer can be
// written in the document's format and passes the check it meets before
// it leaves (checkResponse): for each operation, and for the answers
// outside any, each code at the status it has there, and a configured
// fault's status. Start-up stops only where no valid answer can be built:
// one line per problem, naming the first operation it concerns, how many
// more, and the statuses. It returns the fields the formats fill, by
// meaning. It runs once faults are assigned.
func (s *Server) proveErrorBodies() (filled map[string]map[string]bool, err error) {
	type proof struct {
		f      *spec.ErrorFormat
		status int
		code   Code
		// resp is the declared response when it requires headers, which
		// the check reads too; nil when the format and status decide.
		resp *spec.Response
	}
	// A schema petctl cannot fill fails the same way for many operations
	// and statuses: one line says it once.
	type failure struct {
		first    string
		ops      map[string]bool
		statuses []int
	}
	proved := map[proof]string{} // what is wrong, "" when nothing is
	// warned are the statuses whose errors are written otherwise, by
	// schema (declared or the document's most common, with or without an
	// example) and way, and what is wrong with the error's fields.
	type leastWarning struct {
		why      string
		statuses []int
	}
	type warnKey struct {
		schema *spec.Schema
		way    int // 0: fuller, 1: least, 2: unchecked
	}
	warned := map[warnKey]*leastWarning{}
	var warnOrder []warnKey
	var lines []string
	byLine := map[string]*failure{}
	filled = map[string]map[string]bool{}
	for _, op := range append([]*spec.Operation{nil}, s.spec.Operations...) {
		for _, e := range s.errorsOf(op) {
			status := e.statusUnder(op)
			f := s.spec.ErrorFormat(op, status)
			p := proof{f: f, status: status, code: e.Code}
			declared := op != nil && op.Declares(status)
			if declared {
				if resp := declaredResponse(op, status); len(resp.RequiredHeaders()) > 0 {
					p.resp = resp
				}
			}
			line, done := proved[p]
			if !done {
				code := e.Code
				if to, ok := s.codes[code]; ok {
					code = to // errorCodes: the code the answer will carry
				}
				line = s.proveErrorBody(op, code, status, f, declared)
				if line != "" && p.resp == nil {
					// Where the schema refuses the error's fields as they
					// are written, the first of these that passes is the
					// answer: the fields over a value with every optional
					// property (alternatives that overlap), the least
					// value (a schema that refuses them all).
					// Where neither passes and the schema is a oneOf,
					// its alternatives are alike (Vonage's 422: two
					// schemas that differ in their descriptions): no body
					// matches one alone, and the fields go unchecked.
					for way, g := range []*spec.ErrorFormat{f.Fuller(), f.Least(), f} {
						if g == nil || g == f && !alternativesAlike(f, line) || g != f && s.proveErrorBody(op, code, status, g, declared) != "" {
							continue
						}
						if s.rewrittenErrors == nil {
							s.rewrittenErrors = map[rewrittenError]*spec.ErrorFormat{}
						}
						s.rewrittenErrors[rewrittenError{f, status, e.Code}] = g
						key := warnKey{f.Schema, way}
						if warned[key] == nil {
							warned[key] = &leastWarning{why: line}
							warnOrder = append(warnOrder, key)
						}
						warned[key].statuses = append(warned[key].statuses, status)
						line = ""
						break
					}
				}
				proved[p] = line
				for meaning, path := range f.Slots() {
					if filled[meaning] == nil {
						filled[meaning] = map[string]bool{}
					}
					filled[meaning][path] = true
				}
			}
			if line == "" {
				continue
			}
			where := "answers outside every operation (an unknown path, 405)"
			if op != nil {
				where = op.String()
			}
			fl := byLine[line]
			if fl == nil {
				fl = &failure{first: where, ops: map[string]bool{}}
				byLine[line] = fl
				lines = append(lines, line)
			}
			fl.ops[where] = true
			if !slices.Contains(fl.statuses, status) {
				fl.statuses = append(fl.statuses, status)
			}
		}
	}
	// Schemas of one shape (a oneOf written inline in each operation)
	// fail alike: one warning says it for all.
	said := map[string]*leastWarning{}
	for _, key := range warnOrder {
		w := warned[key]
		id := fmt.Sprint(key.way, w.why)
		if first := said[id]; first != nil {
			first.statuses = append(first.statuses, w.statuses...)
			w.statuses = nil
			continue
		}
		said[id] = w
	}
	for _, key := range warnOrder {
		w := warned[key]
		if w.statuses == nil {
			continue
		}
		statuses := slices.Compact(slices.Sorted(slices.Values(w.statuses)))
		msg := []string{
			"error answers carry every field their schema declares, made up where petctl has nothing to put",
			"error answers written as the least value their schema takes, without petctl's message (the request log has it)",
			"error answers sent unchecked: their schema's alternatives (oneOf) are alike, so no body matches one of them alone",
		}[key.way]
		s.log.Warn(msg, "statuses", strings.ReplaceAll(strings.Trim(fmt.Sprint(statuses), "[]"), " ", ", "),
			"why", "their fields alone "+strings.TrimPrefix(w.why, "cannot be written as the document declares them "))
	}
	var errs []error
	for _, line := range lines {
		fl := byLine[line]
		who := fl.first
		switch more := len(fl.ops) - 1; {
		case more == 1:
			who += " and 1 more operation"
		case more > 1:
			who += fmt.Sprintf(" and %d more operations", more)
		}
		slices.Sort(fl.statuses)
		statuses := strings.ReplaceAll(strings.Trim(fmt.Sprint(fl.statuses), "[]"), " ", ", ")
		errs = append(errs, wholeError("spec", fmt.Errorf("spec %s: %s: answers with status %s %s", s.spec.Source, who, statuses, line)))
	}
	return filled, errors.Join(errs...)
}

// alternativesAlike reports whether the proof of f failed, line, because
// a body matched more than one of its schema's oneOf alternatives: the
// validator's word for it (santhosh-tekuri/jsonschema's kind.OneOf) is
// "'oneOf' failed, subschemas 0, 1 matched"; none matched is another.
func alternativesAlike(f *spec.ErrorFormat, line string) bool {
	return f.Schema != nil && len(f.Schema.OneOf) > 1 && strings.Contains(line, "'oneOf' failed, subschemas ")
}

// rewrittenError is an error, by format, status and code, whose answer is
// written otherwise than its format writes it (ErrorFormat.Fuller or
// ErrorFormat.Least).
type rewrittenError struct {
	f      *spec.ErrorFormat
	status int
	code   Code
}

// proveErrorBody writes one error of op in format f and checks it as
// checkResponse will: the body against the format's schema, and, for a
// status op declares, the headers it requires. It returns what is wrong,
// "" when nothing is.
//
// The body is checked as a document against the schema, not through
// libopenapi-validator's response check, which compiles every schema with
// the whole document rendered beside it: half a second and more per
// schema for a document of half a megabyte, paid by the first request
// that needs it rather than by every start-up. The document check is the
// stricter of the two (a response's check drops the required writeOnly
// fields), so a body it accepts passes the check before it leaves.
func (s *Server) proveErrorBody(op *spec.Operation, code Code, status int, f *spec.ErrorFormat, declared bool) string {
	r := s.sampleRequest(op)
	// As long as the longer messages petctl sends, so that a length limit
	// of the document's schema is met as it will be.
	message := "start-up proof: " + strings.Repeat("a message as long as the longest petctl writes ", 16)
	body := f.Body(spec.ErrorFields{Status: status, Code: string(code), Message: message, Instance: r.URL.EscapedPath(), Now: s.now()})
	ps := s.val.ErrorBody(f, body)
	if mt, _, _ := mime.ParseMediaType(f.MediaType); declared && f.Declared && !isJSONMediaType(mt) && !strings.HasPrefix(mt, "text/") {
		// Only the response check decodes another type (XML) as it will.
		ps = s.val.Response(r, op, status, http.Header{"Content-Type": {f.MediaType}}, body)
	}
	if len(ps) > 0 {
		if err := s.val.CompileErrorFormat(f); err != nil {
			// The check cannot run at all: said once, not once per status.
			return fmt.Sprintf("cannot be checked: libopenapi-validator cannot compile the schema the document declares for them (%s%s): %v", f.MediaType, schemaName(f), err)
		}
		return fmt.Sprintf("cannot be written as the document declares them (%s%s): %s", f.MediaType, schemaName(f), describeProblems(ps))
	}
	if !declared {
		return ""
	}
	var missing []string
	for _, h := range declaredResponse(op, status).RequiredHeaders() {
		if !sentHeader(status, h.Name) && !s.canFillHeader(h) {
			missing = append(missing, h.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("cannot be written as the document declares them: it requires the header %s, which petctl does not send", strings.Join(missing, ", "))
	}
	return ""
}

// sentHeader reports whether every error of status carries header: the
// challenge of a 401 and the methods of a 405, which RFC 9110 (§15.5.2,
// §15.5.6) has every such answer carry, and so does petctl.
func sentHeader(status int, header string) bool {
	switch http.CanonicalHeaderKey(header) {
	case "Www-Authenticate":
		return status == http.StatusUnauthorized
	case "Allow":
		return status == http.StatusMethodNotAllowed
	}
	return false
}

// errorsOf lists the errors op may be answered with, one per code, for
// the proof: every code (a code an operation of op's kind never meets
// costs a check, never a refusal a valid document could meet), and the
// status of a fault configured for op in place of fault_injected's own.
func (s *Server) errorsOf(op *spec.Operation) []*Error {
	var out []*Error
	for code := range codeStatus {
		if code != CodeFaultInjected {
			out = append(out, &Error{Code: code})
		}
	}
	if op != nil {
		if f := s.ops[op].fault; f != nil && f.Status >= 400 && f.Status <= 599 {
			out = append(out, &Error{Code: CodeFaultInjected, status: f.Status})
		} else if f != nil && f.Status == 0 {
			out = append(out, &Error{Code: CodeFaultInjected})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// declaredResponse is the response op declares for status, exactly, by
// range or as its default; nil when it declares none.
func declaredResponse(op *spec.Operation, status int) *spec.Response {
	if r := op.Response(status); r != nil {
		return r
	}
	return op.Default
}

// sampleRequest is a request of op, its path parameters filled, for the
// proof; for answers outside every operation, one to an unknown path.
func (s *Server) sampleRequest(op *spec.Operation) *http.Request {
	method, path := http.MethodGet, s.spec.BasePath+"/unknown"
	if op != nil {
		method, path = op.Method, s.spec.BasePath+op.Path
		for _, p := range op.Params {
			if p.In == "path" {
				path = strings.ReplaceAll(path, "{"+p.Name+"}", "1")
			}
		}
	}
	r, err := http.NewRequest(method, path, nil)
	if err != nil { // a template with characters a URL cannot hold
		r, _ = http.NewRequest(method, "/", nil)
	}
	return r
}

// schemaName names a format's schema for a message: ", schema Problem".
func schemaName(f *spec.ErrorFormat) string {
	if f.Schema == nil || f.Schema.Name == "" {
		return ""
	}
	return ", schema " + f.Schema.Name
}

// describeSlots lists the paths petctl fills for a meaning, for a message.
func describeSlots(paths map[string]bool) string {
	if len(paths) == 0 {
		return "no error schema has a field of that meaning petctl could find"
	}
	names := slices.Sorted(maps.Keys(paths))
	for i, p := range names {
		if p == "" {
			names[i] = "a whole text body"
		}
	}
	return "it fills " + strings.Join(names, ", ")
}
