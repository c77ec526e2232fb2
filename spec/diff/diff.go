// Package diff lists the changes between two versions of an OpenAPI
// document and classifies each for the clients of the API: breaking (a
// client that worked may now fail), flagged (the deprecation policy is not
// kept) or safe.
//
// The changes are found by libopenapi's what-changed (the same library
// petctl reads every document with, so both see the same model, $refs and
// all): it compares two documents deeply, property by property, with the
// line of each change. Its own verdicts are not used where they are blind to
// direction or policy. A schema keyword means opposite things in a request
// and in a response: a new enum value is harmless in what a client sends and
// breaks a client that reads it; a new required field breaks a request and
// is a promise in a response. what-changed reports a change of a shared
// schema once, under components, with one verdict for both; petctl finds
// where each schema is used (usage.go) and judges each direction by its own
// rule (rules.go). Authentication is compared on petctl's own reading of
// the document (auth.go), per operation, because what-changed sees a new
// requirement on an operation as an addition, never as the refusal it is
// for clients of the old one. Removals and deprecations are judged against
// the removal dates the document gives (deprecation.go).
package diff

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	whatchanged "github.com/pb33f/libopenapi/what-changed"
	"github.com/pb33f/libopenapi/what-changed/model"
	"github.com/petctl/petctl/spec"
	"go.yaml.in/yaml/v4"
)

// Severity is what a change means for the API's clients.
type Severity string

// The severities, from the worst.
const (
	// Breaking: a client that worked with the old document may fail.
	Breaking Severity = "breaking"
	// Flagged: no client fails today, but the deprecation policy is not
	// kept (no removal date, or too little notice).
	Flagged Severity = "flagged"
	// Safe: every client of the old document keeps working.
	Safe Severity = "safe"
)

// rank orders severities, the worst first.
func (s Severity) rank() int {
	switch s {
	case Breaking:
		return 0
	case Flagged:
		return 1
	}
	return 2
}

// Change is one difference between the documents, classified.
type Change struct {
	Severity Severity `json:"severity"`
	// Operation names the operation it is about ("GET /pets (listPets)"),
	// or the path for path-level parameters; empty for the document's
	// components and top level.
	Operation string `json:"operation,omitempty"`
	// Where is the part of it that changed: "parameter limit", "request
	// body application/json field status", "schema PetStatus".
	Where string `json:"where"`
	// What changed: "enum value adopted added", "type integer → string".
	What string `json:"what"`
	// Why is the reason for the severity.
	Why string `json:"why"`
	// At is the line of the change: in the new document, or in the old one
	// for what was removed ("old.yaml:89").
	At string `json:"at,omitempty"`
}

// Subject is the operation and part the change is about, in one phrase.
func (c Change) Subject() string {
	return strings.TrimSpace(c.Operation + " " + c.Where)
}

// Policy is what the changes are judged by.
type Policy struct {
	// Now is the date removals and notices are judged at; zero means the clock.
	Now time.Time
	// MinNotice is the least time between a deprecation (or now, when it
	// is later) and the removal date; zero means DefaultMinNotice.
	MinNotice time.Duration
}

// DefaultMinNotice is the least notice a deprecation must give before the
// removal date when the policy names none: six months, long enough for a
// client released twice a year to move off the operation.
const DefaultMinNotice = 180 * 24 * time.Hour

// Report is every change between two documents.
type Report struct {
	Old, New string // the documents' sources, as given
	Policy   Policy // with its defaults applied
	Changes  []Change
}

// Count is how many changes have severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, c := range r.Changes {
		if c.Severity == s {
			n++
		}
	}
	return n
}

// OK reports whether no change is breaking or flagged: the gate passes.
func (r *Report) OK() bool { return r.Count(Breaking) == 0 && r.Count(Flagged) == 0 }

