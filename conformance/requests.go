package conformance

// Requests the document accepts, made from its schemas by spec.Values (the
// generator serve uses too) and checked with the validator serve uses
// before they are sent; the invalid bodies, each breaking one constraint;
// and the values no deployment can hold.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/petctl/petctl/spec"
)

// Values the suite sends where it needs one the deployment cannot hold or accept.
const (
	unknownEnum   = "petctl-conform-unknown"
	unknownIntID  = "9007199254740991" // 2^53-1: a valid int64 no deployment is likely to have reached
	unknownUUID   = "ffffffff-ffff-4fff-bfff-ffffffffffff"
	unknownString = "petctl-conform-unknown-id"
)

// DefaultRecordNamePrefix starts the text of every free-text value the run
// invents (Config.RecordNamePrefix).
const DefaultRecordNamePrefix = "petctl conform"

// recordText is the text the run gives the free-text fields of its record
// seq: the prefix, the run id and seq, in letters and spaces only
// ("petctl conform DfJcCaHB F"), so that a deployment stricter than its
// document (no digits, no dashes in a name) still takes it, and the record
// says which run made it.
func (s *suite) recordText(seq int64) string {
	return s.runText() + " " + inLetters(strconv.FormatInt(seq, 10))
}

// runText is what every record's text starts with: the prefix and the run id.
func (s *suite) runText() string {
	return s.cfg.RecordNamePrefix + " " + inLetters(s.cfg.RunID)
}

// isRecordText reports whether v, a value of a field of schema ps, is
// the whole text of one of the run's records: not one the field's
// maxLength may have cut, which records may share.
func (s *suite) isRecordText(v string, ps *spec.Schema) bool {
	run := s.runText() + " "
	uncut := ps == nil || ps.MaxLength == nil || int64(len(v)) < *ps.MaxLength
	return uncut && len(v) > len(run) && strings.HasPrefix(v, run)
}

// inLetters writes a run id or a number in letters: a digit d as the
// capital letter d places after A (0 is A, 9 is J), a letter in lower
// case; '-' and '_' are left out.
func inLetters(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune('A' + r - '0')
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// values is the generator of the values of record seq, seeded by the run
// id and what they are for: a run with the same run id sends the same
// values, whichever checks run, and another run others. Seeded by the
// purpose alone, every run sent the same values, so a value the
// deployment keeps unique (a plan's code matching ^[a-z][0-9]{2}$, which
// no check deletes) was refused 409 on every run after the first, and the
// checks that needed the record skipped. optional is the share of
// optional properties given a value.
func (s *suite) values(seq int64, optional float64, purpose string) *spec.Values {
	h := fnv.New64a()
	h.Write([]byte(s.cfg.RunID))
	h.Write([]byte{0})
	h.Write([]byte(purpose))
	text := s.recordText(seq)
	return &spec.Values{
		Rand:      rand.New(rand.NewPCG(h.Sum64(), uint64(seq))),
		Seq:       seq,
		Direction: spec.InRequest,
		Optional:  optional,
		Text:      func(string, int64) string { return text },
	}
}

// nextSeq numbers the next record the run may create.
func (s *suite) nextSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return int64(s.seq)
}

// bodyMediaType is the JSON media type op's body is sent as ("" when it
// declares none: the run sends JSON bodies only).
func (s *suite) bodyMediaType(op *spec.Operation) string {
	if op.Body == nil {
		return ""
	}
	if ro := s.resourceOp(op); ro != nil && spec.IsJSON(ro.Request.MediaType) {
		return ro.Request.MediaType
	}
	for _, mt := range op.Body.MediaTypes {
		if spec.IsJSON(mt) {
			return mt
		}
	}
	return ""
}

// validRequest is a request to op the document accepts: the path
// parameters from their schemas (an item's id one no item has), the
// required query and header parameters, and a body with every field the
// client sends (optional ones too), named after the run. The credentials
// are those of mode. A request the run could not make valid says why in
// unmade.
func (s *suite) validRequest(op *spec.Operation, mode authMode) *request {
	return s.requestWith(op, mode, 1)
}

