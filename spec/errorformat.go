package spec

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrorFields are what an error answer says, whatever its format.
type ErrorFields struct {
	Status   int
	Code     string // petctl's machine code: "validation_failed"
	Message  string // for a person
	Instance string // the request's path
	Now      time.Time
}

// ErrorFormat is how the document writes an error answer: the media type
// and a plan that fills the declared schema's fields by their meaning (a
// status-like integer gets the status, a message-like string the message,
// a code-like string the code, the fields the schema requires valid values).
// A nil Schema is petctl's own {code, message, status}.
type ErrorFormat struct {
	MediaType string
	Schema    *Schema
	// Declared is set when the operation (or its default response)
	// declares the status; otherwise the format is the document's most
	// common one, or petctl's.
	Declared bool
	plan     *fieldPlan
	// example is the example of the response declared for the status
	// exactly, decoded, or nil: where the error decides nothing (a text
	// field no meaning fills, an enum member no code or status names), the
	// body takes the document's own value for that status (Meilisearch's
	// 401 says code missing_authorization_header, type auth).
	example any
	// exampleCode is the example's text at the code field (codePath), ""
	// for none or one shorter than minExampleCode: where the answer's code
	// is another, the example's other texts say the answer's code in its
	// place (a link to the code's page).
	exampleCode string
	codePath    []string
	// least marks a format that writes every error as the least value
	// its schema takes (see Least).
	least bool
	// fuller, when set, is a value of the schema with every optional
	// property, under the error's own fields (see Fuller).
	fuller map[string]any
}

// Fuller is f writing every error's fields over a value of its schema
// that has every optional property, where the error's fields alone match
// more than one of the schema's alternatives: GitHub's 422 is oneOf
// validation-error and validation-error-simple, which both take a message
// and a documentation_url and differ in the items of errors, so only a
// body with errors passes. nil where the schema makes no object.
func (f *ErrorFormat) Fuller() *ErrorFormat {
	if f.Schema == nil {
		return nil
	}
	g := *f
	v := (&Values{Rand: rand.New(rand.NewPCG(1, 1)), Optional: 1, Direction: InResponse}).Value(f.Schema, "")
	if g.fuller, _ = v.(map[string]any); g.fuller == nil {
		return nil
	}
	return &g
}

// overFuller is the error's body v, an object, with the fields of
// f.fuller it lacks after its own.
func (f *ErrorFormat) overFuller(v any) any {
	obj, ok := v.(orderedObject)
	if !ok {
		return v
	}
	out := slices.Clone(obj)
	for _, name := range slices.Sorted(maps.Keys(f.fuller)) {
		if !slices.ContainsFunc(obj, func(nv namedValue) bool { return nv.name == name }) {
			out = append(out, namedValue{name, f.fuller[name]})
		}
	}
	return out
}

// Least is f writing every error as the least value its schema takes,
// the error's own fields left out: what petctl answers where the
// document's schema refuses every body that carries them. The .NET
// generators write such schemas: ApiException is an allOf of Exception
// (Message) and its own part (statusCode), and each part allows no
// property but its own, so only a body with neither passes. Where an
// error's fields can be written, Body writes them as before.
func (f *ErrorFormat) Least() *ErrorFormat {
	g := *f
	g.least = true
	return &g
}

// minExampleCode is the shortest example code swapped in texts: a code
// of a letter or two ("E1") is as likely a part of another word.
const minExampleCode = 4

// FieldMap names, by meaning (one of ErrorMeanings), the fields of an
// error schema whose names petctl cannot read, each mapped to a
// dot-separated path ("error.httpCode").
type FieldMap map[string]string

// Body writes e in the format. The result is valid against the schema
// whenever the plan could be proved valid at start-up (see
// Validator.ErrorBody). Objects keep the schema's order of fields, and <, >
// and & are written as they are ("<API_KEY>" reads better than
// "\u003cAPI_KEY\u003e").
func (f *ErrorFormat) Body(e ErrorFields) []byte {
	var v any
	if f.Schema == nil {
		if !isJSON(f.MediaType) {
			return []byte(e.Message) // a text type that declares no schema
		}
		v = orderedObject{{"code", e.Code}, {"message", e.Message}, {"status", json.Number(strconv.Itoa(e.Status))}}
	} else if f.least {
		v = f.plan.fixed
	} else {
		v = f.plan.value(f.filling(e), f.example)
		if f.fuller != nil {
			v = f.overFuller(v)
		}
	}
	if !isJSON(f.MediaType) {
		if s, ok := v.(string); ok {
			return []byte(s)
		}
	}
	b, err := encodeJSON(v)
	if err != nil { // a value the plan could not encode: the check before it leaves says so
		return []byte("null")
	}
	return b
}

