package reference

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// page is what the template shows: the document read once into the words
// and values the HTML needs.
type page struct {
	Title, Version, OpenAPI, Description string
	Source                               string
	// Assets is the prefix of the CSS and script's URLs, relative to the page.
	Assets string
	// CSP is the page's Content-Security-Policy: scripts and styles from
	// the page's own files only, requests to the document's servers only.
	CSP          string
	Servers      []serverView
	Mock         bool // served beside the mock: try-it can call it on the page's origin
	Schemes      []schemeView
	Deprecations []*opView
	Groups       []*groupView
	OpCount      int
	// Data is what the script reads: the schema table, and for each
	// operation what try-it needs to build a request.
	Data pageData
}

type serverView struct {
	URL, Description string
}

type schemeView struct {
	Name        string
	Sends       string // how the credential travels: "Authorization: Bearer <key>"
	Description string
	Unsupported string // why try-it cannot send it
	Field       string // the input's label
}

type groupView struct {
	ID, Name, Description string
	Ops                   []*opView
}

// opView is one operation as the page shows it.
type opView struct {
	Anchor, ID, Method, Path, Summary, Description string
	Deprecated                                     bool
	DeprecatedAt, Sunset                           string // "5 December 2030"; "" when not given
	SunsetISO                                      string
	Replacement                                    *replacementView
	Hidden                                         bool
	Security                                       string // "bearerAuth", "a or b and c", "" for none
	Params                                         []paramView
	Body                                           *bodyView
	Responses                                      []responseView
	ExampleRequest, ExampleResponse                string
}

type replacementView struct {
	Anchor, Label, Description string
}

type paramView struct {
	Name, In, Description, Type string
	Required                    bool
	Facts                       []string
	Schema                      int // the schema table's index, -1 for none
	Expandable                  bool
}

type bodyView struct {
	Required    bool
	MediaTypes  string
	Description string
	Schema      int
	Type        string
}

type responseView struct {
	Code, Description, MediaTypes, Headers string
	Schema                                 int
	Type                                   string
}

// pageData is the JSON the script reads.
type pageData struct {
	BasePath string             `json:"basePath"`
	Mock     bool               `json:"mock"`
	Server   string             `json:"server"` // try-it's default when not beside the mock
	Servers  []string           `json:"servers"`
	Schemes  []schemeData       `json:"schemes"`
	Ops      map[string]tryData `json:"ops"` // by the operation's anchor; none for those hidden from try-it
	Schemas  []*schemaEntry     `json:"schemas"`
}

type schemeData struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	In    string `json:"in"`
	Param string `json:"param"`
	// Var is the shell variable the curl command names instead of the key.
	Var         string `json:"var"`
	Unsupported string `json:"unsupported,omitempty"`
}

// tryData is what try-it needs of an operation.
type tryData struct {
	Method     string     `json:"method"`
	Path       string     `json:"path"`
	Params     []tryParam `json:"params"`
	Media      []string   `json:"media,omitempty"`
	Body       string     `json:"body,omitempty"`
	BodyNeeded bool       `json:"bodyRequired,omitempty"`
	Security   [][]string `json:"security,omitempty"`
}

type tryParam struct {
	Name     string   `json:"name"`
	In       string   `json:"in"`
	Required bool     `json:"required,omitempty"`
	Value    string   `json:"value,omitempty"`
	Enum     []string `json:"enum,omitempty"`
}

// dateFormat is how the page writes a date: "5 December 2030", as the
// description does.
const dateFormat = "2 January 2006"

// untagged names the group of operations without a tag.
const untagged = "Other operations"

