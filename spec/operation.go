package spec

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"
)

// JSON is the media type every petctl body uses.
const JSON = "application/json"

// Operation is one method on one path of the document.
type Operation struct {
	ID string // operationId, or Route() when the document gives none
	// Named says the document gives the operation an operationId.
	Named    bool
	Method   string // upper case
	Path     string // the path template, without the server's base path
	PathItem *v3.PathItem
	Op       *v3.Operation

	Summary string
	// Deprecated is the operation's deprecated flag; DeprecatedAt, Sunset and
	// Replacement come from the x-deprecated-at, x-sunset and x-replacement
	// extensions and are zero when the document does not give them.
	Deprecated   bool
	DeprecatedAt time.Time
	Sunset       time.Time
	Replacement  *Replacement
	// Hidden is true when the operation is hidden from a reference's try-it
	// panel (x-try-it-hidden, or x-readme.explorer-enabled: false).
	Hidden bool
	// Unpublished is true when its interface is not published
	// (x-interface-published: false): the operation exists, its payload is open.
	Unpublished bool

	// Security lists the alternatives that satisfy the operation, each a set
	// of scheme names that must all hold; empty means no authentication.
	Security [][]string
	// Requirements are the same alternatives with their schemes and scopes.
	Requirements []Requirement

	Params    []*Param
	Body      *Body
	Responses []*Response
	// Default is the response declared under "default", or nil.
	Default *Response
}

// Replacement names the operation that replaces a deprecated one.
type Replacement struct {
	OperationID string
	Description string
}

// Param is one parameter of an operation (path item parameters included).
type Param struct {
	Name     string
	In       string // path, query, header, cookie
	Required bool
	// Deprecated is set where the document deprecates the parameter:
	// deprecated: true, or a description that says so first
	// ("Deprecated Items per Page", "DEPRECATED: use page_token"), as
	// generated documents (ory-kratos's) write it.
	Deprecated bool
	Schema     *base.Schema
}

// Body is an operation's request body.
type Body struct {
	Required   bool
	MediaTypes []string
	Schema     *base.Schema // of the JSON media type, nil if there is none
	// Form is the form media type (application/x-www-form-urlencoded) and
	// FormSchema its schema, nil where the body has none: read once here,
	// not on each form request.
	Form       *v3.MediaType
	FormSchema *Schema
}

// Response is one declared response of an operation.
type Response struct {
	Status      int // 0 for ranges such as 4XX
	Code        string
	MediaTypes  []string
	Schema      *base.Schema // of the JSON media type, nil if it declares none
	SchemaProxy *base.SchemaProxy
	Headers     []*Header
	// Example is the JSON media type's example (or the first of its
	// examples), decoded; HasExample says whether there is one.
	Example    any
	HasExample bool
}

// Header is a header field a response declares.
type Header struct {
	Name     string
	Required bool
	// Schema is its schema, nil where it declares none (or content).
	Schema *Schema
	// Example is the header's own example (or the first of its examples),
	// decoded; HasExample says whether there is one.
	Example    any
	HasExample bool
}

// TotalHeaders are the integer headers a list's response declares for its
// totals, by the words of their names. A total names itself: with the
// word total (X-Total-Count, X-Total, X-Pagination-Total-Count), or count
// beside words that name what a list holds (X-Result-Count, Item-Count,
// X-Count); not X-Retry-Count, which counts something else, nor
// X-Account-Id, whose count is no word of it. One that also has page(s)
// (X-Total-Pages, X-Pagination-Page-Count) is the number of pages.
func (resp *Response) TotalHeaders() (items, pages []string) {
	if resp == nil {
		return nil, nil
	}
	for _, h := range resp.Headers {
		if h.Schema == nil || h.Schema.Type() != "integer" {
			continue
		}
		words := strings.FieldsFunc(strings.ToLower(h.Name), func(r rune) bool { return r == '-' || r == '_' })
		paged := slices.Contains(words, "page") || slices.Contains(words, "pages")
		switch {
		case !totalOfList(words) && !countsListed(words):
		case paged:
			pages = append(pages, h.Name)
		default:
			items = append(items, h.Name)
		}
	}
	return items, pages
}

// totalOfList reports whether a header's words name a total that is no
// other measure's: X-Total-Count, X-WP-Total, but not X-Retry-Total or
// X-RateLimit-Total.
func totalOfList(words []string) bool {
	if !slices.Contains(words, "total") {
		return false
	}
	for _, w := range words {
		if slices.Contains(otherMeasures, w) {
			return false
		}
	}
	return true
}