// ErrorMeanings are the meanings a FieldMap may name.
var ErrorMeanings = []string{"status", "code", "message", "title", "type", "instance", "time"}

// Slots returns the fields the format fills from the error, by meaning:
// the dot-separated path of each ("error.code"). petctl's own format
// fills code, message and status.
func (f *ErrorFormat) Slots() map[string]string {
	out := map[string]string{}
	if f.Schema == nil {
		if isJSON(f.MediaType) {
			out["code"], out["message"], out["status"] = "code", "message", "status"
		}
		return out
	}
	f.plan.slots("", out)
	return out
}

func (p *fieldPlan) slots(path string, out map[string]string) {
	if p == nil {
		return
	}
	if p.meaning != "" {
		out[p.meaning] = path
	}
	for _, np := range p.props {
		sub := np.name
		if path != "" {
			sub = path + "." + np.name
		}
		np.plan.slots(sub, out)
	}
	p.items.slots(path+"[]", out)
}

// ErrorBody validates an error body written by f against f's schema, as a
// response the operation does not declare is held to the document (an
// unknown path, a 405, a status the operation leaves out).
func (v *Validator) ErrorBody(f *ErrorFormat, body []byte) Problems {
	if f.Schema == nil || f.Schema.lib == nil {
		return nil
	}
	doc := body
	if !isJSON(f.MediaType) && (f.Schema.Type() == "string" || !json.Valid(body)) {
		doc, _ = encodeJSON(string(body)) // Body wrote the text as it is
	}
	return v.Schema(f.Schema.lib, doc)
}

// CompileErrorFormat compiles f's schema as a response body schema, as
// the response validator does; it returns why that fails, nil when it
// does not or f has no schema. A format whose schema does not compile
// cannot pass that check, whatever its body.
func (v *Validator) CompileErrorFormat(f *ErrorFormat) error {
	if f.Schema == nil || f.Schema.lib == nil {
		return nil
	}
	_, err := v.CompileResponseSchema(f.Schema.lib)
	return err
}

// orderedObject is a JSON object whose fields keep their order.
type orderedObject []namedValue

type namedValue struct {
	name  string
	value any
}

// encodeJSON is json.Marshal without the escaping of <, > and &, and with
// the fields of an orderedObject in their order.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := writeJSON(&buf, enc, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON appends v to buf, through enc for what is not a plan's own
// object or array.
func writeJSON(buf *bytes.Buffer, enc *json.Encoder, v any) error {
	switch t := v.(type) {
	case orderedObject:
		buf.WriteByte('{')
		for i, nv := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, enc, nv.name); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeJSON(buf, enc, nv.value); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, enc, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the newline Encode ends with
	return nil
}

// fieldPlan is how one schema's value is made: a slot filled from the
// error, a fixed value, or an object or array of plans.
type fieldPlan struct {
	meaning string // "", or one of the FieldMap meanings
	// mapped is set when the FieldMap gave the meaning, not the field's name.
	mapped  bool
	schema  *Schema
	pattern jsonschema.Regexp // the schema's pattern, compiled; nil without one
	fixed   any
	props   []namedPlan
	items   *fieldPlan
}

type namedPlan struct {
	name string
	plan *fieldPlan
}

// filling is what a body is made from: the error, and the text that
// stands for the example's code in the example's texts.
type filling struct {
	ErrorFields
	exampleCode, code string
}

// filling is the filling of e: where the body's code is not the
// example's, the example's texts carry the body's code in its place.
func (f *ErrorFormat) filling(e ErrorFields) filling {
	fl := filling{ErrorFields: e}
	if f.exampleCode == "" {
		return fl
	}
	if code, ok := f.plan.at(f.codePath).slot(fl, f.exampleCode).(string); ok && code != f.exampleCode {
		fl.exampleCode, fl.code = f.exampleCode, code
	}
	return fl
}