// Compare lists the changes from old to new, classified by p.
func Compare(old, new *spec.Spec, p Policy) (*Report, error) {
	if p.Now.IsZero() {
		p.Now = time.Now()
	}
	p.Now = p.Now.UTC()
	if p.MinNotice == 0 {
		p.MinNotice = DefaultMinNotice
	}
	if p.MinNotice < 0 {
		return nil, fmt.Errorf("minimum notice %s: want a positive duration", p.MinNotice)
	}
	if old.Model == nil || new.Model == nil {
		return nil, fmt.Errorf("a document has no OpenAPI 3 model")
	}
	oldModel, err := old.ComparisonModel()
	if err != nil {
		return nil, err
	}
	newModel, err := new.ComparisonModel()
	if err != nil {
		return nil, err
	}
	w := &walker{old: old, new: new, policy: p, usage: schemaUsage(old, new), deprecations: map[string]bool{}, lines: map[string][]string{}, covered: map[string]bool{}, compared: map[comparison]bool{}, hashes: map[*yaml.Node]uint64{}}
	dc := whatchanged.CompareOpenAPIDocuments(oldModel.GoLow(), newModel.GoLow())
	if dc != nil {
		w.document(dc)
	}
	w.blindSpots(oldModel, newModel)
	w.auth()
	w.out = dedupe(w.out)
	slices.SortStableFunc(w.out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Severity.rank(), b.Severity.rank()), cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.Where, b.Where), cmp.Compare(a.What, b.What))
	})
	return &Report{Old: old.Source, New: new.Source, Policy: p, Changes: w.out}, nil
}

// dedupe drops a change reported twice: what-changed reports a change of
// a component schema under components and, for some references (a
// parameter's schema), at the reference too. The one kept is the most
// severe; of equals, the component's, judged by every use of the schema.
func dedupe(cs []Change) []Change {
	type key struct{ at, what string }
	best := map[key]int{}
	var out []Change
	for _, c := range cs {
		if c.At == "" {
			out = append(out, c)
			continue
		}
		k := key{c.At, c.What}
		i, seen := best[k]
		switch {
		case !seen:
			best[k] = len(out)
			out = append(out, c)
		case c.Severity.rank() < out[i].Severity.rank() || c.Severity == out[i].Severity && c.Operation == "":
			out[i] = c
		}
	}
	return out
}

// walker turns what-changed's tree into classified changes, keeping the
// context the tree's nodes lack: the operation, and which way the data
// flows.
type walker struct {
	old, new *spec.Spec
	policy   Policy
	usage    map[string]direction
	// deprecations marks the operations whose deprecation was judged.
	deprecations map[string]bool
	// lines are the files of multi-file documents, read to tell which
	// file a change's line is in (see locate).
	lines map[string][]string
	// covered are the places (place.key) whose schema what-changed
	// compared keyword by keyword; blindSpots compares the others.
	covered map[string]bool
	// compared and hashes are blindSpots': the pairs of schemas it has
	// compared, and each schema's content hash.
	compared map[comparison]bool
	hashes   map[*yaml.Node]uint64
	out      []Change
}

// place is where in the document a change lies.
type place struct {
	op    string    // "GET /pets (listPets)", a path, or ""
	where string    // "parameter limit"
	field string    // the field inside its schema: "owner.name", "tags[]"
	dir   direction // the way the data there flows
}

func (p place) in(more string) place {
	p.where = strings.TrimSpace(p.where + " " + more)
	return p
}

// at is the place of a field of the schema at p.
func (p place) at(field string) place {
	if p.field != "" && !strings.HasPrefix(field, "[") {
		field = "." + field
	}
	p.field += field
	return p
}

func (w *walker) add(p place, sev Severity, what, why string, c *model.Change) {
	where := p.where
	if p.field != "" {
		where = strings.TrimSpace(where + " field " + p.field)
	}
	w.out = append(w.out, Change{Severity: sev, Operation: p.op, Where: where, What: what, Why: why, At: w.at(c)})
}

// at is where a change is: its line in the new document, or in the old
// one for a removal.
func (w *walker) at(c *model.Change) string {
	if c == nil || c.Context == nil {
		return ""
	}
	if c.Context.NewLine != nil {
		return w.locate(w.new, c.Context.DocumentLocation, *c.Context.NewLine, c.New, c.Property)
	}
	if c.Context.OriginalLine != nil {
		return w.locate(w.old, c.Context.DocumentLocation, *c.Context.OriginalLine, c.Original, c.Property)
	}
	return ""
}