// otherMeasures are words that say a header's total is not a list's: of
// retries, time, bytes, a rate limit's quota, a bill.
var otherMeasures = []string{"retry", "retries", "attempt", "attempts", "time", "ms", "millis", "seconds", "secs", "duration", "elapsed", "latency",
	"byte", "bytes", "size", "length", "rate", "ratelimit", "limit", "quota", "cost", "costs", "credit", "credits", "request", "requests", "usage", "amount", "price"}

// countsListed reports whether a header's words are count and words that
// name what a list holds, or its pages.
func countsListed(words []string) bool {
	if !slices.Contains(words, "count") {
		return false
	}
	for _, w := range words {
		if !slices.Contains(listedWords, w) {
			return false
		}
	}
	return true
}

// listedWords are the words beside count in a header that counts a list:
// X-Result-Count, X-Pagination-Page-Count, Item-Count.
var listedWords = []string{"x", "count", "result", "results", "item", "items", "record", "records", "entry", "entries", "object", "objects", "resource", "resources", "pagination", "page", "pages", "hit", "hits", "match", "matches", "row", "rows"}

// RequiredHeaders are the headers r declares required.
func (r *Response) RequiredHeaders() []*Header {
	var out []*Header
	for _, h := range r.Headers {
		if h.Required {
			out = append(out, h)
		}
	}
	return out
}

// HeaderNames are the names of the headers r declares, in its order.
func (r *Response) HeaderNames() []string {
	names := make([]string, len(r.Headers))
	for i, h := range r.Headers {
		names[i] = h.Name
	}
	return names
}

// Header is the header named name r declares (names are
// case-insensitive), nil when it declares none.
func (r *Response) Header(name string) *Header {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			return h
		}
	}
	return nil
}

// Secured reports whether the operation requires any authentication.
func (o *Operation) Secured() bool { return len(o.Security) > 0 }

// Param returns the parameter with the given location and name, or nil.
func (o *Operation) Param(in, name string) *Param {
	for _, p := range o.Params {
		if p.In == in && p.Name == name {
			return p
		}
	}
	return nil
}

// Response returns the declared response for status (exact, then its range), or nil.
func (o *Operation) Response(status int) *Response {
	for _, r := range o.Responses {
		if r.Status == status {
			return r
		}
	}
	rng := fmt.Sprintf("%dXX", status/100)
	for _, r := range o.Responses {
		if strings.EqualFold(r.Code, rng) {
			return r
		}
	}
	return nil
}

// DeclaredResponses are the responses op declares, the default last.
func (o *Operation) DeclaredResponses() []*Response {
	if o.Default == nil {
		return o.Responses
	}
	return append(slices.Clip(o.Responses), o.Default)
}

// Declares reports whether status is a declared response (exact, range or default).
func (o *Operation) Declares(status int) bool {
	return o.Response(status) != nil || o.Default != nil
}

// String names the operation for messages: "getPet (GET /pets/{petId})".
func (o *Operation) String() string {
	return fmt.Sprintf("%s (%s %s)", o.ID, o.Method, o.Path)
}

func (s *Spec) readOperations() error {
	if s.Model.Paths == nil || s.Model.Paths.PathItems == nil {
		return fmt.Errorf("the document declares no paths")
	}
	global := securityAlternatives(s.Model.Security)
	globalReqs := s.readRequirements(s.Model.Security)
	for p := s.Model.Paths.PathItems.First(); p != nil; p = p.Next() {
		path, item := p.Key(), p.Value()
		if !strings.HasPrefix(path, "/") {
			return fmt.Errorf("paths: %q does not start with /", path)
		}
		item.Parameters = withoutIgnoredHeaders(item.Parameters)
		for o := item.GetOperations().First(); o != nil; o = o.Next() {
			method := strings.ToUpper(o.Key())
			o.Value().Parameters = withoutIgnoredHeaders(o.Value().Parameters)
			op, err := s.readOperation(method, path, item, o.Value(), global, globalReqs)
			if err != nil {
				return fmt.Errorf("%s %s: %w", method, path, err)
			}
			s.Operations = append(s.Operations, op)
		}
	}
	for _, op := range s.Operations {
		if r := op.Replacement; r != nil && s.Operation(r.OperationID) == nil {
			return fmt.Errorf("%s: x-replacement names operationId %q, which the document does not declare", op, r.OperationID)
		}
	}
	return nil
}