func buildPage(s *spec.Spec, o Options, mock bool, assets string) *page {
	p := &page{
		Title: s.Title, Version: s.Version, OpenAPI: s.OpenAPI, Description: s.Description(),
		Source: sourceName(s.Source), Assets: assets, Mock: mock,
	}
	if p.Title == "" {
		p.Title = "API reference"
	}
	for i, u := range s.Servers {
		p.Servers = append(p.Servers, serverView{URL: u, Description: s.ServerDescription(i)})
	}
	server := o.Server
	if server == "" && !mock && len(s.Servers) > 0 {
		server = s.Servers[0]
	}
	p.Data = pageData{BasePath: s.BasePath, Mock: mock, Server: server, Servers: append([]string{}, s.Servers...), Ops: map[string]tryData{}}
	if server != "" && !slices.Contains(p.Data.Servers, server) {
		p.Data.Servers = append(p.Data.Servers, server)
	}
	p.Schemes, p.Data.Schemes = schemes(s)
	p.CSP = csp(p.Data.Servers)

	table := newSchemaTable()
	anchors := map[string]bool{}
	views := map[*spec.Operation]*opView{}
	for _, op := range s.Operations {
		v := opFor(s, op, table, p.Data.Servers)
		v.Anchor = unique(anchors, "op-"+slug(op.ID))
		views[op] = v
		if !op.Hidden {
			p.Data.Ops[v.Anchor] = tryFor(s, op)
		}
	}
	for _, op := range s.Operations {
		v := views[op]
		if r := op.Replacement; r != nil {
			if to := s.Operation(r.OperationID); to != nil {
				v.Replacement = &replacementView{Anchor: views[to].Anchor, Label: to.ID + " (" + to.Method + " " + to.Path + ")", Description: r.Description}
			}
		}
		if op.Deprecated {
			p.Deprecations = append(p.Deprecations, v)
		}
	}
	p.Groups = groups(s, views)
	p.OpCount = len(s.Operations)
	p.Data.Schemas = table.entries
	return p
}

// sourceName names the document by its file, not its path: a published
// page has no business showing the folders of the machine that built it.
func sourceName(source string) string {
	if source == spec.DefaultSource {
		return source
	}
	return filepath.Base(source)
}

// groups puts each operation under its first tag: the declared tags in
// the document's order, then the others as they first appear, then those
// without a tag.
func groups(s *spec.Spec, views map[*spec.Operation]*opView) []*groupView {
	byName := map[string]*groupView{}
	var out []*groupView
	ids := map[string]bool{}
	add := func(name, desc string) *groupView {
		if g := byName[name]; g != nil {
			return g
		}
		g := &groupView{ID: unique(ids, "tag-"+slug(name)), Name: name, Description: desc}
		byName[name] = g
		out = append(out, g)
		return g
	}
	for _, t := range s.Tags() {
		add(t.Name, t.Description)
	}
	var rest []*spec.Operation
	for _, op := range s.Operations {
		if tags := op.Tags(); len(tags) > 0 {
			g := add(tags[0], "")
			g.Ops = append(g.Ops, views[op])
		} else {
			rest = append(rest, op)
		}
	}
	for _, op := range rest {
		g := add(untagged, "")
		g.Ops = append(g.Ops, views[op])
	}
	kept := out[:0]
	for _, g := range out {
		if len(g.Ops) > 0 {
			kept = append(kept, g)
		}
	}
	return kept
}

func opFor(s *spec.Spec, op *spec.Operation, table *schemaTable, servers []string) *opView {
	v := &opView{
		ID: op.ID, Method: op.Method, Path: op.Path, Summary: op.Summary, Description: op.Description(),
		Deprecated: op.Deprecated, Hidden: op.Hidden,
		Security: securityLabel(op.Requirements),
	}
	if !op.DeprecatedAt.IsZero() {
		v.DeprecatedAt = op.DeprecatedAt.Format(dateFormat)
	}
	if !op.Sunset.IsZero() {
		v.Sunset, v.SunsetISO = op.Sunset.Format(dateFormat), op.Sunset.Format(time.DateOnly)
	}
	for _, prm := range op.Params {
		sch := s.ParamSchema(op, prm)
		pv := paramView{Name: prm.Name, In: prm.In, Required: prm.Required, Description: op.ParamDescription(prm), Schema: table.add(sch)}
		if sch != nil {
			e := table.entries[pv.Schema]
			pv.Type, pv.Facts, pv.Expandable = e.Type, e.Facts, expandable(e)
		}
		v.Params = append(v.Params, pv)
	}
	var reqBody string
	if b := op.Body; b != nil {
		sch := s.BodySchema(op)
		bv := &bodyView{Required: b.Required, MediaTypes: strings.Join(b.MediaTypes, ", "), Description: op.BodyDescription(), Schema: table.add(sch)}
		if sch != nil {
			bv.Type = table.entries[bv.Schema].Type
		}
		v.Body = bv
		reqBody = example(sch, spec.InRequest)
	}
	var shown *spec.Response
	for _, r := range append(append([]*spec.Response{}, op.Responses...), op.Default) {
		if r == nil {
			continue
		}
		sch := s.ResponseSchema(r)
		rv := responseView{Code: r.Code, Description: op.ResponseDescription(r), MediaTypes: strings.Join(r.MediaTypes, ", "), Headers: strings.Join(r.HeaderNames(), ", "), Schema: table.add(sch)}
		if sch != nil {
			rv.Type = table.entries[rv.Schema].Type
		}
		v.Responses = append(v.Responses, rv)
		if shown == nil && r.Status >= 200 && r.Status < 300 {
			shown = r
		}
	}
	if shown == nil && op.Default != nil {
		shown = op.Default
	}
	if !op.Hidden {
		v.ExampleRequest = exampleRequest(s, op, servers, reqBody)
		if shown != nil {
			v.ExampleResponse = exampleResponse(shown, example(s.ResponseSchema(shown), spec.InResponse))
		}
	}
	return v
}

