// Package spec loads an OpenAPI 3 description, embeds the Petstore default
// and derives from it what both the engine and the conformance suite need:
// the operations, their security, deprecation and parameters, and the
// collections (create, list, read) that the paths describe.
package spec

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/index"
	"github.com/pb33f/libopenapi/utils"
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
	Source string // file name, or DefaultSource
	Raw    []byte
	// Files are the absolute paths of every file the document was read
	// from, its entry first; none for a document not read from a file.
	Files []string
	// Digest is the SHA-256, in hex, of the document's files (their names
	// and contents), or of Raw for a document not read from a file: two
	// documents with the same digest are the same document.
	Digest      string
	files       *documentFiles // as checkRefs read them; nil as Files is
	Document    libopenapi.Document
	Model       *v3.Document
	Title       string
	Version     string
	OpenAPI     string
	BasePath    string   // path of the first server URL, without a trailing slash ("/v1")
	Servers     []string // the servers' URLs, their variables filled
	Operations  []*Operation
	Collections []*Collection
	// Resources are what the paths describe, with the kind of each
	// operation on them (see Resource).
	Resources []*Resource
	// SecuritySchemes are the components' schemes by name.
	SecuritySchemes map[string]*v3.SecurityScheme
	// Schemes are the same schemes, classified (see SchemeKind).
	Schemes map[string]*Scheme
	// Warnings name what the document does that the OpenAPI schema forbids
	// but petctl serves anyway (see LoadOptions.Strict), one line each.
	Warnings []string
	// problems are the document's departures from the OpenAPI schema, its
	// quirks included, found while reading it.
	problems []DocumentProblem
	schemas  *schemaReader
	errors   errorFormats
}

// Default parses the embedded Petstore document.
func Default() (*Spec, error) {
	return Parse(DefaultDocument(), DefaultSource)
}

// LoadOptions say how a document is read. The zero value reads it as
// written, from servers[0]'s path, with the quirks of generated documents
// served with a warning.
type LoadOptions struct {
	// Strict refuses the quirks of generated documents (an unquoted status
	// code, an empty description) instead of serving them with a warning.
	Strict bool
	// BasePath mounts the operations under this path instead of the path of
	// servers[0]; "/" mounts them at the root. Empty: servers[0]'s path.
	BasePath string
	// ServerVariables give values to the {variables} of the servers' URLs
	// by name, instead of their defaults.
	ServerVariables map[string]string
	// RefFolders are local folders, besides the document's own, that its
	// file $refs may reach.
	RefFolders []string
}

// Load reads and parses the document at path; an empty path means the embedded default.
func Load(path string) (*Spec, error) {
	return LoadWith(path, LoadOptions{})
}

// LoadWith reads and parses the document at path as o says; an empty path
// means the embedded default. A document may be split over several files:
// its relative $refs are read from its folder (and o.RefFolders), never
// from anywhere else or the network.
func LoadWith(path string, o LoadOptions) (*Spec, error) {
	if path == "" {
		return parse(DefaultDocument(), DefaultSource, nil, o)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", path, unwrapPathError(err))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", path, err)
	}
	roots, err := refRoots(abs, o.RefFolders)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", path, err)
	}
	files, err := checkRefs(abs, raw, roots)
	if err != nil {
		return nil, fmt.Errorf("spec %s: a $ref cannot be followed: %w", path, joinLines(err))
	}
	s, err := parse(raw, path, files, o)
	if err != nil {
		return nil, err
	}
	s.Files, s.Digest = files.names, files.digest
	return s, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse parses raw as a single-file OpenAPI 3 document; source names it in errors.
func Parse(raw []byte, source string) (*Spec, error) {
	return parse(raw, source, nil, LoadOptions{})
}

// documentConfig is how libopenapi reads a document; files are those
// checkRefs read, nil for a document not read from a file.
func documentConfig(files *documentFiles, log *slog.Logger) *datamodel.DocumentConfiguration {
	cfg := &datamodel.DocumentConfiguration{
		// A mock must not reach out to the network or the file system
		// because a document says so: only files checkRefs allowed are read.
		AllowFileReferences:   false,
		AllowRemoteReferences: false,
		// A $ref inside an extension petctl does not read must not stop it.
		ExcludeExtensionRefs: true,
		Logger:               log,
	}
	if files == nil {
		return cfg
	}
	entry := files.names[0]
	cfg.AllowFileReferences = true
	cfg.BasePath = filepath.Dir(entry)
	cfg.SpecFilePath = filepath.Base(entry)
	if files.read != nil {
		// The files come from memory, as checkRefs read them, under their
		// absolute paths: so the root is /, which also holds the refFolders
		// outside the document's folder. The library looks a file up by its
		// absolute path, whatever folder its file system is filed under.
		// Its only error is one walking the files, which memory does not
		// give; were it to, the library would read the disk as elsewhere.
		if local, err := index.NewLocalFSWithConfig(&index.LocalFSConfig{
			BaseDirectory: "/",
			DirFS:         files.read,
			Logger:        log,
		}); err == nil {
			cfg.LocalFS = local
		}
	}
	return cfg
}

