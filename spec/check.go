package spec

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/index"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v4"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// DocumentProblem is one way a document breaks the OpenAPI schema of its version.
type DocumentProblem struct {
	Line   int    // 0 when it cannot be placed
	Where  string // "paths./pets.get.responses.200", or "" for the document
	Reason string
	// Quirk marks a departure that generators commonly produce and every
	// other tool accepts (see quirkOf): served with a warning unless strict.
	Quirk bool
}

func (p DocumentProblem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d ", p.Line)
	}
	if p.Where != "" {
		fmt.Fprintf(&b, "(%s)", p.Where)
	} else if p.Line == 0 {
		b.WriteString("the document")
	}
	return strings.TrimSpace(b.String()) + ": " + p.Reason
}

// maxDocumentProblems bounds how many problems one message lists.
const maxDocumentProblems = 5

// checkDocument holds the document to the OpenAPI schema of its version and
// names each violation by line and place: the innermost failures of the
// schema, not the layers of oneOf and $ref around them. A typo such as
// 'descriptionn' would otherwise be served as if it meant something.
func (s *Spec) checkDocument() []DocumentProblem {
	info := s.Document.GetSpecInfo()
	problems := quoteNonStringKeys(info.RootNode)
	if ok, errs := schema_validation.ValidateOpenAPIDocumentWithPrecompiled(s.Document, openAPISchema(info.APISchema), documentCheck); !ok {
		problems = append(problems, s.documentProblems(errs)...)
	}
	return append(problems, s.patternProblems()...)
}

// patternProblems names each schema's pattern that neither of petctl's
// engines reads (compilePattern), a file's own with its name. The OpenAPI
// schema leaves patterns unchecked, and the library refuses the schema
// holding one whenever it compiles it, so every request or response that
// reaches it fails: served with a warning (a quirk, which --strict
// refuses), as the rest of the API works and a document of many
// operations should not be refused for one.
func (s *Spec) patternProblems() []DocumentProblem {
	indexes := []*index.SpecIndex{s.Model.Index}
	if s.Model.Rolodex != nil {
		indexes = append(indexes, s.Model.Rolodex.GetIndexes()...)
	}
	var out []DocumentProblem
	seen := map[*yaml.Node]bool{}
	for _, idx := range indexes {
		if idx == nil {
			continue
		}
		file := ""
		if idx != s.Model.Index {
			file = filepath.Base(idx.GetSpecAbsolutePath())
		}
		for _, ref := range idx.GetAllSchemas() {
			n := ref.Node
			if n == nil || n.Kind != yaml.MappingNode || seen[n] {
				continue
			}
			seen[n] = true
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, value := n.Content[i], n.Content[i+1]
				if key.Value != "pattern" || value.Kind != yaml.ScalarNode {
					continue
				}
				if _, err := compilePattern(value.Value); err != nil {
					out = append(out, DocumentProblem{Line: value.Line, Where: file, Quirk: true,
						Reason: fmt.Sprintf("pattern %q is not a regular expression (%v): the schema holding it refuses every value", value.Value, err)})
				}
			}
		}
	}
	return out
}

// openAPISchemas holds the OpenAPI schema of each version, compiled once
// per process. libopenapi-validator compiles it again for every document
// it checks, two thirds of parsing the Petstore (BenchmarkParse: 9.2 ms,
// 2.8 ms with this), which every start, reload and test server does. A
// compiled schema is read-only, so checks share it.
var openAPISchemas sync.Map // the schema's text -> *jsonschema.Schema

// documentCheck is the option of every check of a document: patterns
// compiled as petctl compiles them everywhere (compilePattern).
var documentCheck = config.WithRegexEngine(compilePattern)

// openAPISchema is the compiled OpenAPI schema whose text is given, or nil
// when it does not compile: the library then compiles it itself and says
// why it failed.
func openAPISchema(text string) *jsonschema.Schema {
	if c, ok := openAPISchemas.Load(text); ok {
		return c.(*jsonschema.Schema)
	}
	c, err := helpers.NewCompiledSchema("schema", []byte(text), config.NewValidationOptions(documentCheck))
	if err != nil {
		return nil
	}
	openAPISchemas.Store(text, c)
	return c
}

// verdict turns problems into warnings, when each is a quirk and strict is
// off, or into the error that refuses the document, listing them all.
func (s *Spec) verdict(problems []DocumentProblem, strict bool) (warnings []string, err error) {
	var fatal, quirks []DocumentProblem
	for _, p := range problems {
		if p.Quirk && !strict {
			quirks = append(quirks, p)
		} else {
			fatal = append(fatal, p)
		}
	}
	if len(fatal) == 0 {
		for _, p := range quirks {
			warnings = append(warnings, fmt.Sprintf("spec %s %s (served; --strict refuses it)", s.Source, p))
		}
		return warnings, nil
	}
	// Quirks are listed with the rest: whoever mends the document mends them too.
	fatal = append(fatal, quirks...)
	parts := make([]string, 0, len(fatal))
	for _, p := range fatal {
		parts = append(parts, p.String())
	}
	if len(parts) > maxDocumentProblems {
		parts = append(parts[:maxDocumentProblems], fmt.Sprintf("and %d more", len(parts)-maxDocumentProblems))
	}
	return nil, fmt.Errorf("spec %s is not a valid OpenAPI %s document: %s", s.Source, s.OpenAPI, strings.Join(parts, "; "))
}