// value makes the plan's value for e; ex is the example's value at the
// same place, nil where there is none.
func (p *fieldPlan) value(e filling, ex any) any {
	switch {
	case p == nil:
		return nil
	case p.props != nil:
		fields, _ := ex.(map[string]any)
		obj := make(orderedObject, len(p.props))
		for i, np := range p.props {
			obj[i] = namedValue{np.name, np.plan.value(e, fields[np.name])}
		}
		return obj
	case p.items != nil:
		var first any
		if arr, ok := ex.([]any); ok && len(arr) > 0 {
			first = arr[0]
		}
		return []any{p.items.value(e, first)}
	case p.meaning != "":
		return p.slot(e, ex)
	}
	if text, ok := ex.(string); ok && e.exampleCode != "" && strings.Contains(text, e.exampleCode) {
		// An enum member that holds the code (a type "auth" beside the
		// code "auth") is no text about it: kept where the swap leaves
		// the enum.
		if swapped, ok := p.takes(strings.ReplaceAll(text, e.exampleCode, e.code)); ok {
			return swapped
		}
	}
	if text, ok := p.takes(ex); ok {
		return text
	}
	return p.fixed
}

// takes returns an example's value for the plan's field where it is a
// text the field's schema surely accepts: a string schema without a
// const or a combination of schemas, whose enum holds it, or whose
// length, pattern and format it keeps. Anything else is left to the plan,
// whose values are proved at start-up.
func (p *fieldPlan) takes(ex any) (string, bool) {
	text, ok := ex.(string)
	s := p.schema
	if !ok || s == nil || s.HasConst || s.Type() != "string" || len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0 || s.Not != nil {
		return "", false
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(text)) {
		return "", false
	}
	if fitLength(text, s.MinLength, s.MaxLength) != text || (p.pattern != nil && !p.pattern.MatchString(text)) || !fitsFormat(s.Format, text) {
		return "", false
	}
	return text, true
}

// slot gives the error's value for the field's meaning, fitted to the
// field's schema: an enum picks its nearest member (nearestEnum, which
// weighs ex, the example's value, where the schema takes it), a length is cut; a
// const, a bound, a pattern or a format that refuses the value falls back
// to the field's fixed value, which the schema accepts.
func (p *fieldPlan) slot(e filling, ex any) any {
	s := p.schema
	if s.HasConst {
		return p.fixed
	}
	var text string
	switch p.meaning {
	case "status":
		if t := s.Type(); t == "integer" || t == "number" {
			if len(s.Enum) > 0 {
				return nearestEnum(s.Enum, "", e.Status, "")
			}
			if !fitsNumber(s, float64(e.Status)) {
				return p.fixed
			}
			return json.Number(strconv.Itoa(e.Status))
		}
		text = strconv.Itoa(e.Status)
	case "code":
		text = e.Code
	case "message":
		text = e.Message
	case "title":
		text = http.StatusText(e.Status)
	case "type":
		text = "about:blank"
	case "instance":
		text = e.Instance
	case "time":
		text = e.Now.UTC().Format(time.RFC3339)
	}
	if len(s.Enum) > 0 {
		example, _ := p.takes(ex)
		return nearestEnum(s.Enum, text, e.Status, example)
	}
	text = fitLength(text, s.MinLength, s.MaxLength)
	if (p.pattern != nil && !p.pattern.MatchString(text)) || !fitsFormat(s.Format, text) {
		return p.fixed
	}
	return text
}

// neverMatches is a pattern no text matches.
type neverMatches struct{}

func (neverMatches) MatchString(string) bool { return false }
func (neverMatches) String() string          { return "" }

// fitsNumber reports whether n keeps the schema's bounds.
func fitsNumber(s *Schema, n float64) bool {
	switch {
	case s.Minimum != nil && n < *s.Minimum, s.Maximum != nil && n > *s.Maximum,
		s.ExclusiveMinimum != nil && n <= *s.ExclusiveMinimum, s.ExclusiveMaximum != nil && n >= *s.ExclusiveMaximum:
		return false
	case s.MultipleOf != nil && *s.MultipleOf > 0:
		q := n / *s.MultipleOf
		return q == math.Trunc(q)
	}
	return true
}