// locate names the file and line of a change in s. what-changed gives the
// line, but the file only for the changes of some objects (a schema, not
// an enum value of it): in a document split over files, the file is the
// one whose line holds the change's value (its property when it has
// none), when exactly one does; when none or several do, the change is
// given without a place rather than at a line of the wrong file.
func (w *walker) locate(s *spec.Spec, file string, line int, value, property string) string {
	if len(s.Files) <= 1 {
		return fmt.Sprintf("%s:%d", s.Source, line)
	}
	needle := cmp.Or(value, property)
	if file == "" && needle != "" {
		for _, f := range s.Files {
			if ls := w.fileLines(f); line >= 1 && line <= len(ls) && strings.Contains(ls[line-1], needle) {
				if file != "" {
					return ""
				}
				file = f
			}
		}
	}
	if file == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", fileName(s, file), line)
}

// fileLines are the lines of one of the documents' files, read once.
func (w *walker) fileLines(file string) []string {
	if ls, ok := w.lines[file]; ok {
		return ls
	}
	data, _ := os.ReadFile(file) // read when the document was; unreadable now, it holds nothing
	ls := strings.Split(string(data), "\n")
	w.lines[file] = ls
	return ls
}

// fileName is how the report names file, one of the files of s: relative
// to s's entry document, as s.Source names the entry ("v2/openapi.yaml",
// "main:api/openapi.yaml").
func fileName(s *spec.Spec, file string) string {
	rel, err := filepath.Rel(filepath.Dir(s.Files[0]), file)
	if err != nil {
		return file
	}
	return path.Join(path.Dir(filepath.ToSlash(s.Source)), filepath.ToSlash(rel))
}

func opName(op *spec.Operation) string {
	return fmt.Sprintf("%s %s (%s)", op.Method, op.Path, op.ID)
}

func (w *walker) document(dc *model.DocumentChanges) {
	top := place{}
	for _, c := range changes(dc.PropertyChanges) {
		w.fallback(top.in("document"), c)
	}
	if dc.InfoChanges != nil {
		for _, c := range dc.InfoChanges.GetAllChanges() {
			w.add(top.in("info"), Safe, describe(c), whyDocumentation, c)
		}
	}
	for _, sc := range dc.ServerChanges {
		for _, c := range sc.GetAllChanges() {
			w.fallback(top.in("servers"), c)
		}
	}
	for _, tc := range dc.TagChanges {
		for _, c := range tc.GetAllChanges() {
			w.add(top.in("tags"), Safe, describe(c), whyDocumentation, c)
		}
	}
	if dc.ExternalDocChanges != nil {
		for _, c := range dc.ExternalDocChanges.GetAllChanges() {
			w.add(top.in("externalDocs"), Safe, describe(c), whyDocumentation, c)
		}
	}
	if dc.ExtensionChanges != nil {
		for _, c := range dc.ExtensionChanges.GetAllChanges() {
			w.add(top.in("extensions"), Safe, describe(c), whyExtension, c)
		}
	}
	// Security requirements, document-wide or per operation, are compared
	// per operation by auth.
	if dc.PathsChanges != nil {
		w.paths(dc.PathsChanges)
	}
	if dc.ComponentsChanges != nil {
		w.components(dc.ComponentsChanges)
	}
}