// Route names the operation by its method and path template: "GET /pets/{id}".
func (o *Operation) Route() string { return o.Method + " " + o.Path }

func (s *Spec) readOperation(method, path string, item *v3.PathItem, o *v3.Operation, global [][]string, globalReqs []Requirement) (*Operation, error) {
	op := &Operation{
		ID:           o.OperationId,
		Method:       method,
		Path:         path,
		PathItem:     item,
		Op:           o,
		Summary:      o.Summary,
		Security:     global,
		Requirements: globalReqs,
	}
	op.Named = op.ID != ""
	if !op.Named {
		op.ID = op.Route()
	}
	if o.Deprecated != nil {
		op.Deprecated = *o.Deprecated
	}
	if o.Security != nil { // an explicit list, even empty, replaces the global one
		op.Security = securityAlternatives(o.Security)
		op.Requirements = s.readRequirements(o.Security)
	}
	for _, alt := range op.Security {
		for _, name := range alt {
			if _, ok := s.SecuritySchemes[name]; !ok {
				// A generator quirk: the alternative can never be met.
				where := []string{"security"}
				if o.Security != nil {
					where = []string{"paths", path, strings.ToLower(method), "security"}
				}
				p := DocumentProblem{
					Line: s.lineOf(where), Where: strings.Join(where, "."), Quirk: true,
					Reason: fmt.Sprintf("names scheme %q, which components.securitySchemes does not declare; no request can meet that requirement", name),
				}
				if !slices.Contains(s.problems, p) {
					s.problems = append(s.problems, p)
				}
			}
		}
	}
	if err := readExtensions(op, o.Extensions); err != nil {
		return nil, err
	}
	op.Params = mergeParams(item.Parameters, o.Parameters)
	if o.RequestBody != nil {
		b := &Body{}
		if o.RequestBody.Required != nil {
			b.Required = *o.RequestBody.Required
		}
		b.MediaTypes, b.Schema, _ = mediaTypes(o.RequestBody.Content)
		if b.Form = formMedia(o.RequestBody.Content); b.Form != nil && b.Form.Schema != nil {
			b.FormSchema = s.schemas.getProxy(b.Form.Schema)
		}
		op.Body = b
	}
	if o.Responses != nil {
		if o.Responses.Codes != nil {
			for c := o.Responses.Codes.First(); c != nil; c = c.Next() {
				op.Responses = append(op.Responses, s.readResponse(c.Key(), c.Value()))
			}
		}
		if o.Responses.Default != nil {
			op.Default = s.readResponse("default", o.Responses.Default)
		}
	}
	return op, nil
}

func (s *Spec) readResponse(code string, r *v3.Response) *Response {
	resp := &Response{Code: code}
	resp.Status, _ = strconv.Atoi(code)
	resp.MediaTypes, resp.Schema, resp.SchemaProxy = mediaTypes(r.Content)
	resp.Example, resp.HasExample = mediaExample(r.Content)
	if r.Headers == nil {
		return resp
	}
	for name, lib := range r.Headers.FromOldest() {
		h := &Header{Name: name}
		if lib != nil {
			h.Required = lib.Required
			if lib.Schema != nil {
				h.Schema = s.schemas.getProxy(lib.Schema)
			}
			h.Example, h.HasExample = nodeValue(lib.Example)
			if !h.HasExample && lib.Examples != nil {
				for _, ex := range lib.Examples.FromOldest() {
					if ex != nil && ex.Value != nil {
						h.Example, h.HasExample = nodeValue(ex.Value)
						break
					}
				}
			}
		}
		resp.Headers = append(resp.Headers, h)
	}
	return resp
}

func mediaTypes(content *orderedmap.Map[string, *v3.MediaType]) ([]string, *base.Schema, *base.SchemaProxy) {
	var types []string
	var schema *base.Schema
	var proxy *base.SchemaProxy
	if content == nil {
		return nil, nil, nil
	}
	var ranged *base.SchemaProxy // the schema of a range that admits JSON
	for m := content.First(); m != nil; m = m.Next() {
		types = append(types, m.Key())
		switch {
		case m.Value().Schema == nil:
		case isJSON(m.Key()) && proxy == nil:
			proxy = m.Value().Schema
		case IsJSONRange(m.Key()) && ranged == nil:
			ranged = m.Value().Schema
		}
	}
	if proxy == nil {
		proxy = ranged
	}
	if proxy != nil {
		schema = proxy.Schema()
	}
	return types, schema, proxy
}