// quoteNonStringKeys turns every mapping key that YAML reads as a number,
// a boolean or null (an unquoted status code, '200:') into the string it
// spells, as every other OpenAPI tool reads it, and reports each as a quirk.
// It runs before anything renders the document as JSON.
func quoteNonStringKeys(root *yaml.Node) []DocumentProblem {
	var out []DocumentProblem
	var walk func(n *yaml.Node, path []string)
	walk = func(n *yaml.Node, path []string) {
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for i, c := range n.Content {
				p := path
				if n.Kind == yaml.SequenceNode {
					p = append(path[:len(path):len(path)], strconv.Itoa(i))
				}
				walk(c, p)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				p := append(path[:len(path):len(path)], k.Value)
				if t := k.ShortTag(); k.Kind == yaml.ScalarNode && t != "!!str" && t != "!!merge" {
					out = append(out, DocumentProblem{
						Line: k.Line, Where: strings.Join(p, "."), Quirk: true,
						Reason: fmt.Sprintf("the key %s is not a string (quote it: '%s')", k.Value, k.Value),
					})
					k.Tag, k.Style = "!!str", 0
				}
				walk(n.Content[i+1], p)
			}
		}
	}
	walk(root, nil)
	return out
}

// documentProblems turns the validator's findings into problems, each placed.
func (s *Spec) documentProblems(errs []*verrors.ValidationError) []DocumentProblem {
	var out []DocumentProblem
	for _, e := range errs {
		if jk := originalSchemaError(e); jk != nil {
			out = append(out, s.leafProblems(jk)...)
			continue
		}
		for _, se := range e.SchemaValidationErrors {
			out = append(out, DocumentProblem{Line: se.Line, Where: se.FieldPath, Reason: se.Reason})
		}
		if len(e.SchemaValidationErrors) == 0 {
			where, _ := e.Context.(string)
			p := DocumentProblem{Line: e.SpecLine, Where: where, Reason: e.Reason}
			if p.Reason == "" {
				p.Reason = e.Message
			}
			if p.Line <= 1 && p.Where == "document root" {
				p.Line, p.Where = 0, ""
			}
			out = append(out, p)
		}
	}
	return out
}

func originalSchemaError(e *verrors.ValidationError) *jsonschema.ValidationError {
	for _, se := range e.SchemaValidationErrors {
		if se.OriginalJsonSchemaError != nil {
			return se.OriginalJsonSchemaError
		}
	}
	return nil
}

// leafProblems describes the failures without causes, each once.
func (s *Spec) leafProblems(root *jsonschema.ValidationError) []DocumentProblem {
	var out []DocumentProblem
	seen := map[string]bool{}
	pr := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range withoutReferenceBranch(e) {
				walk(c)
			}
			return
		}
		if f, ok := e.ErrorKind.(*kind.Format); ok && f.Want == "regex" {
			// OpenAPI 3.0's schema has every pattern be a "regex":
			// patternProblems names each one petctl cannot read, as a
			// quirk, as it does under 3.1, whose schema leaves them open.
			return
		}
		reason := e.ErrorKind.LocalizedString(pr)
		if _, ok := e.ErrorKind.(*kind.FalseSchema); ok && len(e.InstanceLocation) > 0 {
			reason = fmt.Sprintf("'%s' is not allowed here (extensions start with x-)", e.InstanceLocation[len(e.InstanceLocation)-1])
		}
		p := DocumentProblem{
			Line:   s.lineOf(e.InstanceLocation),
			Where:  strings.Join(e.InstanceLocation, "."),
			Reason: reason,
			Quirk:  quirkOf(e),
		}
		if key := p.String(); !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	walk(root)
	return out
}

// withoutReferenceBranch returns e's causes without the "missing property
// '$ref'" of a schema-or-reference alternative when another branch failed
// too: that branch only says the value is not a $ref, which nobody meant.
func withoutReferenceBranch(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
	default:
		return e.Causes
	}
	var kept []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if !onlyMissingRef(c) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return e.Causes
	}
	return kept
}

func onlyMissingRef(e *jsonschema.ValidationError) bool {
	if len(e.Causes) == 0 {
		r, ok := e.ErrorKind.(*kind.Required)
		return ok && len(r.Missing) == 1 && r.Missing[0] == "$ref"
	}
	for _, c := range e.Causes {
		if !onlyMissingRef(c) {
			return false
		}
	}
	return true
}

// quirkOf says whether a violation is one that generators commonly produce
// and that changes nothing petctl reads: a null where a text is expected
// (an empty 'description:'), a response without its description, or a
// $ref standing for a whole map of a split document ('parameters: {$ref:
// ./parameters/_index.yaml}'), which libopenapi resolves as bundlers do. A
// misspelt or misplaced key is never one.
func quirkOf(e *jsonschema.ValidationError) bool {
	loc := e.InstanceLocation
	if len(loc) > 0 && loc[len(loc)-1] == "$ref" {
		return true
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Pattern:
		return k.Got == "$ref"
	case *kind.Type:
		return k.Got == "null"
	case *kind.Required:
		if len(k.Missing) != 1 || k.Missing[0] != "description" {
			return false
		}
		// paths.<path>.<method>.responses.<code> or components.responses.<name>
		return len(loc) >= 2 && loc[len(loc)-2] == "responses"
	}
	return false
}

// lineOf finds the line of the value at path in the document's YAML, the
// line of its key for a mapping entry; 0 when it cannot.
func (s *Spec) lineOf(path []string) int {
	info := s.Document.GetSpecInfo()
	if info == nil || info.RootNode == nil || len(info.RootNode.Content) == 0 {
		return 0
	}
	n, line := info.RootNode.Content[0], info.RootNode.Content[0].Line
	for _, seg := range path {
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		default:
			return line
		}
	}
	return line
}