func (w *walker) paths(pc *model.PathsChanges) {
	for _, c := range changes(pc.PropertyChanges) {
		switch c.ChangeType {
		case model.ObjectRemoved, model.PropertyRemoved:
			for _, op := range w.old.Operations {
				if op.Path == c.Property {
					w.removedOperation(op, c)
				}
			}
		case model.ObjectAdded, model.PropertyAdded:
			for _, op := range w.new.Operations {
				if op.Path == c.Property {
					w.add(place{op: opName(op)}, Safe, "operation added", whyAdded, c)
				}
			}
		default:
			w.fallback(place{op: c.Property}, c)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(pc.PathItemsChanges)) {
		w.pathItem(path, pc.PathItemsChanges[path])
	}
}

func (w *walker) pathItem(path string, pi *model.PathItemChanges) {
	if pi == nil {
		return
	}
	at := place{op: path}
	for _, c := range changes(pi.PropertyChanges) {
		method := strings.ToUpper(c.Property)
		if !isMethod(method) {
			w.fallback(at, c)
			continue
		}
		switch c.ChangeType {
		case model.ObjectRemoved, model.PropertyRemoved:
			if op := w.old.Find(method, path); op != nil {
				w.removedOperation(op, c)
			}
		case model.ObjectAdded, model.PropertyAdded:
			if op := w.new.Find(method, path); op != nil {
				w.add(place{op: opName(op)}, Safe, "operation added", whyAdded, c)
			}
		default:
			w.fallback(at, c)
		}
	}
	for _, pc := range pi.ParameterChanges {
		w.parameter(at, pc)
	}
	for _, sc := range pi.ServerChanges {
		for _, c := range sc.GetAllChanges() {
			w.fallback(at.in("servers"), c)
		}
	}
	if pi.ExtensionChanges != nil {
		for _, c := range pi.ExtensionChanges.GetAllChanges() {
			w.add(at.in("extensions"), Safe, describe(c), whyExtension, c)
		}
	}
	ops := map[string]*model.OperationChanges{
		"GET": pi.GetChanges, "PUT": pi.PutChanges, "POST": pi.PostChanges, "DELETE": pi.DeleteChanges,
		"OPTIONS": pi.OptionsChanges, "HEAD": pi.HeadChanges, "PATCH": pi.PatchChanges, "TRACE": pi.TraceChanges,
		"QUERY": pi.QueryChanges,
	}
	for m, oc := range pi.AdditionalOperationChanges {
		ops[strings.ToUpper(m)] = oc
	}
	for _, m := range slices.Sorted(maps.Keys(ops)) {
		if oc := ops[m]; oc != nil {
			w.operation(m, path, oc)
		}
	}
}

func isMethod(m string) bool {
	switch m {
	case "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "QUERY":
		return true
	}
	return false
}

func (w *walker) operation(method, path string, oc *model.OperationChanges) {
	oldOp, newOp := w.old.Find(method, path), w.new.Find(method, path)
	name := method + " " + path
	if newOp != nil {
		name = opName(newOp)
	} else if oldOp != nil {
		name = opName(oldOp)
	}
	at := place{op: name}
	for _, c := range changes(oc.PropertyChanges) {
		switch c.Property {
		case "deprecated":
			w.deprecation(oldOp, newOp, c)
		case "operationId":
			w.add(at.in("operationId"), Breaking, describe(c), whyOperationID, c)
		case "parameters":
			w.parameterListChange(at, newOp, c)
		case "requestBody":
			w.add(at.in("request body"), severityFor(c.ChangeType == model.ObjectRemoved || c.ChangeType == model.PropertyRemoved || newOp != nil && newOp.Body != nil && newOp.Body.Required), describe(c), whyRequestBody, c)
		case "security":
			// judged per operation by auth
		case "summary", "description", "tags", "externalDocs":
			w.add(at.in(c.Property), Safe, describe(c), whyDocumentation, c)
		default:
			w.fallback(at, c)
		}
	}
	if oc.ExtensionChanges != nil {
		for _, c := range oc.ExtensionChanges.GetAllChanges() {
			switch c.Property {
			case "x-sunset", "x-deprecated-at":
				w.deprecation(oldOp, newOp, c)
			default:
				w.add(at.in(c.Property), Safe, describe(c), whyExtension, c)
			}
		}
	}
	for _, pc := range oc.ParameterChanges {
		w.parameter(at, pc)
	}
	if rb := oc.RequestBodyChanges; rb != nil {
		body := at.in("request body")
		body.dir = toServer
		for _, c := range changes(rb.PropertyChanges) {
			switch c.Property {
			case "required":
				w.add(body, severityFor(c.New == "true"), describe(c), whyBodyRequired, c)
			case "content":
				w.mediaTypeListChange(body, c)
			case "description":
				w.add(body, Safe, describe(c), whyDocumentation, c)
			default:
				w.fallback(body, c)
			}
		}
		for _, mt := range slices.Sorted(maps.Keys(rb.ContentChanges)) {
			w.mediaType(body.in(mt), rb.ContentChanges[mt])
		}
	}
	if rs := oc.ResponsesChanges; rs != nil {
		for _, c := range changes(rs.PropertyChanges) {
			switch {
			case c.Property == "codes" || c.Property == "default":
				w.responseListChange(at, c)
			default:
				w.fallback(at.in("responses"), c)
			}
		}
		for _, code := range slices.Sorted(maps.Keys(rs.ResponseChanges)) {
			w.response(at.in("response "+code), rs.ResponseChanges[code])
		}
		if rs.DefaultChanges != nil {
			w.response(at.in("response default"), rs.DefaultChanges)
		}
	}
	for _, sc := range oc.ServerChanges {
		for _, c := range sc.GetAllChanges() {
			w.fallback(at.in("servers"), c)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(oc.CallbackChanges)) {
		for _, c := range oc.CallbackChanges[name].GetAllChanges() {
			w.fallback(at.in("callback "+name), c)
		}
	}
}

// parameterListChange judges a parameter added to or removed from an
// operation.
func (w *walker) parameterListChange(at place, newOp *spec.Operation, c *model.Change) {
	switch c.ChangeType {
	case model.ObjectRemoved, model.PropertyRemoved:
		w.add(at.in("parameter "+c.Original), Breaking, "removed", whyParamRemoved, c)
	case model.ObjectAdded, model.PropertyAdded:
		required := false
		if newOp != nil {
			for _, p := range newOp.Params {
				if p.Name == c.New && p.Required {
					required = true
				}
			}
		}
		if required {
			w.add(at.in("parameter "+c.New), Breaking, "added, required", whyParamRequired, c)
		} else {
			w.add(at.in("parameter "+c.New), Safe, "added, optional", whyAddedOptional, c)
		}
	default:
		w.fallback(at, c)
	}
}

func (w *walker) parameter(at place, pc *model.ParameterChanges) {
	if pc == nil {
		return
	}
	p := at.in("parameter " + pc.Name)
	p.dir = toServer
	for _, c := range changes(pc.PropertyChanges) {
		switch c.Property {
		case "required":
			w.add(p, severityFor(c.New == "true"), describe(c), whyParamRequired, c)
		case "in", "style", "explode", "allowReserved", "allowEmptyValue", "name":
			w.add(p, Breaking, describe(c), whyParamSerialised, c)
		case "description", "example", "examples", "deprecated":
			w.add(p, Safe, describe(c), whyDocumentation, c)
		default:
			w.fallback(p, c)
		}
	}
	if pc.SchemaChanges != nil {
		w.schema(p, pc.SchemaChanges)
	}
	for _, mt := range slices.Sorted(maps.Keys(pc.ContentChanges)) {
		w.mediaType(p.in(mt), pc.ContentChanges[mt])
	}
	if pc.ExtensionChanges != nil {
		for _, c := range pc.ExtensionChanges.GetAllChanges() {
			w.add(p, Safe, describe(c), whyExtension, c)
		}
	}
}

// responseListChange judges a response status added or removed.
func (w *walker) responseListChange(at place, c *model.Change) {
	code := cmp.Or(c.Original, c.New, c.Property)
	p := at.in("response " + code)
	switch c.ChangeType {
	case model.ObjectRemoved, model.PropertyRemoved:
		if strings.HasPrefix(code, "2") {
			w.add(p, Breaking, "removed", whySuccessRemoved, c)
		} else {
			w.add(p, Safe, "removed", whyErrorRemoved, c)
		}
	case model.ObjectAdded, model.PropertyAdded:
		w.add(p, Safe, "added", whyResponseAdded, c)
	default:
		w.fallback(p, c)
	}
}

func (w *walker) response(at place, rc *model.ResponseChanges) {
	if rc == nil {
		return
	}
	at.dir = toClient
	for _, c := range changes(rc.PropertyChanges) {
		switch c.Property {
		case "content":
			w.mediaTypeListChange(at, c)
		case "headers":
			name := cmp.Or(c.Original, c.New)
			w.add(at.in("header "+name), severityFor(c.ChangeType == model.ObjectRemoved || c.ChangeType == model.PropertyRemoved), describe(c), whyResponseHeader, c)
		case "description":
			w.add(at, Safe, describe(c), whyDocumentation, c)
		default:
			w.fallback(at, c)
		}
	}
	for _, mt := range slices.Sorted(maps.Keys(rc.ContentChanges)) {
		w.mediaType(at.in(mt), rc.ContentChanges[mt])
	}
	for _, name := range slices.Sorted(maps.Keys(rc.HeadersChanges)) {
		hc := rc.HeadersChanges[name]
		h := at.in("header " + name)
		for _, c := range changes(hc.PropertyChanges) {
			w.fallback(h, c)
		}
		if hc.SchemaChanges != nil {
			w.schema(h, hc.SchemaChanges)
		}
	}
	if rc.SchemaChanges != nil {
		w.schema(at, rc.SchemaChanges)
	}
	if rc.ExtensionChanges != nil {
		for _, c := range rc.ExtensionChanges.GetAllChanges() {
			w.add(at, Safe, describe(c), whyExtension, c)
		}
	}
}

// mediaTypeListChange judges a media type added to or removed from a
// request body or a response.
func (w *walker) mediaTypeListChange(at place, c *model.Change) {
	mt := cmp.Or(c.Original, c.New)
	switch c.ChangeType {
	case model.ObjectRemoved, model.PropertyRemoved:
		w.add(at.in(mt), Breaking, "media type removed", whyMediaTypeRemoved, c)
	case model.ObjectAdded, model.PropertyAdded:
		w.add(at.in(mt), Safe, "media type added", whyAdded, c)
	default:
		w.fallback(at, c)
	}
}

func (w *walker) mediaType(at place, mc *model.MediaTypeChanges) {
	if mc == nil {
		return
	}
	for _, c := range changes(mc.PropertyChanges) {
		switch c.Property {
		case "example", "examples":
			w.add(at, Safe, describe(c), whyDocumentation, c)
		default:
			w.fallback(at, c)
		}
	}
	if mc.SchemaChanges != nil {
		w.schema(at, mc.SchemaChanges)
	}
	if mc.ItemSchemaChanges != nil {
		w.schema(at.in("items"), mc.ItemSchemaChanges)
	}
}

func (w *walker) components(cc *model.ComponentsChanges) {
	for _, c := range changes(cc.PropertyChanges) {
		// A component added is unused until an operation refers to it; one
		// removed was unused, or the operations' own changes say so.
		w.add(place{where: "components"}, Safe, describe(c), whyComponentListed, c)
	}
	for _, name := range slices.Sorted(maps.Keys(cc.SchemaChanges)) {
		dir := w.usage[name]
		if dir == 0 {
			dir = toServer | toClient // unused: judged as if it were used both ways
		}
		w.schema(place{where: "schema " + name + dir.note(), dir: dir}, cc.SchemaChanges[name])
	}
	// Security schemes are compared per operation by auth, on what each
	// operation requires.
	if cc.ExtensionChanges != nil {
		for _, c := range cc.ExtensionChanges.GetAllChanges() {
			w.add(place{where: "components"}, Safe, describe(c), whyExtension, c)
		}
	}
}

// fallback keeps what-changed's own verdict, for the changes petctl has no
// rule of its own for.
func (w *walker) fallback(at place, c *model.Change) {
	sev, why := Safe, whyLibrarySafe
	if c.Breaking {
		sev, why = Breaking, whyLibraryBreaking
	}
	w.add(at, sev, describe(c), why, c)
}

func severityFor(breaking bool) Severity {
	if breaking {
		return Breaking
	}
	return Safe
}

func changes(pc *model.PropertyChanges) []*model.Change {
	if pc == nil {
		return nil
	}
	return pc.Changes
}

// describe says what a change did, in words.
func describe(c *model.Change) string {
	switch c.ChangeType {
	case model.Modified:
		return fmt.Sprintf("%s %s → %s", c.Property, quoteEmpty(c.Original), quoteEmpty(c.New))
	case model.PropertyAdded, model.ObjectAdded:
		if c.New != "" && c.New != c.Property {
			return fmt.Sprintf("%s %s added", c.Property, c.New)
		}
		return c.Property + " added"
	case model.PropertyRemoved, model.ObjectRemoved:
		if c.Original != "" && c.Original != c.Property {
			return fmt.Sprintf("%s %s removed", c.Property, c.Original)
		}
		return c.Property + " removed"
	}
	return c.Property + " changed"
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