// readModel reads raw, with the files checkRefs read where it was read
// from a file, and builds its OpenAPI 3 model; quickHash is for
// ComparisonModel, and source names the document in errors.
func readModel(raw []byte, source string, files *documentFiles, quickHash bool) (libopenapi.Document, *v3.Document, error) {
	doc, model, _, err := readModelCircles(raw, source, files, quickHash)
	return doc, model, err
}

// readModelCircles is readModel, and the schemas that hold themselves
// without end by libopenapi's word, as quirks: it builds the model
// beside them (and says so, so that a client may go on). Its word is not
// always right: GoDaddy's JsonSchema requires models, an object whose
// items are JsonSchemas, and items do not apply to an object, so {} ends
// it. Where it is right, only that schema's values cannot be made, and a
// document of many operations should not be refused for one.
func readModelCircles(raw []byte, source string, files *documentFiles, quickHash bool) (libopenapi.Document, *v3.Document, []DocumentProblem, error) {
	lib := &libraryLog{}
	cfg := documentConfig(files, slog.New(lib))
	cfg.UseSchemaQuickHash = quickHash
	doc, err := libopenapi.NewDocumentWithConfiguration(raw, cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("spec %s: %s", source, oneLine(err.Error()))
	}
	keepRenderable(doc.GetSpecInfo().RootNode)
	hideExtensionRefs(doc.GetSpecInfo().RootNode)
	if !strings.HasPrefix(doc.GetVersion(), "3.") {
		return nil, nil, nil, fmt.Errorf("spec %s: OpenAPI version %q is not supported (petctl reads OpenAPI 3.0 and 3.1)", source, doc.GetVersion())
	}
	model, err := doc.BuildV3Model()
	circles := circularProblems(err)
	if circles != nil && model != nil {
		err = nil
	}
	if err == nil && model != nil {
		// libopenapi reports some references it could not resolve only in its log.
		err = lib.err()
	}
	if err != nil || model == nil {
		msg := "the document could not be built"
		if err != nil {
			msg = oneLine(err.Error())
		}
		return nil, nil, nil, fmt.Errorf("spec %s: %s", source, msg)
	}
	return doc, &model.Model, circles, nil
}

// circularProblems are err's complaints of schemas that hold themselves
// without end, as quirks; nil when err has another complaint, or none.
func circularProblems(err error) []DocumentProblem {
	var out []DocumentProblem
	for _, e := range utils.UnwrapErrors(err) {
		var re *index.ResolvingError
		if !errors.As(e, &re) || re.CircularReference == nil {
			return nil
		}
		line := 0
		if re.Node != nil {
			line = re.Node.Line
		}
		out = append(out, DocumentProblem{Line: line, Quirk: true,
			Reason: fmt.Sprintf("schema %s requires itself without end, as libopenapi reads it (%s): where it does, no value of it ends, and an answer of it fails its check", re.CircularReference.Start.Name, re.CircularReference.GenerateJourneyPath())})
	}
	return out
}

// ComparisonModel is the document's model for comparing it with another
// version of it (spec/diff). libopenapi's what-changed takes two schemas
// behind the same $ref for equal when their hashes are, and hashes a $ref
// by its text unless the document is read with UseSchemaQuickHash, which
// hashes what the $ref names; even then a schema already rendered (as
// reading a document here renders most) is hashed by its $ref. So a
// document split over files, whose $refs to other files stay the same
// while the files change, is read afresh with the option: without it, a
// field made required in schemas/Pet.yaml goes unseen. A single-file
// document keeps Model: its $refs name its own components, which
// what-changed compares one by one, and the option would hide the changes
// of circular schemas (as its documentation warns).
func (s *Spec) ComparisonModel() (*v3.Document, error) {
	if len(s.Files) <= 1 {
		return s.Model, nil
	}
	_, model, err := readModel(s.Raw, s.Source, s.files, true)
	return model, err
}