// requestWith is validRequest with the share of optional body properties
// given a value.
func (s *suite) requestWith(op *spec.Operation, mode authMode, optional float64) *request {
	r := &request{op: op, auth: mode, alt: s.access[op].alt, path: map[string]string{}, query: url.Values{}}
	if r.alt == nil && len(op.Requirements) > 0 {
		r.alt = op.Requirements[0] // the refusals need a form, not a credential
	}
	res, _ := s.resourceOf(op)
	params := s.values(0, 0, "params "+op.ID)
	for _, p := range op.Params {
		if p.In == "path" && !strings.Contains(op.Path, "{"+p.Name+"}") {
			// No request can carry it: the operation cannot be called
			// as the document describes it.
			r.broken = fmt.Sprintf("the document declares path parameter %q, which %s does not hold", p.Name, op.Path)
		}
		ps := s.spec.ParamSchema(op, p)
		switch {
		case p.In == "path" && res != nil && p.Name == res.IDParam && strings.HasSuffix(op.Path, "{"+p.Name+"}"):
			r.path[p.Name] = unknownID(res, ps)
		case p.In == "path":
			r.path[p.Name] = scalarString(params.Value(ps, p.Name))
		case !p.Required:
		case p.In == "query":
			if arr, ok := params.Value(ps, p.Name).([]any); ok {
				for _, v := range arr {
					r.query.Add(p.Name, scalarString(v))
				}
			} else {
				r.query.Set(p.Name, scalarString(params.Value(ps, p.Name)))
			}
		case p.In == "header" && !s.givesHeader(p.Name):
			r.header = append(r.header, [2]string{p.Name, scalarString(params.Value(ps, p.Name))})
		}
	}
	if op.Body == nil {
		return r
	}
	mt := s.bodyMediaType(op)
	if mt == "" {
		if op.Body.Required {
			r.unmade = fmt.Sprintf("its body is %s; conform sends JSON bodies only", strings.Join(op.Body.MediaTypes, " or "))
		}
		return r
	}
	schema := s.spec.BodySchema(op)
	seq := s.nextSeq()
	r.recordName = s.recordText(seq)
	r.contentType = mt
	// The generator's values satisfy the schema; the validator has the
	// last word, and another draw is made when it refuses one.
	var problems spec.Problems
	for try := 0; try < 4; try++ {
		purpose := "body " + op.ID
		if try > 0 {
			purpose += " " + strconv.Itoa(try)
		}
		r.body = marshal(s.values(seq, optional, purpose).Value(schema, ""))
		if problems = s.problems(r); len(problems) == 0 {
			return r
		}
	}
	r.unmade = fmt.Sprintf("conform could not make a body the document's schema accepts: %s", problems)
	return r
}

// givesHeader reports whether a header of that name goes with every
// request (--header).
func (s *suite) givesHeader(name string) bool {
	return slices.Contains(s.client.extras, place{"header", http.CanonicalHeaderKey(name)})
}

// problems validates r as petctl serve does: with the document's
// validator, at the document's base path.
func (s *suite) problems(r *request) spec.Problems {
	p := r.op.Path
	for name, v := range r.path {
		p = strings.ReplaceAll(p, "{"+name+"}", url.PathEscape(v))
	}
	u := &url.URL{RawQuery: r.query.Encode()}
	setPath(u, s.spec.BasePath+p)
	req, err := http.NewRequest(r.op.Method, u.String(), bytes.NewReader(r.body))
	if err != nil {
		return spec.Problems{{Reason: err.Error()}}
	}
	for _, h := range r.header {
		req.Header.Set(h[0], h[1])
	}
	if r.body != nil {
		req.Header.Set("Content-Type", r.contentType)
	}
	return s.val.Request(req, r.op)
}

// pathProblem says why the path of req, whose ids the deployment gave,
// is not one the document accepts; "" when it is.
func (s *suite) pathProblem(req *request) string {
	for _, p := range s.problems(req) {
		if strings.HasPrefix(p.Where, "path parameter") {
			return p.String()
		}
	}
	return ""
}

// unknownIDFor is an id no item has for op's path parameter param: of its
// resource's ids where op has one, else of the parameter's schema.
func (s *suite) unknownIDFor(op *spec.Operation, param string) string {
	ps := s.spec.ParamSchema(op, op.Param("path", param))
	if r, _ := s.resourceOf(op); r != nil {
		return unknownID(r, ps)
	}
	return unknownID(&spec.Resource{}, ps)
}

// unknownID is an id no item of r has, of the type the path parameter
// (param, when it declares a schema) or else the item's id field has.
func unknownID(r *spec.Resource, param *spec.Schema) string {
	typ, format, schema := r.ID.Type, r.ID.Format, r.ID.Schema
	if param != nil && param.Type() != "" {
		typ, format, schema = param.Type(), param.Format, param
	}
	switch {
	case typ == "integer" || typ == "number":
		return unknownIntID
	case strings.EqualFold(format, "uuid"):
		return unknownUUID
	case schema != nil && (schema.Pattern != "" || schema.Format != "" || len(schema.Enum) > 0 || schema.MinLength != nil || schema.MaxLength != nil):
		// A value the schema admits (adyen's deviceId is 30 characters),
		// drawn far from any a store numbers.
		return scalarString((&spec.Values{Seq: 987654321}).Value(schema, ""))
	}
	return unknownString
}

// mutation is one constraint of a create body broken: the body, decoded,
// changed in one place, or its bytes.
// formatProbe starts the text a body carries where it breaks only a
// string's format (mutation.format): a deployment may keep it, and answer
// it back in any later response, where it is no departure of its own.
const formatProbe = "petctl conform not a "

type mutation struct {
	text  string
	apply func(obj map[string]any)
	raw   func([]byte) []byte
	// format is set where the change breaks only a string's format: an
	// annotation, which neither OpenAPI 3.0 nor JSON Schema 2020-12 (3.1)
	// has a server assert, so a deployment may take the value.
	format bool
}