// mediaExample is the example of the first JSON media type that has one.
func mediaExample(content *orderedmap.Map[string, *v3.MediaType]) (any, bool) {
	if content == nil {
		return nil, false
	}
	for m := content.First(); m != nil; m = m.Next() {
		if !isJSON(m.Key()) && !IsJSONRange(m.Key()) || m.Value() == nil {
			continue
		}
		if v, ok := nodeValue(m.Value().Example); ok {
			return v, true
		}
		if ex := m.Value().Examples; ex != nil {
			for e := ex.First(); e != nil; e = e.Next() {
				if e.Value() != nil && e.Value().Value != nil {
					if v, ok := nodeValue(e.Value().Value); ok {
						return v, true
					}
				}
			}
		}
	}
	return nil, false
}

// isJSON reports whether a media type is JSON: application/json, a +json
// type (application/problem+json), or text/json, as some documents say.
func isJSON(mediaType string) bool {
	return IsJSON(mediaType)
}

// IsJSON reports whether a media type is one petctl reads as JSON:
// application/json, a +json type (application/problem+json), or text/json.
func IsJSON(mediaType string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(mediaType, ";", 2)[0]))
	return mt == JSON || mt == "text/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// IsJSONRange reports whether a media type is a range that JSON falls in:
// */* or application/*. springdoc declares every answer of a Spring
// controller */* unless told otherwise; petctl answers JSON for it, and
// reads the range's schema as the JSON one.
func IsJSONRange(mediaType string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(mediaType, ";", 2)[0]))
	return mt == "*/*" || mt == "application/*"
}

// declaredFor is the media type among declared that covers mt, a
// Content-Type's type: mt itself, else the range type/*, else */*
// (RFC 9110 §12.5.1: the most specific wins); "" when none does.
func declaredFor(declared []string, mt string) string {
	base, _, _ := strings.Cut(strings.ToLower(mt), "/")
	var best string
	for _, d := range declared {
		switch dm := strings.ToLower(strings.TrimSpace(strings.SplitN(d, ";", 2)[0])); {
		case dm == strings.ToLower(mt):
			return d
		case dm == base+"/*":
			best = d
		case dm == "*/*" && best == "":
			best = d
		}
	}
	return best
}

// withoutIgnoredHeaders is params without the header parameters OpenAPI
// has every tool ignore (3.0.3 §4.7.12.1, 3.1 §4.8.12.1: one named
// Accept, Content-Type or Authorization "SHALL be ignored"): the request's
// media types and its security scheme say those. Left in, one declared
// with an enum of [application/json] refused a client sending
// "application/json; charset=utf-8", and the library's model is what
// libopenapi-validator reads, so they are taken out of it.
// IgnoredHeaderParam reports whether OpenAPI has a header parameter of
// this name ignored: Accept, Content-Type or Authorization.
func IgnoredHeaderParam(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Content-Type", "Authorization":
		return true
	}
	return false
}

func withoutIgnoredHeaders(params []*v3.Parameter) []*v3.Parameter {
	ignored := func(p *v3.Parameter) bool {
		return p != nil && strings.EqualFold(p.In, "header") && IgnoredHeaderParam(p.Name)
	}
	if !slices.ContainsFunc(params, ignored) {
		return params
	}
	return slices.DeleteFunc(slices.Clone(params), ignored)
}

// saysDeprecated reports whether a description begins by calling what it
// describes deprecated, or says DEPRECATED: in capitals.
func saysDeprecated(description string) bool {
	d := strings.TrimSpace(description)
	return strings.HasPrefix(strings.ToLower(d), "deprecated") || strings.Contains(d, "DEPRECATED:")
}

func mergeParams(pathLevel, opLevel []*v3.Parameter) []*Param {
	var out []*Param
	seen := map[string]int{}
	add := func(p *v3.Parameter) {
		if p == nil {
			return
		}
		param := &Param{Name: p.Name, In: p.In, Deprecated: p.Deprecated || saysDeprecated(p.Description)}
		if p.Required != nil {
			param.Required = *p.Required
		}
		if p.Schema != nil {
			param.Schema = p.Schema.Schema()
		}
		key := p.In + "\x00" + p.Name
		if i, ok := seen[key]; ok { // operation-level parameters override path-level ones
			out[i] = param
			return
		}
		seen[key] = len(out)
		out = append(out, param)
	}
	for _, p := range pathLevel {
		add(p)
	}
	for _, p := range opLevel {
		add(p)
	}
	return out
}