// parse builds the document; files are those checkRefs read when it was
// read from a file, nil otherwise.
func parse(raw []byte, source string, files *documentFiles, o LoadOptions) (*Spec, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return nil, fmt.Errorf("spec %s: the file is empty", source)
	}
	doc, model, circles, err := readModelCircles(raw, source, files, false)
	if err != nil {
		return nil, err
	}
	s := &Spec{
		Source:          source,
		Raw:             raw,
		Digest:          digestOf(raw),
		Document:        doc,
		Model:           model,
		files:           files,
		OpenAPI:         doc.GetVersion(),
		SecuritySchemes: map[string]*v3.SecurityScheme{},
		Schemes:         map[string]*Scheme{},
		schemas:         newSchemaReader(),
	}
	// The embedded default is held to the OpenAPI schema by its tests.
	if source != DefaultSource {
		s.problems = append(circles, s.checkDocument()...)
		// What else is wrong may be a consequence; the schema's word comes first.
		if _, err := s.verdict(s.problems, false); err != nil {
			return nil, err
		}
	}
	if info := s.Model.Info; info != nil {
		s.Title, s.Version = info.Title, info.Version
	}
	s.schemas.siblings = strings.HasPrefix(s.OpenAPI, "3.1")
	if err := s.readServers(o); err != nil {
		return nil, fmt.Errorf("spec %s: %w", source, err)
	}
	if c := s.Model.Components; c != nil && c.SecuritySchemes != nil {
		for p := c.SecuritySchemes.First(); p != nil; p = p.Next() {
			s.SecuritySchemes[p.Key()] = p.Value()
			s.Schemes[p.Key()] = readScheme(p.Key(), p.Value())
		}
	}
	if err := s.readOperations(); err != nil {
		return nil, fmt.Errorf("spec %s: %w", source, err)
	}
	s.Collections = inferCollections(s.Operations)
	s.Resources, _ = s.InferResources(nil) // without overrides nothing can fail
	if s.Warnings, err = s.verdict(s.problems, o.Strict); err != nil {
		return nil, err
	}
	return s, nil
}

// readServers resolves the servers' URLs and the base path the operations
// are mounted under.
func (s *Spec) readServers(o LoadOptions) error {
	var first error
	for i, srv := range s.Model.Servers {
		u, err := resolveServer(srv, o.ServerVariables)
		if err != nil {
			if i == 0 {
				first = err
			}
			u = srv.URL
		}
		s.Servers = append(s.Servers, u)
	}
	if o.BasePath != "" {
		var err error
		s.BasePath, err = cleanBasePath(o.BasePath)
		return err
	}
	if len(s.Servers) == 0 {
		return nil
	}
	if first != nil {
		return fmt.Errorf("%w (or set the base path)", first)
	}
	var err error
	s.BasePath, err = serverPath(s.Servers[0])
	return err
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

// ErrorSchema returns the schema the document uses for error responses
// (see commonError).
func (s *Spec) ErrorSchema() *base.Schema {
	schema, _ := s.commonError()
	return schema
}

// errorTier ranks a response as a witness of the document's error
// schema: 0 for an exact 4xx status, 1 for a catch-all (default, 4XX), 2
// for a 5xx (exact or 5XX); -1 for a response that is no error.
func errorTier(r *Response) int {
	switch {
	case r.Status >= 400 && r.Status <= 499:
		return 0
	case r.Code == "default" || strings.EqualFold(r.Code, "4XX"):
		return 1
	case r.Status >= 500 && r.Status <= 599 || strings.EqualFold(r.Code, "5XX"):
		return 2
	}
	return -1
}

// commonError is the JSON schema most of the document's 4xx responses
// share, and the media type the last of them declares it under; where no
// 4xx response declares one, the schema most of its catch-alls (default,
// 4XX) share: a document that declares its errors only as default, as
// generated ones often do; else the 5xx responses'. nil when none
// declares a schema.
func (s *Spec) commonError() (*base.Schema, string) {
	type seen struct {
		schema    *base.Schema
		mediaType string
		count     int
		first     int
	}
	for tier := range 3 {
		byKey := map[string]*seen{}
		var best *seen
		for _, op := range s.Operations {
			for _, r := range op.DeclaredResponses() {
				if r.Schema == nil || errorTier(r) != tier {
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
				e.mediaType = errorMediaType(r.MediaTypes)
			}
		}
		for _, e := range byKey {
			if best == nil || e.count > best.count || (e.count == best.count && e.first < best.first) {
				best = e
			}
		}
		if best != nil {
			return best.schema, best.mediaType
		}
	}
	return nil, ""
}

// SchemaView is libopenapi's schema (a response's, a parameter's) as a
// Schema: the same *Schema every time for the same definition.
func (s *Spec) SchemaView(lib *base.Schema) *Schema { return s.schema(lib) }

// schema is libopenapi's schema as a Schema.
func (s *Spec) schema(lib *base.Schema) *Schema {
	return s.schemas.get(lib)
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		rest := strings.Count(s[i:], "\n")
		s = s[:i] + fmt.Sprintf(" (and %d more lines)", rest)
	}
	return s
}

// digestOf is the Digest of a document not read from a file.
func digestOf(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}