// mutations are the ways to break op's body one constraint at a time, at
// the object the body carries the item in; only those the validator
// refuses are kept (a format it does not assert is no constraint).
func (s *suite) mutations(op *spec.Operation, ro *spec.ResourceOp) []mutation {
	schema := s.spec.BodySchema(op)
	if ro.Request.Kind == "wrapped" {
		schema = schema.Prop(ro.Request.Field)
	}
	if schema.Type() != "object" {
		return nil
	}
	var out []mutation
	props, required := schema.Props()
	set := func(name string, v any) func(map[string]any) {
		return func(obj map[string]any) { obj[name] = v }
	}
	for _, p := range props {
		if p.Schema != nil && required[p.Name] && !p.Schema.ReadOnly {
			out = append(out, mutation{text: "without " + p.Name, apply: func(obj map[string]any) { delete(obj, p.Name) }})
		}
	}
	for _, p := range props {
		ps := p.Schema
		if ps == nil || ps.ReadOnly {
			continue
		}
		if v, name := wrongType(ps); v != nil {
			out = append(out, mutation{text: fmt.Sprintf("%s of the wrong type (%s)", p.Name, name), apply: set(p.Name, v)})
		}
		switch {
		case len(ps.Enum) > 0 && ps.Type() == "string":
			out = append(out, mutation{text: fmt.Sprintf("an unknown %s (%s)", p.Name, unknownEnum), apply: set(p.Name, unknownEnum)})
		case ps.Type() == "string":
			if ps.MaxLength != nil && *ps.MaxLength < 10000 {
				out = append(out, mutation{text: fmt.Sprintf("%s longer than %d characters", p.Name, *ps.MaxLength), apply: set(p.Name, strings.Repeat("x", int(*ps.MaxLength)+1))})
			}
			if ps.MinLength != nil && *ps.MinLength > 0 {
				out = append(out, mutation{text: fmt.Sprintf("%s shorter than %d characters", p.Name, *ps.MinLength), apply: set(p.Name, strings.Repeat("x", int(*ps.MinLength)-1))})
			}
			if ps.Format != "" && ps.Pattern == "" {
				out = append(out, mutation{text: fmt.Sprintf("%s not a %s", p.Name, ps.Format), apply: set(p.Name, formatProbe+ps.Format), format: true})
			}
			if ps.Pattern != "" {
				out = append(out, mutation{text: fmt.Sprintf("%s not matching its pattern", p.Name), apply: set(p.Name, "!")})
			}
		case ps.Type() == "integer" || ps.Type() == "number":
			if ps.Minimum != nil && !math.IsInf(*ps.Minimum, 0) {
				out = append(out, mutation{text: fmt.Sprintf("%s below its minimum %s", p.Name, num(*ps.Minimum)), apply: set(p.Name, json.Number(num(math.Floor(*ps.Minimum)-1)))})
			}
			if ps.Maximum != nil && !math.IsInf(*ps.Maximum, 0) {
				out = append(out, mutation{text: fmt.Sprintf("%s above its maximum %s", p.Name, num(*ps.Maximum)), apply: set(p.Name, json.Number(num(math.Ceil(*ps.Maximum)+1)))})
			}
		}
	}
	if schema.NoAdditional {
		out = append(out, mutation{text: "with a property the schema does not allow", apply: set("petctlConformExtra", "x")})
	}
	out = append(out, mutation{text: "malformed JSON", raw: func(b []byte) []byte { return b[:len(b)-1] }})

	// Kept: what the validator refuses in a body it accepts otherwise.
	base := s.validRequest(op, authKey)
	if base.unmade != "" {
		return nil
	}
	kinds := schema.HasKinds()
	kept := out[:0]
	for _, m := range out {
		r := *base
		r.body = s.mutate(base.body, ro, m)
		// A choice of kinds breaks by a kind's own field only in a body of
		// that kind: other draws may be.
		if m.raw != nil || len(s.problems(&r)) > 0 || kinds && s.brokenRequest(op, ro, m) != nil {
			kept = append(kept, m)
		}
	}
	return kept
}

// mutate applies m to a body.
func (s *suite) mutate(body []byte, ro *spec.ResourceOp, m mutation) []byte {
	if m.raw != nil {
		return m.raw(body)
	}
	v := decodeJSON(body)
	obj, _ := v.(map[string]any)
	if ro.Request.Kind == "wrapped" {
		obj, _ = obj[ro.Request.Field].(map[string]any)
	}
	if obj == nil {
		return body
	}
	m.apply(obj)
	return marshal(v)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// wrongType is a JSON value of another type than the schema's, and its
// type's name for check names.
func wrongType(s *spec.Schema) (any, string) {
	switch s.Type() {
	case "string":
		return json.Number("42"), "a number"
	case "integer", "number", "boolean", "array", "object":
		return "petctl conform wrong type", "a string"
	}
	return nil, ""
}

// marshal encodes a body; map keys come out sorted, so the same document
// gives the same bytes every run.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil { // cannot happen: the values are maps, slices and scalars
		panic(err)
	}
	return b
}