// fitsFormat reports whether an error's text is valid for a string
// format: the formats its texts may meet are checked; one no error text
// can be (an email, a base64 byte string) never fits, and a format the
// validator does not assert always does.
func fitsFormat(format, text string) bool {
	switch format {
	case "":
		return true
	case "date-time":
		_, err := time.Parse(time.RFC3339, text)
		return err == nil
	case "uri", "url", "iri":
		u, err := url.Parse(text)
		return err == nil && u.IsAbs()
	case "uri-reference", "iri-reference":
		_, err := url.Parse(text)
		return err == nil
	case "date", "time", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uuid",
		"uri-template", "json-pointer", "relative-json-pointer", "regex", "duration", "byte", "binary":
		return false
	}
	return true
}

// nearestEnum picks the enum member that names the error best: one equal
// to the code or the status without regard to case and separators; else
// one that shares a word with the code, example (a member the document's
// example for the status holds, "" for none) first among them; else
// example; else one that shares a word with the status's text; else the
// first.
func nearestEnum(enum []any, text string, status int, example string) any {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == ' ' || r == '.' {
				return -1
			}
			return r
		}, strings.ToLower(s))
	}
	want := []string{norm(text), strconv.Itoa(status), norm(http.StatusText(status))}
	for _, e := range enum {
		if slices.Contains(want, norm(toText(e))) {
			return numbers(e)
		}
	}
	// sharing is the first member that shares a word of more than three
	// letters with of, the example where it does.
	sharing := func(of string) any {
		words := strings.FieldsFunc(strings.ToLower(of), func(r rune) bool { return r == '_' || r == ' ' || r == '-' })
		var found any
		for _, e := range enum {
			l := strings.ToLower(toText(e))
			for _, w := range words {
				if len(w) > 3 && strings.Contains(l, w) {
					if example != "" && toText(e) == example {
						return e
					}
					if found == nil {
						found = e
					}
				}
			}
		}
		return found
	}
	if e := sharing(text); e != nil {
		return numbers(e)
	}
	if example != "" {
		return example
	}
	if e := sharing(http.StatusText(status)); e != nil {
		return numbers(e)
	}
	return numbers(enum[0])
}