func securityAlternatives(reqs []*base.SecurityRequirement) [][]string {
	var out [][]string
	for _, req := range reqs {
		if req == nil || req.Requirements == nil {
			continue
		}
		var names []string
		for r := req.Requirements.First(); r != nil; r = r.Next() {
			names = append(names, r.Key())
		}
		sort.Strings(names)
		if len(names) == 0 {
			// An empty requirement ({}) makes authentication optional.
			return nil
		}
		out = append(out, names)
	}
	return out
}

func readExtensions(op *Operation, ext *orderedmap.Map[string, *yaml.Node]) error {
	if ext == nil {
		return nil
	}
	for e := ext.First(); e != nil; e = e.Next() {
		node := e.Value()
		switch e.Key() {
		case "x-sunset":
			t, err := parseDate(node)
			if err != nil {
				return fmt.Errorf("x-sunset: %w", err)
			}
			op.Sunset = t
		case "x-deprecated-at":
			t, err := parseDate(node)
			if err != nil {
				return fmt.Errorf("x-deprecated-at: %w", err)
			}
			op.DeprecatedAt = t
		case "x-replacement":
			var r struct {
				OperationID string `yaml:"operationId"`
				Description string `yaml:"description"`
			}
			if err := node.Decode(&r); err != nil || r.OperationID == "" {
				return fmt.Errorf("x-replacement: want a mapping with operationId (and description)")
			}
			op.Replacement = &Replacement{OperationID: r.OperationID, Description: r.Description}
		case "x-try-it-hidden":
			// Either marker hides the operation; one saying false does not
			// undo the other, whichever the document writes first.
			op.Hidden = op.Hidden || boolNode(node)
		case "x-readme":
			var r struct {
				Explorer *bool `yaml:"explorer-enabled"`
			}
			if node.Decode(&r) == nil && r.Explorer != nil && !*r.Explorer {
				op.Hidden = true
			}
		case "x-interface-published":
			op.Unpublished = !boolNode(node)
		}
	}
	if err := sunsetBeforeDeprecation(op); err != nil {
		return err
	}
	if (!op.Sunset.IsZero() || !op.DeprecatedAt.IsZero() || op.Replacement != nil) && !op.Deprecated {
		return fmt.Errorf("x-sunset, x-deprecated-at and x-replacement need deprecated: true")
	}
	return nil
}

func boolNode(n *yaml.Node) bool {
	var b bool
	return n.Decode(&b) == nil && b
}

// parseDate reads an RFC 3339 date-time or a full date (midnight UTC).
func parseDate(n *yaml.Node) (time.Time, error) {
	var s string
	if err := n.Decode(&s); err != nil {
		return time.Time{}, fmt.Errorf("want a date such as 2030-12-05 or 2030-12-05T00:00:00Z")
	}
	if t, ok := ParseInstant(s); ok {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date such as 2030-12-05 or 2030-12-05T00:00:00Z", s)
}

// Methods returns the methods the document declares for path template p, sorted.
func (s *Spec) Methods(p string) []string {
	var out []string
	for _, op := range s.Operations {
		if op.Path == p {
			out = append(out, op.Method)
		}
	}
	sort.Slice(out, func(i, j int) bool { return methodRank(out[i]) < methodRank(out[j]) })
	return out
}

func methodRank(m string) int {
	for i, k := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if k == m {
			return i
		}
	}
	return 100
}

// sunsetBeforeDeprecation refuses a removal date before the date op is
// deprecated from.
func sunsetBeforeDeprecation(op *Operation) error {
	if !op.DeprecatedAt.IsZero() && !op.Sunset.IsZero() && op.Sunset.Before(op.DeprecatedAt) {
		return fmt.Errorf("x-sunset (%s) is before x-deprecated-at (%s)", op.Sunset.Format(time.DateOnly), op.DeprecatedAt.Format(time.DateOnly))
	}
	return nil
}

// SetSunset gives o the removal date at from configuration (conform
// --sunset), for a deployment whose document deprecates o without one: as
// x-sunset does, and with x-sunset's rules (deprecated: true, no earlier
// than x-deprecated-at). It replaces the document's x-sunset.
func (o *Operation) SetSunset(at time.Time) error {
	if !o.Deprecated {
		return fmt.Errorf("%s is not deprecated: a removal date needs deprecated: true in the document", o.ID)
	}
	was := o.Sunset
	o.Sunset = at
	if err := sunsetBeforeDeprecation(o); err != nil {
		o.Sunset = was
		return err
	}
	return nil
}
