// Package spec loads an OpenAPI 3 description, embeds the Petstore default
// and derives from it what both the engine and the conformance suite need:
// the operations, their security, deprecation and parameters, and the
// collections (create, list, read) that the paths describe.
package spec

import (
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

//go:embed petstore.yaml
var petstore []byte

// DefaultSource names the embedded document in messages.
const DefaultSource = "embedded petstore.yaml"

// DefaultDocument returns a copy of the embedded Petstore document.
func DefaultDocument() []byte {
	return append([]byte(nil), petstore...)
}

// Spec is a parsed OpenAPI 3 document and what petctl derived from it.
type Spec struct {
	Source      string // file name, or DefaultSource
	Raw         []byte
	Document    libopenapi.Document
	Model       *v3.Document
	Title       string
	Version     string
	OpenAPI     string
	BasePath    string // path of the first server URL, without a trailing slash ("/v1")
	Servers     []string
	Operations  []*Operation
	Collections []*Collection
	// SecuritySchemes are the components' schemes by name.
	SecuritySchemes map[string]*v3.SecurityScheme
}

// Default parses the embedded Petstore document.
func Default() (*Spec, error) {
	return Parse(DefaultDocument(), DefaultSource)
}

// Load reads and parses the document at path; an empty path means the embedded default.
func Load(path string) (*Spec, error) {
	if path == "" {
		return Default()
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", path, unwrapPathError(err))
	}
	return Parse(raw, path)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse parses raw as an OpenAPI 3 document; source names it in errors.
func Parse(raw []byte, source string) (*Spec, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, fmt.Errorf("spec %s: the file is empty", source)
	}
	doc, err := libopenapi.NewDocumentWithConfiguration(raw, &datamodel.DocumentConfiguration{
		// A mock must not reach out to the network or the file system
		// because a document says so.
		AllowFileReferences:   false,
		AllowRemoteReferences: false,
	})
	if err != nil {
		return nil, fmt.Errorf("spec %s: %s", source, oneLine(err.Error()))
	}
	if !strings.HasPrefix(doc.GetVersion(), "3.") {
		return nil, fmt.Errorf("spec %s: OpenAPI version %q is not supported (petctl reads OpenAPI 3.0 and 3.1)", source, doc.GetVersion())
	}
	model, err := doc.BuildV3Model()
	if err != nil || model == nil {
		msg := "the document could not be built"
		if err != nil {
			msg = oneLine(err.Error())
		}
		return nil, fmt.Errorf("spec %s: %s", source, msg)
	}
	s := &Spec{
		Source:          source,
		Raw:             raw,
		Document:        doc,
		Model:           &model.Model,
		OpenAPI:         doc.GetVersion(),
		SecuritySchemes: map[string]*v3.SecurityScheme{},
	}
	if info := s.Model.Info; info != nil {
		s.Title, s.Version = info.Title, info.Version
	}
	if err := s.readServers(); err != nil {
		return nil, fmt.Errorf("spec %s: %w", source, err)
	}
	if c := s.Model.Components; c != nil && c.SecuritySchemes != nil {
		for p := c.SecuritySchemes.First(); p != nil; p = p.Next() {
			s.SecuritySchemes[p.Key()] = p.Value()
		}
	}
	if err := s.readOperations(); err != nil {
		return nil, fmt.Errorf("spec %s: %w", source, err)
	}
	s.Collections = inferCollections(s.Operations)
	return s, nil
}

func (s *Spec) readServers() error {
	for _, srv := range s.Model.Servers {
		s.Servers = append(s.Servers, srv.URL)
	}
	if len(s.Servers) == 0 {
		return nil
	}
	u, err := url.Parse(s.Servers[0])
	if err != nil {
		return fmt.Errorf("servers[0].url %q: %v", s.Servers[0], err)
	}
	s.BasePath = strings.TrimRight(u.Path, "/")
	return nil
}

// Operation returns the operation with the given operationId, or nil.
func (s *Spec) Operation(id string) *Operation {
	for _, op := range s.Operations {
		if op.ID == id {
			return op
		}
	}
	return nil
}

// Find returns the operation for method and path template, or nil.
func (s *Spec) Find(method, path string) *Operation {
	for _, op := range s.Operations {
		if op.Method == method && op.Path == path {
			return op
		}
	}
	return nil
}

// ErrorSchema returns the schema the document uses for error responses: the
// JSON schema of the 4xx responses, the one most operations share.
func (s *Spec) ErrorSchema() *base.Schema {
	type seen struct {
		schema *base.Schema
		count  int
		first  int
	}
	byKey := map[string]*seen{}
	for _, op := range s.Operations {
		for _, r := range op.Responses {
			if r.Status < 400 || r.Status > 499 || r.Schema == nil {
				continue
			}
			key := fmt.Sprintf("%p", r.Schema)
			if ref := r.SchemaProxy.GetReference(); ref != "" {
				key = ref
			}
			e := byKey[key]
			if e == nil {
				e = &seen{schema: r.Schema, first: len(byKey)}
				byKey[key] = e
			}
			e.count++
		}
	}
	var best *seen
	for _, e := range byKey {
		if best == nil || e.count > best.count || (e.count == best.count && e.first < best.first) {
			best = e
		}
	}
	if best == nil {
		return nil
	}
	return best.schema
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		rest := strings.Count(s[i:], "\n")
		s = s[:i] + fmt.Sprintf(" (and %d more lines)", rest)
	}
	return s
}