func toText(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// normName is a field's name as meaningsOf compares it: lower case,
// without _ and -.
func normName(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
}

// meaningsOf reads the meanings a field can take from its name and type,
// the likeliest first: a string named error is the message, or the code
// where another field is the message.
func meaningsOf(name string, s *Schema, problem bool) []string {
	m := meaningOf(name, s, problem)
	if m == "message" && normName(name) == "error" {
		return []string{"message", "code"}
	}
	if m == "" {
		return nil
	}
	return []string{m}
}

// statusName reports whether a field's normalized name says it holds the
// HTTP status.
func statusName(n string) bool {
	return slices.Contains([]string{"status", "statuscode", "httpstatus", "httpstatuscode", "httpcode"}, n)
}

// meaningOf reads a field's likeliest meaning from its name and type. A
// number named code or errorCode is taken for the status: it is what
// petctl writes there, for want of anything better.
func meaningOf(name string, s *Schema, problem bool) string {
	n := normName(name)
	t := s.Type()
	numeric := t == "integer" || t == "number"
	switch {
	case numeric && (statusName(n) || n == "code" || n == "errorcode"):
		return "status"
	case t != "string" && t != "":
		return ""
	case n == "type" && (problem || s.Format == "uri" || s.Format == "uri-reference"):
		return "type"
	case n == "status" || n == "statuscode":
		return "title" // a status as text: "Not Found"
	case slices.Contains([]string{"code", "errorcode", "errortype", "kind", "reason", "key", "slug"}, n):
		return "code"
	case slices.Contains([]string{"message", "msg", "detail", "details", "description", "errormessage", "errordescription", "error", "errormsg", "text"}, n):
		return "message"
	case n == "title":
		return "title"
	case slices.Contains([]string{"instance", "path", "uri", "url", "resource"}, n):
		return "instance"
	case s.Format == "date-time" || slices.Contains([]string{"timestamp", "time", "date", "occurredat", "createdat"}, n):
		return "time"
	}
	return ""
}

// buildPlan makes the plan of schema s. Optional fields with a meaning are
// filled too (a problem's detail); other optional fields are left out.
func buildPlan(s *Schema, problem bool, fields FieldMap, path string, depth int) *fieldPlan {
	p := &fieldPlan{schema: s}
	if s == nil || depth > maxDepth {
		return p
	}
	p.fixed = (&Values{Direction: InResponse}).Value(s, "")
	if s.Pattern != "" {
		if re, err := compilePattern(s.Pattern); err == nil {
			p.pattern = re
		} else {
			p.pattern = neverMatches{} // the validator cannot compile it either: the fixed value is all there is
		}
	}
	for meaning, at := range fields {
		if at == path && path != "" {
			p.meaning, p.mapped = meaning, true
			return p
		}
	}
	if alts := append(append([]*Schema{}, s.OneOf...), s.AnyOf...); len(alts) > 0 && len(s.Properties) == 0 {
		return buildPlan(alts[0], problem, fields, path, depth+1)
	}
	switch s.Type() {
	case "object":
		props, required := s.Props()
		p.props = []namedPlan{}
		taken := map[string]bool{}
		var kids []namedPlan
		for _, prop := range props {
			if prop.Schema == nil || prop.Schema.WriteOnly {
				continue
			}
			sub := path + "." + prop.Name
			if path == "" {
				sub = prop.Name
			}
			child := buildPlan(prop.Schema, problem, fields, sub, depth+1)
			if child.meaning != "" {
				taken[child.meaning] = true
			}
			kids = append(kids, namedPlan{prop.Name, child})
		}
		// A field named for its meaning ("message") takes it before one
		// named for it only loosely ("error"), whichever comes first; the
		// loose one then takes its next meaning, if free.
		for _, exact := range []bool{true, false} {
			for _, k := range kids {
				if k.plan.meaning != "" || k.plan.props != nil || k.plan.items != nil {
					continue
				}
				for i, m := range meaningsOf(k.name, k.plan.schema, problem) {
					if exact && (i > 0 || normName(k.name) != m) {
						break
					}
					if !taken[m] && fields[m] == "" {
						k.plan.meaning, taken[m] = m, true
						break
					}
				}
			}
		}
		for _, k := range kids {
			if required[k.name] || k.plan.meaning != "" || (k.plan.props != nil && hasSlot(k.plan)) {
				p.props = append(p.props, k)
			}
		}
	case "array":
		if s.MinItems != nil && *s.MinItems > 0 {
			p.items = buildPlan(s.Items, problem, fields, path+"[]", depth+1)
		} else {
			p.fixed = []any{}
		}
	case "string":
		if path == "" {
			p.meaning = "message" // the whole body is the text
		}
	}
	return p
}

// hasSlot reports whether a plan fills any field from the error.
func hasSlot(p *fieldPlan) bool {
	if p == nil {
		return false
	}
	if p.meaning != "" {
		return true
	}
	for _, np := range p.props {
		if hasSlot(np.plan) {
			return true
		}
	}
	return hasSlot(p.items)
}

// errorFormats caches the formats of a document, one per schema and media type.
type errorFormats struct {
	mu     sync.Mutex
	fields FieldMap
	byKey  map[errorFormatKey]*ErrorFormat
	common *ErrorFormat
	// byExample are the formats with a response's example, byResponse
	// the one of each response (withExample).
	byExample  map[exampleKey]*ErrorFormat
	byResponse map[*Response]*ErrorFormat
}

type exampleKey struct {
	format  *ErrorFormat
	example string // JSON
}

type errorFormatKey struct {
	schema    *Schema
	mediaType string
	declared  bool
}

// SetErrorFields maps the fields of the document's error schemas by
// meaning, for names petctl cannot read (see FieldMap). It must be called
// before the first ErrorFormat.
func (s *Spec) SetErrorFields(m FieldMap) {
	s.errors.mu.Lock()
	defer s.errors.mu.Unlock()
	s.errors.fields = m
	s.errors.byKey = nil
	s.errors.common = nil
	s.errors.byExample, s.errors.byResponse = nil, nil
}

// ErrorFormat returns how op answers an error of status: the response op
// declares for it (exactly, by range, or as default), else the document's
// most common error format, else petctl's own. op may be nil for answers
// outside any operation (an unknown path).
func (s *Spec) ErrorFormat(op *Operation, status int) *ErrorFormat {
	if op != nil {
		r := op.Response(status)
		if r == nil {
			r = op.Default
		}
		if r != nil && len(r.MediaTypes) > 0 {
			mt := errorMediaType(r.MediaTypes)
			lib := r.Schema
			if !isJSON(mt) {
				lib = mediaSchema(op, r, mt)
			}
			f := s.errorFormat(s.schema(lib), mt, true)
			if r.HasExample && r.Status == status && f.Schema != nil && isJSON(mt) {
				return s.withExample(f, r)
			}
			return f
		}
	}
	return s.commonErrorFormat()
}

// withExample is f filling from r's example what the error does not
// decide. It is asked for on every error answer, so it is kept by r; and
// formats are shared by the example's text: a document repeats one
// example for a status on every operation, and every format is proved
// at start-up.
func (s *Spec) withExample(f *ErrorFormat, r *Response) *ErrorFormat {
	s.errors.mu.Lock()
	defer s.errors.mu.Unlock()
	if g, ok := s.errors.byResponse[r]; ok {
		return g
	}
	if s.errors.byResponse == nil {
		s.errors.byResponse, s.errors.byExample = map[*Response]*ErrorFormat{}, map[exampleKey]*ErrorFormat{}
	}
	text, err := json.Marshal(r.Example)
	if err != nil {
		s.errors.byResponse[r] = f
		return f
	}
	key := exampleKey{f, string(text)}
	g, ok := s.errors.byExample[key]
	if !ok {
		g = &ErrorFormat{}
		*g = *f
		g.example = r.Example
		g.codePath = f.CodeField()
		if code, _ := exampleAt(r.Example, g.codePath).(string); len(code) >= minExampleCode {
			g.exampleCode = code
		}
		s.errors.byExample[key] = g
	}
	s.errors.byResponse[r] = g
	return g
}

// exampleAt is the example's value at a path of fields; nil when absent.
func exampleAt(example any, path []string) any {
	if path == nil {
		return nil
	}
	for _, name := range path {
		obj, ok := example.(map[string]any)
		if !ok {
			return nil
		}
		example = obj[name]
	}
	return example
}

// mediaSchema is the schema r declares for a media type other than JSON
// (Response keeps the JSON one): a text error's maxLength or pattern.
func mediaSchema(op *Operation, r *Response, mediaType string) *base.Schema {
	lib := libResponse(op, r)
	if lib == nil || lib.Content == nil {
		return nil
	}
	if m := lib.Content.GetOrZero(mediaType); m != nil && m.Schema != nil {
		return m.Schema.Schema()
	}
	return nil
}

// libResponse is libopenapi's model of r, a response of op; nil when op
// has no path item.
func libResponse(op *Operation, r *Response) *v3.Response {
	if op.PathItem == nil {
		return nil
	}
	o := op.PathItem.GetOperations().GetOrZero(strings.ToLower(op.Method))
	if o == nil || o.Responses == nil {
		return nil
	}
	if r.Code != "default" && o.Responses.Codes != nil {
		return o.Responses.Codes.GetOrZero(r.Code)
	}
	return o.Responses.Default
}

// commonErrorFormat is the format of the document's most common error
// schema (Spec.commonError), or petctl's when it declares none.
func (s *Spec) commonErrorFormat() *ErrorFormat {
	s.errors.mu.Lock()
	common := s.errors.common
	s.errors.mu.Unlock()
	if common != nil {
		return common
	}
	f := &ErrorFormat{MediaType: JSON}
	if lib, mt := s.commonError(); lib != nil {
		f = s.errorFormat(s.schema(lib), mt, false)
	}
	s.errors.mu.Lock()
	s.errors.common = f
	s.errors.mu.Unlock()
	return f
}

func (s *Spec) errorFormat(schema *Schema, mediaType string, declared bool) *ErrorFormat {
	s.errors.mu.Lock()
	defer s.errors.mu.Unlock()
	key := errorFormatKey{schema, mediaType, declared}
	if f, ok := s.errors.byKey[key]; ok {
		return f
	}
	if s.errors.byKey == nil {
		s.errors.byKey = map[errorFormatKey]*ErrorFormat{}
	}
	f := &ErrorFormat{MediaType: mediaType, Schema: schema, Declared: declared}
	if schema != nil {
		problem := strings.Contains(mediaType, "problem")
		f.plan = buildPlan(schema, problem, s.errors.fields, "", 0)
	}
	s.errors.byKey[key] = f
	return f
}

// errorMediaType picks the media type an error is sent as: problem+json
// first, then another JSON type, then text, then the first declared.
func errorMediaType(declared []string) string {
	rank := func(mt string) int {
		base, _, _ := mime.ParseMediaType(mt)
		switch {
		case strings.HasSuffix(base, "problem+json"):
			return 0
		case isJSON(base):
			return 1
		case strings.HasPrefix(base, "text/"):
			return 2
		}
		return 3
	}
	best := ""
	for _, mt := range declared {
		if best == "" || rank(mt) < rank(best) {
			best = mt
		}
	}
	if best == "" || strings.Contains(best, "*") {
		return JSON
	}
	return best
}

// ValidationStatus is the status op declares for a request that breaks its
// contract: 400, or 422 where the operation names 422 and not 400 (a 4XX
// range or a default names neither).
func (o *Operation) ValidationStatus() int {
	if !o.declaresExactly(http.StatusBadRequest) && o.declaresExactly(http.StatusUnprocessableEntity) {
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadRequest
}

func (o *Operation) declaresExactly(status int) bool {
	return slices.ContainsFunc(o.Responses, func(r *Response) bool { return r.Status == status })
}

// StatusField is the path of the field that carries the HTTP status in an
// error of this format ("status", "error.code"), by the same reading of the
// schema that fills it; nil when no field does.
func (f *ErrorFormat) StatusField() []string {
	if f.Schema == nil {
		return []string{"status"}
	}
	return f.plan.find("status", nil)
}

// HeldStatusField is StatusField where the error must carry the HTTP status
// there: the document's field says so by its name (status, statusCode,
// httpStatus), configuration mapped it, or it is a number named code or
// errorCode beside a text named status (Google's {"error": {"code": 404,
// "status": "NOT_FOUND"}}; TestErrorProblems' nestedError). A number named code or errorCode alone is as often the
// application's own code (OpenAPI's petstore-expanded Error: code int32
// beside message), which a deployment may fill as it likes: nil for it.
func (f *ErrorFormat) HeldStatusField() []string {
	path := f.StatusField()
	if len(path) == 0 || f.Schema == nil {
		return path
	}
	p, parent := f.plan.at(path), f.plan.at(path[:len(path)-1])
	switch {
	case p == nil:
		return nil
	case p.mapped || statusName(normName(path[len(path)-1])):
		return path
	}
	for _, np := range parent.props {
		if normName(np.name) == "status" && np.plan != nil && np.plan.schema != nil && np.plan.schema.Type() == "string" {
			return path
		}
	}
	return nil
}

// at is the plan of the field at path.
func (p *fieldPlan) at(path []string) *fieldPlan {
	for _, name := range path {
		if p == nil {
			return nil
		}
		var next *fieldPlan
		for _, np := range p.props {
			if np.name == name {
				next = np.plan
				break
			}
		}
		p = next
	}
	return p
}

// CodeField is the path of the field that carries the machine code in an
// error of this format ("code", "error.code"), by the same reading of the
// schema that fills it; nil when no field does.
func (f *ErrorFormat) CodeField() []string {
	if f.Schema == nil {
		if isJSON(f.MediaType) {
			return []string{"code"}
		}
		return nil
	}
	return f.plan.find("code", nil)
}

// find is the path of the first slot of the plan with meaning m.
func (p *fieldPlan) find(m string, at []string) []string {
	if p == nil {
		return nil
	}
	if p.meaning == m {
		return at
	}
	for _, np := range p.props {
		if found := np.plan.find(m, append(slices.Clip(at), np.name)); found != nil {
			return found
		}
	}
	return nil
}