func expandable(e *schemaEntry) bool {
	return len(e.Props) > 0 || e.Items != nil || e.Extra != nil || len(e.AllOf)+len(e.OneOf)+len(e.AnyOf) > 0 || e.Not != nil
}

// exampleRequest writes the request as it travels to the first server:
// the required parameters with their example values, the credential as a
// placeholder, and the body.
func exampleRequest(s *spec.Spec, op *spec.Operation, servers []string, body string) string {
	path, host := s.BasePath, ""
	if len(servers) > 0 {
		if u, err := url.Parse(servers[0]); err == nil {
			path, host = strings.TrimRight(u.Path, "/"), u.Host
		}
	}
	target := op.Path
	var query, headers []string
	for _, prm := range op.Params {
		if !prm.Required {
			continue
		}
		val := paramExample(s.ParamSchema(op, prm), prm.Name, true)
		switch prm.In {
		case "path":
			target = strings.ReplaceAll(target, "{"+prm.Name+"}", url.PathEscape(val))
		case "query":
			query = append(query, url.QueryEscape(prm.Name)+"="+url.QueryEscape(val))
		case "header":
			headers = append(headers, prm.Name+": "+val)
		case "cookie":
			headers = append(headers, "Cookie: "+prm.Name+"="+val)
		}
	}
	if len(op.Requirements) > 0 {
		for _, use := range op.Requirements[0] {
			if use.Scheme.Kind == spec.SchemeUnsupported {
				continue
			}
			ex := use.Scheme.Example("<" + keyWord(use.Scheme) + ">")
			if q, ok := strings.CutPrefix(ex, "?"); ok {
				query = append(query, q) // the placeholder as a person types it
			} else {
				headers = append(headers, ex)
			}
		}
	}
	line := op.Method + " " + path + target
	if len(query) > 0 {
		line += "?" + strings.Join(query, "&")
	}
	var b strings.Builder
	b.WriteString(line + " HTTP/1.1\n")
	if host != "" {
		b.WriteString("Host: " + host + "\n")
	}
	for _, h := range headers {
		b.WriteString(h + "\n")
	}
	if op.Body != nil && body != "" {
		mt := spec.JSON
		if len(op.Body.MediaTypes) > 0 {
			mt = op.Body.MediaTypes[0]
		}
		b.WriteString("Content-Type: " + mt + "\n\n" + body + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func exampleResponse(r *spec.Response, body string) string {
	status := r.Code
	if r.Status > 0 {
		status = strconv.Itoa(r.Status) + " " + http.StatusText(r.Status)
	}
	out := "HTTP/1.1 " + strings.TrimSpace(status)
	if body != "" {
		mt := spec.JSON
		for _, m := range r.MediaTypes {
			if strings.Contains(m, "json") {
				mt = m
				break
			}
		}
		out += "\nContent-Type: " + mt + "\n\n" + body
	}
	return out
}

// keyWord names what a scheme's credential is, for placeholders and labels.
func keyWord(sc *spec.Scheme) string {
	switch sc.Kind {
	case spec.SchemeBasic:
		return "user:password"
	case spec.SchemeOAuth2, spec.SchemeOpenID:
		return "access token"
	}
	return "API key"
}

// securityLabel says which schemes an operation takes: "a or b and c".
func securityLabel(reqs []spec.Requirement) string {
	var alts []string
	for _, alt := range reqs {
		var names []string
		for _, use := range alt {
			n := use.Scheme.Name
			if len(use.Scopes) > 0 {
				n += " (" + strings.Join(use.Scopes, ", ") + ")"
			}
			names = append(names, n)
		}
		alts = append(alts, strings.Join(names, " and "))
	}
	return strings.Join(alts, ", or ")
}

// schemes lists the security schemes the operations use, for the
// credentials form and the script.
func schemes(s *spec.Spec) ([]schemeView, []schemeData) {
	var used []*spec.Scheme
	seen := map[string]bool{}
	for _, op := range s.Operations {
		for _, alt := range op.Requirements {
			for _, use := range alt {
				if !seen[use.Scheme.Name] {
					seen[use.Scheme.Name] = true
					used = append(used, use.Scheme)
				}
			}
		}
	}
	var views []schemeView
	var data []schemeData
	for _, sc := range used {
		v := schemeView{Name: sc.Name, Description: s.SchemeDescription(sc.Name), Unsupported: sc.Unsupported}
		d := schemeData{Name: sc.Name, Kind: string(sc.Kind), In: sc.In, Param: sc.Param, Var: shellVar(sc.Name, len(used)), Unsupported: sc.Unsupported}
		if sc.Kind != spec.SchemeUnsupported {
			word := keyWord(sc)
			v.Sends = sc.Example("<" + word + ">")
			v.Field = strings.ToUpper(word[:1]) + word[1:] + " for " + sc.Name
		}
		views = append(views, v)
		data = append(data, d)
	}
	return views, data
}

// shellVar is the variable a curl command names instead of a key:
// PETCTL_API_KEY, as petctl conform reads it, when the document has one
// scheme; PETCTL_KEY_<NAME> for each when it has several.
func shellVar(name string, schemes int) string {
	if schemes == 1 {
		return "PETCTL_API_KEY"
	}
	return "PETCTL_KEY_" + strings.ToUpper(nonWord.ReplaceAllString(name, "_"))
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

func tryFor(s *spec.Spec, op *spec.Operation) tryData {
	d := tryData{Method: op.Method, Path: op.Path, Params: []tryParam{}}
	for _, prm := range op.Params {
		sch := s.ParamSchema(op, prm)
		tp := tryParam{Name: prm.Name, In: prm.In, Required: prm.Required, Value: paramExample(sch, prm.Name, prm.Required)}
		if sch != nil {
			for _, e := range sch.Enum {
				tp.Enum = append(tp.Enum, paramText(e))
			}
		}
		d.Params = append(d.Params, tp)
	}
	if b := op.Body; b != nil {
		d.Media, d.BodyNeeded = b.MediaTypes, b.Required
		d.Body = example(s.BodySchema(op), spec.InRequest)
	}
	for _, alt := range op.Requirements {
		var names []string
		for _, use := range alt {
			names = append(names, use.Scheme.Name)
		}
		d.Security = append(d.Security, names)
	}
	return d
}

// csp allows the page's own files, and requests to the servers try-it may
// call: the page's origin (the mock) and each server's.
func csp(servers []string) string {
	connect := []string{"'self'"}
	for _, srv := range servers {
		u, err := url.Parse(srv)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(u.Host, " ;,'\"") {
			continue
		}
		if o := u.Scheme + "://" + u.Host; !slices.Contains(connect, o) {
			connect = append(connect, o)
		}
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src " +
		strings.Join(connect, " ") + "; base-uri 'none'; form-action 'none'"
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// slug makes a fragment identifier of an operationId or tag.
func slug(s string) string {
	out := strings.Trim(unsafeID.ReplaceAllString(s, "-"), "-")
	if out == "" {
		out = "x"
	}
	return out
}

// unique keeps ids apart: a second "op-x" becomes "op-x-2".
func unique(used map[string]bool, id string) string {
	out := id
	for n := 2; used[out]; n++ {
		out = fmt.Sprintf("%s-%d", id, n)
	}
	used[out] = true
	return out
}

var (
	listItem  = regexp.MustCompile(`^\s*([-*+]|\d+[.)])\s`)
	blankLine = regexp.MustCompile(`\n\s*\n`)
)

// paragraphs reads a description as its author wrote it: blank lines part
// paragraphs, a line break inside one is a space (descriptions are hard
// wrapped in YAML), except before a list item, which keeps its own line.
func paragraphs(text string) []string {
	var out []string
	for _, block := range blankLine.Split(strings.TrimSpace(text), -1) {
		lines := strings.Split(block, "\n")
		var b strings.Builder
		for i, l := range lines {
			switch {
			case i == 0:
			case listItem.MatchString(l):
				b.WriteString("\n")
			default:
				b.WriteString(" ")
			}
			b.WriteString(strings.TrimSpace(l))
		}
		if b.Len() > 0 {
			out = append(out, b.String())
		}
	}
	return out
}
